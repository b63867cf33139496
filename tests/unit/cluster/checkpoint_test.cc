// A shard's rows copied from one engine into another (cluster/checkpoint.h): every live row
// of the shard's series arrives with its values and version, whichever tier holds it,
// and nothing of another shard; a row the receiver refuses fails the copy.
#include "cluster/checkpoint.h"

#include <algorithm>
#include <string>
#include <vector>

#include "cluster/cluster_options.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata::cluster {
namespace {

// On an hour boundary; the data spans the 20 hours before it.
constexpr int64_t kCheckpointNow = 1'700'002'800LL * kNanosPerSecond;
constexpr uint32_t kShards = 4;

InputRecord Usage(int host, int64_t time_nanos, int64_t version, double value) {
  InputRecord r;
  r.dimensions = {{"host", "h" + std::to_string(host)}};
  r.measure_name = "usage";
  r.measure_value_type = MeasureKind::kDouble;
  r.measure_value = Value::Double(value);
  r.time = time_nanos;
  r.time_unit = TimeUnit::kNanoseconds;
  r.version = version;
  return r;
}

InputRecord Stats(int host, int64_t time_nanos) {
  InputRecord r;
  r.dimensions = {{"host", "h" + std::to_string(host)}, {"region", "eu"}};
  r.measure_name = "stats";
  r.measure_values = {
      {.name = "procs", .type = MeasureKind::kBigint, .value = Value::Bigint(100 + host)},
      {.name = "state", .type = MeasureKind::kVarchar, .value = Value::Varchar("ok")}};
  r.time = time_nanos;
  r.time_unit = TimeUnit::kNanoseconds;
  return r;
}

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    from_ = Open("from");
    to_ = Open("to");
  }

  std::unique_ptr<Engine> Open(const std::string& name) {
    auto engine = Engine::Open({.data_dir = dir_.Sub(name), .clock = &clock_});
    EXPECT_TRUE(engine.ok()) << engine.status();
    auto created = (*engine)->catalog().CreateDatabase("mydb", "");
    EXPECT_TRUE(created.ok()) << created.status();
    // A memory store of 2 hours and no magnetic-store writes: the copy must still take
    // rows of any age the table keeps.
    EXPECT_TRUE((*engine)
                    ->catalog()
                    .CreateTable({.database_name = "mydb",
                                  .table_name = "tbl",
                                  .retention = {.memory_store_retention_hours = 2,
                                                .magnetic_store_retention_days = 10}})
                    .ok());
    return std::move(*engine);
  }

  TableInfo Table(Engine& engine) { return *engine.catalog().DescribeTable("mydb", "tbl"); }

  void Write(Engine& engine, const std::vector<InputRecord>& records) {
    for (size_t i = 0; i < records.size(); i += 100) {
      WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
      request.records.assign(records.begin() + i,
                             records.begin() + std::min(records.size(), i + 100));
      absl::StatusOr<WriteResult> result = engine.Write(request);
      ASSERT_TRUE(result.ok()) << result.status();
      ASSERT_TRUE(result->rejected.empty()) << result->rejected.front().reason;
    }
  }

  // Twenty hours of 40 hosts, written as time went by, each hour sealed into blocks by
  // the clock's passing; two points written again at a higher version, a series deleted.
  void Load() {
    for (int hour = 0; hour < 20; ++hour) {
      const int64_t start = kCheckpointNow - (20 - hour) * kNanosPerHour;
      clock_.Set(start + kNanosPerHour);
      std::vector<InputRecord> batch;
      for (int host = 0; host < 40; ++host) {
        for (int minute = 0; minute < 60; minute += 15) {
          const int64_t t = start + minute * kNanosPerMinute;
          batch.push_back(Usage(host, t, 1, host + hour * 0.5 + minute));
          if (host % 5 == 0) batch.push_back(Stats(host, t));
        }
      }
      Write(*from_, batch);
      from_->RunMaintenance();
    }
    const int64_t last = kCheckpointNow - 15 * kNanosPerMinute;
    Write(*from_, {Usage(3, last, 7, -1), Usage(4, last, 9, -2)});
    // Every point of host h7's usage deleted.
    auto state = from_->TableStateOf(Table(*from_));
    ASSERT_TRUE(state.ok());
    uint64_t deleted_series = 0;
    for (const auto& series : (*state)->AllSeries()) {
      if (series->measure_name == "usage" && series->dimensions.front().second == "h7") {
        deleted_series = series->id;
      }
    }
    absl::StatusOr<int64_t> deleted = from_->DeleteSeriesWhere(
        [&](const SeriesTarget& t) { return t.series == deleted_series; }, [] { return false; });
    ASSERT_TRUE(deleted.ok()) << deleted.status();
    ASSERT_EQ(*deleted, 80);
  }

  // Each live row as text: series key, time, version, values.
  std::vector<std::string> Rows(Engine& engine, std::optional<uint32_t> shard = std::nullopt) {
    const TableInfo table = Table(engine);
    auto state = engine.TableStateOf(table);
    EXPECT_TRUE(state.ok());
    std::vector<std::string> out;
    const auto targets = SeriesTargetsOf((*state)->AllSeries(), table.partition_key);
    absl::flat_hash_map<uint64_t, uint32_t> shard_of;
    for (const SeriesTarget& t : targets) shard_of[t.series] = ShardOf(t.routing, kShards);
    EXPECT_TRUE(engine
                    .Scan(table, {},
                          [&](const ScanRow& row) {
                            if (shard.has_value() && shard_of[row.series] != *shard) return true;
                            const std::optional<SeriesInfo> info =
                                (*state)->DescribeSeries(row.series);
                            std::string line = info->measure_name;
                            for (const auto& [name, value] : info->dimensions) {
                              line += " " + name + "=" + value;
                            }
                            line += " @" + std::to_string(row.time_nanos) + " v" +
                                    std::to_string(row.version);
                            for (const Measure& m : row.measures) {
                              line += " " + m.name + ":" + std::to_string(int(m.value.type)) + "/" +
                                      std::to_string(m.value.number) + "/" +
                                      std::to_string(m.value.real) + "/" + m.value.text;
                            }
                            out.push_back(line);
                            return true;
                          })
                    .ok());
    std::sort(out.begin(), out.end());
    return out;
  }

  // Copies shard `shard` of `from_` into `to_` in parts cut at `part_bytes`; the parts'
  // count.
  int Copy(uint32_t shard, size_t part_bytes = ClusterOptions().peer_page_bytes()) {
    int parts = 0;
    absl::Status sent = SendCheckpoint(
        *from_, shard, kShards, part_bytes,
        [&](CheckpointPart part) -> absl::Status {
          ++parts;
          EXPECT_LE(part.count, kCheckpointPartRecords);
          // Past the cut by one record at most (a record here is well under 100 bytes).
          EXPECT_LT(part.records.size(), part_bytes + 100);
          return WriteCheckpointPart(*to_, part, [] { return false; });
        },
        [] { return false; });
    EXPECT_TRUE(sent.ok()) << sent;
    return parts;
  }

  testing::TempDir dir_;
  ManualClock clock_{kCheckpointNow};
  std::unique_ptr<Engine> from_;
  std::unique_ptr<Engine> to_;
};

TEST_F(CheckpointTest, EveryShardCopiedMakesTheSameRows) {
  Load();
  const std::vector<std::string> all = Rows(*from_);
  ASSERT_EQ(all.size(), 20u * 39 * 4 + 20u * 8 * 4);
  // Most of it is in magnetic blocks, the last hours in the memory store.
  EXPECT_GT(from_->StorageStats(Table(*from_))->rows_tiered_total, 3000);
  for (uint32_t shard = 0; shard < kShards; ++shard) {
    // Twenty hours span more than half an hour: a part per half hour at least.
    EXPECT_GE(Copy(shard), 20);
    EXPECT_EQ(Rows(*to_, shard), Rows(*from_, shard)) << shard;
  }
  EXPECT_EQ(Rows(*to_), all);
  // The versions came along: a lower version is refused, the copied one is a no-op.
  absl::StatusOr<WriteResult> lower =
      to_->Write({.database_name = "mydb",
                  .table_name = "tbl",
                  .records = {Usage(3, kCheckpointNow - 15 * kNanosPerMinute, 6, 5)}});
  ASSERT_TRUE(lower.ok());
  ASSERT_EQ(lower->rejected.size(), 1u);
  EXPECT_EQ(lower->rejected[0].existing_version, 7);
}

// A node started with a small --max-message-bytes cuts its parts to fit (half of it): every
// row still arrives, in more parts. Here the cut is below one record, so each part is one.
TEST_F(CheckpointTest, PartsAreCutToTheLargestMessage) {
  Load();
  const size_t part_bytes = ClusterOptions{.max_message_bytes = 64}.peer_page_bytes();
  ASSERT_EQ(part_bytes, 32u);
  for (uint32_t shard = 0; shard < kShards; ++shard) {
    int whole = 0;  // the parts at the default cut, only counted
    auto count = [&whole](const CheckpointPart&) {
      ++whole;
      return absl::OkStatus();
    };
    ASSERT_TRUE(
        SendCheckpoint(*from_, shard, kShards, ClusterOptions().peer_page_bytes(), count, [] {
          return false;
        }).ok());
    const std::vector<std::string> rows = Rows(*from_, shard);
    EXPECT_LT(whole, static_cast<int>(rows.size()));
    EXPECT_EQ(Copy(shard, part_bytes), static_cast<int>(rows.size())) << shard;
    EXPECT_EQ(Rows(*to_, shard), rows) << shard;
  }
}

// A memory store grown after the rows were written keeps them outside it (its floor): the
// copy still takes them, as magnetic-store writes, though the table takes none from clients.
TEST_F(CheckpointTest, RowsBelowAGrownMemoryStoresFloorAreCopied) {
  Load();
  ASSERT_TRUE(
      to_->catalog()
          .UpdateTable("mydb", "tbl",
                       {.retention = RetentionProperties{.memory_store_retention_hours = 48,
                                                         .magnetic_store_retention_days = 10}})
          .ok());
  ASSERT_GT(Table(*to_).memory_store_floor_nanos, kCheckpointNow - 20 * kNanosPerHour);
  for (uint32_t shard = 0; shard < kShards; ++shard) Copy(shard);
  EXPECT_EQ(Rows(*to_), Rows(*from_));
}

TEST_F(CheckpointTest, OneShardCopiesOnlyItsSeries) {
  Load();
  Copy(1);
  const std::vector<std::string> copied = Rows(*to_);
  EXPECT_FALSE(copied.empty());
  EXPECT_EQ(copied, Rows(*from_, 1));
  EXPECT_LT(copied.size(), Rows(*from_).size());
}

TEST_F(CheckpointTest, AnEmptyShardSendsNothing) {
  EXPECT_EQ(Copy(0), 0);
  EXPECT_TRUE(Rows(*to_).empty());
}

TEST_F(CheckpointTest, ARowTheReceiverRefusesFailsTheCopy) {
  Load();
  // The receiver already holds "usage" as BIGINT: the copy's DOUBLE rows cannot go in.
  InputRecord other = Usage(0, kCheckpointNow - kNanosPerMinute, 1, 0);
  other.measure_value_type = MeasureKind::kBigint;
  other.measure_value = Value::Bigint(1);
  Write(*to_, {other});
  bool refused = false;
  for (uint32_t shard = 0; shard < kShards && !refused; ++shard) {
    absl::Status sent = SendCheckpoint(
        *from_, shard, kShards, ClusterOptions().peer_page_bytes(),
        [&](CheckpointPart part) { return WriteCheckpointPart(*to_, part, [] { return false; }); },
        [] { return false; });
    if (sent.ok()) continue;
    refused = true;
    EXPECT_TRUE(absl::IsFailedPrecondition(sent)) << sent;
    EXPECT_NE(sent.message().find("a checkpoint row of mydb.tbl was rejected"), std::string::npos)
        << sent;
    EXPECT_NE(sent.message().find("the copy would differ from its peer's"), std::string::npos);
  }
  EXPECT_TRUE(refused);
}

TEST_F(CheckpointTest, AStoppedCopyEndsCancelled) {
  Load();
  int parts = 0;
  absl::Status sent = SendCheckpoint(
      *from_, 0, 1, ClusterOptions().peer_page_bytes(),
      [&](CheckpointPart) {
        ++parts;
        return absl::OkStatus();
      },
      [&] { return parts >= 2; });
  EXPECT_TRUE(absl::IsCancelled(sent)) << sent;
  EXPECT_EQ(parts, 2);
}

TEST_F(CheckpointTest, AMalformedPartIsRefused) {
  CheckpointPart part{.database = "mydb", .table = "tbl", .count = 3, .records = "\x03garbage"};
  absl::Status written = WriteCheckpointPart(*to_, part, [] { return false; });
  EXPECT_TRUE(absl::IsDataLoss(written)) << written;
}

}  // namespace
}  // namespace strata::cluster
