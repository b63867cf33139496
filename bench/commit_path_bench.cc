// The write path in-process, without gRPC or a client on the same cores:
// pre-serialized 100-record WriteRecords requests of TSBS devops rows (10
// tags, 10 doubles, 1,000 hosts, as ingest_bench sends) are read from their
// bytes and written through the engine as stratad's handlers do
// (WireWriteSource, WriteAsync, two threads), with up to --in-flight requests waiting
// for a group commit, into a fresh data directory with fsync. Prints rows/s
// and the process's CPU per row (handler + committer + RocksDB's threads):
// steadier than an end-to-end run, whose client shares the two cores.
// Usage: build/bench/commit_path_bench [--rows N] [--in-flight N] [--dir D] [--buffered]
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/synchronization/mutex.h"
#include "common/process_setup.h"
#include "server/wire/wire_write_source.h"
#include "storage/engine.h"
#include "strata/v1/write.pb.h"

namespace strata {
namespace {

constexpr int kHosts = 1000;
constexpr int kRecordsPerRequest = 100;
constexpr int64_t kTickMillis = 10'000;

// Request `index` of the load: 100 hosts at one tick, hosts in turn.
std::string Request(int64_t index, int64_t start_ms) {
  static const char* kTags[][2] = {
      {"region", "eu-central-1"}, {"datacenter", "eu-central-1b"}, {"rack", "42"},
      {"os", "Ubuntu16.04LTS"},   {"arch", "x64"},                 {"team", "NYC"},
      {"service", "11"},          {"service_version", "1"},        {"service_environment", "production"}};
  static const char* kFields[] = {"usage_user",   "usage_system", "usage_idle",   "usage_nice",
                                  "usage_iowait", "usage_irq",    "usage_softirq", "usage_steal",
                                  "usage_guest",  "usage_guest_nice"};
  v1::WriteRecordsRequest request;
  request.set_database_name("benchmark");
  request.set_table_name("cpu");
  const int64_t first_row = index * kRecordsPerRequest;
  for (int i = 0; i < kRecordsPerRequest; ++i) {
    const int64_t row = first_row + i;
    v1::Record* r = request.add_records();
    v1::Dimension* host = r->add_dimensions();
    host->set_name("hostname");
    host->set_value("host_" + std::to_string(row % kHosts));
    for (const auto& [name, value] : kTags) {
      v1::Dimension* d = r->add_dimensions();
      d->set_name(name);
      d->set_value(value);
    }
    r->set_measure_name("cpu");
    r->set_time(start_ms + row / kHosts * kTickMillis);
    for (int f = 0; f < 10; ++f) {
      v1::MultiMeasureValue* m = r->add_measure_values();
      m->set_name(kFields[f]);
      m->set_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
      m->mutable_value()->set_double_value(static_cast<double>((row * 7 + f) % 10000) / 100);
    }
  }
  return request.SerializeAsString();
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

int Run(int64_t rows, int in_flight, const std::string& dir, bool buffered) {
  std::filesystem::remove_all(dir);
  auto opened = Engine::Open(
      {.data_dir = dir, .durability = buffered ? Durability::kBuffered : Durability::kFsync});
  if (!opened.ok()) {
    std::fprintf(stderr, "cannot open the engine: %s\n", opened.status().ToString().c_str());
    return 1;
  }
  Engine& engine = **opened;
  if (!engine.catalog().CreateDatabase("benchmark", "").ok() ||
      !engine.catalog()
           .CreateTable({.database_name = "benchmark", .table_name = "cpu",
                         .retention = {.memory_store_retention_hours = 8766}})
           .ok()) {
    std::fprintf(stderr, "cannot create the table\n");
    return 1;
  }
  const int64_t requests = rows / kRecordsPerRequest;
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t start_ms = now_ms - 60'000 - (rows / kHosts + 1) * kTickMillis;
  std::vector<std::string> serialized;
  serialized.reserve(requests);
  for (int64_t i = 0; i < requests; ++i) serialized.push_back(Request(i, start_ms));

  // Requests written and waiting, under `mu`.
  struct InFlight {
    int waiting = 0;
    int limit = 0;
    int64_t written = 0, failed = 0;
    bool HasRoom() const { return waiting < limit; }
    bool Drained() const { return waiting == 0; }
  };
  absl::Mutex mu;
  InFlight state{.limit = in_flight};
  const double cpu_before = ProcessCpuSeconds();
  const auto started = std::chrono::steady_clock::now();
  // Two handler threads, as gRPC runs on this machine's two cores.
  std::atomic<size_t> next{0};
  auto handler = [&] {
    for (size_t i = next++; i < serialized.size(); i = next++) {
      {
        absl::MutexLock lock(&mu);
        mu.Await(absl::Condition(&state, &InFlight::HasRoom));
        ++state.waiting;
      }
      WireWriteRequest request;
      if (!request.Decode(serialized[i])) {
        std::fprintf(stderr, "the wire reader refused request %zu\n", i);
        std::abort();
      }
      WireWriteSource source(request);
      engine.WriteAsync(source, [&](absl::StatusOr<WriteResult> result) {
        absl::MutexLock lock(&mu);
        --state.waiting;
        if (result.ok() && result->rejected.empty()) {
          state.written += result->total();
        } else {
          ++state.failed;
        }
      });
    }
  };
  std::thread first(handler), second(handler);
  first.join();
  second.join();
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(&state, &InFlight::Drained));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double cpu = ProcessCpuSeconds() - cpu_before;
  std::printf("rows=%lld in_flight=%d seconds=%.2f rows/s=%.0f cpu_us/row=%.2f failed=%lld\n",
              static_cast<long long>(state.written), in_flight, seconds, state.written / seconds,
              cpu * 1e6 / static_cast<double>(state.written), static_cast<long long>(state.failed));
  (void)engine.Close();
  std::filesystem::remove_all(dir);
  return state.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace strata

int main(int argc, char** argv) {
  strata::SkipMutexDeadlockDetection();
  CLI::App app{"Strata's write path in-process (parse, normalize, group commit with fsync)"};
  int64_t rows = 500'000;
  int in_flight = 16;
  std::string dir = (std::filesystem::temp_directory_path() / "strata-commit-path-bench").string();
  app.add_option("--rows", rows, "Rows to write (a multiple of 100)")->capture_default_str();
  app.add_option("--in-flight", in_flight, "Requests waiting for a commit at most")
      ->capture_default_str();
  app.add_option("--dir", dir, "Data directory (removed first and after)")->capture_default_str();
  bool buffered = false;
  app.add_flag("--buffered", buffered, "Durability buffered (no fsync per group), as stratad's");
  CLI11_PARSE(app, argc, argv);
  return strata::Run(rows, in_flight, dir, buffered);
}
