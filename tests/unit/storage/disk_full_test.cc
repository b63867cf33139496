// Writes against a disk below its reserve: refused with RESOURCE_EXHAUSTED
// (no server paths in the message), reads and acknowledged data unaffected,
// and writes resume by themselves once space returns. The free space is
// injected; tests/e2e/disk_full_e2e_test.cc fills a real file system.
#include <atomic>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

constexpr int64_t kNow = 1'700'000'000LL * kNanosPerSecond;

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine =
        Engine::Open({.data_dir = dir_.Sub("data"),
                      .disk_reserve_bytes = 100 << 20,
                      .free_space = [this](const std::string&) -> absl::StatusOr<uint64_t> {
                        return free_.load();
                      },
                      .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine_->catalog().CreateTable({.database_name = "mydb", .table_name = "tbl"}).ok());
  }

  absl::StatusOr<WriteResult> WritePoint(const std::string& host) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    InputRecord r;
    r.dimensions = {{"host", host}};
    r.measure_name = "cpu";
    r.measure_value = Value::Double(1.5);
    r.time = kNow / kNanosPerMilli;
    request.records.push_back(std::move(r));
    return engine_->Write(request);
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::atomic<uint64_t> free_{uint64_t{10} << 30};
  std::unique_ptr<Engine> engine_;
};

TEST_F(DiskFullTest, WritesPauseBelowTheReserveAndResumeWhenSpaceReturns) {
  ASSERT_TRUE(WritePoint("a").ok());
  EXPECT_TRUE(engine_->CheckWritable().ok());

  free_ = uint64_t{50} << 20;  // below the 100 MiB reserve
  absl::StatusOr<WriteResult> refused = WritePoint("b");
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
  EXPECT_NE(refused.status().message().find("resume by themselves"), std::string::npos);
  EXPECT_EQ(refused.status().message().find(dir_.path().string()), std::string::npos)
      << "no server paths: " << refused.status();
  EXPECT_EQ(engine_->CheckWritable().code(), absl::StatusCode::kResourceExhausted);
  // Maintenance still runs (retention frees space); tiering waits.
  for (const TableMaintenance& m : engine_->RunMaintenance()) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kResourceExhausted) << m.status;
  }

  free_ = uint64_t{10} << 30;
  EXPECT_TRUE(engine_->CheckWritable().ok());
  ASSERT_TRUE(WritePoint("b").ok());
  auto table = engine_->catalog().FindTable("mydb", "tbl");
  ASSERT_TRUE(table.ok());
  auto state = engine_->TableStateOf(**table);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ((*state)->AllSeries().size(), 2u);  // a and b, nothing of the refused write twice
}

}  // namespace
}  // namespace strata
