// The memory head (storage/head/memory_head.h) and its log (storage/head/head_log.h):
// the iterator against an ordered map of the same keys, what a reader's
// capture keeps, the log's codec and its refusals, and, through the engine,
// replay at open, moving an older directory's `hot` rows into the log, and
// the memory budget.
#include "storage/head/memory_head.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "rocksdb/write_batch.h"
#include "storage/catalog/table_data.h"
#include "storage/engine.h"
#include "storage/head/head_log.h"
#include "storage/head/head_recovery.h"
#include "storage/kv/keys.h"
#include "storage/kv/store.h"
#include "storage/read/table_state.h"
#include "storage/rows/row_codec.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

using Model = std::map<std::string, std::string>;  // point key -> row, what the head should hold

// Rows of several shapes (names, types, counts), and a quarter that are not
// encoded rows at all, which the head stores as they are.
std::string Row(int n) {
  if (n % 4 == 0) return "row-" + std::to_string(n);
  StoredRow row{.version = n % 3 + 1};
  row.measures.push_back({"usage_user", Value::Double(n * 0.5)});
  if (n % 3 != 0) row.measures.push_back({"host_note", Value::Varchar(std::string(n % 40, 'x'))});
  if (n % 5 != 0) row.measures.push_back({"procs", Value::Bigint(-n * 1000003LL)});
  if (n % 7 == 0) row.measures.push_back({"up", Value::Boolean(n % 2 == 0)});
  if (n % 11 == 0) row.measures.push_back({"seen", Value::Timestamp(n * kNanosPerSecond)});
  std::string encoded;
  EncodeRow(row, &encoded);
  return encoded;
}

// Random puts, replacements and erases over two tables, a few buckets,
// series and times, applied to the head and to the model. Half the encoded
// rows are put compact with their shape, as the writer puts them (rows of
// one shape share the signature's bytes); the head must give back the same
// whole rows either way.
void Fill(MemoryHead& head, Model& model, uint32_t seed) {
  std::mt19937 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % n); };
  for (int round = 0; round < 20; ++round) {
    std::vector<MemoryHead::Change> changes;
    std::set<std::string> signatures;  // stable: the changes view them
    // Rows the changes view, stable too: a later change of the round may
    // replace or erase the model's row for the same key.
    std::vector<std::unique_ptr<std::string>> compacts;
    for (int i = 0; i < 50; ++i) {
      const uint32_t bucket = 10 + pick(4);
      const keys::PointKey key{
          .table_id = static_cast<uint32_t>(1 + pick(2)), .bucket = bucket,
          .pk_hash = static_cast<uint64_t>(pick(3)) << 62, .series = static_cast<uint64_t>(pick(5)),
          .time_nanos = bucket * keys::kBucketNanos + pick(20) * kNanosPerMinute};
      const std::string encoded = keys::EncodePointKey(key);
      if (pick(5) == 0) {
        changes.push_back({key, std::nullopt});
        model.erase(encoded);
      } else {
        auto& row = model[encoded];
        row = Row(round * 100 + i);
        auto decoded = DecodeRow(row);
        if (!decoded.ok() || pick(2) == 0) {
          changes.push_back({key, *compacts.emplace_back(std::make_unique<std::string>(row))});
          continue;
        }
        std::string signature;
        EncodeRowSignature(decoded->measures, &signature);
        auto& compact = compacts.emplace_back(std::make_unique<std::string>());
        EncodeCompactRow(*decoded, compact.get());
        const std::string& shape = *signatures.insert(signature).first;
        changes.push_back({.key = key, .row = *compact, .shape = shape});
      }
    }
    head.Apply(changes);
  }
}

// Targets to seek: every stored key, keys between them, and prefixes of
// every length the scans use (table, bucket, series) with their ends.
std::vector<std::string> Targets(const Model& model, uint32_t table_id) {
  std::vector<std::string> targets = {"", keys::TableDataPrefix(table_id),
                                      keys::TableDataPrefix(table_id + 1),
                                      keys::TableDataPrefix(table_id - 1)};
  for (const auto& [key, row] : model) {
    targets.push_back(key);
    targets.push_back(key + "x");
    targets.push_back(keys::PrefixEnd(key));
    for (size_t n : {4, 8, 16, 24, 28}) {
      targets.push_back(key.substr(0, n));
      targets.push_back(keys::PrefixEnd(key.substr(0, n)));
    }
  }
  return targets;
}

// The model's keys of one table below `upper` ("" = none).
Model TableModel(const Model& model, uint32_t table_id, const std::string& upper) {
  Model out;
  const std::string prefix = keys::TableDataPrefix(table_id);
  for (const auto& [key, row] : model) {
    if (key.starts_with(prefix) && (upper.empty() || key < upper)) out.emplace(key, row);
  }
  return out;
}

std::string At(const rocksdb::Iterator& it) {
  return it.Valid() ? it.key().ToString() + "=" + it.value().ToString() : "(end)";
}
std::string At(const Model& model, Model::const_iterator it) {
  return it == model.end() ? "(end)" : it->first + "=" + it->second;
}

TEST(MemoryHeadTest, IteratesLikeAnOrderedMapOfItsKeys) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    MemoryHead head;
    Model model;
    Fill(head, model, seed);
    for (uint32_t table_id : {1u, 2u}) {
      for (const std::string& upper :
           {std::string(), keys::BucketPrefix(table_id, 12), keys::TableDataPrefix(table_id + 1)}) {
        const Model want = TableModel(model, table_id, upper);
        auto it = MemoryHead::NewIterator(head.Capture(table_id), upper);
        // Forward and backward walks.
        std::vector<std::string> forward, backward;
        for (it->SeekToFirst(); it->Valid(); it->Next()) forward.push_back(At(*it));
        for (it->SeekToLast(); it->Valid(); it->Prev()) backward.push_back(At(*it));
        std::vector<std::string> expected;
        for (auto m = want.begin(); m != want.end(); ++m) expected.push_back(At(want, m));
        ASSERT_EQ(forward, expected) << "seed " << seed << " table " << table_id;
        std::reverse(expected.begin(), expected.end());
        ASSERT_EQ(backward, expected);
        // Seeks to and between keys and prefixes, and a step from there.
        for (const std::string& target : Targets(model, table_id)) {
          it->Seek(target);
          auto m = want.lower_bound(target);
          ASSERT_EQ(At(*it), At(want, m)) << "Seek " << ::testing::PrintToString(target);
          if (it->Valid()) {
            it->Next();
            ASSERT_EQ(At(*it), At(want, std::next(m)));
          }
          it->SeekForPrev(target);
          auto p = want.upper_bound(target);
          const std::string expected_prev = p == want.begin() ? "(end)" : At(want, std::prev(p));
          ASSERT_EQ(At(*it), expected_prev) << "SeekForPrev " << ::testing::PrintToString(target);
          if (it->Valid()) {
            it->Prev();
            auto before = std::prev(p);
            ASSERT_EQ(At(*it), before == want.begin() ? "(end)" : At(want, std::prev(before)));
          }
        }
      }
    }
  }
}

// A bucket's series list is shared by the readers that enter the bucket
// and made again once series were added: a reader sees the series of the
// moment it entered the bucket, and one entering after an addition sees it.
TEST(MemoryHeadTest, ReadersSeeTheSeriesOfTheMomentTheyEnterABucket) {
  MemoryHead head;
  auto put = [&](uint64_t series, int minute) {
    const keys::PointKey key{.table_id = 1, .bucket = 10, .pk_hash = 0, .series = series,
                             .time_nanos = 10 * keys::kBucketNanos + minute * kNanosPerMinute};
    head.Apply({{.key = key, .row = Row(minute)}});
  };
  auto series_seen = [](rocksdb::Iterator& it) {
    std::vector<uint64_t> seen;
    for (; it.Valid(); it.Next()) {
      keys::PointKey key;
      EXPECT_TRUE(keys::DecodePointKey(it.key().ToStringView(), &key));
      if (seen.empty() || seen.back() != key.series) seen.push_back(key.series);
    }
    return seen;
  };
  put(5, 1);
  auto before = MemoryHead::NewIterator(head.Capture(1));
  before->SeekToFirst();  // enters the bucket: series 5
  auto also_before = MemoryHead::NewIterator(head.Capture(1));
  also_before->SeekToFirst();
  put(3, 1);
  put(7, 1);
  EXPECT_EQ(series_seen(*before), std::vector<uint64_t>{5});
  auto after = MemoryHead::NewIterator(head.Capture(1));
  after->SeekToFirst();
  put(9, 2);
  EXPECT_EQ(series_seen(*after), (std::vector<uint64_t>{3, 5, 7}));
  EXPECT_EQ(series_seen(*also_before), std::vector<uint64_t>{5});
  auto last = MemoryHead::NewIterator(head.Capture(1));
  last->SeekToFirst();
  EXPECT_EQ(series_seen(*last), (std::vector<uint64_t>{3, 5, 7, 9}));
  // A seek into a series added since the list was last made.
  put(4, 3);
  auto seeking = MemoryHead::NewIterator(head.Capture(1));
  seeking->Seek(keys::SeriesBucketPrefix(1, 10, 0, 4));
  EXPECT_EQ(series_seen(*seeking), (std::vector<uint64_t>{4, 5, 7, 9}));
}

std::string CompactOf(const RowParts& parts) {
  std::string out(RowShape::CompactSize(parts), '\0');
  RowShape::WriteCompact(parts, out.data());
  return out;
}

TEST(HeadRowsTest, CompactRowsReadBackByteForByte) {
  std::vector<std::string> rows;
  for (int n = 1; n < 200; ++n) {
    if (n % 4 != 0) rows.push_back(Row(n));
  }
  for (const std::string& row : rows) {
    RowParts parts;
    ASSERT_TRUE(SplitEncodedRow(row, &parts));
    const RowShape shape(parts);
    const std::string compact = CompactOf(parts);
    std::string back;
    shape.AppendEncodedRow(compact, &back);
    ASSERT_EQ(back, row);
    EXPECT_LT(compact.size(), row.size());
    // A shape takes exactly the rows of its names and types, and splits
    // them in one pass as SplitEncodedRow does.
    for (const std::string& other : rows) {
      RowParts other_parts, one_pass;
      ASSERT_TRUE(SplitEncodedRow(other, &other_parts));
      const bool same = RowShape::Signature(parts) == RowShape::Signature(other_parts);
      ASSERT_EQ(shape.SplitIfMatches(other, &one_pass), same);
      if (same) {
        EXPECT_EQ(CompactOf(one_pass), CompactOf(other_parts));
        for (size_t n = 0; n < other.size(); ++n) {
          EXPECT_FALSE(shape.SplitIfMatches(other.substr(0, n), &one_pass)) << n;
        }
      }
    }
    // No proper prefix of a row is a row.
    for (size_t n = 0; n < row.size(); ++n) {
      EXPECT_FALSE(SplitEncodedRow(row.substr(0, n), &parts)) << n;
    }
  }
}

TEST(MemoryHeadTest, RowsOfOneShapeKeepTheirNamesOnce) {
  MemoryHead head;
  std::vector<MemoryHead::Change> changes;
  size_t encoded_bytes = 0;
  std::vector<std::string> rows;
  constexpr int kRows = 10000;
  for (int i = 0; i < kRows; ++i) {
    StoredRow row;
    for (const char* name : {"usage_user", "usage_system", "usage_idle", "usage_nice",
                             "usage_iowait", "usage_irq", "usage_softirq", "usage_steal",
                             "usage_guest", "usage_guest_nice"}) {
      row.measures.push_back({name, Value::Double(i * 0.25)});
    }
    rows.emplace_back();
    EncodeRow(row, &rows.back());
    encoded_bytes += rows.back().size();
  }
  for (int i = 0; i < kRows; ++i) {
    changes.push_back({{.table_id = 1, .bucket = 3, .series = 7,
                        .time_nanos = 3 * keys::kBucketNanos + i * (kNanosPerSecond / 1000)},
                       rows[i]});
  }
  head.Apply(changes);
  // 10 doubles: 81 bytes of version and values where the encoded row has
  // 216, plus its index entry and the arena's free tail.
  EXPECT_LT(head.bytes(), static_cast<int64_t>(encoded_bytes * 2 / 3)) << encoded_bytes;
  auto it = MemoryHead::NewIterator(head.Capture(1));
  int i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ASSERT_EQ(it->value().ToString(), rows[i++]);
  EXPECT_EQ(i, kRows);
  EXPECT_EQ(head.Find(changes[500].key), rows[500]);
}

TEST(MemoryHeadTest, ReplacesErasesAndFindsRowsByKey) {
  MemoryHead head;
  const keys::PointKey a{.table_id = 1, .bucket = 5, .pk_hash = 7, .series = 9,
                         .time_nanos = 5 * keys::kBucketNanos + 10};
  keys::PointKey b = a;
  b.time_nanos += 1;
  keys::PointKey earlier = a;
  earlier.time_nanos -= 1;
  head.Apply({{a, "one"}, {b, "two"}, {earlier, "zero"}, {a, "uno"}});
  EXPECT_EQ(head.Find(a), "uno");
  EXPECT_EQ(head.Find(earlier), "zero");
  EXPECT_EQ(head.NewestTime(1, 5, 7, 9), b.time_nanos);
  EXPECT_EQ(head.TableUsage(1).second, 3);
  head.Apply({{b, std::nullopt}, {b, std::nullopt}});
  EXPECT_EQ(head.Find(b), std::nullopt);
  EXPECT_EQ(head.NewestTime(1, 5, 7, 9), a.time_nanos);
  EXPECT_EQ(head.TableUsage(1).second, 2);
  EXPECT_EQ(head.NewestTime(1, 6, 7, 9), INT64_MIN);
  EXPECT_EQ(head.Find({.table_id = 2, .bucket = 5}), std::nullopt);
  EXPECT_GT(head.bytes(), 0);
}

// Apply finds every change's bucket and series before applying any: an
// erase of nothing (no bucket, or no series) between puts of the same bucket
// neither adds a bucket or series nor stops the puts after it.
TEST(MemoryHeadTest, ErasesOfNothingAmongPutsChangeNothingElse) {
  MemoryHead head;
  auto at = [](uint32_t bucket, uint64_t series, int64_t minute) {
    return keys::PointKey{.table_id = 1, .bucket = bucket, .pk_hash = 7, .series = series,
                          .time_nanos = bucket * keys::kBucketNanos + minute};
  };
  head.Apply({{at(5, 1, 0), std::nullopt},  // bucket 5 does not exist yet
              {at(5, 1, 1), "a"},
              {at(5, 2, 2), std::nullopt},  // nor does series 2 in it
              {at(5, 3, 3), "b"},
              {at(6, 1, 4), std::nullopt},  // nor bucket 6, which stays so
              {at(7, 1, 5), "c"},
              {at(5, 1, 6), "d"}});
  EXPECT_EQ(head.Find(at(5, 1, 1)), "a");
  EXPECT_EQ(head.Find(at(5, 3, 3)), "b");
  EXPECT_EQ(head.Find(at(7, 1, 5)), "c");
  EXPECT_EQ(head.Find(at(5, 1, 6)), "d");
  EXPECT_EQ(head.TableUsage(1).second, 4);
  EXPECT_EQ(head.NewestTime(1, 5, 7, 2), INT64_MIN);
  EXPECT_EQ(head.NewestTime(1, 5, 7, 1), at(5, 1, 6).time_nanos);
  EXPECT_EQ(head.Buckets(1), (std::vector<uint32_t>{5, 7}));
}

TEST(MemoryHeadTest, AReaderKeepsTheBucketsItCapturedAfterTheyAreDropped) {
  MemoryHead head;
  const keys::PointKey key{.table_id = 1, .bucket = 5, .pk_hash = 0, .series = 1,
                           .time_nanos = 5 * keys::kBucketNanos};
  head.Apply({{key, "kept for the reader"}});
  auto it = MemoryHead::NewIterator(head.Capture(1));
  head.DropBuckets(1, 0, UINT32_MAX);
  EXPECT_EQ(head.bytes(), 0);
  EXPECT_EQ(head.Find(key), std::nullopt);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value().ToString(), "kept for the reader");
  auto fresh = MemoryHead::NewIterator(head.Capture(1));
  fresh->SeekToFirst();
  EXPECT_FALSE(fresh->Valid());
}

TEST(MemoryHeadTest, AConversionKeepsTheRowsWrittenAfterItsSequence) {
  testing::TempDir dir;
  auto store = Store::Open({.data_dir = dir.Sub("data")});
  ASSERT_TRUE(store.ok()) << store.status();
  MemoryHead head;
  auto at = [](uint64_t series, int64_t minute, uint64_t sequence, std::string_view row) {
    return MemoryHead::Change{{.table_id = 1, .bucket = 5, .series = series,
                               .time_nanos = 5 * keys::kBucketNanos + minute * kNanosPerMinute},
                              row, sequence};
  };
  // Series 1: two rows read by the conversion (sequences 1, 2), one written
  // while it ran (3); series 2: only read; series 3: only written after.
  // Encoded rows of several shapes (stored compactly) and one that is not.
  const std::string a = Row(1), b = Row(2), c = Row(3), d = Row(4), e = Row(5);
  head.Apply({at(1, 0, 1, a), at(2, 0, 1, b), at(1, 1, 2, c), at(1, 2, 3, d), at(3, 0, 3, e)});
  std::vector<std::string> read;
  auto converter = MemoryHead::NewIterator(head.Capture(1), "", /*max_sequence=*/2);
  for (converter->SeekToFirst(); converter->Valid(); converter->Next()) {
    read.push_back(converter->value().ToString());
  }
  EXPECT_EQ(read, (std::vector<std::string>{a, c, b}));
  auto before = MemoryHead::NewIterator(head.Capture(1));
  rocksdb::WriteBatch batch;
  ASSERT_TRUE(head.WriteThenKeepAfter((*store)->db(), rocksdb::WriteOptions(), &batch, 1, 5, 2)
                  .ok());
  std::vector<std::string> kept, old;
  auto after = MemoryHead::NewIterator(head.Capture(1));
  for (after->SeekToFirst(); after->Valid(); after->Next()) kept.push_back(after->value().ToString());
  for (before->SeekToFirst(); before->Valid(); before->Next()) {
    old.push_back(before->value().ToString());
  }
  EXPECT_EQ(kept, (std::vector<std::string>{d, e}));
  EXPECT_EQ(old, (std::vector<std::string>{a, c, d, b, e}));
  EXPECT_EQ(head.TableUsage(1).second, 2);
  // The writer finds the kept series again (its own index of them is the
  // new bucket's): a later row of series 1 joins its kept row, and series 2,
  // not kept, starts anew.
  const std::string f = Row(6), g = Row(7);
  head.Apply({at(1, 3, 4, f), at(2, 1, 4, g)});
  std::vector<std::string> later;
  auto again = MemoryHead::NewIterator(head.Capture(1));
  for (again->SeekToFirst(); again->Valid(); again->Next()) {
    later.push_back(again->value().ToString());
  }
  EXPECT_EQ(later, (std::vector<std::string>{d, f, g, e}));
  EXPECT_EQ(head.TableUsage(1).second, 4);
  // Nothing left after the last sequence: the bucket goes.
  ASSERT_TRUE(head.WriteThenKeepAfter((*store)->db(), rocksdb::WriteOptions(), &batch, 1, 5, 4)
                  .ok());
  EXPECT_EQ(head.Buckets(1), std::vector<uint32_t>{});
  EXPECT_EQ(head.bytes(), 0);
}

// Every key and row of a table, in iteration order.
std::vector<std::string> Contents(const MemoryHead& head, uint32_t table_id) {
  std::vector<std::string> out;
  auto it = MemoryHead::NewIterator(head.Capture(table_id));
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.push_back(At(*it));
  return out;
}

std::vector<std::string> Contents(const Model& model, uint32_t table_id) {
  const Model want = TableModel(model, table_id, "");
  std::vector<std::string> out;
  for (auto m = want.begin(); m != want.end(); ++m) out.push_back(At(want, m));
  return out;
}

// Regrouping copies a bucket between two steps while the writer goes on:
// every put, replacement, insertion before a series' newest row, erase and
// new series made between the steps must be in the copy, the writer goes on
// in the copy, and a reader that captured the bucket before the second step
// keeps it as it was then.
TEST(MemoryHeadTest, ARegroupedBucketHoldsEveryChangeMadeBetweenItsSteps) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    MemoryHead head;
    Model model;
    Fill(head, model, seed);
    std::vector<std::unique_ptr<MemoryHead::Regrouping>> started;
    for (uint32_t table_id : {1u, 2u}) {
      for (uint32_t bucket : head.Buckets(table_id)) {
        started.push_back(head.StartRegroup(table_id, bucket));
        ASSERT_NE(started.back(), nullptr);
      }
    }
    Fill(head, model, seed + 100);  // between the steps
    // A reader that captured the buckets before the second step.
    auto reader = MemoryHead::NewIterator(head.Capture(1));
    const std::vector<std::string> captured = Contents(model, 1);
    for (auto& regrouping : started) EXPECT_TRUE(head.FinishRegroup(*regrouping));
    for (uint32_t table_id : {1u, 2u}) {
      ASSERT_EQ(Contents(head, table_id), Contents(model, table_id))
          << "seed " << seed << " table " << table_id;
    }
    for (const auto& [key, row] : model) {
      keys::PointKey point;
      ASSERT_TRUE(keys::DecodePointKey(key, &point));
      ASSERT_EQ(head.Find(point), row);
    }
    // The bytes counted are the buckets' now.
    int64_t counted = 0;
    for (uint32_t table_id : {1u, 2u}) counted += head.TableUsage(table_id).first;
    EXPECT_EQ(head.bytes(), counted);
    // The writer carries on in the copies; the reader's buckets are left as
    // they were.
    Fill(head, model, seed + 200);
    std::vector<std::string> seen;
    for (reader->SeekToFirst(); reader->Valid(); reader->Next()) seen.push_back(At(*reader));
    EXPECT_TRUE(seen == captured) << "seed " << seed;
    for (uint32_t table_id : {1u, 2u}) {
      ASSERT_EQ(Contents(head, table_id), Contents(model, table_id)) << "after, seed " << seed;
    }
  }
}

// What regrouping is for: rows written a moment at a time across series
// lie a series apart in the arena; regrouped, a series' rows lie one after
// another (but across the arena's blocks).
TEST(MemoryHeadTest, ARegroupedBucketKeepsEachSeriesRowsTogether) {
  MemoryHead head;
  constexpr int kSeries = 50, kRows = 64;
  const std::string row = Row(1);  // encoded, stored compact
  std::vector<MemoryHead::Change> changes;
  for (int t = 0; t < kRows; ++t) {
    for (int s = 0; s < kSeries; ++s) {
      changes.push_back({{.table_id = 1, .bucket = 5, .series = static_cast<uint64_t>(s),
                          .time_nanos = 5 * keys::kBucketNanos + t * kNanosPerSecond},
                         row, 1});
    }
  }
  head.Apply(changes);
  // Pairs of a series' consecutive rows whose bytes follow one another.
  auto adjacent = [&] {
    int pairs = 0;
    auto it = MemoryHead::NewIterator(head.Capture(1));
    std::string_view last;
    uint64_t last_series = UINT64_MAX;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view bytes = it->stored().first;
      keys::PointKey point;
      EXPECT_TRUE(keys::DecodePointKey(it->key().ToStringView(), &point));
      const uint64_t series = point.series;
      if (series == last_series && bytes.data() == last.data() + last.size()) ++pairs;
      last = bytes;
      last_series = series;
    }
    return pairs;
  };
  EXPECT_EQ(adjacent(), 0);
  EXPECT_EQ(head.BucketsToRegroup(1000).size(), 1u);
  auto regrouping = head.StartRegroup(1, 5);
  ASSERT_TRUE(head.FinishRegroup(*regrouping));
  // All but where a series crosses from one block of the arena to the next.
  EXPECT_GE(adjacent(), kSeries * (kRows - 1) - 10);
}

// A bucket dropped (expired, converted, its table dropped) between the
// steps stays dropped: the copy is not put back.
TEST(MemoryHeadTest, ARegroupOfABucketDroppedBetweenItsStepsChangesNothing) {
  MemoryHead head;
  const keys::PointKey key{.table_id = 1, .bucket = 5, .series = 1,
                           .time_nanos = 5 * keys::kBucketNanos};
  head.Apply({{key, "row"}});
  auto regrouping = head.StartRegroup(1, 5);
  ASSERT_NE(regrouping, nullptr);
  head.DropBuckets(1, 0, UINT32_MAX);
  EXPECT_FALSE(head.FinishRegroup(*regrouping));
  EXPECT_EQ(head.Buckets(1), std::vector<uint32_t>{});
  EXPECT_EQ(head.Find(key), std::nullopt);
  EXPECT_EQ(head.bytes(), 0);
  EXPECT_EQ(head.StartRegroup(1, 5), nullptr);
}

// A bucket is due once the rows written since its last regroup are at
// least the minimum and at least as many as it then held, and its series
// hold 64 rows each on average (a few rows of a series cost a reader a miss
// or two wherever they lie).
TEST(MemoryHeadTest, ABucketIsDueForRegroupingWhenItsScatteredRowsDouble) {
  MemoryHead head;
  int64_t next_time = 0;
  auto write = [&](uint32_t bucket, int rows, int series) {
    std::vector<MemoryHead::Change> changes;
    for (int i = 0; i < rows; ++i) {
      changes.push_back({{.table_id = 1, .bucket = bucket, .series = static_cast<uint64_t>(i % series),
                          .time_nanos = bucket * keys::kBucketNanos + next_time++},
                         "row", 1});
    }
    head.Apply(changes);
  };
  write(5, 99, 1);
  EXPECT_TRUE(head.BucketsToRegroup(100).empty());
  write(5, 1, 1);
  const auto due = head.BucketsToRegroup(100);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].table_id, 1u);
  EXPECT_EQ(due[0].bucket, 5u);
  EXPECT_EQ(due[0].bytes, head.bytes());
  ASSERT_TRUE(head.FinishRegroup(*head.StartRegroup(1, 5)));
  EXPECT_TRUE(head.BucketsToRegroup(100).empty());
  write(5, 150, 1);  // as many as were regrouped (100) and past the minimum
  EXPECT_EQ(head.BucketsToRegroup(100).size(), 1u);
  ASSERT_TRUE(head.FinishRegroup(*head.StartRegroup(1, 5)));
  write(5, 249, 1);  // past the minimum, short of the 250 regrouped
  EXPECT_TRUE(head.BucketsToRegroup(100).empty());
  write(5, 1, 1);
  EXPECT_EQ(head.BucketsToRegroup(100).size(), 1u);
  // 1,000 rows of 100 series: 10 rows each, not worth a copy; 64 each are.
  write(6, 1000, 100);
  EXPECT_EQ(head.BucketsToRegroup(100).size(), 1u);
  write(6, 5400, 100);
  EXPECT_EQ(head.BucketsToRegroup(100).size(), 2u);
}

TEST(MemoryHeadTest, OldestBucketSkipsWhatCouldNotMove) {
  MemoryHead head;
  auto at = [](uint32_t table, uint32_t bucket) {
    return MemoryHead::Change{{.table_id = table, .bucket = bucket, .series = 1,
                               .time_nanos = bucket * keys::kBucketNanos},
                              std::string_view("r")};  // a literal: the change views it
  };
  EXPECT_EQ(head.OldestBucket({}), std::nullopt);
  head.Apply({at(1, 7), at(1, 9), at(2, 8)});
  EXPECT_EQ(head.OldestBucket({}), std::pair(1u, 7u));
  EXPECT_EQ(head.OldestBucket({{1, 7}}), std::pair(2u, 8u));
  EXPECT_EQ(head.OldestBucket({{1, 7}, {2, 8}}), std::pair(1u, 9u));
}

TEST(HeadLogTest, AnEntryDecodesToItsChanges) {
  const keys::PointKey put{.table_id = 3, .bucket = 4, .pk_hash = 5, .series = 6,
                           .time_nanos = 4 * keys::kBucketNanos + 7};
  keys::PointKey erase = put;
  erase.series = 8;
  head_log::EntryBuilder entry;
  EXPECT_TRUE(entry.empty());
  entry.Put(put, "bytes");
  entry.Erase(erase);
  std::vector<MemoryHead::Change> changes;
  uint64_t sequence = 0;
  ASSERT_TRUE(head_log::Decode(head_log::Key(3, 4, 99), entry.bytes(), &changes, &sequence).ok());
  EXPECT_EQ(sequence, 99u);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(keys::EncodePointKey(changes[0].key), keys::EncodePointKey(put));
  EXPECT_EQ(changes[0].row, "bytes");
  EXPECT_EQ(keys::EncodePointKey(changes[1].key), keys::EncodePointKey(erase));
  EXPECT_EQ(changes[1].row, std::nullopt);
}

TEST(HeadLogTest, CompactRowsDecodeWithTheirShapeWrittenOnce) {
  const StoredRow first{.version = 2, .measures = {{"usage_user", Value::Double(1.5)},
                                                   {"note", Value::Varchar("x")}}};
  StoredRow second = first;
  second.version = 3;
  second.measures[1].value = Value::Varchar("longer");
  std::string signature, compact_first, compact_second, whole;
  EncodeRowSignature(first.measures, &signature);
  EncodeCompactRow(first, &compact_first);
  EncodeCompactRow(second, &compact_second);
  EncodeRow(first, &whole);
  keys::PointKey key{.table_id = 3, .bucket = 4, .pk_hash = 5, .series = 6,
                     .time_nanos = 4 * keys::kBucketNanos + 7};
  head_log::EntryBuilder entry;
  entry.PutCompact(key, signature, compact_first);
  key.time_nanos += 1;
  entry.PutCompact(key, signature, compact_second);
  // The names are written once for both compact rows.
  EXPECT_EQ(entry.bytes().find("usage_user"), entry.bytes().rfind("usage_user"));
  key.time_nanos += 1;
  entry.Put(key, whole);
  std::vector<MemoryHead::Change> changes;
  uint64_t sequence = 0;
  ASSERT_TRUE(head_log::Decode(head_log::Key(3, 4, 9), entry.bytes(), &changes, &sequence).ok());
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].shape, signature);
  EXPECT_EQ(changes[0].row, compact_first);
  EXPECT_EQ(changes[1].shape.data(), changes[0].shape.data());
  EXPECT_EQ(changes[1].row, compact_second);
  EXPECT_TRUE(changes[2].shape.empty());
  EXPECT_EQ(changes[2].row, whole);

  // The head gives the rows back whole, as the row codec encodes them.
  MemoryHead head;
  head.Apply(changes);
  std::string whole_second;
  EncodeRow(second, &whole_second);
  EXPECT_EQ(head.Find(changes[0].key), whole);
  EXPECT_EQ(head.Find(changes[1].key), whole_second);
  EXPECT_EQ(head.Find(changes[2].key), whole);
}

// A bucket keeps at most 1,024 shapes; rows of further shapes, whole or
// compact, are stored whole and read back the same.
TEST(MemoryHeadTest, RowsPastTheBucketsShapesAreStoredWhole) {
  constexpr int kRows = 1100;
  std::vector<std::string> whole(kRows), signatures(kRows), compacts(kRows);
  std::vector<MemoryHead::Change> changes;
  for (int i = 0; i < kRows; ++i) {
    const StoredRow row{.version = 1, .measures = {{"m" + std::to_string(i), Value::Double(i)}}};
    EncodeRow(row, &whole[i]);
    EncodeRowSignature(row.measures, &signatures[i]);
    EncodeCompactRow(row, &compacts[i]);
    const keys::PointKey key{.table_id = 1, .bucket = 2, .series = static_cast<uint64_t>(i),
                             .time_nanos = 2 * keys::kBucketNanos};
    if (i % 2 == 0) {
      changes.push_back({.key = key, .row = whole[i]});
    } else {
      changes.push_back({.key = key, .row = compacts[i], .shape = signatures[i]});
    }
  }
  MemoryHead head;
  head.Apply(changes);
  for (int i = 0; i < kRows; ++i) EXPECT_EQ(head.Find(changes[i].key), whole[i]) << i;
  const MemoryHead::View view = head.Capture(1);
  ASSERT_EQ(view.buckets.size(), 1u);
  absl::ReaderMutexLock lock(&view.buckets[0].second->mu);
  EXPECT_EQ(view.buckets[0].second->shapes.size(), 1024u);
}

// Regression (head_log_fuzz, UBSan): an empty row first in a bucket was
// copied from a null arena pointer.
TEST(MemoryHeadTest, AnEmptyRowFirstInABucketIsKept) {
  MemoryHead head;
  const keys::PointKey first{.table_id = 1, .bucket = 2, .time_nanos = 2 * keys::kBucketNanos};
  keys::PointKey second = first;
  second.time_nanos += 1;
  head.Apply({{first, std::string_view()}, {second, "x"}});
  EXPECT_EQ(head.Find(first), "");
  EXPECT_EQ(head.Find(second), "x");
}

TEST(HeadLogTest, MalformedEntriesAreDataLoss) {
  head_log::EntryBuilder entry;
  entry.Put({.table_id = 3, .bucket = 4, .time_nanos = 4 * keys::kBucketNanos}, "bytes");
  const std::string good = entry.bytes();
  const std::string key = head_log::Key(3, 4, 1);
  // An entry with one shape (one double) and a compact row of it.
  const keys::PointKey point{.table_id = 3, .bucket = 4, .time_nanos = 4 * keys::kBucketNanos};
  const StoredRow row{.version = 1, .measures = {{"a", Value::Double(1)}}};
  std::string signature, compact;
  EncodeRowSignature(row.measures, &signature);
  EncodeCompactRow(row, &compact);
  head_log::EntryBuilder shaped_entry;
  shaped_entry.PutCompact(point, signature, compact);
  const std::string shaped = shaped_entry.bytes();
  const size_t shape_bytes = 1 + 1 + signature.size();  // kind, length, signature
  const std::string compact_only = shaped.substr(0, 1) + shaped.substr(1 + shape_bytes);
  // A second compact put naming shape 1 (there is only shape 0).
  head_log::EntryBuilder two;
  two.PutCompact(point, signature, compact);
  two.PutCompact(point, signature, compact);
  std::string other_index = two.bytes().substr(shaped.size());
  other_index[1 + 24] = 1;  // kind and point key, then the shape index
  std::string with_long_row = compact + "x";
  head_log::EntryBuilder long_entry;
  long_entry.PutCompact(point, signature, with_long_row);
  const std::string shaped_long = long_entry.bytes();
  std::string bad_signature = shaped;
  bad_signature[3] = 0;  // the signature's measure count: none
  struct Case {
    const char* what;
    std::string key, value;
  };
  const Case cases[] = {
      {"a short key", key.substr(0, 15), good},
      {"an empty value", key, ""},
      {"another format", key, "\x03" + good.substr(1)},
      {"a truncated row", key, good.substr(0, good.size() - 1)},
      {"a truncated point", key, good.substr(0, 10)},
      {"an unknown kind", key, std::string(1, '\x01') + '\x07' + good.substr(2)},
      {"a time outside the key's bucket", head_log::Key(3, 5, 1), good},
      {"a shape in a format-1 entry", key, "\x01" + shaped.substr(1)},
      {"a compact put before any shape", key, compact_only},
      {"a shape index past the entry's shapes", key, shaped + other_index},
      {"a compact row of another shape", key, shaped.substr(0, shaped.size() - 1)},
      {"a compact row with bytes past it", key, shaped_long},
      {"a signature that is not one", key, bad_signature},
  };
  for (const Case& c : cases) {
    std::vector<MemoryHead::Change> changes;
    uint64_t sequence = 0;
    EXPECT_EQ(head_log::Decode(c.key, c.value, &changes, &sequence).code(),
              absl::StatusCode::kDataLoss)
        << c.what;
  }
}

// Through the engine: what reaches the head survives a restart.
class MemoryHeadEngineTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = 1'700'002'800LL * kNanosPerSecond + 30 * kNanosPerMinute;

  void Open(int64_t budget = 0, int64_t regroup_min_rows = EngineOptions().regroup_min_rows) {
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"),
                                .memory_store_budget_bytes = budget,
                                .regroup_min_rows = regroup_min_rows,
                                .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }
  void CreateTable() {
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
    ASSERT_TRUE(engine_->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                  .retention = {.memory_store_retention_hours = 6}})
                    .ok());
  }
  TableInfo Table() { return *engine_->catalog().DescribeTable("mydb", "tbl"); }
  // For the drop tests: "tbl" with 30 rows, and "gone" with one.
  void CreateTableAndOneToDrop() {
    CreateTable();
    ASSERT_TRUE(engine_->catalog()
                    .CreateTable({.database_name = "mydb", .table_name = "gone",
                                  .retention = {.memory_store_retention_hours = 6}})
                    .ok());
    ASSERT_EQ(WriteLoad(3, 10), 30);
    ASSERT_TRUE(engine_->Write({.database_name = "mydb", .table_name = "gone",
                                .records = {Point(7, kNow - kNanosPerSecond, 1)}})
                    .ok());
  }

  static InputRecord Point(int host, int64_t time, double value, int64_t version = 1) {
    InputRecord r;
    r.dimensions = {{"host", "h" + std::to_string(host)}};
    r.measure_name = "cpu";
    r.measure_values = {{.name = "usage", .type = MeasureKind::kDouble,
                         .value = Value::Double(value)}};
    r.time = time;
    r.time_unit = TimeUnit::kNanoseconds;
    r.version = version;
    return r;
  }
  // Writes, retrying with a pause while the memory store is over twice its
  // budget (as a client should on RESOURCE_EXHAUSTED); counts those refusals.
  WriteResult Write(std::vector<InputRecord> records) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      auto result = engine_->Write({.database_name = "mydb", .table_name = "tbl",
                                    .records = records});
      if (result.status().code() == absl::StatusCode::kResourceExhausted) {
        ++refusals_;
        last_refusal_ = std::string(result.status().message());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      EXPECT_TRUE(result.ok()) << result.status();
      return result.value_or(WriteResult{});
    }
    ADD_FAILURE() << "still refused after 1000 attempts: " << last_refusal_;
    return WriteResult{};
  }
  // Rows as "series time version value", in scan order.
  std::vector<std::string> ScanAll() {
    std::vector<std::string> rows;
    EXPECT_TRUE(engine_->Scan(Table(), {}, [&](const ScanRow& row) {
                  rows.push_back(std::to_string(row.series) + " " + std::to_string(row.time_nanos) +
                                 " v" + std::to_string(row.version) + " " +
                                 std::to_string(row.measures.at(0).value.real));
                  return true;
                }).ok());
    return rows;
  }
  // A scan sees no (series, time) twice, and at least the `acknowledged`
  // rows written before it started.
  void ScanSeesEachRowOnce(int acknowledged) {
    std::set<std::pair<uint64_t, int64_t>> seen;
    int duplicates = 0;
    ASSERT_TRUE(engine_->Scan(Table(), {}, [&](const ScanRow& row) {
                  if (!seen.emplace(row.series, row.time_nanos).second) ++duplicates;
                  return true;
                }).ok());
    ASSERT_EQ(duplicates, 0);
    ASSERT_GE(static_cast<int>(seen.size()), acknowledged);
  }
  // A round of writes: its records, and how many new points they add.
  struct Round {
    std::vector<InputRecord> records;
    int new_points = 0;
  };
  // Writes `rounds` rounds (`round_of(r)` each) on a thread of its own and
  // meanwhile calls `pass` with the points acknowledged so far, until the
  // writes are done and at least three times; stops early on a fatal failure.
  void WhileWriting(int rounds, const std::function<Round(int)>& round_of,
                    const std::function<void(int acknowledged)>& pass) {
    std::atomic<int> acknowledged{0};
    std::atomic<bool> done{false};
    std::thread writer([&] {
      for (int r = 0; r < rounds; ++r) {
        Round round = round_of(r);
        Write(std::move(round.records));
        acknowledged += round.new_points;
      }
      done = true;
    });
    for (int passes = 0; (!done || passes < 3) && !HasFatalFailure(); ++passes) {
      SCOPED_TRACE("pass " + std::to_string(passes));
      pass(acknowledged.load());
    }
    writer.join();
  }
  // Writes `hosts` hosts' points every second of the last `seconds`.
  int WriteLoad(int hosts, int seconds) {
    int written = 0;
    for (int s = seconds; s > 0; --s) {
      std::vector<InputRecord> batch;
      for (int h = 0; h < hosts; ++h) batch.push_back(Point(h, kNow - s * kNanosPerSecond, h + s));
      written += static_cast<int>(Write(std::move(batch)).memory_store);
    }
    return written;
  }

  std::atomic<int> refusals_{0};
  std::string last_refusal_;
  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
};

TEST_F(MemoryHeadEngineTest, RowsAndTheirChangesAreReplayedAtOpen) {
  Open();
  CreateTable();
  ASSERT_EQ(WriteLoad(5, 20), 100);
  // An upsert and a delete: both must survive the restart as made.
  ASSERT_EQ(Write({Point(0, kNow - kNanosPerSecond, 42, 2)}).memory_store, 1);
  auto series_of_host0 = [&] {
    std::vector<PointToDelete> points;
    EXPECT_TRUE(engine_->Scan(Table(), {}, [&](const ScanRow& row) {
                  if (row.time_nanos == kNow - 2 * kNanosPerSecond && points.empty()) {
                    points.push_back({.pk_hash = 0, .series = row.series,
                                      .time_nanos = row.time_nanos});
                  }
                  return true;
                }).ok());
    return points;
  };
  std::vector<PointToDelete> doomed = series_of_host0();
  ASSERT_EQ(doomed.size(), 1u);
  doomed[0].pk_hash = PartitionHash("cpu", DimensionList{{"host", "h0"}}, Table().partition_key);
  ASSERT_EQ(engine_->Delete(Table(), doomed).value_or(0), 1);
  const std::vector<std::string> before = ScanAll();
  ASSERT_EQ(before.size(), 99u);
  Open();
  EXPECT_EQ(ScanAll(), before);
  // And the version rules still see the replayed rows.
  WriteResult again = Write({Point(0, kNow - kNanosPerSecond, 43, 2)});
  ASSERT_EQ(again.rejected.size(), 1u);
  EXPECT_EQ(again.rejected[0].existing_version, 2);
}

TEST_F(MemoryHeadEngineTest, RowsLeftInHotByAnOlderVersionMoveIntoTheLogAtOpen) {
  Open();
  CreateTable();
  ASSERT_EQ(WriteLoad(3, 4), 12);
  const std::vector<std::string> rows = ScanAll();
  const TableInfo table = Table();
  engine_.reset();
  // Rewrite the directory as an older version left it: every row in `hot`.
  {
    auto store = Store::Open({.data_dir = dir_.Sub("data")});
    ASSERT_TRUE(store.ok()) << store.status();
    auto head = RecoverMemoryHead(**store);
    ASSERT_TRUE(head.ok()) << head.status();
    rocksdb::WriteBatch batch;
    auto it = MemoryHead::NewIterator((*head)->Capture(table.id));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      batch.Put((*store)->family(Store::kHot), it->key(), it->value());
    }
    const std::string begin = keys::TableDataPrefix(table.id);
    batch.DeleteRange((*store)->family(Store::kHeadLog), begin, keys::PrefixEnd(begin));
    ASSERT_TRUE((*store)->db()->Write(rocksdb::WriteOptions(), &batch).ok());
  }
  Open();
  EXPECT_EQ(ScanAll(), rows);
  engine_.reset();
  auto store = Store::Open({.data_dir = dir_.Sub("data")});
  ASSERT_TRUE(store.ok()) << store.status();
  auto entries = [&](Store::Family family) {
    std::unique_ptr<rocksdb::Iterator> it(
        (*store)->db()->NewIterator(rocksdb::ReadOptions(), (*store)->family(family)));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    return n;
  };
  EXPECT_EQ(entries(Store::kHot), 0);
  EXPECT_GT(entries(Store::kHeadLog), 0);
}

TEST_F(MemoryHeadEngineTest, OverItsBudgetTheOldestHoursBecomeBlocksAndStayCorrect) {
  constexpr int64_t kBudget = 64 << 10;
  Open(kBudget);
  CreateTable();
  // An hour ago and the open hour: far more than the budget.
  const int written = WriteLoad(20, 150) + [&] {
    int n = 0;
    for (int s = 0; s < 100; ++s) {
      std::vector<InputRecord> batch;
      for (int h = 0; h < 20; ++h) {
        batch.push_back(Point(h, kNow - kNanosPerHour + s * kNanosPerSecond, h - s));
      }
      n += static_cast<int>(Write(std::move(batch)).memory_store);
    }
    return n;
  }();
  ASSERT_EQ(written, 5000);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (engine_->StorageStats(Table())->memory_store.bytes > kBudget &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const TableStorageStats stats = *engine_->StorageStats(Table());
  EXPECT_LE(stats.memory_store.bytes, kBudget);
  EXPECT_GT(stats.magnetic_blocks.entries, 0);
  const std::vector<std::string> rows = ScanAll();
  EXPECT_EQ(rows.size(), 5000u);
  // Writes to the converted hours follow the version rules against the blocks.
  EXPECT_EQ(Write({Point(3, kNow - kNanosPerSecond, 3 + 1)}).memory_store, 1);  // idempotent
  WriteResult changed = Write({Point(3, kNow - kNanosPerSecond, 99)});
  ASSERT_EQ(changed.rejected.size(), 1u);
  EXPECT_EQ(changed.rejected[0].existing_version, 1);
  EXPECT_EQ(Write({Point(3, kNow - kNanosPerSecond, 99, 2)}).memory_store, 1);
  EXPECT_EQ(ScanAll().size(), 5000u);
}

TEST_F(MemoryHeadEngineTest, PastTwiceItsBudgetWritesAreRefusedUntilHoursAreSealed) {
  Open(/*budget=*/1);  // any row puts the head past twice its budget
  CreateTable();
  int accepted = 0;
  std::optional<absl::Status> refused;
  // A write right after an accepted one finds the head over the limit,
  // unless the budget's thread sealed the hour in between: try a few times.
  for (int i = 0; i < 50 && !refused; ++i) {
    auto result = engine_->Write({.database_name = "mydb", .table_name = "tbl",
                                  .records = {Point(1, kNow - (i + 1) * kNanosPerSecond, i)}});
    if (result.ok()) {
      accepted += static_cast<int>(result->memory_store);
    } else {
      refused = result.status();
    }
  }
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused->message().find("over twice its budget"), std::string::npos) << *refused;
  EXPECT_NE(refused->message().find("--memory-store-budget-mb"), std::string::npos);
  // Once the hour is sealed into blocks, writes go through again; nothing
  // accepted was lost, nothing refused was written.
  accepted += static_cast<int>(Write({Point(2, kNow - kNanosPerSecond, 7)}).memory_store);
  EXPECT_EQ(ScanAll().size(), static_cast<size_t>(accepted));
}

TEST_F(MemoryHeadEngineTest, ScansDuringWritesAndConversionsSeeEveryAcknowledgedRowOnce) {
  // A budget small enough that the oldest hours are converted over and over
  // while a writer appends to them and scans run.
  Open(32 << 10);
  CreateTable();
  // Long enough (a synced write group per round) for the budget's thread,
  // every 100 ms, to convert many times while groups commit rows to the
  // hours it converts.
  constexpr int kHosts = 20, kRounds = 1200;
  WhileWriting(
      kRounds,
      [&](int round) {
        Round out{.new_points = kHosts};
        for (int h = 0; h < kHosts; ++h) {
          // Two hours: the previous one and the open one, alternately.
          const int64_t hour =
              round % 2 == 0 ? kNow - kNanosPerHour : kNow - 20 * kNanosPerMinute;
          out.records.push_back(Point(h, hour + round * kNanosPerSecond, h * 1000 + round));
        }
        return out;
      },
      [&](int acknowledged) { ASSERT_NO_FATAL_FAILURE(ScanSeesEachRowOnce(acknowledged)); });
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(ScanAll().size(), static_cast<size_t>(kHosts * kRounds));
  EXPECT_GT(engine_->StorageStats(Table())->magnetic_blocks.entries, 0);
  // And after a restart, from the blocks and the log.
  Open();
  EXPECT_EQ(ScanAll().size(), static_cast<size_t>(kHosts * kRounds));
}

// Maintenance regroups the open hour while a writer appends to it and
// rewrites earlier points with higher versions, and scans run: every scan
// sees each acknowledged point once, and in the end every point holds its
// last value, before and after a restart.
TEST_F(MemoryHeadEngineTest, HoursRegroupedWhileWrittenAndScannedKeepEveryPointsLastValue) {
  Open(/*budget=*/0, /*regroup_min_rows=*/40);
  CreateTable();
  constexpr int kHosts = 10, kRounds = 300;
  const int64_t hour = kNow - 20 * kNanosPerMinute;  // the open hour
  WhileWriting(
      kRounds,
      [&](int round) {
        Round out{.new_points = kHosts};
        for (int h = 0; h < kHosts; ++h) {
          out.records.push_back(Point(h, hour + round * kNanosPerSecond, round));
          // Every third round also rewrites an earlier point of the host.
          if (round % 3 == 0 && round > 0) {
            const int earlier = round / 3;
            out.records.push_back(
                Point(h, hour + earlier * kNanosPerSecond, -earlier, /*version=*/2));
          }
        }
        return out;
      },
      [&](int acknowledged) {
        engine_->RunMaintenance();
        ASSERT_NO_FATAL_FAILURE(ScanSeesEachRowOnce(acknowledged));
      });
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GT(engine_->HeadUsage().regroups, 0);
  // Each point's last value: -t for the rewritten ones (t <= kRounds / 3), else t.
  auto expect_last_values = [&] {
    std::vector<std::string> rows = ScanAll();
    ASSERT_EQ(rows.size(), static_cast<size_t>(kHosts * kRounds));
    std::map<int64_t, std::set<std::string>> values_at;  // time -> "vV value"
    for (const std::string& row : rows) {
      std::istringstream in(row);
      std::string series, version, value;
      int64_t time = 0;
      in >> series >> time >> version >> value;
      values_at[time].insert(version + " " + value);
    }
    for (int t = 0; t < kRounds; ++t) {
      const bool rewritten = t >= 1 && t <= (kRounds - 1) / 3;
      const std::string want = rewritten ? "v2 " + std::to_string(-static_cast<double>(t))
                                         : "v1 " + std::to_string(static_cast<double>(t));
      ASSERT_EQ(values_at[hour + t * kNanosPerSecond], std::set<std::string>{want}) << "t " << t;
    }
  };
  expect_last_values();
  Open();
  expect_last_values();
}

// A write group or a conversion that raced DROP TABLE (neither waits for the
// other) can store rows under the dropped table's id after the drop. Left
// there they would be replayed into memory at every start and never freed.
std::vector<uint32_t> StoredIdsOf(const std::string& data_dir) {
  auto store = Store::Open({.data_dir = data_dir});
  EXPECT_TRUE(store.ok()) << store.status();
  if (!store.ok()) return {};
  auto head = RecoverMemoryHead(**store);
  EXPECT_TRUE(head.ok()) << head.status();
  return head.ok() ? StoredTableIds(**store, **head) : std::vector<uint32_t>{};
}

TEST_F(MemoryHeadEngineTest, WhatAWriteRacingDropTableLeftIsRemovedAtOpen) {
  Open();
  CreateTableAndOneToDrop();
  const uint32_t live_id = Table().id;
  const uint32_t gone_id = engine_->catalog().DescribeTable("mydb", "gone")->id;
  const std::vector<std::string> live_rows = ScanAll();
  engine_.reset();
  // Keep the dropped table's log entries to write them back after the drop,
  // as a racing write group would have.
  std::vector<std::pair<std::string, std::string>> late_entries;
  {
    auto store = Store::Open({.data_dir = dir_.Sub("data")});
    ASSERT_TRUE(store.ok()) << store.status();
    std::unique_ptr<rocksdb::Iterator> it((*store)->db()->NewIterator(
        rocksdb::ReadOptions(), (*store)->family(Store::kHeadLog)));
    const std::string prefix = keys::TableDataPrefix(gone_id);
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      late_entries.emplace_back(it->key().ToString(), it->value().ToString());
    }
  }
  ASSERT_FALSE(late_entries.empty());
  Open();
  ASSERT_TRUE(engine_->catalog().DeleteTable("mydb", "gone").ok());
  engine_.reset();
  {
    auto store = Store::Open({.data_dir = dir_.Sub("data")});
    ASSERT_TRUE(store.ok()) << store.status();
    rocksdb::WriteBatch batch;
    for (const auto& [key, value] : late_entries) {
      batch.Put((*store)->family(Store::kHeadLog), key, value);
    }
    // And a block a racing conversion wrote, and a series registry entry.
    batch.Put((*store)->family(Store::kCold), keys::TableDataPrefix(gone_id) + "block", "b");
    batch.Put((*store)->family(Store::kCatalog), keys::SeriesEntry(gone_id, "series"), "s");
    ASSERT_TRUE((*store)->db()->Write(rocksdb::WriteOptions(), &batch).ok());
  }
  ASSERT_EQ(StoredIdsOf(dir_.Sub("data")), (std::vector<uint32_t>{live_id, gone_id}));
  Open();
  EXPECT_EQ(ScanAll(), live_rows);
  EXPECT_EQ(engine_->SweepDroppedTables().value_or(-1), 0);
  engine_.reset();
  EXPECT_EQ(StoredIdsOf(dir_.Sub("data")), std::vector<uint32_t>{live_id});
  Open();
  EXPECT_EQ(ScanAll(), live_rows);
}

TEST_F(MemoryHeadEngineTest, TablesDroppedWhileWrittenLeaveNothingAfterTheSweep) {
  Open();
  ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
  for (int round = 0; round < 20; ++round) {
    const std::string name = "table" + std::to_string(round);
    auto created = engine_->catalog().CreateTable(
        {.database_name = "mydb", .table_name = name,
         .retention = {.memory_store_retention_hours = 6}});
    ASSERT_TRUE(created.ok()) << created.status();
    std::atomic<int> written{0};
    std::thread writer([&] {
      for (int i = 0;; ++i) {
        auto result = engine_->Write({.database_name = "mydb", .table_name = name,
                                      .records = {Point(i % 5, kNow - i * kNanosPerSecond, i)}});
        if (!result.ok()) {
          EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound) << result.status();
          return;
        }
        ++written;
      }
    });
    while (written < round) std::this_thread::yield();
    ASSERT_TRUE(engine_->catalog().DeleteTable("mydb", name).ok());
    writer.join();
    ASSERT_TRUE(engine_->SweepDroppedTables().ok());
  }
  engine_.reset();
  EXPECT_EQ(StoredIdsOf(dir_.Sub("data")), std::vector<uint32_t>{});
}

TEST_F(MemoryHeadEngineTest, ADroppedTablesStateIsFreedAfterTheSweepOnceNothingHoldsIt) {
  Open();
  CreateTableAndOneToDrop();
  absl::StatusOr<std::shared_ptr<TableState>> gone =
      engine_->TableStateOf(*engine_->catalog().DescribeTable("mydb", "gone"));
  ASSERT_TRUE(gone.ok()) << gone.status();
  std::shared_ptr<TableState> held = *gone;  // as a running query holds it
  const std::weak_ptr<TableState> gone_state = held;
  gone = absl::UnknownError("released");
  const std::weak_ptr<TableState> live_state = *engine_->TableStateOf(Table());
  ASSERT_TRUE(engine_->catalog().DeleteTable("mydb", "gone").ok());
  ASSERT_TRUE(engine_->SweepDroppedTables().ok());
  ASSERT_FALSE(gone_state.expired());
  EXPECT_EQ(held->AllSeries().size(), 1u);  // still whole for its holder
  held.reset();
  EXPECT_TRUE(gone_state.expired());
  EXPECT_FALSE(live_state.expired());
  EXPECT_EQ(ScanAll().size(), 30u);
}

}  // namespace
}  // namespace strata
