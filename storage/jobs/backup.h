// Online backups of a data directory with RocksDB's BackupEngine
// (docs/operations.md, "Backup and restore"): consistent (the memtables are
// flushed first, so every write acknowledged before the backup began is in
// it), incremental (SST files already in the backup directory are shared by
// checksum, not copied again), verifiable, and restorable into an empty
// data directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/kv/store.h"

namespace strata {

struct BackupSummary {
  uint32_t id = 0;
  int64_t created_seconds = 0;  // since the Unix epoch
  uint64_t bytes = 0;           // the files it uses, shared ones included
  uint32_t files = 0;
};

// Takes a new backup of `store` (open and serving) into `backup_dir`,
// created if missing. Writes go on meanwhile.
absl::StatusOr<BackupSummary> CreateBackup(Store& store, const std::string& backup_dir);

// The backups in `backup_dir`, oldest first. NOT_FOUND when it holds none.
absl::StatusOr<std::vector<BackupSummary>> ListBackups(const std::string& backup_dir);

// Checks every file of backup `id` (0: the newest) against the checksums
// taken with it: DATA_LOSS names a damaged backup, NOT_FOUND an unknown id.
absl::StatusOr<BackupSummary> VerifyBackup(const std::string& backup_dir, uint32_t id);

// Restores backup `id` (0: the newest) into `data_dir`, which must be
// missing or empty (FAILED_PRECONDITION otherwise: a restore never mixes
// with existing data).
absl::StatusOr<BackupSummary> RestoreBackup(const std::string& backup_dir, uint32_t id,
                                            const std::string& data_dir);

}  // namespace strata
