// The tiering, late-write and retention paths with a ManualClock: rows move
// from the memory store into magnetic blocks and expire, and a scan returns
// the same rows whichever tier holds them or whether a job has run.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/clock.h"
#include "common/coding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/blocks/block.h"
#include "storage/engine.h"
#include "storage/read/stored_blocks.h"
#include "storage/rows/row_codec.h"
#include "tests/support/temp_dir.h"

extern char** environ;

namespace strata {
namespace {

// On an hour boundary, so bucket arithmetic in the tests is easy to follow.
constexpr int64_t kTieringStart = 1'700'002'800LL * kNanosPerSecond;
constexpr int64_t kTenMinutes = 10 * kNanosPerMinute;

InputRecord Reading(int host, int64_t time_nanos, int64_t version = 1, double offset = 0) {
  InputRecord r;
  r.dimensions = {{"host", "h" + std::to_string(host)}};
  r.measure_name = "cpu";
  InputMeasure usage{.name = "usage", .type = MeasureKind::kDouble,
                     .value = Value::Double(host + (time_nanos % 97) * 0.25 + offset)};
  InputMeasure procs{.name = "procs", .type = MeasureKind::kBigint,
                     .value = Value::Bigint(100 + host)};
  r.measure_values = {usage, procs};
  r.time = time_nanos;
  r.time_unit = TimeUnit::kNanoseconds;
  r.version = version;
  return r;
}

// Rows as comparable text: series, time, version and measures by name.
std::vector<std::string> Render(const std::vector<ScanRow>& rows) {
  std::vector<std::string> out;
  for (const ScanRow& row : rows) {
    std::vector<std::string> measures;
    for (const Measure& m : row.measures) {
      measures.push_back(m.name + "=" +
                         (m.value.type == ValueType::kDouble ? std::to_string(m.value.real)
                                                             : std::to_string(m.value.number)));
    }
    std::sort(measures.begin(), measures.end());
    std::string line = std::to_string(row.series) + " " + std::to_string(row.time_nanos) + " v" +
                       std::to_string(row.version);
    for (const auto& m : measures) line += " " + m;
    out.push_back(line);
  }
  return out;
}

class TieringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine_->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                  .retention = {.memory_store_retention_hours = 2,
                                                .magnetic_store_retention_days = 1},
                                  .enable_magnetic_store_writes = true})
                    .ok());
  }

  void Open() {
    engine_.reset();
    auto engine = Engine::Open(
        {.data_dir = dir_.Sub("data"), .seal_after_nanos = seal_after_, .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }

  TableInfo Table() { return *engine_->catalog().DescribeTable("mydb", "tbl"); }

  WriteResult Write(std::vector<InputRecord> records) {
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    request.records = std::move(records);
    auto result = engine_->Write(request);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(WriteResult{});
  }

  // Three hosts, a point every ten minutes over the two hours before now.
  int WriteTwoHours() {
    std::vector<InputRecord> batch;
    for (int host = 0; host < 3; ++host) {
      for (int64_t t = clock_.NowNanos() - 2 * kNanosPerHour + kTenMinutes; t <= clock_.NowNanos();
           t += kTenMinutes) {
        batch.push_back(Reading(host, t));
      }
    }
    const int n = static_cast<int>(batch.size());
    for (size_t i = 0; i < batch.size(); i += 100) {
      std::vector<InputRecord> part(batch.begin() + i,
                                    batch.begin() + std::min(batch.size(), i + 100));
      EXPECT_EQ(Write(std::move(part)).memory_store, static_cast<int64_t>(std::min<size_t>(100, batch.size() - i)));
    }
    return n;
  }

  // Writes one record that must be refused for a stored row's version;
  // returns that version (nullopt, with a failure, if it was not refused so).
  std::optional<int64_t> BlockingVersion(InputRecord record) {
    WriteResult result = Write({std::move(record)});
    EXPECT_EQ(result.rejected.size(), 1u);
    if (result.rejected.size() != 1) return std::nullopt;
    return result.rejected[0].existing_version;
  }

  std::vector<std::string> ScanAll(ScanStats* stats = nullptr) {
    std::vector<ScanRow> rows;
    EXPECT_TRUE(engine_->Scan(Table(), {}, [&](const ScanRow& row) {
                  rows.push_back(row);
                  return true;
                }, stats).ok());
    return Render(rows);
  }

  TableMaintenance Maintain() {
    auto results = engine_->RunMaintenance();
    EXPECT_EQ(results.size(), 1u);
    EXPECT_TRUE(results[0].status.ok()) << results[0].status;
    return results[0];
  }

  // Runs `change` on the data directory's store with the engine closed, then
  // reopens the engine.
  void WithStore(const std::function<void(Store&)>& change) {
    engine_.reset();
    {
      auto store = Store::Open({.data_dir = dir_.Sub("data")});
      ASSERT_TRUE(store.ok()) << store.status();
      change(**store);
    }
    Open();
  }

  static std::vector<std::string> Keys(Store& store, Store::Family family) {
    std::vector<std::string> keys;
    std::unique_ptr<rocksdb::Iterator> iter(
        store.db()->NewIterator(rocksdb::ReadOptions(), store.family(family)));
    for (iter->SeekToFirst(); iter->Valid(); iter->Next()) keys.push_back(iter->key().ToString());
    return keys;
  }

  absl::Status ScanStatus() {
    return engine_->Scan(Table(), {}, [](const ScanRow&) { return true; });
  }

  testing::TempDir dir_;
  ManualClock clock_{kTieringStart};
  // Most tests follow rows across the memory store's edge, so sealing is off
  // unless a test turns it on (and reopens).
  int64_t seal_after_ = 0;
  std::unique_ptr<Engine> engine_;
};

TEST_F(TieringTest, BucketsPastMemoryRetentionMoveToBlocksWithIdenticalResults) {
  const int written = WriteTwoHours();
  const auto before = ScanAll();
  ASSERT_EQ(before.size(), static_cast<size_t>(written));

  // Nothing has aged yet.
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);

  clock_.Advance(5 * kNanosPerHour);  // every written bucket is now older than 2 h
  const TableMaintenance run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, written);
  EXPECT_EQ(run.tiering.blocks_written, 3 * 3);  // 3 hosts × 3 buckets touched
  EXPECT_EQ(run.retention.rows_dropped, 0);
  ScanStats stats;
  EXPECT_EQ(ScanAll(&stats), before);
  EXPECT_EQ(stats.blocks_scanned, 9);

  // Idempotent: a second run finds nothing to move; a restart changes nothing.
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
  Open();
  EXPECT_EQ(ScanAll(), before);
  auto usage = engine_->StorageStats(Table());
  ASSERT_TRUE(usage.ok());
  EXPECT_GT(usage->magnetic_blocks.bytes, 0);
  EXPECT_EQ(usage->magnetic_blocks.entries, 9);
  // The moved rows' bytes left the memory store (compacted away, not only
  // hidden by range deletions that scans must step over).
  EXPECT_EQ(usage->memory_store.bytes, 0);
}

TEST_F(TieringTest, ScansPruneBlocksOutsideTheTimeRange) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  ScanStats stats;
  std::vector<ScanRow> rows;
  // The last five minutes written reach into the bucket before kTieringStart, whose
  // blocks end at kTieringStart − 10 min: their headers alone rule them out.
  ASSERT_TRUE(engine_->Scan(Table(), {.start_nanos = kTieringStart - 5 * kNanosPerMinute,
                                      .end_nanos = kTieringStart + 1},
                            [&](const ScanRow& row) {
                              rows.push_back(row);
                              return true;
                            }, &stats).ok());
  EXPECT_EQ(rows.size(), 3u);
  EXPECT_EQ(stats.blocks_scanned, 3);
  EXPECT_EQ(stats.blocks_pruned, 3);
}

// An open-ended range counts the buckets up to the newest time a write can
// have (15 minutes ahead), not up to the end of time (regression: a query
// with `time > ago(1h)` reported two million buckets pruned).
// ... and begin where the table's data begins: an hour without any data
// can be neither scanned nor pruned (a range open to the past once counted
// every hour since 1970).
TEST_F(TieringTest, BucketsInRangeEndWhereWritesEnd) {
  clock_.Advance(kNanosPerHour / 2);
  ScanStats stats;
  ASSERT_TRUE(engine_->Scan(Table(), {}, [](const ScanRow&) { return true; }, &stats).ok());
  EXPECT_EQ(stats.buckets_in_range, 0);  // an empty table
  WriteTwoHours();  // from kTieringStart - 1h20 on
  ASSERT_TRUE(engine_->Scan(Table(), {}, [](const ScanRow&) { return true; }, &stats).ok());
  EXPECT_EQ(stats.buckets_in_range, 3);  // kTieringStart - 2h, kTieringStart - 1h, kTieringStart
  ASSERT_TRUE(engine_->Scan(Table(), {.start_nanos = kTieringStart - kNanosPerHour},
                            [](const ScanRow&) { return true; }, &stats).ok());
  EXPECT_EQ(stats.buckets_in_range, 2);  // the hour before kTieringStart, and kTieringStart's
  clock_.Advance(kNanosPerHour / 4 + kNanosPerMinute);  // now + 15 min is in the next hour
  ASSERT_TRUE(engine_->Scan(Table(), {.start_nanos = kTieringStart - kNanosPerHour},
                            [](const ScanRow&) { return true; }, &stats).ok());
  EXPECT_EQ(stats.buckets_in_range, 3);
  ASSERT_TRUE(engine_->Scan(Table(), {.start_nanos = kTieringStart + 2 * kNanosPerHour},
                            [](const ScanRow&) { return true; }, &stats).ok());
  EXPECT_EQ(stats.buckets_in_range, 0);
}

// A scan hands a reader whole blocks only where nothing needs merging: the
// block alone holds its series' points in its bucket and lies inside the
// time range. Everything else arrives row by row, and the union is the
// same rows either way.
TEST_F(TieringTest, WholeBlocksAreOfferedOnlyWhereNothingNeedsMerging) {
  const int written = WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();

  struct Seen {
    int blocks = 0;
    int block_points = 0;
    std::set<int64_t> starts;
    std::vector<ScanRow> rows;
  };
  auto scan = [&](ScanOptions options, BlockUse use) {
    Seen seen;
    options.whole_block = [&](const WholeBlock& block) {
      auto bytes = block.bytes();
      EXPECT_TRUE(bytes.ok());
      auto summary = format::DecodeBlockSummary(bytes->header);
      EXPECT_TRUE(summary.ok());
      EXPECT_EQ(summary->count, block.summary->count);
      seen.blocks++;
      seen.block_points += static_cast<int>(summary->count);
      seen.starts.insert(block.start_nanos);
      return use;
    };
    EXPECT_TRUE(engine_->Scan(Table(), options, [&](const ScanRow& row) {
                  seen.rows.push_back(row);
                  return true;
                }).ok());
    return seen;
  };

  Seen all = scan({}, BlockUse::kTaken);
  EXPECT_EQ(all.blocks, 9);
  EXPECT_EQ(all.block_points, written);
  EXPECT_TRUE(all.rows.empty());

  // Declined, the same blocks arrive row by row.
  Seen declined = scan({}, BlockUse::kDeclined);
  EXPECT_EQ(declined.blocks, 9);
  EXPECT_EQ(Render(declined.rows), ScanAll());

  // A late write into host 0's oldest bucket: that block needs a merge.
  const int64_t oldest = kTieringStart - 2 * kNanosPerHour + kTenMinutes;
  ASSERT_EQ(Write({Reading(0, oldest + kNanosPerMinute)}).magnetic_store, 1);
  Seen merged = scan({}, BlockUse::kTaken);
  EXPECT_EQ(merged.blocks, 8);
  EXPECT_EQ(merged.block_points + static_cast<int>(merged.rows.size()), written + 1);

  // A range that cuts through the hour before kTieringStart offers its blocks too,
  // with the range, which the reader must apply.
  Seen cut = scan({.start_nanos = kTieringStart - 15 * kNanosPerMinute}, BlockUse::kTaken);
  EXPECT_EQ(cut.blocks, 6);
  EXPECT_EQ(cut.starts, std::set<int64_t>{kTieringStart - 15 * kNanosPerMinute});
  EXPECT_TRUE(cut.rows.empty());

  // Stopping from the callback ends the scan.
  Seen stopped = scan({}, BlockUse::kStop);
  EXPECT_EQ(stopped.blocks, 1);
  EXPECT_TRUE(stopped.rows.empty());
}

// A stored row read back as a ScanRow with its measures (for Render).
ScanRow DecodedRow(uint64_t series, int64_t time_nanos, std::string_view bytes,
                   const RowShape* shape) {
  ScanRow row{.series = series, .time_nanos = time_nanos};
  RowReader reader(bytes, shape);
  EXPECT_TRUE(reader.Start(&row.version));
  MeasureView m;
  while (reader.Next(&m)) {
    row.measures.push_back({.name = std::string(m.name),
                            .value = m.type == ValueType::kDouble ? Value::Double(m.real)
                                                                  : Value::Bigint(m.number)});
  }
  EXPECT_TRUE(reader.ok());
  return row;
}

// A scan hands a reader the rest of a memory-head series in one call only
// where nothing needs merging: no block or late write of the series in its
// bucket is still ahead. Taken or declined, the union is the same rows.
TEST_F(TieringTest, WholeHeadSeriesAreOfferedOnlyWhereNothingNeedsMerging) {
  seal_after_ = kTenMinutes;
  Open();
  // Per host: 5 points in the hour before last (sealed into blocks by the
  // run), 6 in the last, 1 at now; all three buckets in the memory store.
  const int written = WriteTwoHours();
  Maintain();
  // A new point of host 1 between two of its block's points: that series
  // needs a merge in its sealed hour.
  ASSERT_EQ(Write({Reading(1, kTieringStart - 105 * kNanosPerMinute)}).memory_store, 1);
  const std::vector<std::string> all = ScanAll();
  ASSERT_EQ(static_cast<int>(all.size()), written + 1);

  struct Seen {
    int series = 0;
    std::set<int64_t> starts;
    std::vector<ScanRow> taken;  // decoded from the series handed whole
    std::vector<ScanRow> rows;   // emitted row by row
    ScanStats stats;
  };
  auto scan = [&](ScanOptions options, BlockUse use) {
    Seen seen;
    options.encoded_rows = true;
    options.whole_head_series = [&](const HeadSeries& series) {
      seen.series++;
      seen.starts.insert(series.start_nanos);
      for (const MemoryHead::Entry& e : series.rows) {
        if (e.time_nanos < series.start_nanos || e.time_nanos >= series.end_nanos) continue;
        seen.taken.push_back(DecodedRow(series.series, e.time_nanos, e.stored(),
                                        e.shape == 0 ? nullptr : series.shapes[e.shape - 1]));
      }
      return use;
    };
    EXPECT_TRUE(engine_->Scan(Table(), options, [&](const ScanRow& row) {
                  seen.rows.push_back(row.encoded.empty()
                                          ? row
                                          : DecodedRow(row.series, row.time_nanos, row.encoded,
                                                       row.shape));
                  return true;
                }, &seen.stats).ok());
    return seen;
  };

  // The last hour and the open one: 3 series each. The sealed hour: its
  // blocks and host 1's new point row by row.
  Seen taken = scan({}, BlockUse::kTaken);
  EXPECT_EQ(taken.series, 6);
  EXPECT_EQ(taken.taken.size(), 3u * 7);
  EXPECT_EQ(taken.rows.size(), 3u * 5 + 1);
  std::vector<ScanRow> together = taken.rows;
  together.insert(together.end(), taken.taken.begin(), taken.taken.end());
  std::vector<std::string> rendered = Render(together);
  std::sort(rendered.begin(), rendered.end());
  std::vector<std::string> expected = all;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(rendered, expected);

  // Declined, the same series arrive row by row, in the scan's order, and
  // the statistics count the same rows either way.
  Seen declined = scan({}, BlockUse::kDeclined);
  EXPECT_EQ(declined.series, 6);
  EXPECT_EQ(Render(declined.rows), all);
  EXPECT_EQ(declined.stats.rows_scanned, taken.stats.rows_scanned);
  EXPECT_EQ(declined.stats.bytes_scanned, taken.stats.bytes_scanned);
  EXPECT_EQ(declined.stats.buckets_scanned, taken.stats.buckets_scanned);

  // A range that cuts through the last hour: the series come with the
  // range, which the reader applies.
  const int64_t cut_at = kTieringStart - 35 * kNanosPerMinute;
  Seen cut = scan({.start_nanos = cut_at}, BlockUse::kTaken);
  EXPECT_EQ(cut.series, 6);
  EXPECT_EQ(cut.starts, std::set<int64_t>{cut_at});
  EXPECT_EQ(cut.taken.size(), 3u * 4);  // -30, -20, -10 and 0 minutes
  EXPECT_TRUE(cut.rows.empty());

  // Stopping from the callback ends the scan.
  Seen stopped = scan({.start_nanos = kTieringStart - kNanosPerHour}, BlockUse::kStop);
  EXPECT_EQ(stopped.series, 1);
  EXPECT_TRUE(stopped.rows.empty());
}

// A scan of some series reads the same rows whether it seeks each series in each bucket or
// reads the buckets whole and passes over the others (series_dense: a few in a row stepped
// over, a longer run sought past): over blocks, late writes merging with them, and
// memory-store rows, oldest or newest first; scattered series and runs of neighbours in key
// order (a cluster fragment's shards), at the front, in the middle and at the end of a bucket.
TEST_F(TieringTest, SeriesPickedOutReadAlikeSoughtOrSteppedOver) {
  constexpr int kHosts = 40;
  std::vector<InputRecord> old_rows, new_rows;
  for (int host = 0; host < kHosts; ++host) {
    for (int64_t t = kTieringStart - 3 * kNanosPerHour; t < kTieringStart; t += kTenMinutes) {
      // Every seventh host has no block in the middle hour: a series sought there is absent.
      const bool middle_hour =
          t >= kTieringStart - 2 * kNanosPerHour && t < kTieringStart - kNanosPerHour;
      if (host % 7 == 0 && middle_hour) continue;
      old_rows.push_back(Reading(host, t));
    }
  }
  for (size_t i = 0; i < old_rows.size(); i += 100) {
    Write({old_rows.begin() + i, old_rows.begin() + std::min(old_rows.size(), i + 100)});
  }
  clock_.Advance(5 * kNanosPerHour);
  Maintain();                                                // those hours into blocks
  Write({Reading(3, kTieringStart - kNanosPerHour, 2, 0.5),  // an upsert into a block
         Reading(4, kTieringStart - 2 * kNanosPerHour + kNanosPerSecond)});  // a new late point
  for (int host = 0; host < kHosts; host += 2) {  // the memory store: every other host
    new_rows.push_back(Reading(host, clock_.NowNanos() - kTenMinutes));
    new_rows.push_back(Reading(host, clock_.NowNanos()));
  }
  Write(new_rows);

  const TableInfo table = Table();
  auto state = engine_->TableStateOf(table);
  ASSERT_TRUE(state.ok()) << state.status();
  absl::flat_hash_map<int, SeriesTarget> by_host;
  for (const auto& info : (*state)->AllSeries()) {
    by_host[std::stoi(info->dimensions.at(0).second.substr(1))] = {
        PartitionHash(info->measure_name, info->dimensions, table.partition_key), info->id};
  }
  ASSERT_EQ(by_host.size(), static_cast<size_t>(kHosts));
  std::vector<std::pair<SeriesTarget, int>> in_key_order;  // (series, host)
  for (const auto& [host, target] : by_host) in_key_order.push_back({target, host});
  std::sort(in_key_order.begin(), in_key_order.end());
  auto neighbours = [&](int first, int count) {  // hosts of keys first..first+count-1
    std::vector<int> hosts;
    for (int i = first; i < first + count; ++i) hosts.push_back(in_key_order[i].second);
    return hosts;
  };
  auto scan = [&](ScanOptions options) {
    std::vector<ScanRow> rows;
    EXPECT_TRUE(engine_
                    ->Scan(table, options,
                           [&](const ScanRow& row) {
                             rows.push_back(row);
                             return true;
                           })
                    .ok());
    return Render(rows);
  };
  const std::vector<std::string> all = scan({});
  std::vector<int> all_but_one;
  for (int h = 0; h < kHosts; ++h) {
    if (h != 4) all_but_one.push_back(h);
  }
  std::vector<std::vector<int>> subsets = {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18},
                                           {1, 3, 4, 30},
                                           {9},
                                           all_but_one,
                                           neighbours(0, 10),
                                           neighbours(15, 10),
                                           neighbours(kHosts - 10, 10),
                                           [&] {
                                             std::vector<int> two_runs = neighbours(2, 5);
                                             for (int h : neighbours(25, 5)) two_runs.push_back(h);
                                             return two_runs;
                                           }()};
  // And runs of random lengths, kept and passed over in turn along the key order.
  std::mt19937 random(35);
  for (int i = 0; i < 20; ++i) {
    std::vector<int> hosts;
    bool keeping = random() % 2 == 0;
    for (int k = 0; k < kHosts;) {
      const int run = 1 + static_cast<int>(random() % 12);
      for (int j = k; j < std::min(kHosts, k + run); ++j) {
        if (keeping) hosts.push_back(in_key_order[j].second);
      }
      k += run;
      keeping = !keeping;
    }
    if (!hosts.empty()) subsets.push_back(hosts);
  }
  for (const std::vector<int>& hosts : subsets) {
    std::vector<SeriesTarget> targets;
    absl::flat_hash_set<std::string> ids;
    for (int h : hosts) {
      targets.push_back(by_host[h]);
      ids.insert(std::to_string(by_host[h].series));
    }
    std::vector<std::string> expected;
    for (const std::string& line : all) {
      if (ids.contains(line.substr(0, line.find(' ')))) expected.push_back(line);
    }
    for (bool newest_first : {false, true}) {
      SCOPED_TRACE(::testing::Message() << hosts.size() << " hosts, newest first " << newest_first);
      std::vector<std::string> sought = scan({.series = &targets, .newest_first = newest_first});
      std::vector<std::string> stepped =
          scan({.series = &targets, .series_dense = true, .newest_first = newest_first});
      EXPECT_EQ(stepped, sought);
      std::sort(sought.begin(), sought.end());
      std::vector<std::string> sorted_expected = expected;
      std::sort(sorted_expected.begin(), sorted_expected.end());
      EXPECT_EQ(sought, sorted_expected);
    }
  }
}

TEST_F(TieringTest, LateWritesFollowTheVersionRulesAgainstBlocks) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  const int64_t t = kTieringStart - kNanosPerHour;  // tiered into a block

  // Same values, same version: an idempotent retry.
  WriteResult same = Write({Reading(1, t)});
  EXPECT_EQ(same.magnetic_store, 1);
  EXPECT_TRUE(same.rejected.empty());
  // Different values, same version: rejected with the block's version.
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.5)), 1);
  // Higher version: an upsert, visible at once through the delta.
  WriteResult upsert = Write({Reading(1, t, 2, 0.5)});
  EXPECT_EQ(upsert.magnetic_store, 1);
  const auto with_upsert = ScanAll();
  EXPECT_NE(std::find_if(with_upsert.begin(), with_upsert.end(),
                         [&](const std::string& line) {
                           return line.find(" " + std::to_string(t) + " v2 ") != std::string::npos;
                         }),
            with_upsert.end());

  // The merge job folds the delta into the block; nothing visible changes.
  const TableMaintenance merged = Maintain();
  EXPECT_EQ(merged.tiering.delta_rows_merged, 1);
  EXPECT_EQ(merged.tiering.rows_moved, 0);
  EXPECT_EQ(ScanAll(), with_upsert);
  // And the rules now hold against the merged block.
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.75)), 2);
  // A new late point lands in the delta and merges as a new block row.
  EXPECT_EQ(Write({Reading(7, t)}).magnetic_store, 1);
  EXPECT_EQ(Maintain().tiering.delta_rows_merged, 1);
  EXPECT_EQ(ScanAll().size(), with_upsert.size() + 1);
}

// Rows containing " <time> v<version> ".
int64_t CountAt(const std::vector<std::string>& lines, int64_t time, int64_t version) {
  const std::string needle = " " + std::to_string(time) + " v" + std::to_string(version) + " ";
  return std::count_if(lines.begin(), lines.end(),
                       [&](const std::string& line) { return line.find(needle) != std::string::npos; });
}

TEST_F(TieringTest, ClosedHoursAreSealedIntoBlocksInsideTheMemoryStore) {
  seal_after_ = kTenMinutes;
  Open();
  // Per host: 5 points in the hour before last, 6 in the last, 1 at now.
  const int written = WriteTwoHours();
  const auto before = ScanAll();

  // At kTieringStart the hour before last ended 1 h ago: sealed. The last hour
  // ended just now: still rows.
  TableMaintenance run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, 3 * 5);
  EXPECT_EQ(run.tiering.blocks_written, 3);
  EXPECT_EQ(ScanAll(), before);

  // Ten minutes later the last hour is sealed too; the open hour, written
  // five minutes ago, is not.
  EXPECT_EQ(static_cast<int>(before.size()), written);
  clock_.Advance(5 * kNanosPerMinute);
  EXPECT_EQ(Write({Reading(0, clock_.NowNanos())}).memory_store, 1);
  const auto with_open_hour = ScanAll();
  clock_.Advance(5 * kNanosPerMinute - 1);
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
  clock_.Advance(1);
  run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, 3 * 6);
  ScanStats stats;
  EXPECT_EQ(ScanAll(&stats), with_open_hour);
  EXPECT_EQ(stats.blocks_scanned, 6);
}

// A series whose rows in the hour are all in the head and of one shape is
// frozen into its block straight from those rows (tiering.cc,
// FreezeHeadSeries: values of fixed size read in place, others value by
// value); others go through the general merge. Either way a block holds
// exactly the bytes EncodeBlock makes of the series' points, rewritten
// points at their last version.
TEST_F(TieringTest, RowsOfOneShapeFreezeIntoTheBlockTheirPointsMake) {
  seal_after_ = kTenMinutes;
  Open();
  enum Kind { kFixed, kWithNote, kVariable };
  auto record = [](int host, int64_t time, int64_t version, Kind kind) {
    InputRecord r;
    r.dimensions = {{"host", "h" + std::to_string(host)}};
    r.measure_name = "cpu";
    const int64_t minute = time / kNanosPerMinute % 60;
    r.measure_values = {{.name = "usage", .type = MeasureKind::kDouble,
                         .value = Value::Double(host * 10 + minute + version * 0.5)}};
    auto add = [&](const char* name, MeasureKind type, Value value) {
      r.measure_values.push_back({.name = name, .type = type, .value = std::move(value)});
    };
    if (kind == kFixed) add("up", MeasureKind::kBoolean, Value::Boolean(minute % 3 == 0));
    if (kind != kFixed) add("note", MeasureKind::kVarchar, Value::Varchar(std::string(minute + 1, 'n')));
    if (kind == kVariable) {
      add("procs", MeasureKind::kBigint, Value::Bigint(-minute * 1000003 + version));
      add("seen", MeasureKind::kTimestamp, Value::Timestamp(time - minute));
    }
    r.time = time;
    r.time_unit = TimeUnit::kNanoseconds;
    r.version = version;
    return r;
  };
  // The hour before last: hosts 0 and 1 of fixed-size values (host 1's
  // third point rewritten at version 2), host 2 of two shapes in turn, host 3
  // of strings, integers and timestamps (its fourth point rewritten).
  const int64_t hour = kTieringStart - 2 * kNanosPerHour;
  auto kind_of = [](int host, int i) {
    if (host == 2) return i % 2 == 1 ? kWithNote : kFixed;
    return host == 3 ? kVariable : kFixed;
  };
  std::map<int, std::vector<format::BlockPoint>> points;
  std::vector<InputRecord> batch, rewrites;
  for (int host = 0; host < 4; ++host) {
    for (int i = 0; i < 6; ++i) {
      const int64_t time = hour + i * kTenMinutes;
      batch.push_back(record(host, time, 1, kind_of(host, i)));
      const bool rewritten = (host == 1 && i == 2) || (host == 3 && i == 3);
      if (rewritten) rewrites.push_back(record(host, time, 2, kind_of(host, i)));
      std::vector<Measure> measures;
      for (const InputMeasure& m :
           record(host, time, rewritten ? 2 : 1, kind_of(host, i)).measure_values) {
        measures.push_back({m.name, *m.value});
      }
      points[host].push_back({time, rewritten ? 2 : 1, std::move(measures)});
    }
  }
  ASSERT_EQ(Write(batch).memory_store, 24);
  ASSERT_EQ(Write(rewrites).memory_store, 2);
  const auto before = ScanAll();
  const TableMaintenance run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, 24);
  EXPECT_EQ(run.tiering.blocks_written, 4);
  EXPECT_EQ(ScanAll(), before);
  std::set<std::string> expected;
  for (const auto& [host, host_points] : points) {
    auto block = format::EncodeBlock(host_points);
    ASSERT_TRUE(block.ok()) << block.status();
    expected.insert(*block);
  }
  std::set<std::string> stored;
  WithStore([&](Store& store) {
    for (const std::string& key : Keys(store, Store::kCold)) {
      auto block = ReadBlock(store, rocksdb::ReadOptions(), key);
      ASSERT_TRUE(block.ok() && block->has_value()) << block.status();
      stored.insert(**block);
    }
  });
  EXPECT_EQ(stored.size(), 4u);
  EXPECT_TRUE(stored == expected);
}

// An hour no write touched for the seal delay is sealed even while it is
// open (after a load, rows take 5-10x the bytes of blocks on disk), and the
// writes that come after are checked against its blocks as late writes are.
TEST_F(TieringTest, AnOpenHourWithoutWritesForTheSealDelayIsSealed) {
  seal_after_ = kTenMinutes;
  Open();
  std::vector<InputRecord> batch;
  for (int host = 0; host < 3; ++host) {
    for (int minute = 0; minute < 5; ++minute) {
      batch.push_back(Reading(host, kTieringStart + minute * kNanosPerMinute));
    }
  }
  ASSERT_EQ(Write(batch).memory_store, 15);
  const auto before = ScanAll();
  clock_.Advance(kTenMinutes - 1);
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
  clock_.Advance(1);
  TableMaintenance run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, 15);
  EXPECT_EQ(run.tiering.blocks_written, 3);
  ScanStats stats;
  EXPECT_EQ(ScanAll(&stats), before);
  EXPECT_EQ(stats.blocks_scanned, 3);

  // The newest times the writer had cached are from before the sealing: a
  // retry is still idempotent, other values still need a higher version.
  const int64_t t = kTieringStart + 2 * kNanosPerMinute;
  WriteResult same = Write({Reading(1, t)});
  EXPECT_EQ(same.memory_store, 1);
  EXPECT_TRUE(same.rejected.empty());
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.5)), 1);
  EXPECT_EQ(Write({Reading(1, t, 2, 0.5)}).memory_store, 1);
  EXPECT_EQ(CountAt(ScanAll(), t, 2), 1);

  // Writes resume: the hour holds rows again until it is quiet again.
  const int64_t next = clock_.NowNanos();
  EXPECT_EQ(Write({Reading(1, next)}).memory_store, 1);
  EXPECT_EQ(BlockingVersion(Reading(1, next, 1, 0.5)), 1);
  const auto resumed = ScanAll();
  clock_.Advance(kTenMinutes - 1);
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
  clock_.Advance(1);
  run = Maintain();
  EXPECT_EQ(run.tiering.rows_moved, 1);
  EXPECT_EQ(run.tiering.delta_rows_merged, 1);
  EXPECT_EQ(ScanAll(), resumed);

  // After a restart (nothing cached) the blocks are checked all the same.
  Open();
  EXPECT_EQ(BlockingVersion(Reading(1, t, 2, 0.75)), 2);
  EXPECT_EQ(BlockingVersion(Reading(1, next, 1, 0.75)), 1);
}

// After a restart the writer has seen no write yet: an hour left with rows
// is sealed once the seal delay has passed since the start.
TEST_F(TieringTest, AfterARestartAnOpenHourIsQuietFromTheStart) {
  seal_after_ = kTenMinutes;
  Open();
  ASSERT_EQ(Write({Reading(0, kTieringStart), Reading(1, kTieringStart)}).memory_store, 2);
  clock_.Advance(5 * kNanosPerMinute);
  Open();
  clock_.Advance(kTenMinutes - 1);
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
  clock_.Advance(1);
  EXPECT_EQ(Maintain().tiering.rows_moved, 2);
}

// A bucket is converted from a snapshot while writes go on and committed
// only if no write touched it meanwhile: late writes racing the conversions
// of their hour are never lost, nor are older versions brought back.
TEST_F(TieringTest, LateWritesRacingConversionsOfTheirHourAreKept) {
  seal_after_ = kTenMinutes;
  Open();
  // The hour before last: sealed (it ended an hour ago), inside the memory store.
  const int64_t sealed_hour = kTieringStart - 2 * kNanosPerHour;
  // A bucket big enough that its conversion takes a while.
  int written = 0;
  std::vector<InputRecord> batch;
  for (int host = 100; host < 600; ++host) {
    for (int64_t t = sealed_hour; t < sealed_hour + kNanosPerHour; t += 30 * kNanosPerSecond) {
      batch.push_back(Reading(host, t));
      if (batch.size() == 100) {
        written += static_cast<int>(batch.size());
        Write(std::move(batch));
        batch.clear();
      }
    }
  }
  std::atomic<bool> writing{true};
  std::thread maintenance([&] {
    while (writing.load()) Maintain();
  });
  // Host 9's points in the sealed hour, each written and then upserted.
  constexpr int kLatePoints = 300;
  int upserted = 0;
  for (int i = 0; i < kLatePoints; ++i) {
    const int64_t t = sealed_hour + i * kNanosPerSecond;
    EXPECT_EQ(Write({Reading(9, t, 1)}).rejected.size(), 0u) << i;
    if (Write({Reading(9, t, 2, 1000)}).rejected.empty()) ++upserted;
  }
  writing = false;
  maintenance.join();
  Maintain();
  EXPECT_EQ(upserted, kLatePoints);
  const auto rows = ScanAll();
  EXPECT_EQ(rows.size(), static_cast<size_t>(written + kLatePoints));
  int version_two = 0;
  for (const std::string& row : rows) version_two += row.find(" v2 ") != std::string::npos;
  EXPECT_EQ(version_two, kLatePoints);
  // And nothing of the sealed hour is left outside its blocks.
  EXPECT_EQ(Maintain().tiering.rows_moved, 0);
}

TEST_F(TieringTest, WritesToASealedHourAreMemoryStoreWritesCheckedAgainstItsBlock) {
  seal_after_ = kTenMinutes;
  Open();
  WriteTwoHours();
  Maintain();
  const int64_t t = kTieringStart - 100 * kNanosPerMinute;  // a point of the sealed hour

  WriteResult same = Write({Reading(1, t)});
  EXPECT_EQ(same.memory_store, 1);  // inside the memory store's window
  EXPECT_TRUE(same.rejected.empty());
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.5)), 1);
  EXPECT_EQ(Write({Reading(1, t, 2, 0.5)}).memory_store, 1);
  EXPECT_EQ(CountAt(ScanAll(), t, 2), 1);

  // A point after the block's last one (the append path, no read) and its
  // conflicting retry in the next request: the retry is still caught.
  const int64_t after = kTieringStart - 61 * kNanosPerMinute;
  EXPECT_EQ(Write({Reading(1, after)}).memory_store, 1);
  EXPECT_EQ(BlockingVersion(Reading(1, after, 1, 0.5)), 1);

  // The next run merges both into the block (the update of a block row
  // went to the delta, the new row to the memory store's rows); the rules
  // hold against it.
  const auto merged_view = ScanAll();
  const TableMaintenance merged = Maintain();
  EXPECT_EQ(merged.tiering.delta_rows_merged, 1);
  EXPECT_EQ(merged.tiering.rows_moved, 1);
  EXPECT_EQ(ScanAll(), merged_view);
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.75)), 2);
}

TEST_F(TieringTest, BlocksOfSealedHoursStayCheckedAfterARestartWithSealingOff) {
  seal_after_ = kTenMinutes;
  Open();
  WriteTwoHours();
  Maintain();
  seal_after_ = 0;
  Open();
  const int64_t t = kTieringStart - 100 * kNanosPerMinute;  // in a block, in the memory window
  EXPECT_EQ(BlockingVersion(Reading(1, t, 1, 0.5)), 1);
  // An append after the block, then its conflicting retry after a restart
  // (nothing cached): the stored row is found either way.
  const int64_t after = kTieringStart - 61 * kNanosPerMinute;
  EXPECT_EQ(Write({Reading(1, after)}).memory_store, 1);
  Open();
  EXPECT_EQ(BlockingVersion(Reading(1, after, 1, 0.5)), 1);
  EXPECT_EQ(CountAt(ScanAll(), t, 1), 3);  // the three hosts' points, unchanged
}

TEST_F(TieringTest, OneRequestOfLateWritesIntoOneBlockIsCheckedPointByPoint) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  const int64_t t = kTieringStart - kNanosPerHour;  // host 1's block holds t, t+10 min, ...
  WriteResult result = Write({Reading(1, t),                        // the same: accepted
                              Reading(1, t + kTenMinutes, 1, 0.5),  // other values: rejected
                              Reading(1, t + 2 * kTenMinutes, 3, 0.5),  // upsert
                              Reading(1, t + 5 * kNanosPerMinute)});    // a new point
  EXPECT_EQ(result.magnetic_store, 3);
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_EQ(result.rejected[0].record_index, 1);
  EXPECT_EQ(result.rejected[0].existing_version, 1);
  // The same request again: every record now meets what the first wrote.
  WriteResult again = Write({Reading(1, t), Reading(1, t + 2 * kTenMinutes, 3, 0.5),
                             Reading(1, t + 5 * kNanosPerMinute)});
  EXPECT_EQ(again.magnetic_store, 3);
  EXPECT_TRUE(again.rejected.empty());
  EXPECT_EQ(Maintain().tiering.delta_rows_merged, 2);
}

TEST_F(TieringTest, LateWritesAreRejectedWhenMagneticWritesAreOff) {
  ASSERT_TRUE(engine_->catalog()
                  .UpdateTable("mydb", "tbl", {.enable_magnetic_store_writes = false})
                  .ok());
  WriteResult result = Write({Reading(1, kTieringStart - 3 * kNanosPerHour)});
  ASSERT_EQ(result.rejected.size(), 1u);
  EXPECT_NE(result.rejected[0].reason.find("enable magnetic store writes"), std::string::npos);
}

TEST_F(TieringTest, RetentionDropsExpiredBucketsAndGivesSpaceBack) {
  const int written = WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  auto before = engine_->StorageStats(Table());
  ASSERT_TRUE(before.ok());
  EXPECT_GT(before->magnetic_blocks.bytes, 0);

  // Retention is 2 h + 1 day: one hour into the newest written bucket, its
  // older rows are hidden at once although the bucket is still on disk.
  clock_.Set(kTieringStart + kNanosPerDay + 2 * kNanosPerHour - kNanosPerHour / 2);
  EXPECT_EQ(ScanAll().size(), 3u * 4);  // from kTieringStart − 30 min: 4 points per host
  clock_.Set(kTieringStart + kNanosPerDay + 3 * kNanosPerHour);
  const TableMaintenance run = Maintain();
  EXPECT_EQ(run.retention.rows_dropped, written);
  EXPECT_EQ(run.retention.buckets_dropped, 3);
  EXPECT_TRUE(ScanAll().empty());
  auto after = engine_->StorageStats(Table());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->magnetic_blocks.bytes, 0);
  EXPECT_EQ(after->magnetic_blocks.entries, 0);
  EXPECT_EQ(after->rows_expired_total, written);
  // Nothing comes back on a restart or a longer retention.
  ASSERT_TRUE(engine_->catalog()
                  .UpdateTable("mydb", "tbl", {.retention = RetentionProperties{
                                               .memory_store_retention_hours = 2,
                                               .magnetic_store_retention_days = 30}})
                  .ok());
  Open();
  EXPECT_TRUE(ScanAll().empty());
  // The blocks' header copies went with them.
  WithStore([](Store& store) {
    EXPECT_EQ(Keys(store, Store::kCold).size(), 0u);
    EXPECT_EQ(Keys(store, Store::kColdHeader), std::vector<std::string>{""});  // the marker
  });
}

TEST_F(TieringTest, BlocksWithoutHeaderCopiesGetThemAtOpen) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  const std::vector<std::string> expected = ScanAll();
  std::vector<std::string> blocks;
  // A data directory from before `cold_header`: whole blocks only.
  WithStore([&](Store& store) {
    blocks = Keys(store, Store::kCold);
    ASSERT_EQ(Keys(store, Store::kColdHeader).size(), blocks.size() + 1);
    for (const std::string& key : blocks) {
      auto block = ReadBlock(store, rocksdb::ReadOptions(), key);
      ASSERT_TRUE(block.ok() && block->has_value()) << block.status();
      ASSERT_TRUE(
          store.db()->Put(rocksdb::WriteOptions(), store.family(Store::kCold), key, **block).ok());
    }
    ASSERT_TRUE(store.db()
                    ->DeleteRange(rocksdb::WriteOptions(), store.family(Store::kColdHeader), "",
                                  std::string(8, '\xff'))
                    .ok());
  });
  EXPECT_EQ(ScanAll(), expected);
  WithStore([&](Store& store) {
    std::vector<std::string> headers = Keys(store, Store::kColdHeader);
    ASSERT_EQ(headers.size(), blocks.size() + 1);
    EXPECT_EQ(headers[0], "");
    EXPECT_EQ(std::vector<std::string>(headers.begin() + 1, headers.end()), blocks);
  });
}

TEST_F(TieringTest, AMissingOrCorruptBlockIsDataLossNotACrash) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  std::string block_key;
  WithStore([&](Store& store) {
    block_key = Keys(store, Store::kCold).front();
    ASSERT_TRUE(store.db()->Delete(rocksdb::WriteOptions(), store.family(Store::kCold), block_key).ok());
  });
  EXPECT_EQ(ScanStatus().code(), absl::StatusCode::kDataLoss);
  // A corrupt block gets a header copy that is as corrupt: still DATA_LOSS
  // where it is read, and the server opens.
  WithStore([&](Store& store) {
    ASSERT_TRUE(store.db()->Put(rocksdb::WriteOptions(), store.family(Store::kCold), block_key, "garbage").ok());
    ASSERT_TRUE(store.db()->Delete(rocksdb::WriteOptions(), store.family(Store::kColdHeader), "").ok());
  });
  ASSERT_NE(engine_, nullptr);
  EXPECT_EQ(ScanStatus().code(), absl::StatusCode::kDataLoss);
}

// A block is stored in two parts (storage/read/stored_blocks.h): its header
// once, in `cold_header`, and only its bodies in `cold`. Bodies whose header
// is lost are DATA_LOSS where they are read whole, and a whole block (as
// older servers stored them) reads as it is.
TEST_F(TieringTest, BlocksAreStoredInTwoPartsAndRefusedWithoutTheirHeader) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  WithStore([&](Store& store) {
    const std::string key = Keys(store, Store::kCold).front();
    std::string bodies, header;
    ASSERT_TRUE(store.db()->Get(rocksdb::ReadOptions(), store.family(Store::kCold), key, &bodies).ok());
    ASSERT_TRUE(
        store.db()->Get(rocksdb::ReadOptions(), store.family(Store::kColdHeader), key, &header).ok());
    EXPECT_FALSE(format::IsWholeBlock(bodies));
    auto whole = ReadBlock(store, rocksdb::ReadOptions(), key);
    ASSERT_TRUE(whole.ok() && whole->has_value()) << whole.status();
    EXPECT_EQ(**whole, header + bodies.substr(3));
    EXPECT_TRUE(format::DecodeBlock(**whole).ok());

    ASSERT_TRUE(store.db()->Delete(rocksdb::WriteOptions(), store.family(Store::kColdHeader), key).ok());
    auto lost = ReadBlock(store, rocksdb::ReadOptions(), key);
    EXPECT_EQ(lost.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(std::string(lost.status().message()), ::testing::HasSubstr("header is missing"));

    ASSERT_TRUE(store.db()->Put(rocksdb::WriteOptions(), store.family(Store::kCold), key, **whole).ok());
    auto old = ReadBlock(store, rocksdb::ReadOptions(), key);
    ASSERT_TRUE(old.ok() && old->has_value());
    EXPECT_EQ(**old, **whole);
  });
}

// Last points kept by the write path hold compact rows with the shapes of
// the memory head (storage/read/last_points.h). While a writer replaces them with
// rows of two shapes and maintenance seals the hour the first ones were in
// (its head bucket, and the shapes it held, go), every last point read is a
// row that was written, decoded with its own names, and a series' newest
// time never goes back.
TEST_F(TieringTest, LastPointsStayWholeWhileWrittenAndTheirHourSealed) {
  seal_after_ = kTenMinutes;
  Open();
  constexpr int kHosts = 20;
  const int64_t first_hour = kTieringStart - 2 * kNanosPerHour;
  // A row of host `h` at `t`; every third time with a text measure too (another shape).
  auto record = [](int h, int64_t t) {
    InputRecord r = Reading(h, t);
    if (t / kNanosPerSecond % 3 == 0) {
      r.measure_values.push_back({.name = "note", .type = MeasureKind::kVarchar,
                                  .value = Value::Varchar("n" + std::to_string(t % 97))});
    }
    return r;
  };
  std::vector<InputRecord> batch;
  for (int h = 0; h < kHosts; ++h) batch.push_back(record(h, first_hour));
  ASSERT_EQ(Write(batch).memory_store, kHosts);

  const TableInfo table = Table();
  auto state = engine_->TableStateOf(table);
  ASSERT_TRUE(state.ok()) << state.status();
  std::vector<SeriesTarget> series;
  absl::flat_hash_map<uint64_t, int> host_of;
  for (const auto& info : (*state)->AllSeries()) {
    series.push_back({PartitionHash(info->measure_name, info->dimensions, table.partition_key),
                      info->id});
    host_of[info->id] = std::stoi(info->dimensions.at(0).second.substr(1));
  }
  ASSERT_EQ(series.size(), static_cast<size_t>(kHosts));

  absl::flat_hash_map<uint64_t, int64_t> newest;  // series -> the newest time read
  int64_t rows_read = 0;
  auto read_last_points = [&] {
    absl::Status scanned = engine_->Scan(
        table, {.series = &series, .last_per_series = true}, [&](const ScanRow& row) {
          ++rows_read;
          const int h = host_of.at(row.series);
          EXPECT_GE(row.time_nanos, newest[row.series]) << "series " << row.series;
          newest[row.series] = row.time_nanos;
          absl::flat_hash_map<std::string, Value> values;
          for (const Measure& m : row.measures) values[m.name] = m.value;
          EXPECT_EQ(values.size(), row.time_nanos / kNanosPerSecond % 3 == 0 ? 3u : 2u);
          EXPECT_EQ(values["usage"].real, h + (row.time_nanos % 97) * 0.25);
          EXPECT_EQ(values["procs"].number, 100 + h);
          if (values.contains("note")) {
            EXPECT_EQ(values["note"].text, "n" + std::to_string(row.time_nanos % 97));
          }
          return true;
        });
    EXPECT_TRUE(scanned.ok()) << scanned;
  };
  read_last_points();  // fills the entries from the first hour's rows
  ASSERT_EQ(rows_read, kHosts);

  // The first hour is closed and quiet: maintenance seals it while the
  // writer moves every host on through the last hour.
  clock_.Advance(kTenMinutes + 1);
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    for (int64_t t = kTieringStart - kNanosPerHour; t < kTieringStart; t += 7 * kNanosPerSecond) {
      std::vector<InputRecord> step;
      for (int h = 0; h < kHosts; ++h) step.push_back(record(h, t));
      EXPECT_EQ(Write(std::move(step)).memory_store, kHosts);
    }
    writing = false;
  });
  // Reads go on until the writer is done and the first hour was sealed.
  std::atomic<bool> sealed{false};
  std::thread maintenance([&] {
    while (!sealed.load()) sealed = Maintain().tiering.rows_moved > 0;
  });
  while (writing.load() || !sealed.load()) read_last_points();
  writer.join();
  maintenance.join();
  read_last_points();
  for (const SeriesTarget& t : series) EXPECT_GT(newest[t.series], kTieringStart - 8 * kNanosPerSecond);
}

// Last points are not kept across a restart: the server fills every table's
// at start (Engine::FillLastPoints), so the first last-point query finds
// them in memory, with the rows a query that filled them would have read,
// wherever those rows live (here: blocks for one host, the head for two).
TEST_F(TieringTest, LastPointsFilledAtStartAnswerAsAQueryThatFilledThemWould) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();  // every row into blocks
  Write({Reading(1, clock_.NowNanos() - kTenMinutes), Reading(2, clock_.NowNanos())});
  auto state = [&] { return *engine_->TableStateOf(Table()); };
  const std::vector<SeriesTarget> series =
      SeriesTargetsOf(state()->AllSeries(), Table().partition_key);
  auto last_points = [&] {
    std::vector<ScanRow> rows;
    EXPECT_TRUE(engine_->Scan(Table(), {.series = &series, .last_per_series = true},
                              [&](const ScanRow& row) {
                                rows.push_back(row);
                                return true;
                              }).ok());
    return Render(rows);
  };
  const std::vector<std::string> filled_by_a_query = last_points();
  ASSERT_EQ(filled_by_a_query.size(), 3u);

  Open();
  EXPECT_EQ(state()->last_points().size(), 0u);
  // Told to stop before it starts, it reads nothing.
  ASSERT_TRUE(engine_->FillLastPoints(Table(), [] { return true; }).ok());
  EXPECT_EQ(state()->last_points().size(), 0u);
  ASSERT_TRUE(engine_->FillLastPoints(Table(), [] { return false; }).ok());
  EXPECT_EQ(state()->last_points().size(), 3u);
  EXPECT_EQ(last_points(), filled_by_a_query);  // from the entries: none was missing
  // And they stay current.
  Write({Reading(0, clock_.NowNanos())});
  const std::vector<std::string> after = last_points();
  EXPECT_NE(after, filled_by_a_query);
  Open();
  ASSERT_TRUE(engine_->FillLastPoints(Table(), [] { return false; }).ok());
  EXPECT_EQ(last_points(), after);
}

TEST_F(TieringTest, LastPointsReadBlocksThroughTheirHeadersAndReportAMissingOne) {
  WriteTwoHours();
  clock_.Advance(5 * kNanosPerHour);
  Maintain();
  // Every series, from the block keys: [table][bucket][pk_hash][series].
  std::set<SeriesTarget> unique;
  std::string newest_block;
  WithStore([&](Store& store) {
    for (const std::string& key : Keys(store, Store::kCold)) {
      unique.insert({DecodeFixed64BE(key.data() + 8), DecodeFixed64BE(key.data() + 16)});
    }
    newest_block = Keys(store, Store::kCold).back();  // in the newest bucket
  });
  const std::vector<SeriesTarget> series(unique.begin(), unique.end());
  auto last_points = [&](std::vector<ScanRow>* rows) {
    return engine_->Scan(Table(), {.series = &series, .last_per_series = true},
                         [&](const ScanRow& row) {
                           rows->push_back(row);
                           return true;
                         });
  };
  std::vector<ScanRow> rows;
  ASSERT_TRUE(last_points(&rows).ok());
  ASSERT_EQ(rows.size(), 3u);  // three hosts, each at kTieringStart (the last point written)
  for (const ScanRow& row : rows) EXPECT_EQ(row.time_nanos, kTieringStart);

  WithStore([&](Store& store) {
    ASSERT_TRUE(
        store.db()->Delete(rocksdb::WriteOptions(), store.family(Store::kCold), newest_block).ok());
  });
  rows.clear();
  EXPECT_EQ(last_points(&rows).code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// A cluster node giving up a shard deletes its series' rows from both tiers
// (Engine::DeleteSeriesWhere); the other series stay as they were.
TEST_F(TieringTest, SeriesPickedOutAreDeletedFromEveryTier) {
  WriteTwoHours();
  clock_.Advance(2 * kNanosPerHour);
  Maintain();  // the first hour into blocks; the rest stays in the memory store
  WriteTwoHours();
  auto state = engine_->TableStateOf(Table());
  ASSERT_TRUE(state.ok());
  uint64_t h1 = 0;
  for (const auto& series : (*state)->AllSeries()) {
    if (series->dimensions[0].second == "h1") h1 = series->id;
  }
  const std::vector<std::string> before = ScanAll();
  std::vector<std::string> kept;
  for (const std::string& row : before) {
    if (!row.starts_with(std::to_string(h1) + " ")) kept.push_back(row);
  }
  ASSERT_LT(kept.size(), before.size());
  auto deleted = engine_->DeleteSeriesWhere(
      [h1](const SeriesTarget& series) { return series.series == h1; }, [] { return false; });
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, static_cast<int64_t>(before.size() - kept.size()));
  EXPECT_EQ(ScanAll(), kept);
  // Nothing left to delete the second time.
  EXPECT_EQ(*engine_->DeleteSeriesWhere(
                [h1](const SeriesTarget& series) { return series.series == h1; },
                [] { return false; }),
            0);
  Open();
  EXPECT_EQ(ScanAll(), kept);
}

}  // namespace
}  // namespace strata
