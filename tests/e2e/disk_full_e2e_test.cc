// A full disk, for real: stratad's data directory is a small tmpfs that the
// test fills. Writes are refused with RESOURCE_EXHAUSTED (no server paths),
// the write service reports NOT_SERVING, reads go on, writes resume by
// themselves once space is freed, SIGTERM exits 0 and every acknowledged
// record survives a restart. Needs root to mount; skipped otherwise.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using std::chrono::steady_clock;

constexpr int64_t kReserveMb = 64;

class DiskFullE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting a small file system needs root";
    std::filesystem::create_directories(server_.data_dir());
    if (mount("tmpfs", server_.data_dir().c_str(), "tmpfs", 0, "size=512m") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    }
    mounted_ = true;
  }
  void TearDown() override {
    server_.Stop();
    if (mounted_) umount2(server_.data_dir().c_str(), MNT_DETACH);
  }

  uint64_t FreeBytes() {
    struct statvfs fs;
    statvfs(server_.data_dir().c_str(), &fs);
    return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  }
  // Grows the filler file until `free_bytes` are left.
  void LeaveFree(uint64_t free_bytes) {
    const uint64_t free = FreeBytes();
    if (free <= free_bytes) return;
    filler_bytes_ += free - free_bytes;
    int fd = open(Filler().c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(posix_fallocate(fd, 0, static_cast<off_t>(filler_bytes_)), 0);
    close(fd);
  }
  std::string Filler() const { return server_.data_dir() + "/filler.bin"; }

  grpc::Status WriteBatch(int batch, int64_t* acknowledged) {
    auto writer = v1::WriteService::NewStub(server_.channel());
    std::vector<v1::Record> records;
    // One fixed "now": every (host, time) is new, so each acknowledged record
    // is one row (a repeat would be an idempotent no-op, counted but not
    // stored twice).
    const int64_t now = start_millis_;
    for (int i = 0; i < 100; ++i) {
      // 500-byte values: the write-ahead log grows by ~50 KB a batch.
      v1::Record r = testing::CpuRecord("host" + std::to_string(i), now - batch * 100 - i, 1.0);
      r.set_measure_name("log");
      r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_VARCHAR);
      r.mutable_measure_value()->set_varchar_value(std::string(500, 'x'));
      records.push_back(std::move(r));
    }
    grpc::ClientContext context;
    v1::WriteRecordsResponse response;
    grpc::Status status =
        writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", records), &response);
    if (status.ok()) *acknowledged += response.records_ingested().total();
    return status;
  }

  bool WritesServing() {
    auto stub = grpc::health::v1::Health::NewStub(server_.channel());
    grpc::ClientContext context;
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("strata.v1.WriteService");
    grpc::health::v1::HealthCheckResponse response;
    return stub->Check(&context, request, &response).ok() &&
           response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  }

  int64_t Count() {
    testing::QueryResult r = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.tbl");
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
    return r.rows.empty() ? -1 : r.rows[0].data(0).bigint_value();
  }

  testing::StratadProcess server_;
  bool mounted_ = false;
  uint64_t filler_bytes_ = 0;
  const int64_t start_millis_ = testing::NowMillis();
};

TEST_F(DiskFullE2ETest, WritesPauseOnAFullDiskAndResumeWhenSpaceIsFreed) {
  ASSERT_TRUE(server_.Start({"--disk-reserve-mb", std::to_string(kReserveMb)})) << server_.error();
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  int64_t acknowledged = 0;
  int batch = 0;
  for (; batch < 5; ++batch) ASSERT_TRUE(WriteBatch(batch, &acknowledged).ok());

  // A few MiB above the reserve, then write until the server refuses.
  LeaveFree((kReserveMb + 4) << 20);
  grpc::Status refused;
  for (; batch < 20000 && refused.ok(); ++batch) refused = WriteBatch(batch, &acknowledged);
  ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("resume by themselves"), std::string::npos)
      << refused.error_message();
  EXPECT_EQ(refused.error_message().find(server_.data_dir()), std::string::npos)
      << "no server paths: " << refused.error_message();

  // While the disk stays full the write service says so (RocksDB may free a
  // little as it flushes: keep it full), and reads go on.
  const auto give_up = steady_clock::now() + std::chrono::seconds(20);
  while (WritesServing() && steady_clock::now() < give_up) {
    LeaveFree((kReserveMb - 16) << 20);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_FALSE(WritesServing());
  EXPECT_EQ(Count(), acknowledged);

  // Space returns: writes resume without a restart.
  std::filesystem::remove(Filler());
  const auto resume_by = steady_clock::now() + std::chrono::seconds(20);
  while (!WritesServing() && steady_clock::now() < resume_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(WritesServing());
  ASSERT_TRUE(WriteBatch(batch++, &acknowledged).ok());

  EXPECT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(Count(), acknowledged);
}

}  // namespace
}  // namespace strata
