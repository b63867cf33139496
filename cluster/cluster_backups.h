// Backups of a whole cluster, and their restore into a new one (docs/cluster.md, "Backups").
//
// A backup is a directory on the machine of the node that takes it: each shard's rows read
// from one of its replicas (its checkpoint, checkpoint.h: every entry of the shard's log
// through the sequence recorded, so every write acknowledged before the backup began, and
// perhaps later ones), and a manifest written last with each file's size and checksum, the
// catalog's databases and tables, the live tokens and the scheduled queries with their runs
// (the last two from etcd). A restore goes into a cluster holding no database, of any shard
// count: it creates the databases and tables, then writes every row through the cluster's
// write path (its shards' leaders and logs), so each row lands on the new cluster's shard for
// it, then puts the tokens and the scheduled queries back. Rows past their table's retention
// by then are counted, not written.
//
// Not in a backup: metrics, revoked and expired tokens.
//
// Thread-safety: any thread; while a Backup or Restore runs, another is refused
// (FAILED_PRECONDITION).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "cluster/peer_stubs.h"
#include "cluster/replicated_scheduled_queries.h"
#include "cluster/replicated_tokens.h"
#include "cluster/shard_router.h"
#include "storage/catalog/catalog_changes.h"
#include "storage/engine.h"

namespace strata::cluster {

struct ClusterBackupSummary {
  uint32_t shards = 0;
  uint32_t databases = 0;
  uint32_t tables = 0;
  int64_t rows = 0;
  uint64_t bytes = 0;
  uint32_t tokens = 0;
  uint32_t scheduled_queries = 0;
};

struct ClusterRestoreOptions {
  // Leaves the backup's tokens out: the cluster's own stay the only ones (after a leak).
  bool without_tokens = false;
};

struct ClusterRestoreSummary {
  uint32_t databases = 0;
  uint32_t tables = 0;
  int64_t rows = 0;
  int64_t expired = 0;
  uint32_t tokens = 0;
  // The backup's tokens whose name a token of this cluster holds (one not revoked; a new
  // cluster's first admin token is "admin"): not restored, since a name names one token.
  std::vector<std::string> tokens_not_restored;
  uint32_t scheduled_queries = 0;
};

class ClusterBackups {
 public:
  // Where a shard's log ends now (its last sequence).
  using LogEnd = std::function<absl::StatusOr<uint64_t>(uint32_t shard)>;
  // The cluster's parts a backup reads and a restore writes; all must outlive this. `ddl`,
  // `sink`, `tokens` and `scheduled` are the cluster's (replicated catalog, shard router,
  // etcd); `engine` is this node's (its catalog is read).
  struct Parts {
    ShardDirectory* directory;
    Engine* engine;
    CatalogChanges* ddl;
    WriteSink* sink;
    ReplicatedTokens* tokens;
    ReplicatedScheduledQueries* scheduled;
  };
  ClusterBackups(Parts parts, std::string cluster_name, LogEnd log_end)
      : directory_(*parts.directory),
        engine_(*parts.engine),
        ddl_(*parts.ddl),
        sink_(*parts.sink),
        tokens_(*parts.tokens),
        scheduled_(*parts.scheduled),
        cluster_name_(std::move(cluster_name)),
        log_end_(std::move(log_end)),
        peers_(&parts.directory->membership()) {}

  absl::StatusOr<ClusterBackupSummary> Backup(const std::string& dir);
  absl::StatusOr<ClusterRestoreSummary> Restore(const std::string& dir,
                                                const ClusterRestoreOptions& options = {});

 private:
  // Writes shard `shard`'s checkpoint from one of its replicas, once it applied the log to
  // `at_least`, into `path`.
  absl::StatusOr<internal::v1::ShardBackup> BackupShard(uint32_t shard, uint64_t at_least,
                                                        const std::string& path);
  // Writes the rows of one part through the cluster's write path.
  absl::Status RestorePart(const internal::v1::CheckpointResponse& part,
                           ClusterRestoreSummary* summary);
  // Adds the live tokens and the scheduled queries (with their runs) to `manifest`.
  absl::Status BackupEtcdState(internal::v1::ClusterBackupManifest* manifest,
                               ClusterBackupSummary* summary);
  // Puts the backup's tokens (those whose name is free here) back.
  absl::Status RestoreTokens(const std::vector<TokenRecord>& tokens,
                             ClusterRestoreSummary* summary);

  ShardDirectory& directory_;
  Engine& engine_;
  CatalogChanges& ddl_;
  WriteSink& sink_;
  ReplicatedTokens& tokens_;
  ReplicatedScheduledQueries& scheduled_;
  const std::string cluster_name_;
  const LogEnd log_end_;
  PeerStubs peers_;
  std::mutex running_;  // one backup or restore at a time; another is refused meanwhile
};

}  // namespace strata::cluster
