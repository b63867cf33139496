#include "server/grpc/backup_service.h"

#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "google/protobuf/util/time_util.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

void ToProto(const BackupSummary& b, v1::Backup* out) {
  out->set_backup_id(b.id);
  *out->mutable_creation_time() =
      google::protobuf::util::TimeUtil::SecondsToTimestamp(b.created_seconds);
  out->set_size_bytes(b.bytes);
  out->set_file_count(b.files);
}

absl::Status CheckDirectory(const std::string& directory) {
  if (directory.empty() || directory.front() != '/') {
    return absl::InvalidArgumentError(
        StrCat("directory \"", EchoInput(directory), "\" is not an absolute path on the server; give one, "
               "e.g. /var/backups/strata"));
  }
  // A path ends at a NUL for the file system: the backup would go elsewhere.
  if (directory.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("the directory's path contains a NUL byte; give a path without one");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BackupService::CreateBackup(const Principal& caller,
                                         const v1::CreateBackupRequest* request,
                                         v1::CreateBackupResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("take backups"));
  RETURN_IF_ERROR(CheckDirectory(request->directory()));
  ASSIGN_OR_RETURN(BackupSummary backup, engine_.Backup(request->directory()));
  spdlog::info("backup {} taken into {} by \"{}\": {} files, {} bytes", backup.id,
               request->directory(), caller.name(), backup.files, backup.bytes);
  ToProto(backup, response->mutable_backup());
  return absl::OkStatus();
}

absl::Status BackupService::ListBackups(const Principal& caller,
                                        const v1::ListBackupsRequest* request,
                                        v1::ListBackupsResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("list backups"));
  RETURN_IF_ERROR(CheckDirectory(request->directory()));
  ASSIGN_OR_RETURN(std::vector<BackupSummary> backups, strata::ListBackups(request->directory()));
  for (const BackupSummary& b : backups) ToProto(b, response->add_backups());
  return absl::OkStatus();
}

absl::Status BackupService::VerifyBackup(const Principal& caller,
                                         const v1::VerifyBackupRequest* request,
                                         v1::VerifyBackupResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("verify backups"));
  RETURN_IF_ERROR(CheckDirectory(request->directory()));
  ASSIGN_OR_RETURN(BackupSummary verified,
                   strata::VerifyBackup(request->directory(), request->backup_id()));
  ToProto(verified, response->mutable_backup());
  return absl::OkStatus();
}

void BackupService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &BackupService::RequestCreateBackup,
             &BackupService::CreateBackup);
  ServeUnary(queues, auth_, this, &BackupService::RequestListBackups, &BackupService::ListBackups);
  ServeUnary(queues, auth_, this, &BackupService::RequestVerifyBackup,
             &BackupService::VerifyBackup);
}

}  // namespace strata
