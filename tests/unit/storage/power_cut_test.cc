// Durability with `--durability fsync`: after a simulated power cut (every
// file cut back to what was synced before it) every write acknowledged
// before the cut is there. A crash test (SIGKILL) cannot show this: the
// kernel keeps what a killed process wrote, synced or not.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "gtest/gtest.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

using rocksdb::FileOptions;
using rocksdb::FSWritableFile;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// A file system that remembers how much of each file written through it was
// synced and, once the power is cut, refuses every change, so that what is
// "on disk" is each file's synced prefix (DropUnsynced makes it so).
class PowerCutFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit PowerCutFileSystem(const std::shared_ptr<rocksdb::FileSystem>& target)
      : FileSystemWrapper(target) {}
  const char* Name() const override { return "PowerCutFileSystem"; }

  void Cut() {
    std::lock_guard lock(mu_);
    cut_ = true;
  }
  bool IsCut() {
    std::lock_guard lock(mu_);
    return cut_;
  }
  // Cuts every file written since the start back to its synced length.
  void DropUnsynced() {
    std::lock_guard lock(mu_);
    for (const auto& [name, file] : files_) {
      if (std::filesystem::exists(name)) std::filesystem::resize_file(name, file.synced);
    }
  }

  IOStatus NewWritableFile(const std::string& name, const FileOptions& options,
                           std::unique_ptr<FSWritableFile>* result,
                           IODebugContext* dbg) override {
    if (IsCut()) return Dead();
    IOStatus s = target()->NewWritableFile(name, options, result, dbg);
    if (s.ok()) Track(name, 0, result);
    return s;
  }
  IOStatus ReopenWritableFile(const std::string& name, const FileOptions& options,
                              std::unique_ptr<FSWritableFile>* result,
                              IODebugContext* dbg) override {
    if (IsCut()) return Dead();
    uint64_t size = 0;
    if (std::filesystem::exists(name)) size = std::filesystem::file_size(name);
    IOStatus s = target()->ReopenWritableFile(name, options, result, dbg);
    if (s.ok()) Track(name, size, result);
    return s;
  }
  IOStatus ReuseWritableFile(const std::string&, const std::string&, const FileOptions&,
                             std::unique_ptr<FSWritableFile>*, IODebugContext*) override {
    return IOStatus::NotSupported("log recycling is not simulated");
  }
  IOStatus DeleteFile(const std::string& name, const IOOptions& options,
                      IODebugContext* dbg) override {
    if (IsCut()) return Dead();
    return target()->DeleteFile(name, options, dbg);
  }
  IOStatus RenameFile(const std::string& from, const std::string& to, const IOOptions& options,
                      IODebugContext* dbg) override {
    std::lock_guard lock(mu_);
    if (cut_) return Dead();
    IOStatus s = target()->RenameFile(from, to, options, dbg);
    if (s.ok() && files_.contains(from)) {
      files_[to] = files_[from];
      files_.erase(from);
    }
    return s;
  }

 private:
  struct Sizes {
    uint64_t written = 0;
    uint64_t synced = 0;
  };

  // Wraps a writable file to count what reaches it and what is synced.
  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<FSWritableFile> target, PowerCutFileSystem* fs, std::string name)
        : FSWritableFileOwnerWrapper(std::move(target)), fs_(fs), name_(std::move(name)) {}

    IOStatus Append(const Slice& data, const IOOptions& options, IODebugContext* dbg) override {
      return fs_->Change(name_, [&] { return target()->Append(data, options, dbg); },
                         [&](Sizes& sizes) { sizes.written += data.size(); });
    }
    IOStatus Append(const Slice& data, const IOOptions& options,
                    const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
      return fs_->Change(name_, [&] { return target()->Append(data, options, info, dbg); },
                         [&](Sizes& sizes) { sizes.written += data.size(); });
    }
    IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                              IODebugContext* dbg) override {
      return fs_->Change(
          name_, [&] { return target()->PositionedAppend(data, offset, options, dbg); },
          [&](Sizes& sizes) { sizes.written = std::max(sizes.written, offset + data.size()); });
    }
    IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& options,
                              const rocksdb::DataVerificationInfo& info,
                              IODebugContext* dbg) override {
      return fs_->Change(
          name_, [&] { return target()->PositionedAppend(data, offset, options, info, dbg); },
          [&](Sizes& sizes) { sizes.written = std::max(sizes.written, offset + data.size()); });
    }
    IOStatus Truncate(uint64_t size, const IOOptions& options, IODebugContext* dbg) override {
      return fs_->Change(name_, [&] { return target()->Truncate(size, options, dbg); },
                         [&](Sizes& sizes) { sizes.written = size; });
    }
    IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
      return fs_->Sync(name_, [&] { return target()->Sync(options, dbg); });
    }
    IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
      return fs_->Sync(name_, [&] { return target()->Fsync(options, dbg); });
    }

   private:
    PowerCutFileSystem* const fs_;
    const std::string name_;
  };

  static IOStatus Dead() { return IOStatus::IOError("the power is cut"); }

  void Track(const std::string& name, uint64_t size, std::unique_ptr<FSWritableFile>* file) {
    {
      std::lock_guard lock(mu_);
      files_[name] = {.written = size, .synced = size};
    }
    *file = std::make_unique<File>(std::move(*file), this, name);
  }

  // An append or truncation: refused after the cut, else done and counted.
  template <typename Op, typename Count>
  IOStatus Change(const std::string& name, Op op, Count count) {
    std::lock_guard lock(mu_);
    if (cut_) return Dead();
    IOStatus s = op();
    if (s.ok()) count(files_[name]);
    return s;
  }

  // Only the bytes written before a sync began are sure to be on disk after
  // it: appends run beside the log's sync (the next group's, here).
  template <typename Op>
  IOStatus Sync(const std::string& name, Op op) {
    uint64_t before = 0;
    {
      std::lock_guard lock(mu_);
      if (cut_) return Dead();
      before = files_[name].written;
    }
    IOStatus s = op();
    std::lock_guard lock(mu_);
    // A sync that ends after the cut did not finish before the machine died.
    if (cut_) return Dead();
    if (s.ok()) files_[name].synced = std::max(files_[name].synced, before);
    return s;
  }

  std::mutex mu_;
  bool cut_ = false;
  std::map<std::string, Sizes> files_;
};

// Writer `writer`'s record at `time_millis`; its value names both.
int64_t Identity(int writer, int64_t time_millis) { return time_millis * 16 + writer; }

InputRecord Reading(int writer, int64_t time_millis) {
  InputRecord r;
  r.dimensions = {{"writer", "w" + std::to_string(writer)}};
  r.measure_name = "load";
  r.measure_values = {{.name = "value", .type = MeasureKind::kBigint,
                       .value = Value::Bigint(Identity(writer, time_millis))}};
  r.time = time_millis;
  r.time_unit = TimeUnit::kMilliseconds;
  return r;
}

TEST(PowerCutTest, EveryWriteAcknowledgedBeforeAPowerCutSurvivesIt) {
  testing::TempDir dir;
  auto fs = std::make_shared<PowerCutFileSystem>(rocksdb::FileSystem::Default());
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);
  auto engine = Engine::Open(
      {.data_dir = dir.Sub("data"), .durability = Durability::kFsync, .env = env.get()});
  ASSERT_TRUE(engine.ok()) << engine.status();
  absl::Status created = (*engine)->catalog().CreateDatabase("mydb", "").status();
  ASSERT_TRUE(created.ok()) << created;
  ASSERT_TRUE((*engine)->catalog().CreateTable({.database_name = "mydb", .table_name = "tbl"}).ok());

  // Writers of 20-record requests, each over its own series and times, so
  // that groups of several requests commit while earlier ones sync.
  constexpr int kWriters = 4;
  constexpr int kRecordsPerRequest = 20;
  const int64_t start_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count() - 60'000;
  std::atomic<int> acknowledged_requests{0};
  std::vector<std::vector<int64_t>> acknowledged(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int64_t next = start_millis;; next += kRecordsPerRequest) {
        WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
        for (int i = 0; i < kRecordsPerRequest; ++i) request.records.push_back(Reading(w, next + i));
        auto result = (*engine)->Write(request);
        // Once the power is cut nothing more is acknowledged; a write that
        // returned before it (it reads the flag after returning) was.
        if (!result.ok() || fs->IsCut()) return;
        ASSERT_TRUE(result->rejected.empty()) << result->rejected[0].reason;
        for (int i = 0; i < kRecordsPerRequest; ++i) acknowledged[w].push_back(next + i);
        ++acknowledged_requests;
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (acknowledged_requests < 400 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fs->Cut();
  for (auto& t : writers) t.join();
  ASSERT_GE(acknowledged_requests.load(), 40) << "the writers made too little progress to test";
  engine->reset();  // closes with every write failing, as a dead machine's would
  fs->DropUnsynced();

  auto reopened = Engine::Open({.data_dir = dir.Sub("data")});
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  auto table = (*reopened)->catalog().DescribeTable("mydb", "tbl");
  ASSERT_TRUE(table.ok()) << table.status();
  std::set<int64_t> stored;
  ASSERT_TRUE((*reopened)
                  ->Scan(*table, {}, [&](const ScanRow& row) {
                    if (!row.measures.empty()) stored.insert(row.measures[0].value.number);
                    return true;
                  }).ok());
  int missing = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (int64_t millis : acknowledged[w]) missing += !stored.contains(Identity(w, millis));
  }
  EXPECT_EQ(missing, 0) << "of " << acknowledged_requests.load() * kRecordsPerRequest
                        << " acknowledged records";
}

}  // namespace
}  // namespace strata
