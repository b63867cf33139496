// stratad: parses the configuration, opens the engine, serves gRPC until
// SIGINT or SIGTERM, then shuts down gracefully (stop accepting, finish
// in-flight calls, flush, close). Exit codes: 0 clean stop, 1 start-up
// failure, 2 bad command line.
#include <csignal>
#include <cstdlib>
#include <optional>

#include "common/strings.h"
#include "server/config.h"
#include "server/logging.h"
#include "server/maintenance_loop.h"
#include "server/server.h"
#include "spdlog/spdlog.h"
#include "storage/engine.h"

namespace {

const char* DurabilityName(strata::Durability d) {
  return d == strata::Durability::kFsync ? "fsync" : "buffered";
}

int Fail(const absl::Status& status) {
  spdlog::error("stratad cannot start: {}", status.message());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  strata::ParsedCommandLine parsed = strata::ParseCommandLine(argc, argv);
  if (parsed.exit_code) return *parsed.exit_code;
  const strata::ServerConfig& config = parsed.config;
  strata::ConfigureLogging(config.log_format, config.log_level);
  if (absl::Status valid = strata::ValidateConfig(config); !valid.ok()) {
    spdlog::error("{}", valid.message());
    return 2;
  }

  // Signals are taken by sigwait below, not by handlers: block them before
  // any thread (RocksDB's, gRPC's) starts so that every thread inherits it.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  spdlog::info("stratad starting: data_dir={} listen={} durability={} max_message_bytes={}",
               config.data_dir, config.listen, DurabilityName(config.durability),
               config.max_message_bytes);
  // --testing-fixed-time: a clock that stands still (golden tests over the wire).
  std::optional<strata::ManualClock> fixed_clock;
  if (auto fixed = strata::FixedTimeNanos(config)) {
    fixed_clock.emplace(*fixed);
    spdlog::warn("the clock stands still at {} (--testing-fixed-time): for tests only",
                 config.testing_fixed_time);
  }
  auto engine = strata::Engine::Open(
      {.data_dir = config.data_dir,
       .durability = config.durability,
       .block_cache_bytes = static_cast<size_t>(config.block_cache_mb) << 20,
       .wal_sync_interval_millis = config.wal_sync_interval_ms,
       .disk_reserve_bytes = static_cast<uint64_t>(config.disk_reserve_mb) << 20,
       .seal_after_nanos = config.seal_after_minutes * strata::kNanosPerMinute,
       .clock = fixed_clock ? &*fixed_clock : nullptr});
  if (!engine.ok()) return Fail(engine.status());

  auto server = strata::Server::Start(
      {.listen = config.listen,
       .max_message_bytes = config.max_message_bytes,
       .query_timeout_millis = config.query_timeout_seconds * 1000LL,
       .query_memory_bytes = static_cast<int64_t>(config.query_memory_mb) << 20,
       .query_memory_total_bytes = static_cast<int64_t>(config.query_memory_total_mb) << 20,
       .query_workers = config.query_workers,
       .query_queue = config.query_queue},
      engine->get());
  if (!server.ok()) return Fail(server.status());
  spdlog::info("stratad serving on port {}", (*server)->port());
  strata::MaintenanceLoop maintenance(engine->get(),
                                      std::chrono::seconds(config.maintenance_interval_seconds));
  maintenance.Start();

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("stratad stopping on {}: finishing in-flight calls (up to {} s)",
               signal == SIGINT ? "SIGINT" : "SIGTERM", config.shutdown_grace_seconds);
  (*server)->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(config.shutdown_grace_seconds));
  server->reset();
  maintenance.Stop();
  spdlog::info("stratad stopped serving; closing the data directory");
  if (absl::Status closed = (*engine)->Close(); !closed.ok()) {
    spdlog::error("stratad stopped with an error while closing the data directory: {}",
                  closed.message());
    return 1;
  }
  spdlog::info("stratad stopped cleanly");
  return 0;
}
