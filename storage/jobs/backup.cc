#include "storage/jobs/backup.h"

#include <filesystem>
#include <memory>

#include "common/status.h"
#include "common/strings.h"
#include "rocksdb/utilities/backup_engine.h"

namespace strata {
namespace {

absl::StatusOr<std::unique_ptr<rocksdb::BackupEngine>> OpenEngine(const std::string& dir,
                                                                  bool create) {
  if (!create && !std::filesystem::exists(dir)) {
    return absl::NotFoundError(StrCat("no backup directory at ", dir));
  }
  rocksdb::BackupEngineOptions options(dir);
  // Files are shared between backups by content, so a backup after a
  // compaction copies only the new files.
  options.share_files_with_checksum = true;
  options.max_background_operations = 2;
  rocksdb::BackupEngine* engine = nullptr;
  RETURN_IF_ERROR(FromRocks(rocksdb::BackupEngine::Open(rocksdb::Env::Default(), options, &engine),
                            StrCat("opening the backup directory ", dir)));
  return std::unique_ptr<rocksdb::BackupEngine>(engine);
}

BackupSummary Summary(const rocksdb::BackupInfo& info) {
  return {.id = info.backup_id, .created_seconds = info.timestamp, .bytes = info.size,
          .files = info.number_files};
}

// Backup `id` of `engine` (0: the newest).
absl::StatusOr<rocksdb::BackupInfo> Choose(rocksdb::BackupEngine& engine, uint32_t id,
                                           const std::string& dir) {
  std::vector<rocksdb::BackupInfo> infos;
  engine.GetBackupInfo(&infos);
  if (infos.empty()) return absl::NotFoundError(StrCat(dir, " holds no backup"));
  if (id == 0) return infos.back();
  for (const auto& info : infos) {
    if (info.backup_id == id) return info;
  }
  return absl::NotFoundError(
      StrCat("no backup ", id, " in ", dir, "; `strata backup list` shows the ids"));
}

}  // namespace

absl::StatusOr<BackupSummary> CreateBackup(Store& store, const std::string& backup_dir) {
  ASSIGN_OR_RETURN(auto engine, OpenEngine(backup_dir, /*create=*/true));
  rocksdb::CreateBackupOptions options;
  options.flush_before_backup = true;
  rocksdb::BackupID id = 0;
  RETURN_IF_ERROR(FromRocks(engine->CreateNewBackup(options, store.db(), &id),
                            StrCat("backing up into ", backup_dir)));
  rocksdb::BackupInfo info;
  RETURN_IF_ERROR(FromRocks(engine->GetBackupInfo(id, &info), "reading the new backup"));
  return Summary(info);
}

absl::StatusOr<std::vector<BackupSummary>> ListBackups(const std::string& backup_dir) {
  ASSIGN_OR_RETURN(auto engine, OpenEngine(backup_dir, /*create=*/false));
  std::vector<rocksdb::BackupInfo> infos;
  engine->GetBackupInfo(&infos);
  if (infos.empty()) return absl::NotFoundError(StrCat(backup_dir, " holds no backup"));
  std::vector<BackupSummary> out;
  for (const auto& info : infos) out.push_back(Summary(info));
  return out;
}

absl::StatusOr<BackupSummary> VerifyBackup(const std::string& backup_dir, uint32_t id) {
  ASSIGN_OR_RETURN(auto engine, OpenEngine(backup_dir, /*create=*/false));
  ASSIGN_OR_RETURN(rocksdb::BackupInfo chosen, Choose(*engine, id, backup_dir));
  absl::Status verified = FromRocks(
      engine->VerifyBackup(chosen.backup_id, /*verify_with_checksum=*/true), "verifying");
  if (!verified.ok()) {
    return absl::DataLossError(StrCat("backup ", chosen.backup_id, " in ", backup_dir,
                                      " is damaged: ", verified.message()));
  }
  return Summary(chosen);
}

absl::StatusOr<BackupSummary> RestoreBackup(const std::string& backup_dir, uint32_t id,
                                            const std::string& data_dir) {
  std::error_code error;
  if (std::filesystem::exists(data_dir, error) &&
      !std::filesystem::is_empty(data_dir, error)) {
    return absl::FailedPreconditionError(
        StrCat("refusing to restore into ", data_dir,
               ": it is not empty; restore into a new or empty data directory"));
  }
  ASSIGN_OR_RETURN(auto engine, OpenEngine(backup_dir, /*create=*/false));
  ASSIGN_OR_RETURN(rocksdb::BackupInfo chosen, Choose(*engine, id, backup_dir));
  std::filesystem::create_directories(data_dir, error);
  RETURN_IF_ERROR(FromRocks(engine->RestoreDBFromBackup(chosen.backup_id, data_dir, data_dir),
                            StrCat("restoring backup ", chosen.backup_id, " into ", data_dir)));
  return Summary(chosen);
}

}  // namespace strata
