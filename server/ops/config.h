// stratad's configuration: command-line flags, an optional TOML file
// (--config) and STRATA_* environment variables, in that order of precedence
// (DESIGN.md): a file named explicitly beats ambient environment.
// The parser lives in config.cc alone because CLI11 is slow to compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "storage/kv/store.h"

namespace strata {

inline constexpr int kDefaultPort = 7878;

struct ServerConfig {
  std::string data_dir = "strata-data";
  std::string listen = "127.0.0.1:7878";
  // The HTTP port (GET /metrics, /health, the ingest protocols); empty: no HTTP.
  std::string http_listen = "127.0.0.1:7879";
  // Line protocol and remote write create a missing table on first write.
  bool http_auto_create = true;
  // The PostgreSQL wire protocol (psql, Grafana); empty: off.
  std::string pg_listen = "127.0.0.1:7880";
  int pg_max_connections = 100;
  // A PostgreSQL client must finish startup and authentication within this
  // (PostgreSQL's authentication_timeout).
  int pg_auth_timeout_seconds = 60;
  // HTTP connections served at once (past it 503), and how long a request's
  // line and headers may take to arrive.
  int http_max_connections = 256;
  int http_header_timeout_seconds = 10;
  // Queries that run at least this long are logged (id, text, rows and
  // bytes scanned, time); 0: every query, -1: none.
  int slow_query_ms = 1000;
  Durability durability = Durability::kFsync;
  std::string log_level = "info";
  std::string log_format = "text";  // or "json"
  int max_message_bytes = 16 << 20;
  int shutdown_grace_seconds = 10;
  int query_timeout_seconds = 300;
  int query_memory_mb = 256;
  // All queries together, their pages waiting for slow clients included.
  int query_memory_total_mb = 2048;
  // Queries that run at once, and queries that may wait for one of them
  // (past that: RESOURCE_EXHAUSTED at once).
  int query_workers = 4;
  int query_queue = 64;
  // Write requests that may wait for the next group commit (past that:
  // RESOURCE_EXHAUSTED at once).
  int write_queue = 256;
  // Scheduled queries (server/scheduler/scheduled_queries.h).
  int scheduled_query_workers = 1;
  int scheduled_query_max_catch_up = 1440;
  int scheduled_query_history = 100;
  int scheduled_query_retries = 2;
  int scheduled_query_retry_delay_seconds = 60;
  // With --durability buffered: how often the write-ahead log is synced, so
  // a power cut loses at most this window of acknowledged writes.
  int wal_sync_interval_ms = 1000;
  // Writes pause while the data directory's disk has less than this free.
  int disk_reserve_mb = 256;
  int block_cache_mb = 256;
  // How often the tiering and retention jobs run over every table.
  int maintenance_interval_seconds = 60;
  // Minutes after its end a memory-store hour is sealed into columnar
  // blocks (EngineOptions::seal_after_nanos); 0 keeps rows until the hour
  // leaves the memory store.
  int seal_after_minutes = 10;
  // The memory store's rows held in memory (the memory head); past it the
  // oldest hours are sealed into blocks early (EngineOptions::
  // memory_store_budget_bytes). 0: no budget.
  int memory_store_budget_mb = 256;
  // Tests only: when set, the server's clock stands still at this UTC time
  // ("YYYY-MM-DD HH:MM:SS" or ISO 8601), so golden files that write "now"
  // replay over the wire.
  std::string testing_fixed_time;
  // Tests only: every query waits this long (cancellable) before it runs,
  // so cancelling a running query can be tested without a huge table.
  int testing_query_delay_ms = 0;
  int testing_apply_delay_ms = 0;  // a cluster node's replicas wait this long before each entry
  int testing_catalog_delay_ms = 0;  // a cluster node's catalog copy applies each change late
  int testing_read_lease_ms = 0;     // a cluster node's read leases last this long (0: 500)
  // TLS (docs/security.md): PEM files; no TLS when tls_cert is empty.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;  // set: clients must present a certificate it signed
  int tls_reload_seconds = 10;
  // Bearer tokens: "on", "off", or "auto" (on with TLS or beyond loopback,
  // off on plain loopback for local development).
  std::string auth = "auto";
  // Where the first admin token is written (or read from); empty:
  // <data_dir>/admin.token.
  std::string bootstrap_token_file;
  int auth_failure_limit = 30;
  // Restore this backup directory (storage/jobs/backup.h) into the empty data
  // directory before starting; the backup id (0: the newest).
  std::string restore_from;
  int restore_backup_id = 0;
  bool restore_only = false;  // exit after the restore (one-shot containers)
  // With restore_from: revoke every restored token and write a new admin
  // token (a backup brings back tokens revoked after it was taken).
  bool restore_revoke_tokens = false;
  // Listening beyond loopback without TLS and tokens must be asked for
  // explicitly; it also turns "auto" authentication off.
  bool allow_unauthenticated_remote = false;

  // --cluster: this node is one of a cluster's (docs/cluster.md); without it stratad is a
  // single node and needs neither etcd nor NATS.
  bool cluster = false;
  std::string cluster_name = "strata";
  std::string node_id;
  std::string etcd;           // comma-separated host:port
  std::string nats;           // comma-separated nats://host:port
  std::string advertise;      // host:port; default: --listen
  int cluster_shards = 0;     // 0: the cluster's own (16 when the first node creates it)
  std::string cluster_nodes;  // --cluster-nodes: the placement of a new cluster (docs/cluster.md)
  int cluster_log_replicas = 3;
  int cluster_shard_replicas = 0;  // 0: the cluster's own (3 when the first node creates it)
  int cluster_lease_seconds = 5;
  int dead_node_grace_seconds = 600;  // a listed node away this long has its replicas rebuilt
  int cluster_log_trim_seconds = 60;  // how often the shards' logs are trimmed
  int64_t cluster_log_keep_entries = 10'000;  // entries kept below the replicas' lowest applied
  std::string replica_ack = "leader";  // leader | majority
  // A query's read choice unless it names its own (query/base/read_choice.h).
  std::string read_consistency = "leader";  // leader | strong | follower
  int64_t max_staleness_ms = 5000;          // a follower read's bound unless it names one
  int64_t hedge_after_ms = 0;               // 0: fragments are not hedged
  // A leader read whose statement scanned at most this many rows the last time is read on
  // this node's replicas when it holds every shard (docs/cluster.md, "A small leader read").
  int64_t small_read_rows = 10'000;  // 0: never
  std::string cluster_secret;
  std::string cluster_secret_file;
  // Mutual TLS between nodes: the CA that signed every node's --tls-cert.
  std::string cluster_ca;
  // TLS and credentials to etcd and NATS (docs/cluster.md, "Security").
  std::string etcd_ca, etcd_cert, etcd_key, etcd_server_name;
  std::string etcd_user, etcd_password_file;
  std::string nats_ca, nats_cert, nats_key, nats_server_name;
  std::string nats_user, nats_password_file, nats_creds;
};

// Whether calls need a token under `config` (resolves auth = "auto").
bool AuthEnabled(const ServerConfig& config);
// The bootstrap token file, defaulted into the data directory.
std::string BootstrapTokenFile(const ServerConfig& config);

struct ParsedCommandLine {
  ServerConfig config;
  // Set when stratad should exit at once (after --help, --version or a bad
  // flag, whose message has already been printed).
  std::optional<int> exit_code;
};

ParsedCommandLine ParseCommandLine(int argc, const char* const* argv);

// Checks values that depend on each other (the listen address and the
// remote switch). INVALID_ARGUMENT says which setting to change.
absl::Status ValidateConfig(const ServerConfig& config);

// The time --testing-fixed-time names, if set and valid.
std::optional<int64_t> FixedTimeNanos(const ServerConfig& config);

// True for localhost, 127.0.0.0/8 and ::1.
bool IsLoopbackHost(std::string_view host);

// Splits "host:port" or "[v6]:port".
absl::StatusOr<std::pair<std::string, int>> SplitHostPort(std::string_view address);

}  // namespace strata
