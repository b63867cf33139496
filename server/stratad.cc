#include "server/stratad.h"

#include <utility>

#include "common/status.h"
#include "server/ops/logging.h"
#include "spdlog/spdlog.h"

namespace strata {

absl::StatusOr<std::unique_ptr<Stratad>> Stratad::Start(const ServerConfig& config,
                                                       ManualClock* fixed_clock) {
  auto d = std::unique_ptr<Stratad>(new Stratad());
  ASSIGN_OR_RETURN(
      d->engine_,
      Engine::Open({.data_dir = config.data_dir,
                    .durability = config.durability,
                    .block_cache_bytes = static_cast<size_t>(config.block_cache_mb) << 20,
                    .wal_sync_interval_millis = config.wal_sync_interval_ms,
                    .disk_reserve_bytes = static_cast<uint64_t>(config.disk_reserve_mb) << 20,
                    .rocksdb_log = RocksDbLogger(),
                    .write_queue = config.write_queue,
                    .seal_after_nanos = config.seal_after_minutes * kNanosPerMinute,
                    .memory_store_budget_bytes = int64_t{config.memory_store_budget_mb} << 20,
                    .clock = fixed_clock}));
  Engine* engine = d->engine_.get();

  d->tls_ = {.cert_file = config.tls_cert,
             .key_file = config.tls_key,
             .client_ca_file = config.tls_client_ca,
             .reload_seconds = config.tls_reload_seconds};
  RETURN_IF_ERROR(CheckTlsFiles(d->tls_));
  ASSIGN_OR_RETURN(d->auth_,
                   Authenticator::Open(&engine->tokens(), &engine->clock(),
                                       {.enabled = AuthEnabled(config),
                                        .failure_limit = config.auth_failure_limit,
                                        .bootstrap_token_file = BootstrapTokenFile(config)}));
  if (config.restore_revoke_tokens) {
    RETURN_IF_ERROR(d->auth_->RevokeAllAndCreateAdmin("restore").status());
  }
  spdlog::info("stratad security: tls={}{} auth={}", d->tls_.enabled() ? "on" : "off",
               config.tls_client_ca.empty() ? "" : " (client certificates required)",
               d->auth_->enabled() ? "on (bearer tokens)" : "off");
  if (!d->auth_->enabled() && config.allow_unauthenticated_remote) {
    spdlog::warn("--allow-unauthenticated-remote: anyone who can reach {} can read and write",
                 config.listen);
  }

  d->metrics_ = std::make_unique<ServerMetrics>(engine);
  d->queries_ = std::make_unique<QueryRunner>(
      engine, d->metrics_.get(),
      QueryLimits{.default_timeout_millis = config.query_timeout_seconds * 1000LL,
                  .memory_limit_bytes = static_cast<int64_t>(config.query_memory_mb) << 20,
                  .total_memory_bytes = static_cast<int64_t>(config.query_memory_total_mb) << 20,
                  .workers = config.query_workers,
                  .queue = config.query_queue,
                  .slow_query_millis = config.slow_query_ms,
                  .testing_delay_millis = config.testing_query_delay_ms});
  d->ingest_ = std::make_unique<Ingest>(engine, d->metrics_.get());
  ASSIGN_OR_RETURN(
      d->scheduled_,
      ScheduledQueries::Open(
          engine, d->queries_.get(), d->ingest_.get(), d->auth_.get(),
          {.workers = config.scheduled_query_workers,
           .max_catch_up = config.scheduled_query_max_catch_up,
           .history = config.scheduled_query_history,
           .retries = config.scheduled_query_retries,
           .retry_delay_nanos = config.scheduled_query_retry_delay_seconds * kNanosPerSecond}));
  d->queries_->SetSystemTables(
      [scheduled = d->scheduled_.get()](std::shared_ptr<const Principal> caller) {
        return scheduled->SystemTablesFor(std::move(caller));
      });

  ASSIGN_OR_RETURN(d->grpc_, Server::Start({.listen = config.listen,
                                            .max_message_bytes = config.max_message_bytes,
                                            .tls = d->tls_,
                                            .testing_clock = fixed_clock},
                                           {.engine = engine,
                                            .auth = d->auth_.get(),
                                            .metrics = d->metrics_.get(),
                                            .queries = d->queries_.get(),
                                            .ingest = d->ingest_.get(),
                                            .scheduled = d->scheduled_.get()}));
  d->scheduled_->Start();
  if (!config.http_listen.empty()) {
    ASSIGN_OR_RETURN(
        d->http_,
        HttpServer::Start(
            {.listen = config.http_listen,
             .tls = d->tls_,
             .limits = {.max_connections = config.http_max_connections,
                        .head_timeout_millis = config.http_header_timeout_seconds * 1000},
             .ingest = {.auto_create_tables = config.http_auto_create}},
            {.engine = engine,
             .auth = d->auth_.get(),
             .metrics = d->metrics_.get(),
             .ingest = d->ingest_.get(),
             .queries = d->queries_.get()}));
    spdlog::info("stratad serving HTTP on port {} (/metrics, /health, /write, /api/v2/write, "
                 "/api/v1/write, /api/v1/read)",
                 d->http_->port());
  }
  if (!config.pg_listen.empty()) {
    ASSIGN_OR_RETURN(d->pg_, PgServer::Start({.listen = config.pg_listen,
                                              .tls = d->tls_,
                                              .max_connections = config.pg_max_connections,
                                              .auth_timeout_seconds =
                                                  config.pg_auth_timeout_seconds},
                                             d->queries_.get(), engine, d->auth_.get(),
                                             d->metrics_.get()));
    spdlog::info("stratad serving PostgreSQL clients on port {}", d->pg_->port());
  }
  spdlog::info("stratad serving on port {}", d->grpc_->port());
  d->maintenance_ = std::make_unique<MaintenanceLoop>(
      engine, std::chrono::seconds(config.maintenance_interval_seconds));
  d->maintenance_->Start();
  return d;
}

absl::Status Stratad::Stop(std::chrono::seconds grace) {
  if (http_ != nullptr) http_->Stop();
  if (pg_ != nullptr) pg_->Stop();
  // Scheduled runs before the gRPC calls: both use the query runner.
  scheduled_->Stop();
  grpc_->Shutdown(std::chrono::system_clock::now() + grace);
  grpc_.reset();
  maintenance_->Stop();
  spdlog::info("stratad stopped serving; closing the data directory");
  return engine_->Close();
}

Stratad::~Stratad() = default;

}  // namespace strata
