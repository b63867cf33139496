// Online backup and restore against the real stratad: a backup taken under a
// concurrent writer holds every write acknowledged before it began, restores
// only into an empty data directory, and verification finds damage.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "strata/v1/backup.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

class BackupE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "cpu").ok());
    backups_ = dir_.Sub("backups");
  }

  grpc::Status Backup(const std::string& directory, v1::Backup* out = nullptr) {
    auto stub = v1::BackupService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::CreateBackupRequest request;
    request.set_directory(directory);
    v1::CreateBackupResponse response;
    grpc::Status status = stub->CreateBackup(&context, request, &response);
    if (out != nullptr) *out = response.backup();
    return status;
  }

  grpc::Status Verify(uint32_t id) {
    auto stub = v1::BackupService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::VerifyBackupRequest request;
    request.set_directory(backups_);
    request.set_backup_id(id);
    v1::VerifyBackupResponse response;
    return stub->VerifyBackup(&context, request, &response);
  }

  testing::StratadProcess server_;
  testing::TempDir dir_;
  std::string backups_;
};

TEST_F(BackupE2ETest, ABackupUnderWritesHoldsEveryAcknowledgedWrite) {
  // A writer that records how many records were acknowledged; record i
  // carries the value i.
  std::atomic<bool> stop{false};
  std::atomic<int64_t> acknowledged{0};
  const int64_t start = testing::NowMillis() - 60'000;
  std::thread writer([&] {
    auto stub = v1::WriteService::NewStub(server_.channel());
    for (int64_t i = 0; !stop; i += 10) {
      std::vector<v1::Record> records;
      for (int64_t j = i; j < i + 10; ++j) {
        records.push_back(testing::CpuRecord("h", start + j, static_cast<double>(j)));
      }
      grpc::ClientContext context;
      v1::WriteRecordsResponse response;
      if (!stub->WriteRecords(&context, testing::WriteRequest("mydb", "cpu", records), &response)
               .ok()) {
        break;
      }
      acknowledged = i + 10;
    }
  });
  while (acknowledged < 500) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int64_t before = acknowledged;
  v1::Backup first;
  grpc::Status taken = Backup(backups_, &first);
  ASSERT_TRUE(taken.ok()) << taken.error_message();
  const int64_t after_first = acknowledged;
  // A second, incremental backup while writes go on.
  v1::Backup second;
  ASSERT_TRUE(Backup(backups_, &second).ok());
  stop = true;
  writer.join();
  EXPECT_EQ(second.backup_id(), first.backup_id() + 1);
  EXPECT_GT(first.file_count(), 0u);
  EXPECT_TRUE(Verify(0).ok());
  EXPECT_TRUE(Verify(first.backup_id()).ok());

  // Restore the first backup into a fresh data directory and read it back.
  testing::StratadProcess restored;
  ASSERT_TRUE(restored.Start({"--restore-from", backups_, "--restore-backup-id",
                              std::to_string(first.backup_id())}))
      << restored.error();
  EXPECT_THAT(restored.log(), HasSubstr("restored backup " + std::to_string(first.backup_id())));
  testing::QueryResult held = testing::RunQuery(
      restored.channel(), "SELECT count(*) FROM mydb.cpu WHERE measure_value::double < " +
                              std::to_string(before));
  ASSERT_TRUE(held.status.ok()) << held.status.error_message();
  EXPECT_EQ(held.rows[0].data(0).bigint_value(), before);
  // Nothing the writer had not sent by the time the backup returned.
  testing::QueryResult total = testing::RunQuery(restored.channel(), "SELECT count(*) FROM mydb.cpu");
  EXPECT_LE(total.rows[0].data(0).bigint_value(), after_first + 10);
}

TEST_F(BackupE2ETest, RestoreNeedsAnEmptyDataDirectoryAndABackup) {
  ASSERT_TRUE(Backup(backups_).ok());
  ASSERT_EQ(server_.Stop(), 0);
  // Into the server's own, non-empty data directory: refused, data untouched.
  testing::StratadProcess again;
  EXPECT_EQ(again.RunToExit({"--data-dir", server_.data_dir(), "--listen", "127.0.0.1:0",
                             "--restore-from", backups_}),
            1);
  EXPECT_THAT(again.log(), HasSubstr("refusing to restore into " + server_.data_dir() +
                                     ": it is not empty"));
  testing::StratadProcess missing;
  EXPECT_EQ(missing.RunToExit({"--data-dir", missing.data_dir(), "--listen", "127.0.0.1:0",
                               "--restore-from", dir_.Sub("nothing-here")}),
            1);
  EXPECT_THAT(missing.log(), HasSubstr("no backup directory at"));
  ASSERT_TRUE(server_.Restart()) << server_.error();
}

TEST_F(BackupE2ETest, VerificationFindsADamagedFileAndPathsMustBeAbsoluteWithoutNul) {
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "db2", "tbl").ok());
  v1::Backup backup;
  ASSERT_TRUE(Backup(backups_, &backup).ok());
  EXPECT_EQ(Backup("relative/dir").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // A NUL would end the path at the file system: /tmp, not what was asked.
  grpc::Status nul = Backup(backups_ + std::string("\0/elsewhere", 11));
  EXPECT_EQ(nul.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(nul.error_message(), HasSubstr("NUL"));
  EXPECT_EQ(Verify(backup.backup_id() + 5).error_code(), grpc::StatusCode::NOT_FOUND);
  // Damage one file of the backup (same size, other bytes).
  bool damaged = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(backups_)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".sst") continue;
    std::fstream file(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(16);
    file.write("DAMAGED!", 8);
    damaged = true;
    break;
  }
  ASSERT_TRUE(damaged) << "the backup holds no .sst file";
  grpc::Status verified = Verify(backup.backup_id());
  EXPECT_EQ(verified.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_THAT(verified.error_message(), HasSubstr("is damaged"));
}

// A backup holds the tokens as they were: one revoked after it is live again
// in a plain restore (docs/security.md says so), and --restore-revoke-tokens
// revokes them all and writes a new admin token instead.
TEST(RestoreTokensE2ETest, ARestoreCanRevokeEveryTokenItBringsBack) {
  testing::TempDir dir;
  const std::string backups = dir.Sub("backups");
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--auth", "on"})) << server.error();
  const std::string admin = server.AdminToken();
  const std::string reader = testing::CreateToken(server.channel(), admin, "reader", "read:*");
  ASSERT_FALSE(reader.empty());
  {
    auto stub = v1::BackupService::NewStub(server.channel());
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + admin);
    v1::CreateBackupRequest request;
    request.set_directory(backups);
    v1::CreateBackupResponse response;
    ASSERT_TRUE(stub->CreateBackup(&context, request, &response).ok());
  }
  auto reads = [](testing::StratadProcess& at, const std::string& token) {
    return testing::RunQuery(at.channel(), "SELECT 1", 0, token).status.ok();
  };
  testing::StratadProcess plain;
  ASSERT_TRUE(plain.Start({"--auth", "on", "--restore-from", backups})) << plain.error();
  EXPECT_TRUE(reads(plain, reader));

  testing::StratadProcess revoking;
  ASSERT_TRUE(revoking.Start({"--auth", "on", "--restore-from", backups, "--restore-revoke-tokens"}))
      << revoking.error();
  EXPECT_FALSE(reads(revoking, reader));
  EXPECT_FALSE(reads(revoking, admin));
  const std::string new_admin = revoking.AdminToken();
  EXPECT_NE(new_admin, admin);
  EXPECT_TRUE(reads(revoking, new_admin));
  EXPECT_THAT(revoking.log(), HasSubstr("revoked all 2 live tokens"));
}

}  // namespace
}  // namespace strata
