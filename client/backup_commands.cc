// `strata backup ...`: BackupService (docs/operations.md). The directories
// are paths on the server's machine.
#include <iostream>

#include "client/command.h"
#include "client/listing.h"

namespace strata::cli {
namespace {

using BackupStub = v1::BackupService::Stub;

void PrintBackups(const std::vector<v1::Backup>& backups, OutputFormat format) {
  Listing listing({{"backup_id", v1::SCALAR_TYPE_BIGINT},
                   {"created", v1::SCALAR_TYPE_TIMESTAMP},
                   {"bytes", v1::SCALAR_TYPE_BIGINT},
                   {"files", v1::SCALAR_TYPE_BIGINT}});
  for (const v1::Backup& b : backups) {
    listing.AddRow({Listing::Int(b.backup_id()), Listing::Time(b.creation_time()),
                    Listing::Int(static_cast<int64_t>(b.size_bytes())),
                    Listing::Int(b.file_count())});
  }
  listing.Print(format, std::cout);
}

}  // namespace

void AddBackupCommands(CLI::App& app, CommandContext& context) {
  CLI::App* backup = app.add_subcommand(
      "backup", "Online backups of the server (admin token; paths on the server's machine)");
  backup->require_subcommand(1);

  auto to = std::make_shared<std::string>();
  CLI::App* create = backup->add_subcommand(
      "create", "Take a consistent, incremental backup while the server keeps serving");
  create->add_option("--to", *to, "Backup directory on the server (absolute path)")->required();
  create->callback([&context, to] {
    v1::CreateBackupRequest request;
    request.set_directory(*to);
    v1::CreateBackupResponse response;
    if (!CallUnary(context, context.connection().backup(), &BackupStub::CreateBackup, request,
                   response)) {
      return;
    }
    std::cout << "backup " << response.backup().backup_id() << " taken into " << *to << " ("
              << response.backup().file_count() << " files, " << response.backup().size_bytes()
              << " bytes); restore with: stratad --data-dir EMPTY_DIR --restore-from " << *to
              << "\n";
  });

  auto list_dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  CLI::App* list = backup->add_subcommand("list", "List the backups of a directory");
  list->add_option("directory", *list_dir, "Backup directory on the server")->required();
  AddFormatOption(*list, *format);
  list->callback([&context, list_dir, format] {
    auto resolved = ResolveFormat(*format);
    if (!resolved) return context.set_exit_code(ExitCode::kUsage);
    v1::ListBackupsRequest request;
    request.set_directory(*list_dir);
    v1::ListBackupsResponse response;
    if (!CallUnary(context, context.connection().backup(), &BackupStub::ListBackups, request,
                   response)) {
      return;
    }
    PrintBackups({response.backups().begin(), response.backups().end()}, *resolved);
  });

  struct VerifyArgs {
    std::string directory;
    uint32_t id = 0;
  };
  auto verify_args = std::make_shared<VerifyArgs>();
  CLI::App* verify = backup->add_subcommand(
      "verify", "Check every file of a backup against its checksum");
  verify->add_option("directory", verify_args->directory, "Backup directory on the server")
      ->required();
  verify->add_option("--id", verify_args->id, "Backup id (default: the newest)");
  verify->callback([&context, verify_args] {
    v1::VerifyBackupRequest request;
    request.set_directory(verify_args->directory);
    request.set_backup_id(verify_args->id);
    v1::VerifyBackupResponse response;
    if (!CallUnary(context, context.connection().backup(), &BackupStub::VerifyBackup, request,
                   response)) {
      return;
    }
    std::cout << "backup " << response.backup().backup_id() << " is intact ("
              << response.backup().file_count() << " files)\n";
  });
}

}  // namespace strata::cli
