// Backups of a whole cluster, and their restore into a new one (docs/cluster.md, "Backups").
//
// A backup is a directory on the machine of the node that takes it: each shard's rows read
// from one of its replicas (its checkpoint, checkpoint.h: every entry of the shard's log
// through the sequence recorded, so every write acknowledged before the backup began, and
// perhaps later ones), the catalog's databases and tables, and a manifest written last with
// each file's size and checksum. A restore goes into a cluster holding no database, of any
// shard count: it creates the databases and tables, then writes every row through the
// cluster's write path (its shards' leaders and logs), so each row lands on the new
// cluster's shard for it. Rows past their table's retention by then are counted, not
// written.
//
// Not in a backup: tokens, scheduled queries (both in etcd) and metrics.
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
};

struct ClusterRestoreSummary {
  uint32_t databases = 0;
  uint32_t tables = 0;
  int64_t rows = 0;
  int64_t expired = 0;
};

class ClusterBackups {
 public:
  // Where a shard's log ends now (its last sequence).
  using LogEnd = std::function<absl::StatusOr<uint64_t>(uint32_t shard)>;
  // All must outlive this. `ddl` and `sink` are the cluster's (replicated catalog, shard
  // router); `engine` is this node's (its catalog is read).
  ClusterBackups(ShardDirectory* directory, Engine* engine, CatalogChanges* ddl, WriteSink* sink,
                 std::string cluster_name, LogEnd log_end)
      : directory_(*directory),
        engine_(*engine),
        ddl_(*ddl),
        sink_(*sink),
        cluster_name_(std::move(cluster_name)),
        log_end_(std::move(log_end)),
        peers_(&directory->membership()) {}

  absl::StatusOr<ClusterBackupSummary> Backup(const std::string& dir);
  absl::StatusOr<ClusterRestoreSummary> Restore(const std::string& dir);

 private:
  // Writes shard `shard`'s checkpoint from one of its replicas, once it applied the log to
  // `at_least`, into `path`.
  absl::StatusOr<internal::v1::ShardBackup> BackupShard(uint32_t shard, uint64_t at_least,
                                                        const std::string& path);
  // Writes the rows of one part through the cluster's write path.
  absl::Status RestorePart(const internal::v1::CheckpointResponse& part,
                           ClusterRestoreSummary* summary);

  ShardDirectory& directory_;
  Engine& engine_;
  CatalogChanges& ddl_;
  WriteSink& sink_;
  const std::string cluster_name_;
  const LogEnd log_end_;
  PeerStubs peers_;
  std::mutex running_;  // one backup or restore at a time; another is refused meanwhile
};

}  // namespace strata::cluster
