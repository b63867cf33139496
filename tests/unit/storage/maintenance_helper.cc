// Runs one maintenance pass (tiering, then retention) over a data directory
// at a given clock time, then exits. The crash tests kill it with SIGKILL at
// random moments: a real process dying mid-job, not a simulated failure.
// Usage: maintenance_helper DATA_DIR NOW_NANOS
//
// With `write FIRST_BATCH BUDGET_BYTES` it writes instead, with the memory
// head's budget that small, so the budget's thread converts hours while the
// writes go on: four threads write batch b (from FIRST_BATCH, 20 hosts) at
// NOW - 3 h + b * 2 s with value b * 100 + host into "mydb"."live", printing
// b once it is acknowledged, until killed or past batch 4999.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "storage/engine.h"

namespace {

// Writes batches first_batch + thread, + threads, ... (one thread's share).
bool WriteShare(strata::Engine& engine, int64_t now, int first_batch, int thread, int threads) {
  for (int b = first_batch + thread; b < 5000; b += threads) {
    strata::WriteRequest request{.database_name = "mydb", .table_name = "live"};
    for (int h = 0; h < 20; ++h) {
      strata::InputRecord r;
      r.dimensions = {{"host", "h" + std::to_string(h)}};
      r.measure_name = "usage";
      r.measure_value = strata::Value::Double(b * 100 + h);
      r.time = now - 3 * strata::kNanosPerHour + b * 2 * strata::kNanosPerSecond;
      r.time_unit = strata::TimeUnit::kNanoseconds;
      request.records.push_back(std::move(r));
    }
    while (true) {
      auto result = engine.Write(request);
      if (result.status().code() == absl::StatusCode::kResourceExhausted) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // over twice the budget
        continue;
      }
      if (!result.ok() || !result->rejected.empty()) {
        std::fprintf(stderr, "batch %d: %s\n", b,
                     result.ok() ? result->rejected[0].reason.c_str()
                                 : std::string(result.status().message()).c_str());
        return false;
      }
      break;
    }
    std::printf("%d\n", b);  // one write(2) per line: lines of threads do not mix
    std::fflush(stdout);
  }
  return true;
}

// Four writers at once, so write groups commit while hours are converted.
int Write(strata::Engine& engine, int64_t now, int first_batch) {
  constexpr int kThreads = 4;
  std::atomic<bool> ok{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      if (!WriteShare(engine, now, first_batch, t, kThreads)) ok = false;
    });
  }
  for (std::thread& t : threads) t.join();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::string(argv[3]) == "write") {
    const int64_t now = std::strtoll(argv[2], nullptr, 10);
    strata::ManualClock clock(now);
    auto engine = strata::Engine::Open({.data_dir = argv[1],
                                        .memory_store_budget_bytes = std::atoll(argv[5]),
                                        .clock = &clock});
    if (!engine.ok()) {
      std::fprintf(stderr, "%s\n", std::string(engine.status().message()).c_str());
      return 1;
    }
    return Write(**engine, now, std::atoi(argv[4]));
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: maintenance_helper DATA_DIR NOW_NANOS\n");
    return 2;
  }
  strata::ManualClock clock(std::strtoll(argv[2], nullptr, 10));
  auto engine = strata::Engine::Open({.data_dir = argv[1], .clock = &clock});
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", std::string(engine.status().message()).c_str());
    return 1;
  }
  for (const auto& result : (*engine)->RunMaintenance()) {
    if (!result.status.ok()) {
      std::fprintf(stderr, "%s\n", std::string(result.status.message()).c_str());
      return 1;
    }
  }
  return (*engine)->Close().ok() ? 0 : 1;
}
