// The cluster's log formats (cluster/record_codec.h, cluster/log_entry.h) and the shard map
// (cluster/shard_map.h): round trips, and bytes that are not theirs refused, never read past.
#include <string>
#include <vector>

#include "cluster/log_entry.h"
#include "cluster/record_codec.h"
#include "cluster/shard_map.h"
#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

NormalizedRecord Record(std::string host, double value, int64_t version) {
  NormalizedRecord r;
  r.dimensions.emplace_back("host", host);
  r.dimensions.emplace_back("region", "eu");
  r.measure_name = "cpu";
  r.multi = true;
  r.measures = MeasureList::Of({{"usage", Value::Double(value)},
                                {"procs", Value::Bigint(12)},
                                {"state", Value::Varchar("ok")}});
  r.time_nanos = -5;  // before 1970: zig-zag
  r.version = version;
  return r;
}

TEST(RecordCodecTest, RoundTripsRecordsWithTheirIndices) {
  std::string encoded;
  EncodeRecord(3, Record("a", 1.5, 1), &encoded);
  EncodeRecord(7, Record("b", -2.25, 99), &encoded);
  auto decoded = DecodeRecords(EncodeRecords(2, encoded));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].index, 3);
  EXPECT_EQ((*decoded)[1].index, 7);
  EXPECT_EQ((*decoded)[0].record, Record("a", 1.5, 1));
  EXPECT_EQ((*decoded)[1].record, Record("b", -2.25, 99));
}

TEST(RecordCodecTest, RefusesEveryTruncationAndTrailingBytes) {
  std::string encoded;
  EncodeRecord(0, Record("a", 1.5, 1), &encoded);
  const std::string whole = EncodeRecords(1, encoded);
  for (size_t n = 0; n < whole.size(); ++n) {
    EXPECT_EQ(DecodeRecords(whole.substr(0, n)).status().code(), absl::StatusCode::kDataLoss) << n;
  }
  EXPECT_EQ(DecodeRecords(whole + "x").status().code(), absl::StatusCode::kDataLoss);
  // A count larger than the bytes could hold.
  EXPECT_EQ(DecodeRecords(EncodeRecords(1'000'000, encoded)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(LogEntryTest, ADeletesEntryKeepsItsKindAndPoints) {
  NormalizedRecord point;
  point.dimensions.emplace_back("host", "h1");
  point.measure_name = "cpu";
  point.time_nanos = 1'700'000'000'000'000'123;
  std::string encoded;
  EncodeRecord(0, point, &encoded);
  LogEntry entry{.kind = LogEntry::kDeletes, .epoch = 3, .id = "n0-1-3-5"};
  entry.writes.push_back({"demo", "cpu", EncodeRecords(1, encoded)});
  auto decoded = DecodeLogEntry(EncodeLogEntry(entry));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->kind, LogEntry::kDeletes);
  ASSERT_EQ(decoded->writes.size(), 1u);
  auto points = DecodeRecords(decoded->writes[0].records);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].record.measure_name, "cpu");
  EXPECT_EQ((*points)[0].record.time_nanos, point.time_nanos);
  EXPECT_EQ((*points)[0].record.dimensions, point.dimensions);
}

TEST(LogEntryTest, RoundTripsAndRefusesTruncations) {
  LogEntry entry{.kind = LogEntry::kWrites,
                 .epoch = 17,
                 .leader_nanos = 1'700'000'000'000'000'000,
                 .catalog_revision = 42,
                 .previous_digest = 0xfeedfacecafebeefULL,
                 .intended_sequence = 300,
                 .id = "n1-3-17-9"};
  entry.writes.push_back({"demo", "cpu", "records-bytes"});
  entry.writes.push_back({"demo", "mem", ""});
  const std::string bytes = EncodeLogEntry(entry);
  auto decoded = DecodeLogEntry(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->kind, LogEntry::kWrites);
  EXPECT_EQ(decoded->epoch, 17);
  EXPECT_EQ(decoded->leader_nanos, entry.leader_nanos);
  EXPECT_EQ(decoded->catalog_revision, 42);
  EXPECT_EQ(decoded->previous_digest, entry.previous_digest);
  EXPECT_EQ(decoded->intended_sequence, 300u);
  EXPECT_EQ(decoded->id, "n1-3-17-9");
  ASSERT_EQ(decoded->writes.size(), 2u);
  EXPECT_EQ(decoded->writes[1].table, "mem");
  EXPECT_EQ(decoded->writes[0].records, "records-bytes");
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeLogEntry(bytes.substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(decoded->writes[0].windows.has_value());
  // Format 2 (no windows) still reads: its writes are judged by the replica's catalog. Each
  // write of `bytes` ends with its "no windows" byte: the last at the end, the first 11 bytes
  // before (the second write is 5 + 4 + 1 bytes and that byte).
  std::string v2 = bytes;
  v2[0] = 2;
  v2.erase(v2.size() - 1, 1);
  v2.erase(v2.size() - 11, 1);
  auto format2 = DecodeLogEntry(v2);
  ASSERT_TRUE(format2.ok()) << format2.status();
  EXPECT_EQ(format2->writes[0].records, "records-bytes");
  EXPECT_FALSE(format2->writes[1].windows.has_value());
  // Format 1 (no intended sequence either) still reads: its entries are not checked for it.
  std::string v1 = v2;
  v1[0] = 1;
  v1.erase(2 + 1 + 9 + 1 + 8, 2);  // the header's varints: 17, leader time (9), 42; 300 is 2 bytes
  auto old = DecodeLogEntry(v1);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->intended_sequence, 0u);
  EXPECT_EQ(old->id, "n1-3-17-9");
  std::string unknown_kind = bytes;
  unknown_kind[1] = 9;
  EXPECT_FALSE(DecodeLogEntry(unknown_kind).ok());
}

// The tables' windows the leader saw travel with the writes, so every replica judges a
// record's time alike (a retention or magnetic-store change applied in between or not).
TEST(LogEntryTest, AWritesWindowsRoundTrip) {
  LogEntry entry{.kind = LogEntry::kWrites, .epoch = 3, .id = "n0-1-3-1"};
  const TableWindows windows{.retention = {.memory_store_retention_hours = 2,
                                           .magnetic_store_retention_days = 30},
                             .enable_magnetic_store_writes = true,
                             .memory_store_floor_nanos = 1'700'000'000'000'000'000,
                             .retention_floor_nanos = INT64_MIN};
  entry.writes.push_back({"demo", "cpu", "rows", windows});
  entry.writes.push_back({"demo", "mem", "more"});
  const std::string bytes = EncodeLogEntry(entry);
  auto decoded = DecodeLogEntry(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_TRUE(decoded->writes[0].windows.has_value());
  EXPECT_EQ(*decoded->writes[0].windows, windows);
  EXPECT_FALSE(decoded->writes[1].windows.has_value());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeLogEntry(bytes.substr(0, n)).ok()) << n;
  }
  // A windows flag that is neither 0 nor 1 is refused.
  std::string bad = bytes;
  bad[bad.size() - 1] = 7;
  EXPECT_FALSE(DecodeLogEntry(bad).ok());
}

TEST(LogEntryTest, TheDigestChainDependsOnEveryEntryBefore) {
  const uint64_t a = ChainDigest(0, "first");
  const uint64_t b = ChainDigest(a, "second");
  EXPECT_NE(ChainDigest(0, "second"), b);   // the same entry after another history
  EXPECT_NE(ChainDigest(a, "second!"), b);  // another entry after the same history
  EXPECT_EQ(ChainDigest(ChainDigest(0, "first"), "second"), b);
}

TEST(ShardMapTest, ShardIsTheTopBitsOfTheRoutingHash) {
  EXPECT_EQ(ShardOf(0xffffffffffffffffULL, 16), 15u);
  EXPECT_EQ(ShardOf(0x0fffffffffffffffULL, 16), 0u);
  EXPECT_EQ(ShardOf(0x8000000000000000ULL, 2), 1u);
  EXPECT_EQ(ShardOf(0x8000000000000000ULL, 1), 0u);
  // Doubling the count halves each range: shard s of S becomes 2s or 2s+1 of 2S.
  for (uint64_t h : {0x123456789abcdef0ULL, 0xfedcba9876543210ULL, 0x7fffffffffffffffULL}) {
    EXPECT_EQ(ShardOf(h, 32) / 2, ShardOf(h, 16));
  }
  EXPECT_TRUE(ValidShardCount(16));
  EXPECT_FALSE(ValidShardCount(12));
  EXPECT_FALSE(ValidShardCount(0));
  EXPECT_FALSE(ValidShardCount(2048));
}

TEST(ShardMapTest, RoutesByPartitionKeyOrBySeries) {
  const PartitionKey by_host{.type = PartitionKeyType::kDimension, .name = "host"};
  const PartitionKey by_measure;
  NormalizedRecord a = Record("a", 1, 1);
  NormalizedRecord a_other_region = Record("a", 1, 1);
  a_other_region.dimensions = DimensionList{{"host", "a"}, {"region", "us"}};
  // A customer key routes every series of one key value together.
  EXPECT_EQ(RoutingHash(a, by_host), RoutingHash(a_other_region, by_host));
  // The default key routes by series: the same measure spreads over the shards.
  EXPECT_NE(RoutingHash(a, by_measure), RoutingHash(a_other_region, by_measure));
  EXPECT_EQ(RoutingHash(a, by_measure), RoutingHash(Record("a", 9, 2), by_measure));
}

}  // namespace
}  // namespace strata::cluster
