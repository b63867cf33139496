#include "server/ops/config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <iostream>
#include <tuple>

#include "CLI/CLI.hpp"
#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"

namespace strata {
namespace {

// Where and how it serves: gRPC, HTTP and PostgreSQL listeners and their limits.
void AddListenerOptions(CLI::App& app, ServerConfig& c) {
  app.add_option("--listen", c.listen,
                 "Address to serve gRPC on, HOST:PORT (port 0 picks a free port)")
      ->envname("STRATA_LISTEN")
      ->capture_default_str();
  app.add_option("--http-listen", c.http_listen,
                 "Address of the HTTP port, HOST:PORT: GET /metrics (Prometheus), GET /health, "
                 "InfluxDB line protocol (/write, /api/v2/write), Prometheus remote write "
                 "(/api/v1/write) and read, the SQL API (/api/v1/sql); empty turns HTTP off")
      ->envname("STRATA_HTTP_LISTEN")
      ->capture_default_str();
  app.add_option("--pg-listen", c.pg_listen,
                 "Address for PostgreSQL clients (psql, Grafana, psycopg), HOST:PORT; the "
                 "password is a Strata token when authentication is on; empty turns it off")
      ->envname("STRATA_PG_LISTEN")
      ->capture_default_str();
  app.add_option("--pg-max-connections", c.pg_max_connections,
                 "PostgreSQL connections served at once; more are refused (SQLSTATE 53300)")
      ->envname("STRATA_PG_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--pg-auth-timeout-seconds", c.pg_auth_timeout_seconds,
                 "A PostgreSQL client that has not finished startup and authentication within "
                 "this is disconnected (PostgreSQL's authentication_timeout)")
      ->envname("STRATA_PG_AUTH_TIMEOUT_SECONDS")
      ->check(CLI::Range(1, 600))
      ->capture_default_str();
  app.add_option("--http-max-connections", c.http_max_connections,
                 "HTTP connections served at once; more are answered 503 at once")
      ->envname("STRATA_HTTP_MAX_CONNECTIONS")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--http-header-timeout-seconds", c.http_header_timeout_seconds,
                 "An HTTP request's line and headers must arrive within this (slow clients "
                 "are disconnected), and a TLS handshake too")
      ->envname("STRATA_HTTP_HEADER_TIMEOUT_SECONDS")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  app.add_option("--http-auto-create", c.http_auto_create,
                 "Line protocol and remote write create a missing table on first write "
                 "(default retention, magnetic writes on); false refuses such lines")
      ->envname("STRATA_HTTP_AUTO_CREATE")
      ->capture_default_str();
  app.add_option("--max-message-bytes", c.max_message_bytes,
                 "Largest gRPC message accepted or sent")
      ->envname("STRATA_MAX_MESSAGE_BYTES")
      ->check(CLI::Range(1 << 16, 1 << 30))
      ->capture_default_str();
  app.add_option("--shutdown-grace-seconds", c.shutdown_grace_seconds,
                 "On SIGTERM/SIGINT, how long in-flight calls may run before they are cancelled")
      ->envname("STRATA_SHUTDOWN_GRACE_SECONDS")
      ->check(CLI::Range(0, 3600))
      ->capture_default_str();
}

// The data directory, durability, the write queue and the tiers' maintenance.
// `durability` is the flag's text (fsync or buffered), turned into c.durability after parsing.
void AddStorageOptions(CLI::App& app, ServerConfig& c, std::string& durability) {
  app.add_option("--data-dir", c.data_dir, "Directory holding the database; created if missing")
      ->envname("STRATA_DATA_DIR")
      ->capture_default_str();
  app.add_option(
         "--durability", durability,
         "fsync: a write is acknowledged once on disk; buffered: once in the OS cache "
         "(faster; a power failure loses up to --wal-sync-interval-ms of acknowledged writes)")
      ->envname("STRATA_DURABILITY")
      ->check(CLI::IsMember({"fsync", "buffered"}))
      ->capture_default_str();
  app.add_option("--wal-sync-interval-ms", c.wal_sync_interval_ms,
                 "With --durability buffered, how often the write-ahead log is synced to disk: "
                 "a power cut loses at most about this much of acknowledged writes")
      ->envname("STRATA_WAL_SYNC_INTERVAL_MS")
      ->check(CLI::Range(1, 600000))
      ->capture_default_str();
  app.add_option("--disk-reserve-mb", c.disk_reserve_mb,
                 "Free space kept on the data directory's disk: below it writes pause "
                 "(RESOURCE_EXHAUSTED, health NOT_SERVING for strata.v1.WriteService) and resume "
                 "by themselves once space is freed; reads go on")
      ->envname("STRATA_DISK_RESERVE_MB")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  app.add_option("--block-cache-mb", c.block_cache_mb,
                 "Memory for cached storage blocks, shared by all tables; more keeps more "
                 "recent and magnetic data ready for queries")
      ->envname("STRATA_BLOCK_CACHE_MB")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--write-queue", c.write_queue,
                 "Write requests that may wait for the next group commit (each holds its "
                 "records in memory); past it a write is refused at once with "
                 "RESOURCE_EXHAUSTED")
      ->envname("STRATA_WRITE_QUEUE")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--maintenance-interval-seconds", c.maintenance_interval_seconds,
                 "How often sealed and aged memory-store hours are converted to blocks, late "
                 "writes merged, and expired hours dropped")
      ->envname("STRATA_MAINTENANCE_INTERVAL_SECONDS")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--seal-after-minutes", c.seal_after_minutes,
                 "Minutes after its end, or after its last write, a memory-store hour is "
                 "sealed into compact columnar blocks (much faster to aggregate and 5-10x "
                 "smaller; writes to it are still accepted and merged in). 0 keeps an hour's "
                 "rows until it leaves the memory store")
      ->envname("STRATA_SEAL_AFTER_MINUTES")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--memory-store-budget-mb", c.memory_store_budget_mb,
                 "Memory for the memory store's rows, which live in memory until their hour is "
                 "sealed; past it the oldest hours are sealed into blocks early (writes to them "
                 "are still accepted). 0: no limit")
      ->envname("STRATA_MEMORY_STORE_BUDGET_MB")
      ->check(CLI::Range(0, 1 << 22))
      ->capture_default_str();
}

// Queries: limits, admission, the slow-query log, scheduled queries.
void AddQueryOptions(CLI::App& app, ServerConfig& c) {
  app.add_option("--slow-query-ms", c.slow_query_ms,
                 "Log every query that runs at least this long; 0 logs every query, -1 none "
                 "(as PostgreSQL's log_min_duration_statement)")
      ->envname("STRATA_SLOW_QUERY_MS")
      ->check(CLI::Range(-1, 86400000))
      ->capture_default_str();
  app.add_option("--query-timeout-seconds", c.query_timeout_seconds,
                 "Default time limit of a query (a request may ask for less or more)")
      ->envname("STRATA_QUERY_TIMEOUT_SECONDS")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--query-memory-mb", c.query_memory_mb,
                 "Memory one query may use for grouping, sorting and subqueries; past it the "
                 "query fails with RESOURCE_EXHAUSTED")
      ->envname("STRATA_QUERY_MEMORY_MB")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--query-memory-total-mb", c.query_memory_total_mb,
                 "Memory all running queries may use together (their result pages waiting for "
                 "slow clients included); a query that would pass it fails with "
                 "RESOURCE_EXHAUSTED")
      ->envname("STRATA_QUERY_MEMORY_TOTAL_MB")
      ->check(CLI::Range(1, 1 << 22))
      ->capture_default_str();
  app.add_option("--query-workers", c.query_workers, "Queries that run at once")
      ->envname("STRATA_QUERY_WORKERS")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--query-queue", c.query_queue,
                 "Queries that may wait for a worker; past it a query is refused at once with "
                 "RESOURCE_EXHAUSTED")
      ->envname("STRATA_QUERY_QUEUE")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_option("--scheduled-query-workers", c.scheduled_query_workers,
                 "Scheduled query runs at once (each also takes a query worker)")
      ->envname("STRATA_SCHEDULED_QUERY_WORKERS")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--scheduled-query-max-catch-up", c.scheduled_query_max_catch_up,
                 "Missed invocations of each scheduled query run after downtime, newest kept; "
                 "older ones are recorded as skipped")
      ->envname("STRATA_SCHEDULED_QUERY_MAX_CATCH_UP")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--scheduled-query-history", c.scheduled_query_history,
                 "Runs kept per scheduled query (system.scheduled_query_runs)")
      ->envname("STRATA_SCHEDULED_QUERY_HISTORY")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--scheduled-query-retries", c.scheduled_query_retries,
                 "Retries of a failed scheduled run before its invocation is given up")
      ->envname("STRATA_SCHEDULED_QUERY_RETRIES")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--scheduled-query-retry-delay-seconds", c.scheduled_query_retry_delay_seconds,
                 "Wait before the first retry of a failed scheduled run; doubles each retry")
      ->envname("STRATA_SCHEDULED_QUERY_RETRY_DELAY_SECONDS")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
}

// TLS, tokens and who may connect.
void AddSecurityOptions(CLI::App& app, ServerConfig& c) {
  app.add_option("--tls-cert", c.tls_cert,
                 "PEM certificate (chain) to serve gRPC over TLS; re-read when it changes")
      ->envname("STRATA_TLS_CERT");
  app.add_option("--tls-key", c.tls_key, "PEM private key of --tls-cert")
      ->envname("STRATA_TLS_KEY");
  app.add_option("--tls-client-ca", c.tls_client_ca,
                 "PEM CA bundle: clients must present a certificate it signed (mutual TLS)")
      ->envname("STRATA_TLS_CLIENT_CA");
  app.add_option("--tls-reload-seconds", c.tls_reload_seconds,
                 "How often the TLS files are looked at: a renewed certificate is served "
                 "within this time, without a restart")
      ->envname("STRATA_TLS_RELOAD_SECONDS")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  app.add_option("--auth", c.auth,
                 "Bearer tokens: on, off, or auto (on with TLS or beyond loopback; off on plain "
                 "loopback for local development)")
      ->envname("STRATA_AUTH")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app.add_option("--bootstrap-token-file", c.bootstrap_token_file,
                 "At the first start with auth on, the first admin token is written to this "
                 "file (mode 0600), or taken from it if it already holds one "
                 "[default: DATA_DIR/admin.token]")
      ->envname("STRATA_BOOTSTRAP_TOKEN_FILE");
  app.add_option("--auth-failure-limit", c.auth_failure_limit,
                 "Failed authentications per client address per minute before its calls are "
                 "refused for the rest of the minute (0: no limit)")
      ->envname("STRATA_AUTH_FAILURE_LIMIT")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_flag("--allow-unauthenticated-remote", c.allow_unauthenticated_remote,
               "Allow --listen on a non-loopback address without TLS and tokens (anyone who "
               "can reach the port can read and write); also turns --auth auto off")
      ->envname("STRATA_ALLOW_UNAUTHENTICATED_REMOTE");
}

// Logging, restoring a backup at start, and the testing hooks.
void AddOperationsOptions(CLI::App& app, ServerConfig& c) {
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error or off")
      ->envname("STRATA_LOG_LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  app.add_option("--log-format", c.log_format, "text or json (one object per line)")
      ->envname("STRATA_LOG_FORMAT")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--restore-from", c.restore_from,
                 "Before starting, restore the newest backup (or --restore-backup-id) of this "
                 "backup directory into --data-dir, which must be empty or missing")
      ->envname("STRATA_RESTORE_FROM");
  app.add_option("--restore-backup-id", c.restore_backup_id,
                 "With --restore-from: the backup to restore (0: the newest)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  app.add_flag("--restore-only", c.restore_only,
               "With --restore-from: exit after the restore instead of serving");
  app.add_flag("--restore-revoke-tokens", c.restore_revoke_tokens,
               "With --restore-from: revoke every token the backup holds (it brings back tokens "
               "revoked after it was taken) and write a new admin token, as at a first start");
  app.add_option("--testing-query-delay-ms", c.testing_query_delay_ms,
                 "Tests only: every query waits this long (cancellable) before it runs; on a "
                 "cluster node, so does each fragment it serves to another node")
      ->check(CLI::Range(0, 600000))
      ->group("");
  app.add_option("--testing-apply-delay-ms", c.testing_apply_delay_ms,
                 "Tests only: a cluster node's replicas wait this long before applying each log "
                 "entry (a replica that lags), and never lead a shard")
      ->check(CLI::Range(0, 600000))
      ->group("");
  app.add_option("--testing-read-lease-ms", c.testing_read_lease_ms,
                 "Tests only: the read leases a cluster node's shard leaders grant last this long "
                 "(default 500 ms, under the etcd lease's margin; longer only to test that a "
                 "leader revokes them)")
      ->check(CLI::Range(0, 60000))
      ->group("");
  app.add_option("--testing-catalog-delay-ms", c.testing_catalog_delay_ms,
                 "Tests only: a cluster node's copy of the catalog applies each change from etcd "
                 "this long late (a node whose watch lags)")
      ->check(CLI::Range(0, 600000))
      ->group("");
  app.add_option("--testing-fixed-time", c.testing_fixed_time,
                 "For tests only: the server's clock stands still at this UTC time (e.g. "
                 "2024-03-01T12:00:00Z); write windows, retention and now() follow it");
}

// TLS and credentials to etcd and NATS (docs/cluster.md, "Security").
void AddClusterServiceOptions(CLI::App& app, ServerConfig& c) {
  app.add_option("--etcd-ca", c.etcd_ca, "PEM CA of etcd's client URLs: talk to etcd over TLS")
      ->envname("STRATA_ETCD_CA");
  app.add_option("--etcd-cert", c.etcd_cert,
                 "PEM client certificate for etcd (etcd --client-cert-auth; its common name is "
                 "the etcd user when etcd's auth is on)")
      ->envname("STRATA_ETCD_CERT");
  app.add_option("--etcd-key", c.etcd_key, "PEM private key of --etcd-cert")
      ->envname("STRATA_ETCD_KEY");
  app.add_option("--etcd-server-name", c.etcd_server_name,
                 "Name etcd's certificates carry [default: the host of the first --etcd]")
      ->envname("STRATA_ETCD_SERVER_NAME");
  app.add_option("--etcd-user", c.etcd_user,
                 "etcd user when etcd's auth is on (its password in --etcd-password-file); "
                 "with --etcd-cert, etcd takes the certificate's common name instead")
      ->envname("STRATA_ETCD_USER");
  app.add_option("--etcd-password-file", c.etcd_password_file,
                 "File holding --etcd-user's password (trailing whitespace ignored)")
      ->envname("STRATA_ETCD_PASSWORD_FILE");
  app.add_option("--nats-ca", c.nats_ca, "PEM CA of the NATS servers: talk to NATS over TLS")
      ->envname("STRATA_NATS_CA");
  app.add_option("--nats-cert", c.nats_cert,
                 "PEM client certificate for NATS servers that verify clients (tls verify)")
      ->envname("STRATA_NATS_CERT");
  app.add_option("--nats-key", c.nats_key, "PEM private key of --nats-cert")
      ->envname("STRATA_NATS_KEY");
  app.add_option("--nats-server-name", c.nats_server_name,
                 "Name the NATS servers' certificates must carry [default: not checked; the "
                 "certificate must be signed by --nats-ca]")
      ->envname("STRATA_NATS_SERVER_NAME");
  app.add_option("--nats-user", c.nats_user, "NATS user (its password in --nats-password-file)")
      ->envname("STRATA_NATS_USER");
  app.add_option("--nats-password-file", c.nats_password_file,
                 "File holding --nats-user's password (trailing whitespace ignored)")
      ->envname("STRATA_NATS_PASSWORD_FILE");
  app.add_option("--nats-creds", c.nats_creds,
                 "NATS .creds file (a user JWT and its NKey seed) for servers run with accounts")
      ->envname("STRATA_NATS_CREDS");
}

// Cluster mode (docs/cluster.md).
void AddClusterOptions(CLI::App& app, ServerConfig& c) {
  app.add_flag("--cluster", c.cluster,
               "Run as one node of a cluster: shards replicated on NATS JetStream, metadata and "
               "leadership in etcd (needs --node-id, --etcd, --nats, --cluster-secret)")
      ->envname("STRATA_CLUSTER");
  app.add_option("--cluster-name", c.cluster_name,
                 "The cluster's name: its prefix in etcd and its streams' in NATS")
      ->envname("STRATA_CLUSTER_NAME")
      ->capture_default_str();
  app.add_option("--node-id", c.node_id, "This node's name in the cluster, unique")
      ->envname("STRATA_NODE_ID");
  app.add_option("--etcd", c.etcd, "etcd endpoints, host:port,host:port,...")
      ->envname("STRATA_ETCD");
  app.add_option("--nats", c.nats, "NATS servers, nats://host:port,nats://host:port,...")
      ->envname("STRATA_NATS");
  app.add_option("--advertise", c.advertise,
                 "host:port at which other nodes reach this node's gRPC port [default: --listen]")
      ->envname("STRATA_ADVERTISE");
  app.add_option("--cluster-shards", c.cluster_shards,
                 "Shards of a new cluster (a power of two); a node joining takes the cluster's "
                 "and refuses another [default: 16]")
      ->envname("STRATA_CLUSTER_SHARDS")
      ->check(CLI::Range(0, 1024));
  app.add_option("--cluster-nodes", c.cluster_nodes,
                 "The node ids a new cluster places each shard's replicas on, id,id,...; "
                 "every node starting it gives the same list (docs/cluster.md) [default: every "
                 "node holds every shard]")
      ->envname("STRATA_CLUSTER_NODES");
  app.add_option("--cluster-shard-replicas", c.cluster_shard_replicas,
                 "Nodes holding each shard's data under a placement (--cluster-nodes), fixed when "
                 "the cluster is created; with 1 the shards' logs are never trimmed "
                 "(docs/cluster.md) [default: the cluster's; 3 for a new one]")
      ->envname("STRATA_CLUSTER_SHARD_REPLICAS")
      ->check(CLI::Range(0, 5));
  app.add_option("--cluster-log-replicas", c.cluster_log_replicas,
                 "Copies of each shard's log on the NATS servers")
      ->envname("STRATA_CLUSTER_LOG_REPLICAS")
      ->check(CLI::Range(1, 5))
      ->capture_default_str();
  app.add_option("--cluster-lease-seconds", c.cluster_lease_seconds,
                 "etcd lease of this node and its shard leaderships: a dead leader is replaced "
                 "after about this long")
      ->envname("STRATA_CLUSTER_LEASE_SECONDS")
      ->check(CLI::Range(2, 60))
      ->capture_default_str();
  app.add_option("--dead-node-grace-seconds", c.dead_node_grace_seconds,
                 "How long a node on the cluster's list may be away (its lease ended) before "
                 "the placement controller rebuilds its replicas on the other nodes")
      ->envname("STRATA_DEAD_NODE_GRACE_SECONDS")
      ->check(CLI::Range(1, 7 * 24 * 3600))
      ->capture_default_str();
  app.add_option("--cluster-log-trim-seconds", c.cluster_log_trim_seconds,
                 "How often the node running the placement controller trims the shards' logs "
                 "(NATS streams) below what every replica applied")
      ->envname("STRATA_CLUSTER_LOG_TRIM_SECONDS")
      ->check(CLI::Range(1, 24 * 3600))
      ->capture_default_str();
  app.add_option("--cluster-log-keep-entries", c.cluster_log_keep_entries,
                 "Entries a trimmed log keeps below the lowest sequence its replicas applied: "
                 "a replica that falls further behind (away meanwhile) is rebuilt from a "
                 "peer's checkpoint")
      ->envname("STRATA_CLUSTER_LOG_KEEP_ENTRIES")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  app.add_option("--replica-ack", c.replica_ack,
                 "When a write is answered: leader (committed by a majority of the NATS servers "
                 "and applied, fsynced, by the shard's leader) or majority (also applied by "
                 "another replica; survives losing the leader's disk with the NATS servers' page "
                 "caches)")
      ->envname("STRATA_REPLICA_ACK")
      ->check(CLI::IsMember({"leader", "majority"}))
      ->capture_default_str();
  app.add_option("--read-consistency", c.read_consistency,
                 "How fresh a query's reads are unless it says (docs/cluster.md, \"Read "
                 "choices\"): leader (each shard read at its leader: every acknowledged write), "
                 "strong (at a replica, once it applied its log to the end), follower (at a "
                 "replica current within --max-staleness-ms)")
      ->envname("STRATA_READ_CONSISTENCY")
      ->check(CLI::IsMember({"leader", "strong", "follower"}))
      ->capture_default_str();
  app.add_option("--max-staleness-ms", c.max_staleness_ms,
                 "How old a follower read's data may be unless the query says")
      ->envname("STRATA_MAX_STALENESS_MS")
      ->check(CLI::Range(int64_t{1}, int64_t{3'600'000}))
      ->capture_default_str();
  app.add_option("--hedge-after-ms", c.hedge_after_ms,
                 "A query's fragment whose node has not begun answering after this long is also "
                 "asked of another node holding its shards, unless the query says (0: never)")
      ->envname("STRATA_HEDGE_AFTER_MS")
      ->check(CLI::Range(int64_t{0}, int64_t{3'600'000}))
      ->capture_default_str();
  app.add_option("--small-read-rows", c.small_read_rows,
                 "A leader read whose statement (literals aside) scanned at most this many rows "
                 "the last time it ran is read on this node's own replicas when it holds every "
                 "shard, confirmed against the shards' leaders before its answer goes out (0: "
                 "never; docs/cluster.md, \"A small leader read\")")
      ->envname("STRATA_SMALL_READ_ROWS")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000}))
      ->capture_default_str();
  app.add_option("--cluster-secret", c.cluster_secret,
                 "Shared by the cluster's nodes, which show it to each other; prefer "
                 "--cluster-secret-file")
      ->envname("STRATA_CLUSTER_SECRET");
  app.add_option("--cluster-secret-file", c.cluster_secret_file,
                 "File holding the cluster secret (trailing whitespace ignored)")
      ->envname("STRATA_CLUSTER_SECRET_FILE");
  app.add_option("--cluster-ca", c.cluster_ca,
                 "PEM CA that signed every node's --tls-cert: nodes call each other over mutual "
                 "TLS, and the internal service answers only certificates it signed")
      ->envname("STRATA_CLUSTER_CA");
  AddClusterServiceOptions(app, c);
}

}  // namespace

ParsedCommandLine ParseCommandLine(int argc, const char* const* argv) {
  ParsedCommandLine result;
  ServerConfig& c = result.config;
  CLI::App app{
      "stratad: the Strata time-series database server.\n"
      "Every option can also be set with the STRATA_* environment variable shown, or as\n"
      "`name = value` in a TOML file given with --config. Flags win over the file, which\n"
      "wins over the environment."};
  app.set_version_flag("--version", "stratad 0.1.0");
  app.set_config("--config", "", "TOML file with settings (keys are the long flag names)")
      ->envname("STRATA_CONFIG");
  app.allow_config_extras(false);

  std::string durability = "fsync";
  AddListenerOptions(app, c);
  AddStorageOptions(app, c, durability);
  AddQueryOptions(app, c);
  AddSecurityOptions(app, c);
  AddOperationsOptions(app, c);
  AddClusterOptions(app, c);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every mistake exits 2, as documented.
    result.exit_code = app.exit(e) == 0 ? 0 : 2;
    return result;
  }
  c.durability = durability == "buffered" ? Durability::kBuffered : Durability::kFsync;
  return result;
}

bool IsLoopbackHost(std::string_view host) {
  // Decided by what the name resolves to, not by its spelling: a name that
  // resolves to 0.0.0.0 would listen on every interface.
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return false;  // gRPC reads an empty host as every interface
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(std::string(host).c_str(), nullptr, &hints, &found) != 0) return false;
  bool all_loopback = found != nullptr;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      all_loopback &= (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      const in6_addr& addr = v6->sin6_addr;
      const bool mapped_v4_loopback = IN6_IS_ADDR_V4MAPPED(&addr) && addr.s6_addr[12] == 127;
      all_loopback &= IN6_IS_ADDR_LOOPBACK(&addr) || mapped_v4_loopback;
    } else {
      all_loopback = false;
    }
  }
  freeaddrinfo(found);
  return all_loopback;
}

absl::StatusOr<std::pair<std::string, int>> SplitHostPort(std::string_view address) {
  size_t colon = address.rfind(':');
  int port = -1;
  if (colon != std::string_view::npos && colon > 0) {
    std::string_view digits = address.substr(colon + 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || end != digits.data() + digits.size()) port = -1;
  }
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        StrCat("listen address \"", address,
               "\" is not HOST:PORT (for example 127.0.0.1:", kDefaultPort, ")"));
  }
  return std::pair<std::string, int>(address.substr(0, colon), port);
}

std::optional<int64_t> FixedTimeNanos(const ServerConfig& config) {
  if (config.testing_fixed_time.empty()) return std::nullopt;
  std::string_view text = config.testing_fixed_time;
  if (text.ends_with('Z')) text.remove_suffix(1);
  return ParseTimestamp(text);
}

bool AuthEnabled(const ServerConfig& config) {
  if (config.auth != "auto") return config.auth == "on";
  if (!config.tls_cert.empty()) return true;
  auto host_port = SplitHostPort(config.listen);
  const bool loopback = host_port.ok() && IsLoopbackHost(host_port->first);
  return !loopback && !config.allow_unauthenticated_remote;
}

std::string BootstrapTokenFile(const ServerConfig& config) {
  if (!config.bootstrap_token_file.empty()) return config.bootstrap_token_file;
  return config.data_dir + "/admin.token";
}

namespace {

absl::Status ValidateClusterSecurity(const ServerConfig& config) {
  const bool any = !config.cluster_ca.empty() || !config.etcd_ca.empty() ||
                   !config.etcd_cert.empty() || !config.etcd_user.empty() ||
                   !config.nats_ca.empty() || !config.nats_cert.empty() ||
                   !config.nats_user.empty() || !config.nats_creds.empty();
  if (!config.cluster) {
    if (!any) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "--cluster-ca, --etcd-* and --nats-* are for a cluster node: add --cluster (or drop them "
        "to run a single node)");
  }
  if (!config.tls_cert.empty() && config.cluster_ca.empty()) {
    return absl::InvalidArgumentError(
        "--cluster with --tls-cert needs --cluster-ca, the CA that signed every node's "
        "certificate: nodes call each other over mutual TLS with it");
  }
  if (!config.cluster_ca.empty() && config.tls_cert.empty()) {
    return absl::InvalidArgumentError(
        "--cluster-ca needs --tls-cert and --tls-key: this node's certificate, signed by that "
        "CA, which it serves and presents to the other nodes");
  }
  for (const auto& [cert, key, what] :
       {std::tuple{&config.etcd_cert, &config.etcd_key, "--etcd-cert and --etcd-key"},
        std::tuple{&config.nats_cert, &config.nats_key, "--nats-cert and --nats-key"}}) {
    if (cert->empty() != key->empty()) {
      return absl::InvalidArgumentError(StrCat(what, " go together: give both (or neither)"));
    }
  }
  if (!config.etcd_cert.empty() && config.etcd_ca.empty()) {
    return absl::InvalidArgumentError("--etcd-cert needs TLS to etcd: give --etcd-ca as well");
  }
  if (!config.nats_cert.empty() && config.nats_ca.empty()) {
    return absl::InvalidArgumentError("--nats-cert needs TLS to NATS: give --nats-ca as well");
  }
  if (config.etcd_user.empty() != config.etcd_password_file.empty()) {
    return absl::InvalidArgumentError(
        "--etcd-user and --etcd-password-file go together: give both (or neither)");
  }
  if (config.nats_user.empty() != config.nats_password_file.empty()) {
    return absl::InvalidArgumentError(
        "--nats-user and --nats-password-file go together: give both (or neither)");
  }
  if (!config.nats_user.empty() && !config.nats_creds.empty()) {
    return absl::InvalidArgumentError(
        "--nats-user and --nats-creds are two ways to log in to NATS: give one");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateConfig(const ServerConfig& config) {
  auto host_port = SplitHostPort(config.listen);
  if (!host_port.ok()) return host_port.status();
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together: give both (or neither, for plaintext)");
  }
  if (!config.tls_client_ca.empty() && config.tls_cert.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca needs TLS: give --tls-cert and --tls-key as well");
  }
  const bool secured = !config.tls_cert.empty() && AuthEnabled(config);
  if (!config.http_listen.empty()) {
    auto http = SplitHostPort(config.http_listen);
    if (!http.ok()) {
      return absl::InvalidArgumentError(StrCat("--http-listen: ", http.status().message()));
    }
    if (!IsLoopbackHost(http->first) && !secured && !config.allow_unauthenticated_remote) {
      return absl::InvalidArgumentError(StrCat(
          "refusing to serve HTTP on ", config.http_listen, " without ",
          config.tls_cert.empty() ? "TLS" : "authentication",
          ": give --tls-cert and --tls-key, keep --http-listen on 127.0.0.1, turn it off with "
          "--http-listen '', or pass --allow-unauthenticated-remote if the network is trusted"));
    }
  }
  if (!config.pg_listen.empty()) {
    auto pg = SplitHostPort(config.pg_listen);
    if (!pg.ok()) return absl::InvalidArgumentError(StrCat("--pg-listen: ", pg.status().message()));
    if (!IsLoopbackHost(pg->first) && !secured && !config.allow_unauthenticated_remote) {
      return absl::InvalidArgumentError(StrCat(
          "refusing to serve PostgreSQL clients on ", config.pg_listen, " without ",
          config.tls_cert.empty() ? "TLS" : "authentication",
          ": give --tls-cert and --tls-key, keep --pg-listen on 127.0.0.1, turn it off with "
          "--pg-listen '', or pass --allow-unauthenticated-remote if the network is trusted"));
    }
  }
  if (!IsLoopbackHost(host_port->first) && !secured && !config.allow_unauthenticated_remote) {
    return absl::InvalidArgumentError(
        StrCat("refusing to listen on ", config.listen, " without ",
               config.tls_cert.empty() ? "TLS" : "authentication",
               ": anyone reaching that address could read the traffic or read and write data. Give "
               "--tls-cert and --tls-key (authentication is then on), listen on 127.0.0.1, or pass "
               "--allow-unauthenticated-remote (STRATA_ALLOW_UNAUTHENTICATED_REMOTE=true) if the "
               "network is trusted"));
  }
  RETURN_IF_ERROR(ValidateClusterSecurity(config));
  if (config.cluster && !config.restore_from.empty()) {
    return absl::InvalidArgumentError(
        "--restore-from restores a single node; a cluster node builds its data from the "
        "shards' logs (start it without --restore-from)");
  }
  if (!config.cluster && (config.read_consistency != "leader" || config.hedge_after_ms != 0)) {
    return absl::InvalidArgumentError(
        "--read-consistency and --hedge-after-ms are for a cluster node (a single node reads "
        "its own data, always current): add --cluster or drop them");
  }
  if (!config.cluster && config.replica_ack != "leader") {
    return absl::InvalidArgumentError(
        "--replica-ack is for a cluster node (a single node's write is answered once it is "
        "fsynced): add --cluster or drop it");
  }
  if (!config.cluster &&
      (!config.node_id.empty() || !config.etcd.empty() || !config.nats.empty())) {
    return absl::InvalidArgumentError(
        "--node-id, --etcd and --nats are for a cluster node: add --cluster (or drop them to "
        "run a single node)");
  }
  if (config.restore_revoke_tokens && config.restore_from.empty()) {
    return absl::InvalidArgumentError(
        "--restore-revoke-tokens needs --restore-from: it revokes the restored tokens");
  }
  if (config.restore_only && config.restore_from.empty()) {
    return absl::InvalidArgumentError("--restore-only needs --restore-from: the backup to restore");
  }
  if (config.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir must not be empty");
  }
  if (!config.testing_fixed_time.empty() && !FixedTimeNanos(config)) {
    return absl::InvalidArgumentError(
        StrCat("--testing-fixed-time \"", config.testing_fixed_time,
               "\" is not a time; write it as 2024-03-01T12:00:00Z or 2024-03-01 12:00:00"));
  }
  return absl::OkStatus();
}

}  // namespace strata
