#include "server/stratad.h"

#include <fstream>
#include <utility>
#include <vector>

#include "cluster/cluster_tables.h"
#include "cluster/membership.h"
#include "common/status.h"
#include "common/strings.h"
#include "server/grpc/row_page_encoder.h"
#include "server/ops/logging.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t comma = std::min(list.find(','), list.size());
    if (comma > 0) out.emplace_back(list.substr(0, comma));
    list.remove_prefix(std::min(comma + 1, list.size()));
  }
  return out;
}

// The first line of a file holding a secret, without trailing whitespace; `given` when no
// file is named.
absl::StatusOr<std::string> SecretFromFile(const std::string& path, std::string_view flag,
                                           std::string given) {
  if (path.empty()) return given;
  std::ifstream file(path);
  if (!file) return absl::FailedPreconditionError(StrCat("cannot read ", flag, " ", path));
  std::string secret;
  std::getline(file, secret);
  while (!secret.empty() && std::isspace(static_cast<unsigned char>(secret.back()))) {
    secret.pop_back();
  }
  return secret;
}

absl::StatusOr<std::unique_ptr<cluster::ClusterNode>> StartClusterNode(const ServerConfig& config,
                                                                       Engine* engine) {
  ASSIGN_OR_RETURN(
      std::string secret,
      SecretFromFile(config.cluster_secret_file, "--cluster-secret-file", config.cluster_secret));
  ASSIGN_OR_RETURN(std::string etcd_password,
                   SecretFromFile(config.etcd_password_file, "--etcd-password-file", ""));
  ASSIGN_OR_RETURN(std::string nats_password,
                   SecretFromFile(config.nats_password_file, "--nats-password-file", ""));
  if (!config.tls_client_ca.empty() && !config.cluster_ca.empty()) {
    // One trust store serves the gRPC port: the other nodes' certificates must pass it too.
    RETURN_IF_ERROR(cluster::CheckSignedBy(config.tls_cert, "--tls-cert", config.tls_client_ca,
                                           "--tls-client-ca (which must hold --cluster-ca too)"));
  }
  return cluster::ClusterNode::Start(
      {.name = config.cluster_name,
       .node_id = config.node_id,
       .etcd = SplitList(config.etcd),
       .nats = SplitList(config.nats),
       .shards = config.cluster_shards,
       .log_replicas = config.cluster_log_replicas,
       .shard_replicas = config.cluster_shard_replicas,
       .placement = SplitList(config.cluster_nodes),
       .lease_seconds = config.cluster_lease_seconds,
       .dead_node_grace_seconds = config.dead_node_grace_seconds,
       .log_trim_seconds = config.cluster_log_trim_seconds,
       .log_keep_entries = config.cluster_log_keep_entries,
       .replica_ack_majority = config.replica_ack == "majority",
       .testing_apply_delay_ms = config.testing_apply_delay_ms,
       .testing_query_delay_ms = config.testing_query_delay_ms,
       .testing_catalog_delay_ms = config.testing_catalog_delay_ms,
       .testing_read_lease_ms = config.testing_read_lease_ms,
       .max_message_bytes = config.max_message_bytes,
       .page_encoders = NewResultPageEncoder,
       .secret = secret,
       .member_tls = {.cert_file = config.tls_cert,
                      .key_file = config.tls_key,
                      .ca_file = config.cluster_ca,
                      .reload_seconds = config.tls_reload_seconds},
       .etcd_tls = {.ca_file = config.etcd_ca,
                    .cert_file = config.etcd_cert,
                    .key_file = config.etcd_key,
                    .server_name = config.etcd_server_name},
       .etcd_login = {.user = config.etcd_user, .password = etcd_password},
       .nats_tls = {.ca_file = config.nats_ca,
                    .cert_file = config.nats_cert,
                    .key_file = config.nats_key,
                    .server_name = config.nats_server_name},
       .nats_login = {.user = config.nats_user,
                      .password = nats_password,
                      .creds_file = config.nats_creds}},
      engine);
}

// What the gRPC ClusterService does: the cluster node's, nothing on a single server.
ClusterOperations ClusterOperationsOf(cluster::ClusterNode* node) {
  if (node == nullptr) return {};
  return {
      .change_nodes =
          [node](const std::vector<std::string>& add, const std::vector<std::string>& remove) {
            return node->ChangeNodes(add, remove);
          },
      .backup =
          [node](const std::string& dir, v1::BackupClusterResponse* response) {
            ASSIGN_OR_RETURN(cluster::ClusterBackupSummary done, node->backups().Backup(dir));
            response->set_shards(done.shards);
            response->set_databases(done.databases);
            response->set_tables(done.tables);
            response->set_rows(done.rows);
            response->set_bytes(done.bytes);
            response->set_tokens(done.tokens);
            response->set_scheduled_queries(done.scheduled_queries);
            return absl::OkStatus();
          },
      .restore =
          [node](const v1::RestoreClusterRequest& request, v1::RestoreClusterResponse* response) {
            ASSIGN_OR_RETURN(cluster::ClusterRestoreSummary done,
                             node->backups().Restore(request.directory(),
                                                     {.without_tokens = request.without_tokens()}));
            response->set_databases(done.databases);
            response->set_tables(done.tables);
            response->set_rows(done.rows);
            response->set_expired(done.expired);
            response->set_tokens(done.tokens);
            for (const std::string& name : done.tokens_not_restored) {
              response->add_tokens_not_restored(name);
            }
            response->set_scheduled_queries(done.scheduled_queries);
            return absl::OkStatus();
          },
  };
}

}  // namespace

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
  if (config.cluster) {
    ASSIGN_OR_RETURN(d->cluster_, StartClusterNode(config, engine));
  }
  CatalogChanges* ddl = d->cluster_ != nullptr ? &d->cluster_->catalog_changes() : nullptr;

  d->tls_ = {.cert_file = config.tls_cert,
             .key_file = config.tls_key,
             .client_ca_file = config.tls_client_ca,
             .member_ca_file = config.cluster_ca,
             .reload_seconds = config.tls_reload_seconds};
  RETURN_IF_ERROR(CheckTlsFiles(d->tls_));
  // On a cluster, tokens live in etcd: one made through any node is honoured by all.
  TokenRecords* tokens = d->cluster_ != nullptr ? static_cast<TokenRecords*>(&d->cluster_->tokens())
                                                : &engine->tokens();
  ASSIGN_OR_RETURN(d->auth_,
                   Authenticator::Open(tokens, &engine->clock(),
                                       {.enabled = AuthEnabled(config),
                                        .failure_limit = config.auth_failure_limit,
                                        .bootstrap_token_file = BootstrapTokenFile(config)}));
  if (d->cluster_ != nullptr) {
    d->cluster_->tokens().Follow(
        [auth = d->auth_.get()](TokenRecord token) { auth->Install(std::move(token)); });
  }
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
  if (d->cluster_ != nullptr) {
    d->metrics_->SetShardSource([node = d->cluster_.get()] {
      std::vector<ShardSnapshot> out;
      for (const cluster::LocalShardStatus& s : node->LocalShards()) {
        out.push_back({.shard = s.shard,
                       .leading = s.leading,
                       .epoch = s.epoch,
                       .healthy = s.healthy,
                       .applied = s.applied,
                       .entries_applied = s.counts.applied,
                       .entries_refused = s.counts.refused,
                       .entries_published = s.counts.published});
      }
      return out;
    });
  }
  d->queries_ = std::make_unique<QueryRunner>(
      engine, d->metrics_.get(),
      QueryLimits{.default_timeout_millis = config.query_timeout_seconds * 1000LL,
                  .memory_limit_bytes = static_cast<int64_t>(config.query_memory_mb) << 20,
                  .total_memory_bytes = static_cast<int64_t>(config.query_memory_total_mb) << 20,
                  .workers = config.query_workers,
                  .queue = config.query_queue,
                  .slow_query_millis = config.slow_query_ms,
                  .testing_delay_millis = config.testing_query_delay_ms});
  if (d->cluster_ != nullptr) {
    query::ReadChoice default_read{
        .consistency = *query::ParseReadConsistency(config.read_consistency),
        .max_staleness = std::chrono::milliseconds(config.max_staleness_ms),
        .hedge_after = std::chrono::milliseconds(config.hedge_after_ms)};
    d->queries_->SetClusterMode(
        [reads = &d->cluster_->shard_reads()](
            const query::ReadChoice& choice, std::chrono::milliseconds wait, bool describe_only,
            bool small) { return reads->Prepare(choice, wait, describe_only, small); },
        &d->cluster_->delete_sink(), ddl, default_read, config.small_read_rows,
        [node = d->cluster_.get()] { return node->CatchUpCatalog(); });
  }
  d->ingest_ =
      std::make_unique<Ingest>(engine, d->metrics_.get(),
                               d->cluster_ != nullptr ? &d->cluster_->write_sink() : nullptr, ddl);
  d->queries_->SetIngest(d->ingest_.get());
  ScheduledQueryOptions scheduling{
      .workers = config.scheduled_query_workers,
      .max_catch_up = config.scheduled_query_max_catch_up,
      .history = config.scheduled_query_history,
      .retries = config.scheduled_query_retries,
      .retry_delay_nanos = config.scheduled_query_retry_delay_seconds * kNanosPerSecond};
  if (d->cluster_ != nullptr) {
    // Kept in etcd, run by the one node the cluster elects.
    scheduling.records = &d->cluster_->scheduled_queries();
    scheduling.runs_here = [node = d->cluster_.get()] { return node->RunsScheduledQueries(); };
  }
  ASSIGN_OR_RETURN(d->scheduled_,
                   ScheduledQueries::Open(engine, d->queries_.get(), d->ingest_.get(),
                                          d->auth_.get(), std::move(scheduling)));
  if (d->cluster_ != nullptr) {
    ScheduledQueries* scheduled = d->scheduled_.get();
    d->cluster_->scheduled_queries().Follow([scheduled](std::string_view name) {
      if (absl::Status s = scheduled->Reload(name); !s.ok()) {
        spdlog::warn("scheduled query \"{}\": could not read it from etcd: {}", name, s.message());
      }
    });
    d->cluster_->OnBecameScheduler([scheduled] {
      if (absl::Status s = scheduled->Reload(); !s.ok()) {
        spdlog::warn("scheduled queries: could not read them from etcd: {}", s.message());
      }
    });
  }
  d->queries_->SetSystemTables([scheduled = d->scheduled_.get(),
                                node = d->cluster_.get()](std::shared_ptr<const Principal> caller) {
    auto tables = scheduled->SystemTablesFor(std::move(caller));
    return node != nullptr ? cluster::WithClusterTables(node, std::move(tables))
                           : std::move(tables);
  });

  ASSIGN_OR_RETURN(
      d->grpc_,
      Server::Start({.listen = config.listen,
                     .max_message_bytes = config.max_message_bytes,
                     .tls = d->tls_,
                     .testing_clock = fixed_clock},
                    {.engine = engine,
                     .auth = d->auth_.get(),
                     .metrics = d->metrics_.get(),
                     .queries = d->queries_.get(),
                     .ingest = d->ingest_.get(),
                     .scheduled = d->scheduled_.get(),
                     .ddl = ddl,
                     .internal = d->cluster_ != nullptr ? d->cluster_->internal_service() : nullptr,
                     .cluster = ClusterOperationsOf(d->cluster_.get())}));
  if (d->cluster_ != nullptr) {
    // Announced once the internal service serves: other nodes forward writes to it.
    std::string advertise = config.advertise;
    if (advertise.empty()) {
      ASSIGN_OR_RETURN(auto host_port, SplitHostPort(config.listen));
      advertise = StrCat(host_port.first, ":", d->grpc_->port());
    }
    RETURN_IF_ERROR(d->cluster_->Serve(advertise));
  }
  d->scheduled_->Start();
  if (!config.http_listen.empty()) {
    ASSIGN_OR_RETURN(
        d->http_, HttpServer::Start(
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
    spdlog::info(
        "stratad serving HTTP on port {} (/metrics, /health, /write, /api/v2/write, "
        "/api/v1/write, /api/v1/read)",
        d->http_->port());
  }
  if (!config.pg_listen.empty()) {
    ASSIGN_OR_RETURN(d->pg_,
                     PgServer::Start({.listen = config.pg_listen,
                                      .tls = d->tls_,
                                      .max_connections = config.pg_max_connections,
                                      .auth_timeout_seconds = config.pg_auth_timeout_seconds},
                                     d->queries_.get(), engine, d->auth_.get(), d->metrics_.get()));
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
  if (cluster_ != nullptr) cluster_->Drain();
  grpc_->Shutdown(std::chrono::system_clock::now() + grace);
  grpc_.reset();
  // Hands its shards' leadership over at once, before the engine closes.
  cluster_.reset();
  maintenance_->Stop();
  spdlog::info("stratad stopped serving; closing the data directory");
  return engine_->Close();
}

Stratad::~Stratad() {
  // The cluster node's watches call into the scheduler and the authenticator: it goes first
  // (Stop did so already unless start-up failed).
  cluster_.reset();
}

}  // namespace strata
