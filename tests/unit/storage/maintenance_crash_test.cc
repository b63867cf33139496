// kill -9 during tiering and retention: a helper process runs the jobs over a
// real data directory and is killed at staggered moments; after every kill
// the data reads back identical, and a completed run changes nothing either.
// And kill -9 while writes go on and the memory budget converts hours.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace strata {
namespace {

constexpr int64_t kStart = 1'700'002'800LL * kNanosPerSecond;
constexpr int kHosts = 200;
constexpr int kHours = 10;
constexpr int64_t kStep = 30 * kNanosPerSecond;

// Spawns the helper at `now` and kills it after `delay` unless it finished
// first; true if it was killed.
bool RunAndKill(const std::string& data_dir, int64_t now, std::chrono::milliseconds delay) {
  const std::string now_text = std::to_string(now);
  const char* argv[] = {STRATA_MAINTENANCE_HELPER, data_dir.c_str(), now_text.c_str(), nullptr};
  pid_t pid;
  EXPECT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + delay;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the helper failed";
  }
  return WIFSIGNALED(status);
}

class MaintenanceCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = Open(kStart);
    ASSERT_TRUE(engine->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                  .retention = {.memory_store_retention_hours = 12,
                                                .magnetic_store_retention_days = 2},
                                  .enable_magnetic_store_writes = true})
                    .ok());
    for (int64_t t = kStart - kHours * kNanosPerHour; t < kStart; t += kStep) {
      for (int base = 0; base < kHosts; base += 100) {
        WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
        for (int h = base; h < base + 100; ++h) {
          InputRecord r;
          r.dimensions = {{"host", "h" + std::to_string(h)}};
          r.measure_name = "usage";
          r.measure_value = Value::Double(h + static_cast<double>(t % 1000) / 8);
          r.time = t;
          r.time_unit = TimeUnit::kNanoseconds;
          request.records.push_back(std::move(r));
        }
        auto result = engine->Write(request);
        ASSERT_TRUE(result.ok() && result->rejected.empty());
      }
    }
    expected_ = Fingerprint(*engine);
    ASSERT_EQ(expected_.rows, int64_t{kHosts} * kHours * (kNanosPerHour / kStep));
  }

  std::unique_ptr<Engine> Open(int64_t now) {
    clock_.Set(now);
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    EXPECT_TRUE(engine.ok()) << engine.status();
    return std::move(*engine);
  }

  // Every row's series, time, version and value, folded into a count and a hash.
  struct Digest {
    int64_t rows = 0;
    uint64_t hash = 0;
    bool operator==(const Digest&) const = default;
  };
  static Digest Fingerprint(Engine& engine) {
    Digest d;
    auto table = engine.catalog().DescribeTable("mydb", "tbl");
    EXPECT_TRUE(table.ok());
    EXPECT_TRUE(engine.Scan(*table, {}, [&](const ScanRow& row) {
                  ++d.rows;
                  uint64_t bits;
                  std::memcpy(&bits, &row.measures.at(0).value.real, sizeof(bits));
                  d.hash = d.hash * 1'000'003 ^ row.series ^ static_cast<uint64_t>(row.time_nanos) ^
                           bits ^ static_cast<uint64_t>(row.version);
                  return true;
                }).ok());
    return d;
  }

  testing::TempDir dir_;
  ManualClock clock_{kStart};
  Digest expected_;
};

TEST_F(MaintenanceCrashTest, KilledTieringLosesAndDuplicatesNothing) {
  const int64_t later = kStart + 24 * kNanosPerHour;  // every bucket past memory retention
  int killed = 0;
  for (int delay : {40, 120, 250, 400, 700}) {
    killed += RunAndKill(dir_.Sub("data"), later, std::chrono::milliseconds(delay)) ? 1 : 0;
    auto engine = Open(later);
    EXPECT_EQ(Fingerprint(*engine), expected_) << "after a kill at " << delay << " ms";
  }
  EXPECT_GT(killed, 0) << "every run finished before its kill: make the data larger";

  auto engine = Open(later);
  auto results = engine->RunMaintenance();
  ASSERT_TRUE(results.at(0).status.ok()) << results[0].status;
  EXPECT_EQ(Fingerprint(*engine), expected_);
  EXPECT_EQ(engine->RunMaintenance().at(0).tiering.rows_moved, 0);
  auto stats = engine->StorageStats(*engine->catalog().DescribeTable("mydb", "tbl"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->magnetic_blocks.entries, int64_t{kHosts} * kHours);  // one per host and hour
}

TEST_F(MaintenanceCrashTest, KilledRetentionNeverResurrectsRows) {
  const int64_t later = kStart + 24 * kNanosPerHour;
  ASSERT_FALSE(RunAndKill(dir_.Sub("data"), later, std::chrono::seconds(30)));  // tier fully
  const int64_t expired = kStart + 3 * kNanosPerDay;  // past 12 h + 2 days
  for (int delay : {20, 60, 150}) {
    RunAndKill(dir_.Sub("data"), expired, std::chrono::milliseconds(delay));
    auto engine = Open(expired);
    EXPECT_EQ(Fingerprint(*engine).rows, 0);
    engine.reset();
    // Even with time turned back, dropped rows do not return, and rows not
    // yet dropped are all there: a bucket is dropped whole or not at all.
    auto back = Open(later);
    const int64_t rows = Fingerprint(*back).rows;
    EXPECT_EQ(rows % kHosts, 0) << rows;
  }
  auto engine = Open(expired);
  auto results = engine->RunMaintenance();
  ASSERT_TRUE(results.at(0).status.ok());
  auto stats = engine->StorageStats(*engine->catalog().DescribeTable("mydb", "tbl"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->magnetic_blocks.bytes, 0);
  EXPECT_EQ(stats->memory_store.bytes, 0);
}

// Spawns the helper writing from `first_batch` with a tiny memory budget, kills
// it after `delay`, and returns the batches it acknowledged and whether it
// was killed.
std::pair<std::set<int>, bool> WriteAndKill(const std::string& data_dir, int64_t now, int first_batch,
                                  std::chrono::milliseconds delay) {
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  const std::string now_text = std::to_string(now), first_text = std::to_string(first_batch);
  const char* argv[] = {STRATA_MAINTENANCE_HELPER, data_dir.c_str(), now_text.c_str(), "write",
                        first_text.c_str(), "16384", nullptr};
  pid_t pid;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, const_cast<char**>(argv), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::this_thread::sleep_for(delay);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  std::string acked;
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof(buffer))) > 0;) acked.append(buffer, n);
  close(out[0]);
  // Complete lines only (the helper may die mid-line).
  std::set<int> batches;
  for (size_t begin = 0, end; (end = acked.find('\n', begin)) != std::string::npos;
       begin = end + 1) {
    batches.insert(std::stoi(acked.substr(begin, end - begin)));
  }
  if (WIFEXITED(status)) {
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the helper failed";
  }
  return {batches, WIFSIGNALED(status)};
}

TEST(MemoryBudgetCrashTest, KilledWhileHoursAreConvertedUnderWritesLosesNothing) {
  testing::TempDir dir;
  ManualClock clock(kStart);
  auto open = [&](int64_t budget) {
    auto engine = Engine::Open(
        {.data_dir = dir.Sub("data"), .memory_store_budget_bytes = budget, .clock = &clock});
    EXPECT_TRUE(engine.ok()) << engine.status();
    return std::move(*engine);
  };
  {
    auto engine = open(0);
    ASSERT_TRUE(engine->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "live",
                                  .retention = {.memory_store_retention_hours = 12}})
                    .ok());
  }
  const int64_t base = kStart - 3 * kNanosPerHour;
  std::set<int> acknowledged;
  int next = 0, killed = 0;
  // Kills at growing delays, then at the longest until enough writes were
  // acknowledged to exercise the budget: a loaded machine writes fewer a round.
  const std::vector<int> delays = {60, 120, 200, 300, 400, 500, 650, 800};
  constexpr size_t kEnoughWrites = 500, kMostRounds = 40;
  for (size_t round = 0;
       round < delays.size() || (acknowledged.size() <= kEnoughWrites && round < kMostRounds);
       ++round) {
    const int delay = delays[std::min(round, delays.size() - 1)];
    const auto [acked, was_killed] =
        WriteAndKill(dir.Sub("data"), kStart, next, std::chrono::milliseconds(delay));
    killed += was_killed ? 1 : 0;
    acknowledged.insert(acked.begin(), acked.end());
    if (!acknowledged.empty()) next = *acknowledged.rbegin() + 1;
    // Every acknowledged batch whole, once; the ones in flight at the kill
    // whole or not at all; nothing else. The budget is off here (0), so the
    // check sees the directory as the killed process left it.
    auto engine = open(0);
    std::map<int, std::set<int>> batches;  // batch -> hosts seen
    int duplicates = 0, strays = 0;
    ASSERT_TRUE(engine->Scan(*engine->catalog().DescribeTable("mydb", "live"), {},
                             [&](const ScanRow& row) {
                               const int b = static_cast<int>((row.time_nanos - base) /
                                                              (2 * kNanosPerSecond));
                               const int h = static_cast<int>(row.measures.at(0).value.real) -
                                             b * 100;
                               if (h < 0 || h >= 20) ++strays;
                               if (!batches[b].insert(h).second) ++duplicates;
                               return true;
                             })
                    .ok());
    EXPECT_EQ(duplicates, 0) << "after a kill at " << delay << " ms";
    EXPECT_EQ(strays, 0);
    for (int b : acknowledged) {
      EXPECT_EQ(batches[b].size(), 20u) << "acknowledged batch " << b << ", kill at " << delay;
    }
    for (const auto& [b, hosts] : batches) {
      EXPECT_TRUE(hosts.size() == 20u && b < next + 4)
          << "batch " << b << ": " << hosts.size() << " rows, kill at " << delay;
    }
  }
  EXPECT_GT(killed, 0);
  EXPECT_GT(acknowledged.size(), kEnoughWrites) << "too few writes to exercise the budget";
  auto engine = open(0);
  auto stats = engine->StorageStats(*engine->catalog().DescribeTable("mydb", "live"));
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->magnetic_blocks.entries, 0) << "the budget never converted an hour";
}

}  // namespace
}  // namespace strata
