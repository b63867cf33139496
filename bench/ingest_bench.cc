// Ingest load generator: TSBS "devops cpu-only"-shaped data written to a
// running stratad over gRPC.
//
// N hosts with 10 tags each (hostname, region, datacenter, rack, os, arch,
// team, service, service_version, service_environment) and 10 fields
// (usage_user .. usage_guest_nice) that follow a bounded random walk; one row
// per host every 10 s of simulated time, written as MULTI records (or, with
// --single, one record per field), 100 records per request (--batch), from K
// concurrent streams. Reports rows/s, measures/s, request latency
// percentiles, the longest request (write stalls) and the server's RSS.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_connection.h"
#include "common/process_setup.h"
#include "grpcpp/create_channel.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kFields[] = {"usage_user",   "usage_system", "usage_idle",
                                   "usage_nice",   "usage_iowait", "usage_irq",
                                   "usage_softirq", "usage_steal", "usage_guest",
                                   "usage_guest_nice"};
constexpr int kFieldCount = 10;
constexpr int64_t kTickMillis = 10'000;

struct Host {
  std::vector<std::pair<std::string, std::string>> tags;
  double fields[kFieldCount];
};

std::vector<Host> MakeHosts(int n, std::mt19937_64& random) {
  const char* regions[] = {"us-east-1", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1",
                           "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1"};
  const char* oses[] = {"Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"};
  const char* arches[] = {"x64", "x86"};
  const char* teams[] = {"SF", "NYC", "LON", "CHI"};
  const char* envs[] = {"production", "staging", "test"};
  std::vector<Host> hosts(n);
  for (int i = 0; i < n; ++i) {
    auto pick = [&](auto& options) {
      return std::string(options[random() % (sizeof(options) / sizeof(options[0]))]);
    };
    std::string region = pick(regions);
    hosts[i].tags = {{"hostname", "host_" + std::to_string(i)},
                     {"region", region},
                     {"datacenter", region + static_cast<char>('a' + random() % 3)},
                     {"rack", std::to_string(random() % 100)},
                     {"os", pick(oses)},
                     {"arch", pick(arches)},
                     {"team", pick(teams)},
                     {"service", std::to_string(random() % 20)},
                     {"service_version", std::to_string(random() % 2)},
                     {"service_environment", pick(envs)}};
    for (double& f : hosts[i].fields) f = static_cast<double>(random() % 100);
  }
  return hosts;
}

// One tick of the random walk; with `decimals` >= 0 the values are rounded to
// that many decimal places, as agents usually report them. With
// `step_hundredths` > 0 a step is instead a uniform whole number of hundredths
// in [-step, +step] (the peer run's data: 173 gives log2(347) = 8.44 bits of
// entropy a value), kept in integers so no rounding biases it.
void Step(Host& host, std::mt19937_64& random, int decimals, int step_hundredths) {
  if (step_hundredths > 0) {
    std::uniform_int_distribution<int> delta(-step_hundredths, step_hundredths);
    for (double& f : host.fields) {
      const long hundredths = std::clamp(std::lround(f * 100) + delta(random), 0L, 10000L);
      f = static_cast<double>(hundredths) / 100;
    }
    return;
  }
  std::uniform_real_distribution<double> delta(-1.0, 1.0);
  const double scale = decimals >= 0 ? std::pow(10.0, decimals) : 0;
  for (double& f : host.fields) {
    f = std::clamp(f + delta(random), 0.0, 100.0);
    if (decimals >= 0) f = std::round(f * scale) / scale;
  }
}

// Sets the record's dimensions to the host's tags, reusing the messages it
// has: every host has the same tag names in the same order, so a reused
// dimension keeps its name.
void SetDimensions(const Host& host, strata::v1::Record* r) {
  for (size_t i = 0; i < host.tags.size(); ++i) {
    const int at = static_cast<int>(i);
    if (at < r->dimensions_size()) {
      r->mutable_dimensions(at)->set_value(host.tags[i].second);
    } else {
      strata::v1::Dimension* d = r->add_dimensions();
      d->set_name(host.tags[i].first);
      d->set_value(host.tags[i].second);
    }
  }
}

long ServerRssKb(int pid) {
  if (pid <= 0) return -1;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  strata::SkipMutexDeadlockDetection();  // the load generator's gRPC locks too
  CLI::App app{"Strata ingest benchmark (TSBS devops cpu-only data over gRPC)"};
  strata::bench::BenchConnection connection;
  int hosts_n = 1000, streams = 4, server_pid = 0, memory_hours = 8766, decimals = -1;
  int64_t rows_total = 2'000'000;
  bool single = false;
  std::string database = "benchmark", table = "cpu";
  connection.AddOptions(app);
  app.add_option("--hosts", hosts_n, "Number of hosts")->capture_default_str();
  app.add_option("--rows", rows_total, "Rows (host x tick) to write")->capture_default_str();
  app.add_option("--streams", streams, "Concurrent request streams")->capture_default_str();
  app.add_option("--server-pid", server_pid, "stratad's pid, to report its RSS");
  app.add_option("--decimals", decimals,
                 "Round field values to this many decimal places (default: full precision)");
  int step_hundredths = 0;
  app.add_option("--step-hundredths", step_hundredths,
                 "Walk in uniform whole steps of hundredths in [-N, N] (two-decimal values)");
  int batch = 100;
  app.add_option("--batch", batch, "Records per request (Timestream allows at most 100)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_flag("--single", single, "One record per field instead of MULTI records");
  app.add_option("--database", database)->capture_default_str();
  app.add_option("--table", table)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto channel = connection.Channel();
  auto catalog = strata::v1::CatalogService::NewStub(channel);
  {
    grpc::ClientContext c1, c2;
    connection.Authorize(c1);
    connection.Authorize(c2);
    strata::v1::CreateDatabaseRequest db;
    db.set_database_name(database);
    strata::v1::CreateDatabaseResponse dr;
    catalog->CreateDatabase(&c1, db, &dr);  // may already exist
    strata::v1::CreateTableRequest t;
    t.set_database_name(database);
    t.set_table_name(table);
    t.mutable_retention_properties()->set_memory_store_retention_hours(memory_hours);
    t.mutable_retention_properties()->set_magnetic_store_retention_days(73000);
    strata::v1::CreateTableResponse tr;
    grpc::Status s = catalog->CreateTable(&c2, t, &tr);
    if (!s.ok() && s.error_code() != grpc::StatusCode::ALREADY_EXISTS) {
      std::fprintf(stderr, "CreateTable: %s\n", s.error_message().c_str());
      return 1;
    }
  }

  std::mt19937_64 seed_random(42);
  std::vector<Host> hosts = MakeHosts(hosts_n, seed_random);
  const int64_t ticks = (rows_total + hosts_n - 1) / hosts_n;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  // Simulated time ends a minute ago, so every tick is inside the window.
  const int64_t start_ms = now_ms - 60'000 - ticks * kTickMillis;

  std::atomic<int64_t> rows_done{0}, rejected{0}, failed{0};
  std::vector<std::vector<double>> latencies(streams);
  auto started = Clock::now();
  std::vector<std::thread> threads;
  for (int s = 0; s < streams; ++s) {
    threads.emplace_back([&, s] {
      auto writer = strata::v1::WriteService::NewStub(channel);
      std::mt19937_64 random(1000 + s);
      // Stream s owns the hosts s, s + streams, ... and walks time forward.
      std::vector<int> mine;
      for (int h = s; h < hosts_n; h += streams) mine.push_back(h);
      // The request and its records are reused from one request to the next,
      // fields set in place (no Clear(), which frees every record's value
      // messages): the generator should load the server, not itself.
      strata::v1::WriteRecordsRequest request;
      request.set_database_name(database);
      request.set_table_name(table);
      int filled = 0;  // records of `request` that belong to the next write
      auto next_record = [&]() -> strata::v1::Record* {
        return filled < request.records_size() ? request.mutable_records(filled++)
                                                : (++filled, request.add_records());
      };
      auto flush = [&] {
        if (filled == 0) return;
        if (filled < request.records_size()) {
          request.mutable_records()->DeleteSubrange(filled, request.records_size() - filled);
        }
        grpc::ClientContext context;
        connection.Authorize(context);
        strata::v1::WriteRecordsResponse response;
        auto t0 = Clock::now();
        grpc::Status status = writer->WriteRecords(&context, request, &response);
        latencies[s].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!status.ok()) {
          if (failed++ == 0) std::fprintf(stderr, "write failed: %s\n", status.error_message().c_str());
        } else {
          rejected += response.rejected_records_size();
          if (response.rejected_records_size() > 0 && rejected == response.rejected_records_size()) {
            std::fprintf(stderr, "rejected: %s\n", response.rejected_records(0).reason().c_str());
          }
        }
        filled = 0;
      };
      for (int64_t tick = 0; tick < ticks; ++tick) {
        const int64_t time = start_ms + tick * kTickMillis;
        for (int h : mine) {
          Host& host = hosts[h];
          Step(host, random, decimals, step_hundredths);
          if (single) {
            for (int f = 0; f < kFieldCount; ++f) {
              strata::v1::Record* r = next_record();
              SetDimensions(host, r);
              r->set_measure_name(kFields[f]);
              r->mutable_measure_value()->set_double_value(host.fields[f]);
              r->set_time(time);
              if (filled == batch) flush();
            }
          } else {
            strata::v1::Record* r = next_record();
            SetDimensions(host, r);
            if (!r->has_measure_name()) r->set_measure_name("cpu");
            r->set_time(time);
            for (int f = 0; f < kFieldCount; ++f) {
              strata::v1::MultiMeasureValue* m;
              if (f < r->measure_values_size()) {
                m = r->mutable_measure_values(f);  // named already
              } else {
                m = r->add_measure_values();
                m->set_name(kFields[f]);
              }
              m->mutable_value()->set_double_value(host.fields[f]);
            }
            if (filled == batch) flush();
          }
          rows_done++;
        }
      }
      flush();
    });
  }
  std::atomic<bool> done{false};
  long peak_rss = 0;
  std::thread sampler([&] {
    while (!done) {
      peak_rss = std::max(peak_rss, ServerRssKb(server_pid));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  for (auto& t : threads) t.join();
  // Timed before the sampler is joined: it sleeps 200 ms between samples, and
  // waiting for it added 0-200 ms to every run (rows/s came out in steps).
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  done = true;
  sampler.join();

  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) { return all.empty() ? 0 : all[static_cast<size_t>(p * (all.size() - 1))]; };
  const int64_t rows = rows_done.load();
  const int64_t measures = rows * kFieldCount;
  std::printf("mode=%s hosts=%d rows=%lld streams=%d seconds=%.1f\n", single ? "single" : "multi",
              hosts_n, static_cast<long long>(rows), streams, seconds);
  std::printf("rows/s=%.0f measures/s=%.0f requests=%zu\n",
              (single ? measures : rows) / seconds * (single ? 1.0 / kFieldCount : 1.0),
              measures / seconds, all.size());
  std::printf("latency_ms p50=%.2f p99=%.2f max=%.2f\n", pct(0.5), pct(0.99),
              all.empty() ? 0 : all.back());
  std::printf("rejected=%lld failed_requests=%lld server_peak_rss_mb=%.0f\n",
              static_cast<long long>(rejected.load()), static_cast<long long>(failed.load()),
              peak_rss / 1024.0);
  return failed > 0 ? 1 : 0;
}
