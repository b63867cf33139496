// Magnetic-store compactness and tiering speed, in-process (the storage
// engine with a ManualClock; no gRPC in the way):
//  1. bytes per stored point in the magnetic tier for the devops cpu data
//     (10 float fields, a clamped ±1 random walk at full double precision,
//     as TSBS generates), the same rounded to two decimals, and a slowly
//     changing integer series: encoded block bytes, and on-disk bytes of the
//     `cold` family after RocksDB's compaction (ZSTD at the bottom level);
//  2. tiering throughput (rows/s);
//  3. ingest throughput with and without a tiering job running beside it.
// Usage: tiering_bench [--hosts N] [--hours H] [--dir PATH]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

#include "CLI/CLI.hpp"
#include "common/clock.h"
#include "storage/engine.h"

namespace {

using namespace strata;
using Steady = std::chrono::steady_clock;

constexpr int64_t kStart = 1'700'006'400LL * kNanosPerSecond;  // on an hour boundary
constexpr int64_t kInterval = 10 * kNanosPerSecond;
const char* const kFields[] = {"usage_user", "usage_system", "usage_idle", "usage_nice",
                               "usage_iowait", "usage_irq", "usage_softirq", "usage_steal",
                               "usage_guest", "usage_guest_nice"};

enum class Shape { kDevopsFloat, kTwoDecimals, kSlowInteger };

double Seconds(Steady::time_point since) {
  return std::chrono::duration<double>(Steady::now() - since).count();
}

struct Loaded {
  std::unique_ptr<Engine> engine;
  int64_t rows = 0;
  int64_t points = 0;  // measure values
};

void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
}

Loaded Load(const std::string& dir, ManualClock* clock, Shape shape, int hosts, int hours) {
  std::filesystem::remove_all(dir);
  clock->Set(kStart + hours * kNanosPerHour);
  auto engine = Engine::Open({.data_dir = dir, .durability = Durability::kBuffered, .clock = clock});
  Check(engine.status());
  Loaded loaded{std::move(*engine)};
  Check(loaded.engine->catalog().CreateDatabase("bench", "").status());
  Check(loaded.engine->catalog()
            .CreateTable({.database_name = "bench", .table_name = "tbl",
                          .retention = {.memory_store_retention_hours = hours + 1,
                                        .magnetic_store_retention_days = 3650}})
            .status());
  std::mt19937_64 random(1);
  std::uniform_real_distribution<double> step(-1.0, 1.0);
  const int fields = shape == Shape::kSlowInteger ? 1 : 10;
  std::vector<std::vector<double>> value(hosts, std::vector<double>(fields));
  for (auto& h : value) for (double& f : h) f = static_cast<double>(random() % 100);
  for (int64_t t = kStart; t < kStart + hours * kNanosPerHour; t += kInterval) {
    for (int base = 0; base < hosts; base += 100) {
      WriteRequest request{.database_name = "bench", .table_name = "tbl"};
      for (int h = base; h < std::min(hosts, base + 100); ++h) {
        InputRecord r;
        r.dimensions = {{"hostname", "host_" + std::to_string(h)}};
        r.time = t;
        r.time_unit = TimeUnit::kNanoseconds;
        if (shape == Shape::kSlowInteger) {
          // A count that moves by a little now and then (processes, sessions).
          if (random() % 10 == 0) value[h][0] += static_cast<double>(random() % 7) - 3;
          r.measure_name = "procs";
          r.measure_value = Value::Bigint(static_cast<int64_t>(value[h][0]));
        } else {
          r.measure_name = "cpu";
          for (int f = 0; f < fields; ++f) {
            double& v = value[h][f];
            v = std::clamp(v + step(random), 0.0, 100.0);
            const double stored = shape == Shape::kTwoDecimals ? std::round(v * 100) / 100 : v;
            r.measure_values.push_back(
                {.name = kFields[f], .type = MeasureKind::kDouble, .value = Value::Double(stored)});
          }
        }
        request.records.push_back(std::move(r));
      }
      auto result = loaded.engine->Write(request);
      Check(result.status());
      loaded.rows += static_cast<int64_t>(request.records.size());
    }
  }
  loaded.points = loaded.rows * fields;
  return loaded;
}

// Writes current-time records of `hosts` new hosts from one thread until
// `stop`; returns rows per second.
double IngestUntil(Engine& engine, int64_t now, int hosts, const std::atomic<bool>& stop) {
  const auto started = Steady::now();
  int64_t rows = 0;
  for (int64_t t = now - kNanosPerHour + 1; !stop.load(); t += kInterval) {
    WriteRequest request{.database_name = "bench", .table_name = "tbl"};
    for (int h = 0; h < hosts; ++h) {
      InputRecord r;
      r.dimensions = {{"hostname", "live_" + std::to_string(h)}};
      r.measure_name = "cpu";
      r.time = t;
      r.time_unit = TimeUnit::kNanoseconds;
      for (const char* field : kFields) {
        r.measure_values.push_back(
            {.name = field, .type = MeasureKind::kDouble, .value = Value::Double(h + t % 100)});
      }
      request.records.push_back(std::move(r));
    }
    Check(engine.Write(request).status());
    rows += hosts;
  }
  return rows / Seconds(started);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Magnetic-store bytes per point and tiering throughput");
  int hosts = 100, hours = 24;
  std::string dir = "/tmp/strata-tiering-bench";
  app.add_option("--hosts", hosts);
  app.add_option("--hours", hours);
  app.add_option("--dir", dir);
  CLI11_PARSE(app, argc, argv);

  ManualClock clock(kStart);
  const struct {
    Shape shape;
    const char* name;
  } shapes[] = {{Shape::kDevopsFloat, "devops cpu, 10 float fields (full precision walk)"},
                {Shape::kTwoDecimals, "devops cpu, 10 float fields rounded to 0.01"},
                {Shape::kSlowInteger, "slowly changing BIGINT (moves 1 in 10 points)"}};
  std::printf("%d hosts x %d h at 10 s\n", hosts, hours);
  for (const auto& s : shapes) {
    Loaded loaded = Load(dir, &clock, s.shape, hosts, hours);
    clock.Advance(2 * hours * kNanosPerHour + 2 * kNanosPerHour);
    // Ingest alone for as long as tiering will take, then beside it.
    std::atomic<bool> stop = false;
    double alone = 0, beside = 0;
    if (s.shape == Shape::kDevopsFloat) {
      std::thread ingest([&] { alone = IngestUntil(*loaded.engine, clock.NowNanos(), 100, stop); });
      std::this_thread::sleep_for(std::chrono::seconds(2));
      stop = true;
      ingest.join();
      stop = false;
      ingest = std::thread([&] { beside = IngestUntil(*loaded.engine, clock.NowNanos(), 100, stop); });
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      auto started = Steady::now();
      auto results = loaded.engine->RunMaintenance();
      const double seconds = Seconds(started);
      stop = true;
      ingest.join();
      Check(results.at(0).status);
      std::printf("ingest (one writer, 100-row batches, in-process): %.0f rows/s alone, "
                  "%.0f rows/s while tiering %lld rows in %.1f s\n",
                  alone, beside, static_cast<long long>(results[0].tiering.rows_moved), seconds);
      // Reload for the measurements below, without the live hosts.
      Check(loaded.engine->Close());
      loaded = Load(dir, &clock, s.shape, hosts, hours);
      clock.Advance(2 * hours * kNanosPerHour + 2 * kNanosPerHour);
    }
    auto started = Steady::now();
    auto results = loaded.engine->RunMaintenance();
    const double tier_seconds = Seconds(started);
    Check(results.at(0).status);
    const TieringReport& report = results[0].tiering;
    auto table = *loaded.engine->catalog().DescribeTable("bench", "tbl");
    // Encoded bytes: what the blocks (and their keys) take before RocksDB.
    ScanStats scan;
    Check(loaded.engine->Scan(table, {}, [](const ScanRow&) { return true; }, &scan));
    // On disk: after the `cold` family settles into its bottom level (ZSTD).
    Check(loaded.engine->CompactAll());
    auto stats = loaded.engine->StorageStats(table);
    Check(stats.status());
    const double points = static_cast<double>(loaded.points);
    std::printf("%s\n  rows %lld, points %lld, blocks %lld; tiering %.0f rows/s (%.1f s)\n"
                "  encoded %.3f B/point, on disk %.3f B/point (cold family %lld bytes)\n",
                s.name, static_cast<long long>(loaded.rows), static_cast<long long>(loaded.points),
                static_cast<long long>(report.blocks_written), report.rows_moved / tier_seconds,
                tier_seconds, scan.bytes_scanned / points,
                static_cast<double>(stats->magnetic_blocks.bytes) / points,
                static_cast<long long>(stats->magnetic_blocks.bytes));
    Check(loaded.engine->Close());
  }
  return 0;
}
