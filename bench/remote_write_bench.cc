// Prometheus remote write load: requests shaped as a Prometheus server sends
// them (one sample per series per request, up to 2,000 series, snappy
// compressed) posted to a running stratad's /api/v1/write from several
// connections at once, as Prometheus's shards do. Reports samples/s, request
// latency and, given the server's pid, its CPU per sample.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "httplib.h"
#include "prometheus/remote.pb.h"
#include "snappy.h"

namespace {

using Clock = std::chrono::steady_clock;

// The server's user + system CPU seconds so far (/proc/PID/stat).
double ServerCpuSeconds(int pid) {
  if (pid <= 0) return 0;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 15 && stat >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Request `r`: every series' sample at the r-th scrape (15 s apart).
std::string MakeRequest(int series, int r, int64_t start_ms) {
  prometheus::WriteRequest request;
  for (int s = 0; s < series; ++s) {
    prometheus::TimeSeries* ts = request.add_timeseries();
    auto label = [&](const std::string& name, const std::string& value) {
      prometheus::Label* l = ts->add_labels();
      l->set_name(name);
      l->set_value(value);
    };
    // Labels sorted by name, as Prometheus sends them.
    label("__name__", "node_metric_" + std::to_string(s % 20));
    label("device", "dev" + std::to_string(s / 2000));
    label("instance", "host_" + std::to_string((s / 20) % 100) + ":9100");
    label("job", "node");
    prometheus::Sample* sample = ts->add_samples();
    sample->set_timestamp(start_ms + int64_t{r} * 15'000);
    sample->set_value(static_cast<double>((s * 31 + r * 7) % 1000) / 10.0);
  }
  std::string compressed;
  const std::string bytes = request.SerializeAsString();
  snappy::Compress(bytes.data(), bytes.size(), &compressed);
  return compressed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Prometheus remote write load against stratad's HTTP port"};
  std::string host = "127.0.0.1";
  int port = 0, series = 2000, requests = 100, in_flight = 4, server_pid = 0;
  std::string database = "prometheus";
  app.add_option("--http-port", port, "stratad's HTTP port")->required();
  app.add_option("--series", series, "Series (samples) per request")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--requests", requests, "Requests (scrapes) to send")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--in-flight", in_flight, "Connections sending at once")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--server-pid", server_pid, "stratad's pid, for its CPU per sample");
  app.add_option("--database", database)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t start_ms = now_ms - 60'000 - int64_t{requests} * 15'000;
  std::vector<std::string> bodies;
  for (int r = 0; r < requests; ++r) bodies.push_back(MakeRequest(series, r, start_ms));

  std::atomic<int> next{0}, failed{0};
  std::vector<std::vector<double>> latencies(in_flight);
  const double cpu_before = ServerCpuSeconds(server_pid);
  const auto started = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < in_flight; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client client(host, port);
      client.set_read_timeout(600);
      const httplib::Headers headers = {{"Content-Encoding", "snappy"},
                                        {"X-Prometheus-Remote-Write-Version", "0.1.0"}};
      const std::string path = "/api/v1/write?db=" + database;
      for (int r = next++; r < requests; r = next++) {
        const auto t0 = Clock::now();
        auto res = client.Post(path, headers, bodies[r], "application/x-protobuf");
        latencies[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!res || res->status != 204) {
          if (failed++ == 0) {
            std::fprintf(stderr, "request failed: %s\n",
                         res ? (std::to_string(res->status) + " " + res->body).c_str()
                             : httplib::to_string(res.error()).c_str());
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  const double cpu = ServerCpuSeconds(server_pid) - cpu_before;

  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const double samples = static_cast<double>(series) * requests;
  std::printf("series=%d requests=%d in_flight=%d seconds=%.2f samples/s=%.0f\n", series,
              requests, in_flight, seconds, samples / seconds);
  std::printf("latency_ms p50=%.1f max=%.1f failed=%d", all[all.size() / 2], all.back(),
              failed.load());
  if (server_pid > 0) std::printf(" server_cpu_us/sample=%.2f", cpu * 1e6 / samples);
  std::printf("\n");
  return failed > 0 ? 1 : 0;
}
