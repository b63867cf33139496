// stratad: parses the configuration, opens the engine, serves gRPC until
// SIGINT or SIGTERM, then shuts down gracefully (stop accepting, finish
// in-flight calls, flush, close). Exit codes: 0 clean stop, 1 start-up
// failure, 2 bad command line.
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <optional>

#include "common/process_setup.h"
#include "common/strings.h"
#include "server/authenticator.h"
#include "server/config.h"
#include "server/http_server.h"
#include "server/pg_server.h"
#include "server/logging.h"
#include "server/maintenance_loop.h"
#include "server/server.h"
#include "server/tls.h"
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

// jemalloc's options, read at its start: give freed pages back to the system
// within a second (its default keeps them ten). The memory head frees a
// converted hour's rows at once; without this the server's RSS stayed
// hundreds of MB above what it held (docs/benchmarks.md, 100,000 series).
extern "C" const char* malloc_conf;
const char* malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0";

int main(int argc, char** argv) {
  strata::SkipMutexDeadlockDetection();
  strata::ParsedCommandLine parsed = strata::ParseCommandLine(argc, argv);
  if (parsed.exit_code) return *parsed.exit_code;
  const strata::ServerConfig& config = parsed.config;
  strata::ConfigureLogging(config.log_format, config.log_level);
  if (absl::Status valid = strata::ValidateConfig(config); !valid.ok()) {
    spdlog::error("{}", valid.message());
    return 2;
  }

  // The data directory and every file the server creates are its owner's
  // alone, whatever the caller's umask (PostgreSQL insists on the same):
  // the directory is created 0700, files 0600.
  umask(077);

  // Signals are taken by sigwait below, not by handlers: block them before
  // any thread (RocksDB's, gRPC's) starts so that every thread inherits it.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
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
  if (!config.restore_from.empty()) {
    auto restored = strata::RestoreBackup(config.restore_from,
                                          static_cast<uint32_t>(config.restore_backup_id),
                                          config.data_dir);
    if (!restored.ok()) return Fail(restored.status());
    spdlog::info("restored backup {} of {} ({} files, {} bytes) into {}; start without "
                 "--restore-from from now on",
                 restored->id, config.restore_from, restored->files, restored->bytes,
                 config.data_dir);
    if (config.restore_only) return 0;
  }
  auto engine = strata::Engine::Open(
      {.data_dir = config.data_dir,
       .durability = config.durability,
       .block_cache_bytes = static_cast<size_t>(config.block_cache_mb) << 20,
       .wal_sync_interval_millis = config.wal_sync_interval_ms,
       .disk_reserve_bytes = static_cast<uint64_t>(config.disk_reserve_mb) << 20,
       .rocksdb_log = strata::RocksDbLogger(),
       .write_queue = config.write_queue,
       .seal_after_nanos = config.seal_after_minutes * strata::kNanosPerMinute,
       .memory_store_budget_bytes = int64_t{config.memory_store_budget_mb} << 20,
       .clock = fixed_clock ? &*fixed_clock : nullptr});
  if (!engine.ok()) return Fail(engine.status());

  const strata::TlsConfig tls{.cert_file = config.tls_cert,
                               .key_file = config.tls_key,
                               .client_ca_file = config.tls_client_ca,
                               .reload_seconds = config.tls_reload_seconds};
  if (absl::Status checked = strata::CheckTlsFiles(tls); !checked.ok()) return Fail(checked);
  auto auth = strata::Authenticator::Open(
      &(*engine)->tokens(), &(*engine)->clock(),
      {.enabled = strata::AuthEnabled(config),
       .failure_limit = config.auth_failure_limit,
       .bootstrap_token_file = strata::BootstrapTokenFile(config)});
  if (!auth.ok()) return Fail(auth.status());
  if (config.restore_revoke_tokens) {
    if (auto revoked = (*auth)->RevokeAllAndCreateAdmin("restore"); !revoked.ok()) {
      return Fail(revoked.status());
    }
  }
  spdlog::info("stratad security: tls={}{} auth={}", tls.enabled() ? "on" : "off",
               config.tls_client_ca.empty() ? "" : " (client certificates required)",
               (*auth)->enabled() ? "on (bearer tokens)" : "off");
  if (!(*auth)->enabled() && config.allow_unauthenticated_remote) {
    spdlog::warn("--allow-unauthenticated-remote: anyone who can reach {} can read and write",
                 config.listen);
  }

  strata::ServerMetrics metrics(engine->get());
  auto server = strata::Server::Start(
      {.listen = config.listen,
       .max_message_bytes = config.max_message_bytes,
       .query_timeout_millis = config.query_timeout_seconds * 1000LL,
       .query_memory_bytes = static_cast<int64_t>(config.query_memory_mb) << 20,
       .query_memory_total_bytes = static_cast<int64_t>(config.query_memory_total_mb) << 20,
       .query_workers = config.query_workers,
       .query_queue = config.query_queue,
       .slow_query_millis = config.slow_query_ms,
       .testing_query_delay_millis = config.testing_query_delay_ms,
       .tls = tls,
       .scheduled_queries = {.workers = config.scheduled_query_workers,
                             .max_catch_up = config.scheduled_query_max_catch_up,
                             .history = config.scheduled_query_history,
                             .retries = config.scheduled_query_retries,
                             .retry_delay_nanos = config.scheduled_query_retry_delay_seconds *
                                                  strata::kNanosPerSecond},
       .testing_clock = fixed_clock ? &*fixed_clock : nullptr},
      engine->get(), auth->get(), &metrics);
  if (!server.ok()) return Fail(server.status());
  std::unique_ptr<strata::HttpServer> http;
  if (!config.http_listen.empty()) {
    auto started = strata::HttpServer::Start(
        {.listen = config.http_listen,
         .tls = tls,
         .limits = {.max_connections = config.http_max_connections,
                    .head_timeout_millis = config.http_header_timeout_seconds * 1000},
         .ingest = {.auto_create_tables = config.http_auto_create}},
        engine->get(), auth->get(), &metrics, (*server)->query_service());
    if (!started.ok()) return Fail(started.status());
    http = *std::move(started);
    spdlog::info("stratad serving HTTP on port {} (/metrics, /health, /write, /api/v2/write, /api/v1/write, /api/v1/read)", http->port());
  }
  std::unique_ptr<strata::PgServer> pg;
  if (!config.pg_listen.empty()) {
    auto started = strata::PgServer::Start(
        {.listen = config.pg_listen,
         .tls = tls,
         .max_connections = config.pg_max_connections,
         .auth_timeout_seconds = config.pg_auth_timeout_seconds},
        (*server)->query_service(), engine->get(), auth->get(), &metrics);
    if (!started.ok()) return Fail(started.status());
    pg = *std::move(started);
    spdlog::info("stratad serving PostgreSQL clients on port {}", pg->port());
  }
  spdlog::info("stratad serving on port {}", (*server)->port());
  strata::MaintenanceLoop maintenance(engine->get(),
                                      std::chrono::seconds(config.maintenance_interval_seconds));
  maintenance.Start();

  int signal = 0;
  while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
    // The TLS files are re-read every --tls-reload-seconds anyway; SIGHUP
    // says at once whether the new ones are good.
    if (!tls.enabled()) {
      spdlog::info("SIGHUP: no TLS files to check");
    } else if (absl::Status checked = strata::CheckTlsFiles(tls); checked.ok()) {
      spdlog::info("SIGHUP: the TLS files are valid; they are served within {} s",
                   tls.reload_seconds);
    } else {
      spdlog::error("SIGHUP: {}; the previous certificate stays in use", checked.message());
    }
  }
  spdlog::info("stratad stopping on {}: finishing in-flight calls (up to {} s)",
               signal == SIGINT ? "SIGINT" : "SIGTERM", config.shutdown_grace_seconds);
  if (http != nullptr) http->Stop();
  if (pg != nullptr) pg->Stop();
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
