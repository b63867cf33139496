// Store: the RocksDB options that bound what a data directory keeps.
#include "storage/kv/store.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

// RocksDB deletes obsolete logs in the background, so a file listed here may
// be gone when its size is asked: it then holds nothing.
uint64_t WalBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".log") continue;
    std::error_code gone;
    const uintmax_t size = std::filesystem::file_size(entry.path(), gone);
    if (!gone) total += size;
  }
  return total;
}

TEST(StoreTest, AFamilyWithFewWritesDoesNotPinEveryWriteAheadLogFile) {
  testing::TempDir dir;
  constexpr uint64_t kMaxWal = 1 << 20;
  auto store = Store::Open({.data_dir = dir.Sub("data"), .durability = Durability::kBuffered,
                            .max_wal_bytes = kMaxWal});
  ASSERT_TRUE(store.ok()) << store.status();
  rocksdb::DB* db = (*store)->db();
  // One catalog entry, then 16 MB of rows: far below a memtable's size, so
  // only the WAL bound makes anything flush.
  ASSERT_TRUE(db->Put((*store)->write_options(), (*store)->family(Store::kCatalog), "k", "v").ok());
  const std::string value(4096, 'x');
  for (int i = 0; i < 4096; ++i) {
    ASSERT_TRUE(db->Put((*store)->write_options(), (*store)->family(Store::kColdDelta),
                        "row" + std::to_string(i), value)
                    .ok());
  }
  // The bound is soft: RocksDB checks it as writes arrive, and flushes run
  // in the background while writes continue (a loaded machine wrote 8 MB
  // during one flush). Without it the log would hold all 16 MB. Keep writing
  // a little, as a live server does, until the flushes catch up (bounded:
  // without the WAL bound nothing would ever flush and the wait runs out).
  constexpr uint64_t kWritten = 4096 * 4096;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (WalBytes(dir.Sub("data")) >= kWritten / 2 &&
         std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(
        db->Put((*store)->write_options(), (*store)->family(Store::kColdDelta), "tick", "").ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LT(WalBytes(dir.Sub("data")), kWritten / 2);
  // And nothing is lost by the flushes.
  std::string read;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), (*store)->family(Store::kCatalog), "k", &read).ok());
  EXPECT_EQ(read, "v");
}

}  // namespace
}  // namespace strata
