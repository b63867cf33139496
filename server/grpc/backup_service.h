// BackupService handlers: online backups through storage/jobs/backup.h. Admin
// only: the directories are paths on the server's machine.
#pragma once

#include "server/grpc/unary.h"
#include "storage/engine.h"
#include "strata/v1/backup.grpc.pb.h"

namespace strata {

using RawBackupService =
    v1::BackupService::WithRawMethod_CreateBackup<v1::BackupService::WithRawMethod_ListBackups<
        v1::BackupService::WithRawMethod_VerifyBackup<v1::BackupService::Service>>>;

class BackupService final : public RawBackupService {
 public:
  // The arguments must outlive the service.
  BackupService(Engine* engine, Authenticator* auth) : engine_(*engine), auth_(*auth) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(CreateBackup, v1::CreateBackupRequest, v1::CreateBackupResponse);
  STRATA_SERVE_UNARY(ListBackups, v1::ListBackupsRequest, v1::ListBackupsResponse);
  STRATA_SERVE_UNARY(VerifyBackup, v1::VerifyBackupRequest, v1::VerifyBackupResponse);

 private:
  Engine& engine_;
  Authenticator& auth_;
};

}  // namespace strata
