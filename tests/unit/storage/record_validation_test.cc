#include "storage/write/record_validation.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "storage/write/record_normalizer.h"
#include "storage/write/write_source.h"

namespace strata {
namespace {

InputRecord Scalar(double v) {
  InputRecord r;
  r.dimensions = {{"host", "h1"}};
  r.measure_name = "cpu";
  r.measure_value = Value::Double(v);
  r.time = 1'700'000'000'000;
  return r;
}

TEST(NormalizeRecordTest, RecordFieldsWinOverCommonAttributesAndDimensionsConcatenate) {
  InputRecord common;
  common.dimensions = {{"region", "eu"}};
  common.measure_name = "common";
  common.time = 5;
  common.time_unit = TimeUnit::kSeconds;
  common.version = 7;
  InputRecord own;
  own.dimensions = {{"host", "h1"}};
  own.measure_name = "own";
  own.measure_value = Value::Bigint(1);
  InputRecord inherits;
  inherits.measure_value = Value::Bigint(2);
  inherits.time = 9;

  auto a = NormalizeRecord(common, own, PartitionKey{});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->dimensions.size(), 2u);
  EXPECT_EQ(a->measure_name, "own");
  EXPECT_EQ(a->time_nanos, 5 * kNanosPerSecond);
  EXPECT_EQ(a->version, 7);
  auto b = NormalizeRecord(common, inherits, PartitionKey{});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->measure_name, "common");
  EXPECT_EQ(b->time_nanos, 9 * kNanosPerSecond);
}

// Normalizing moves the record's own strings out but must leave
// common_attributes whole for the next record of the request.
TEST(NormalizeRecordTest, CommonAttributesServeEveryRecordOfARequest) {
  InputRecord common;
  common.dimensions = {{"region", "eu-central-1-with-a-long-name"}};
  common.measure_name = "a_measure_name_longer_than_small_strings";
  common.measure_values = {{"usage_guest_nice_long", std::nullopt, Value::Double(1)},
                           {"label", std::nullopt, Value::Varchar(std::string(40, 'v'))}};
  for (int i = 0; i < 3; ++i) {
    InputRecord record;
    record.dimensions = {{"host", "h" + std::to_string(i) + std::string(30, 'x')}};
    record.time = 1'700'000'000'000 + i;
    auto n = NormalizeRecord(common, std::move(record), PartitionKey{});
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_EQ(n->dimensions.size(), 2u);
    EXPECT_EQ(n->dimensions[0].first, "host");
    EXPECT_EQ(n->dimensions[0].second, "h" + std::to_string(i) + std::string(30, 'x'));
    EXPECT_EQ(n->dimensions[1].second, "eu-central-1-with-a-long-name");
    EXPECT_EQ(n->measure_name, "a_measure_name_longer_than_small_strings");
    ASSERT_EQ(n->measures.size(), 2u);
    EXPECT_EQ(n->measures.ToVector()[0].name, "usage_guest_nice_long");
    EXPECT_EQ(n->measures.ToVector()[1].value, Value::Varchar(std::string(40, 'v')));
  }
}

// Records of a request with the same names share their measures' shape
// (the memo keeps it), but only while the types are the same too: a record
// whose names are the last one's but whose values are of other types gets
// its own. A rejected record leaves the memo as it was.
TEST(NormalizeRecordTest, RecordsShareAShapeOnlyWithTheSameNamesAndTypes) {
  WriteRequest request;
  auto multi = [](std::string host, Value a, Value b) {
    InputRecord r;
    r.dimensions = {{"host", std::move(host)}};
    r.measure_name = "m";
    r.measure_values = {{"a", std::nullopt, std::move(a)}, {"b", std::nullopt, std::move(b)}};
    r.time = 1'700'000'000'000;
    return r;
  };
  InputRecord rejected = multi("h5", Value::Double(9), Value::Bigint(10));
  rejected.measure_values[0].name = "x";  // other names, the next record's types
  rejected.time.reset();                  // and no time
  request.records = {multi("h1", Value::Double(1), Value::Bigint(2)),
                     multi("h2", Value::Double(3), Value::Bigint(4)),
                     multi("h3", Value::Bigint(5), Value::Double(6)),
                     rejected,
                     multi("h4", Value::Double(7), Value::Bigint(8))};
  InputWriteSource source(request);
  std::vector<NormalizedRecord> normalized;
  for (int i = 0; i < 5; ++i) {
    auto n = source.Normalize(i, PartitionKey{});
    if (i == 3) {
      EXPECT_FALSE(n.ok());
      continue;
    }
    ASSERT_TRUE(n.ok()) << n.status();
    normalized.push_back(*std::move(n));
  }
  EXPECT_EQ(normalized[0].measures.shape(), normalized[1].measures.shape());
  EXPECT_EQ(normalized[2].measures.ToVector(),
            (std::vector<Measure>{{"a", Value::Bigint(5)}, {"b", Value::Double(6)}}));
  EXPECT_FALSE(normalized[2].measures.SameShape(normalized[1].measures));
  EXPECT_EQ(normalized[3].measures.ToVector(),
            (std::vector<Measure>{{"a", Value::Double(7)}, {"b", Value::Bigint(8)}}));
  EXPECT_TRUE(normalized[3].measures.SameShape(normalized[0].measures));
}

// The dimension/attribute clash is found by merging two sorted name lists:
// wherever the shared name sorts, and with no false clash between names
// that interleave.
TEST(NormalizeRecordTest, ANameThatIsBothDimensionAndAttributeIsFoundWhereverItSorts) {
  const std::vector<std::string> shared = {"aaa", "mmm", "zzz"};
  for (const std::string& name : shared) {
    InputRecord r = Scalar(1);
    r.dimensions = {{"beta", "1"}, {"nu", "2"}, {"yak", "3"}, {name, "4"}};
    r.measure_value.reset();
    r.measure_values = {{"alpha", std::nullopt, Value::Double(1)},
                        {name, std::nullopt, Value::Double(2)},
                        {"omega", std::nullopt, Value::Double(3)}};
    auto n = NormalizeRecord({}, r, PartitionKey{});
    ASSERT_FALSE(n.ok()) << name;
    EXPECT_NE(n.status().message().find("\"" + name + "\" is both a dimension and a measure"),
              std::string::npos)
        << n.status();
  }
  InputRecord interleaved = Scalar(1);
  interleaved.dimensions = {{"b", "1"}, {"d", "2"}, {"f", "3"}};
  interleaved.measure_value.reset();
  interleaved.measure_values = {{"a", std::nullopt, Value::Double(1)},
                                {"c", std::nullopt, Value::Double(2)},
                                {"e", std::nullopt, Value::Double(3)},
                                {"g", std::nullopt, Value::Double(4)}};
  auto n = NormalizeRecord({}, interleaved, PartitionKey{});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->dimensions[0].first, "b");
  EXPECT_EQ(n->dimensions[2].first, "f");
}

TEST(ValidateRequestShapeTest, WholeRequestErrors) {
  WriteRequest empty;
  EXPECT_EQ(ValidateRequestShape(empty).code(), absl::StatusCode::kInvalidArgument);

  WriteRequest too_many;
  too_many.records.assign(101, Scalar(1));
  absl::Status status = ValidateRequestShape(too_many);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("1..100"), std::string::npos);

  WriteRequest hundred;
  hundred.records.assign(100, Scalar(1));
  EXPECT_TRUE(ValidateRequestShape(hundred).ok());

  WriteRequest clash;
  clash.common_attributes.dimensions = {{"host", "h0"}};
  clash.records = {Scalar(1)};
  status = ValidateRequestShape(clash);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("\"host\" is in both common_attributes and record 0"),
            std::string::npos)
      << status;
}

// Regression: the shape check compared every record's dimensions with every
// common one; a request at the 16 MB message limit could carry a million on
// each side. Here 200,000 × 200,000 names (4·10^10 pairs, minutes the old
// way, past this suite's timeout; milliseconds now), and the clash is still
// reported for the first record that has one.
TEST(ValidateRequestShapeTest, ManyDimensionsOnBothSidesAreCheckedInLinearTime) {
  WriteRequest request;
  for (int c = 0; c < 200'000; ++c) {
    request.common_attributes.dimensions.push_back({"c" + std::to_string(c), "v"});
  }
  request.records.assign(100, Scalar(1));
  for (int i = 0; i < 100; ++i) {
    auto& dims = request.records[i].dimensions;
    for (int d = 0; d < 2'000; ++d) dims.push_back({"r" + std::to_string(i * 2'000 + d), "v"});
  }
  EXPECT_TRUE(ValidateRequestShape(request).ok());
  request.records[57].dimensions.back().name = "c199999";
  request.records[99].dimensions.front().name = "c0";
  absl::Status status = ValidateRequestShape(request);
  EXPECT_NE(status.message().find("\"c199999\" is in both common_attributes and record 57"),
            std::string::npos)
      << status;
}

TEST(NormalizeRecordTest, NormalizesTimeVersionAndDimensionOrder) {
  InputRecord r = Scalar(1.5);
  r.dimensions = {{"z", "1"}, {"a", "2"}};
  r.time = 3;
  r.time_unit = TimeUnit::kSeconds;
  auto n = NormalizeRecord({}, r, PartitionKey{});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(n->time_nanos, 3'000'000'000);
  EXPECT_EQ(n->version, 1);
  EXPECT_EQ(n->dimensions.front().first, "a");
  ASSERT_EQ(n->measures.size(), 1u);
  EXPECT_EQ(n->measures.ToVector()[0].name, "cpu");
  EXPECT_FALSE(n->multi);
}

TEST(NormalizeRecordTest, MultiRecordsAndTimestampValues) {
  InputRecord r = Scalar(0);
  r.measure_value.reset();
  r.measure_name = "metrics";
  r.time_unit = TimeUnit::kMicroseconds;
  r.measure_values = {{"value", std::nullopt, Value::Double(1)},
                      {"quality", MeasureKind::kBigint, Value::Bigint(92)},
                      {"seen", std::nullopt, Value::Timestamp(5)}};
  auto n = NormalizeRecord({}, r, PartitionKey{});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_TRUE(n->multi);
  ASSERT_EQ(n->measures.size(), 3u);
  EXPECT_EQ(n->measures.ToVector()[2].value.number, 5'000);  // microseconds -> nanoseconds
}

struct RejectCase {
  std::string what;
  std::function<void(InputRecord&)> change;
  std::string reason_part;
  PartitionKey key = {};
};

TEST(NormalizeRecordTest, RejectsEachInvalidRecordWithAReason) {
  const PartitionKey required{PartitionKeyType::kDimension, "device", Enforcement::kRequired};
  const std::vector<RejectCase> cases = {
      {"no measure name", [](InputRecord& r) { r.measure_name.reset(); }, "measure_name is missing"},
      {"long measure name", [](InputRecord& r) { r.measure_name = std::string(257, 'm'); },
       "the limit is 256"},
      {"reserved measure name", [](InputRecord& r) { r.measure_name = "measure_value"; },
       "reserved"},
      {"ts_ dimension", [](InputRecord& r) { r.dimensions.push_back({"ts_x", "1"}); }, "reserved"},
      {"time dimension", [](InputRecord& r) { r.dimensions.push_back({"time", "1"}); }, "reserved"},
      {"long dimension name",
       [](InputRecord& r) { r.dimensions.push_back({std::string(61, 'd'), "1"}); },
       "the limit is 60"},
      {"empty dimension value", [](InputRecord& r) { r.dimensions.push_back({"d", ""}); },
       "must be 1..2048"},
      {"long dimension value",
       [](InputRecord& r) { r.dimensions.push_back({"d", std::string(2049, 'v')}); },
       "must be 1..2048"},
      {"NUL in dimension value",
       [](InputRecord& r) { r.dimensions.push_back({"d", std::string("a\0b", 3)}); }, "NUL"},
      {"duplicate dimension", [](InputRecord& r) { r.dimensions.push_back({"host", "h2"}); },
       "appears twice"},
      {"129 dimensions",
       [](InputRecord& r) {
         for (int i = 0; i < 128; ++i) r.dimensions.push_back({"d" + std::to_string(i), "v"});
       },
       "the limit is 128"},
      {"no value", [](InputRecord& r) { r.measure_value.reset(); }, "has no value"},
      {"NaN", [](InputRecord& r) { r.measure_value = Value::Double(std::nan("")); },
       "NaN and infinite"},
      {"infinity",
       [](InputRecord& r) {
         r.measure_value = Value::Double(std::numeric_limits<double>::infinity());
       },
       "NaN and infinite"},
      {"declared type differs", [](InputRecord& r) { r.measure_value_type = MeasureKind::kBigint; },
       "declared BIGINT but its value is a DOUBLE"},
      {"empty varchar", [](InputRecord& r) { r.measure_value = Value::Varchar(""); },
       "must be 1..2048"},
      {"long varchar", [](InputRecord& r) { r.measure_value = Value::Varchar(std::string(2049, 'x')); },
       "must be 1..2048"},
      {"measure_values on scalar",
       [](InputRecord& r) {
         r.measure_value_type = MeasureKind::kDouble;
         r.measure_values = {{"a", std::nullopt, Value::Double(1)}};
       },
       "only for MULTI"},
      {"MULTI without values",
       [](InputRecord& r) {
         r.measure_value.reset();
         r.measure_value_type = MeasureKind::kMulti;
       },
       "at least one entry"},
      {"MULTI with measure_value",
       [](InputRecord& r) { r.measure_value_type = MeasureKind::kMulti; }, "not measure_value"},
      {"duplicate MULTI attribute",
       [](InputRecord& r) {
         r.measure_value.reset();
         r.measure_values = {{"a", std::nullopt, Value::Double(1)},
                             {"a", std::nullopt, Value::Double(2)}};
       },
       "appears twice in measure_values"},
      {"257 MULTI attributes",
       [](InputRecord& r) {
         r.measure_value.reset();
         for (int i = 0; i < 257; ++i) {
           r.measure_values.push_back({"m" + std::to_string(i), std::nullopt, Value::Boolean(true)});
         }
       },
       "the limit is 256"},
      {"MULTI values over 2048 bytes",
       [](InputRecord& r) {
         r.measure_value.reset();
         r.measure_values = {{"a", std::nullopt, Value::Varchar(std::string(1500, 'x'))},
                             {"b", std::nullopt, Value::Varchar(std::string(1500, 'y'))}};
       },
       "the limit per record is 2048"},
      {"MULTI attribute without value",
       [](InputRecord& r) {
         r.measure_value.reset();
         r.measure_values = {{"a", MeasureKind::kDouble, std::nullopt}};
       },
       "measure \"a\" has no value"},
      {"dimension shares the measure name",
       [](InputRecord& r) { r.dimensions.push_back({"cpu", "x"}); },
       "both a dimension and a measure"},
      {"dimension shares a MULTI attribute name",
       [](InputRecord& r) {
         r.measure_value.reset();
         r.measure_values = {{"host", std::nullopt, Value::Double(1)}};
       },
       "both a dimension and a measure"},
      {"no time", [](InputRecord& r) { r.time.reset(); }, "time is missing"},
      {"negative time", [](InputRecord& r) { r.time = -1; }, "before 1970"},
      {"time overflow",
       [](InputRecord& r) {
         r.time = std::numeric_limits<int64_t>::max() / 10;
         r.time_unit = TimeUnit::kSeconds;
       },
       "past 2262-04-11"},
      {"version 0", [](InputRecord& r) { r.version = 0; }, "version 0 is below 1"},
      {"negative version", [](InputRecord& r) { r.version = -5; }, "below 1"},
      {"required partition key missing", [](InputRecord&) {},
       "partition key dimension \"device\" is required", required},
  };
  for (const RejectCase& c : cases) {
    InputRecord r = Scalar(1);
    c.change(r);
    auto n = NormalizeRecord({}, r, c.key);
    ASSERT_FALSE(n.ok()) << c.what;
    EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(n.status().message().find(c.reason_part), std::string::npos)
        << c.what << ": " << n.status();
  }
}

TEST(NormalizeRecordTest, OptionalPartitionKeyMayBeAbsent) {
  PartitionKey optional{PartitionKeyType::kDimension, "device", Enforcement::kOptional};
  EXPECT_TRUE(NormalizeRecord({}, Scalar(1), optional).ok());
  PartitionKey required{PartitionKeyType::kDimension, "host", Enforcement::kRequired};
  EXPECT_TRUE(NormalizeRecord({}, Scalar(1), required).ok());
}

// SameName compares short names by two overlapping loads: every length up
// to past the word sizes, equal and differing in each byte.
TEST(SameNameTest, FindsADifferenceInEveryByteOfEveryLength) {
  for (size_t n = 0; n <= 20; ++n) {
    const std::string a(n, 'a');
    EXPECT_TRUE(normalize_internal::SameName(a, std::string(n, 'a'))) << n;
    EXPECT_FALSE(normalize_internal::SameName(a, std::string(n + 1, 'a'))) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string b = a;
      b[i] = 'b';
      EXPECT_FALSE(normalize_internal::SameName(a, b)) << n << " at " << i;
    }
  }
}

// HasNulByte reads words that overlap at the tail: a NUL at every position
// of every length up to past two words is found, and none is found in
// strings without one (bytes 0x01 and 0x80 next to where a borrow would
// carry).
TEST(HasNulByteTest, FindsANulAtEveryPositionOfEveryLength) {
  for (size_t n = 0; n <= 20; ++n) {
    for (char fill : {'a', '\x01', '\x80', '\xff'}) {
      const std::string clean(n, fill);
      EXPECT_FALSE(normalize_internal::HasNulByte(clean)) << n << " of " << int{fill};
      for (size_t i = 0; i < n; ++i) {
        std::string with_nul = clean;
        with_nul[i] = '\0';
        EXPECT_TRUE(normalize_internal::HasNulByte(with_nul)) << n << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace strata
