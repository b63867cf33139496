// ProtoWriteSource normalizes records straight from the parsed message,
// WireWriteSource straight from the request's bytes, InputWriteSource from the
// engine's WriteRequest (FromProto); each skips checking names its previous
// record passed (NameMemo). All must give exactly what NormalizeRecord gives
// record by record, with every check: the same record, or the same rejection.
#include "server/wire/write_convert.h"

#include "server/wire/wire_write_source.h"

#include <string>
#include <vector>

#include "common/strings.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

v1::WriteRecordsRequest Parse(const std::string& text) {
  v1::WriteRecordsRequest request;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &request)) << text;
  return request;
}

std::string Describe(const absl::StatusOr<NormalizedRecord>& r) {
  if (!r.ok()) return std::string(r.status().message());
  std::string out = r->measure_name + (r->multi ? " MULTI" : "") + " t=" +
                    std::to_string(r->time_nanos) + " v=" + std::to_string(r->version);
  for (const auto& [name, value] : r->dimensions) out += StrCat(" ", name, "=", value);
  for (const Measure& m : r->measures.ToVector()) {
    const Value& v = m.value;
    out += StrCat(" ", m.name, ":", TypeName(v.type), " ");
    out += v.type == ValueType::kDouble    ? StrCat(v.real)
           : v.type == ValueType::kVarchar ? v.text
                                           : StrCat(v.number);
  }
  return out;
}

// Each record of the request through the three paths; the outcomes per
// record (or the request's refusal) as text, after checking that they agree.
std::vector<std::string> Outcomes(const std::string& text) {
  v1::WriteRecordsRequest message = Parse(text);
  const std::string bytes = message.SerializeAsString();
  WriteRequest converted = FromProto(message);
  InputWriteSource engine_path(converted);
  ProtoWriteSource message_path(message);
  WireWriteRequest wire;
  EXPECT_TRUE(wire.Decode(bytes)) << text;
  WireWriteSource wire_path(wire);
  EXPECT_EQ(wire_path.database_name(), message.database_name());
  EXPECT_EQ(wire_path.table_name(), message.table_name());
  EXPECT_EQ(wire_path.record_count(), message.records_size());
  const PartitionKey partition_key{.type = PartitionKeyType::kDimension, .name = "host",
                                   .enforcement = Enforcement::kOptional};
  absl::Status shape = message_path.ValidateShape();
  EXPECT_EQ(shape, engine_path.ValidateShape()) << text;
  EXPECT_EQ(shape, wire_path.ValidateShape()) << text;
  if (!shape.ok()) return {std::string(shape.message())};
  std::vector<std::string> out;
  for (int i = 0; i < message_path.record_count(); ++i) {
    absl::StatusOr<NormalizedRecord> expected =
        NormalizeRecord(converted.common_attributes, converted.records[i], partition_key);
    absl::StatusOr<NormalizedRecord> from_message = message_path.Normalize(i, partition_key);
    absl::StatusOr<NormalizedRecord> from_bytes = wire_path.Normalize(i, partition_key);
    absl::StatusOr<NormalizedRecord> from_input = engine_path.Normalize(i, partition_key);
    for (const auto* actual : {&from_message, &from_bytes, &from_input}) {
      EXPECT_EQ(actual->status(), expected.status()) << text;
      if (actual->ok() && expected.ok()) {
        EXPECT_EQ(**actual, *expected) << text;
      }
    }
    out.push_back(Describe(from_message));
  }
  return out;
}

struct Case {
  std::string name;
  std::string request;      // text format
  std::vector<std::string> outcomes;  // per record, or the request's refusal
};

TEST(WriteSourceTest, MessageAndBytesNormalizeAsTheWriteRequestPath) {
  const std::vector<Case> cases = {
      {"record fields win, dimensions from both, long strings shared by every record",
       R"(common_attributes {
            dimensions { name: "region" value: "eu-central-1-with-a-long-region-name" }
            measure_name: "a_measure_name_longer_than_small_strings"
            measure_values { name: "usage_guest_nice_long" type: MEASURE_VALUE_TYPE_DOUBLE
                             value { double_value: 1.5 } }
            time_unit: TIME_UNIT_SECONDS version: 7 }
          records { dimensions { name: "host" value: "h1" } time: 5 }
          records { dimensions { name: "host" value: "h2" } time: 6 measure_name: "own" version: 9
                    measure_values { name: "b" value { varchar_value: "text" } }
                    measure_values { name: "a" value { timestamp_value: 2 } } })",
       {"a_measure_name_longer_than_small_strings MULTI t=5000000000 v=7 "
        "host=h1 region=eu-central-1-with-a-long-region-name usage_guest_nice_long:DOUBLE 1.5",
        "own MULTI t=6000000000 v=9 host=h2 region=eu-central-1-with-a-long-region-name "
        "b:VARCHAR text a:TIMESTAMP 2000000000"}},
      {"scalar from common_attributes' value",
       R"(common_attributes { measure_name: "cpu" measure_value_type: MEASURE_VALUE_TYPE_BIGINT
                              measure_value { bigint_value: 3 } }
          records { dimensions { name: "host" value: "h1" } time: 1 })",
       {"cpu t=1000000 v=1 host=h1 cpu:BIGINT 3"}},
      {"a measure_value with no value set counts as none",
       R"(records { measure_name: "m" time: 1 measure_value { }
                    measure_values { name: "x" value { boolean_value: true } } })",
       {"m MULTI t=1000000 v=1 x:BOOLEAN 1"}},
      {"enum values the server does not know",
       R"(records { measure_name: "m" time: 1 measure_value_type: 99 }
          records { measure_name: "m" time: 1
                    measure_values { name: "x" type: 42 value { double_value: 1 } } }
          records { measure_name: "m" time: 1 time_unit: 77 measure_value { double_value: 1 } })",
       {"measure_value_type 99 is not a value this server knows; use one of DOUBLE, BIGINT, "
        "VARCHAR, BOOLEAN, TIMESTAMP, MULTI",
        "the type of measure \"x\" 42 is not a value this server knows; use one of DOUBLE, "
        "BIGINT, VARCHAR, BOOLEAN, TIMESTAMP, MULTI",
        "time_unit 77 is not a value this server knows; use one of MILLISECONDS, SECONDS, "
        "MICROSECONDS, NANOSECONDS"}},
      {"an unknown enum in common_attributes rejects every record",
       R"(common_attributes { time_unit: 5 }
          records { measure_name: "m" time: 1 measure_value { double_value: 1 } })",
       {"common_attributes: time_unit 5 is not a value this server knows; use one of "
        "MILLISECONDS, SECONDS, MICROSECONDS, NANOSECONDS"}},
      {"rejections inside a record",
       R"(records { time: 1 measure_value { double_value: 1 } }
          records { measure_name: "m" time: 1
                    dimensions { name: "a" value: "1" } dimensions { name: "a" value: "2" }
                    measure_value { double_value: 1 } }
          records { measure_name: "m" time: 1 dimensions { name: "x" value: "1" }
                    measure_values { name: "x" value { double_value: 1 } } }
          records { measure_name: "m" time: 1 measure_value_type: MEASURE_VALUE_TYPE_MULTI
                    measure_value { double_value: 1 } }
          records { measure_name: "m" measure_value { double_value: 1 } })",
       {"measure_name is missing; every record needs one (or set it in common_attributes)",
        "dimension \"a\" appears twice; a record has each dimension once",
        "\"x\" is both a dimension and a measure; rename one of them",
        "a MULTI record carries its values in measure_values, not measure_value",
        "time is missing; every record needs one (or set it in common_attributes)"}},
      {"a dimension in common_attributes and a record refuses the request",
       R"(common_attributes { dimensions { name: "host" value: "a" } }
          records { measure_name: "m" time: 1 dimensions { name: "host" value: "b" }
                    measure_value { double_value: 1 } })",
       {"dimension \"host\" is in both common_attributes and record 0; give it in one place "
        "only"}},
      {"records with the names of the one before: their values are still checked",
       R"(common_attributes { dimensions { name: "region" value: "eu" } measure_name: "m"
                              time: 1 }
          records { dimensions { name: "host" value: "h1" }
                    measure_values { name: "a" value { double_value: 1 } }
                    measure_values { name: "b" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "" }
                    measure_values { name: "a" value { double_value: 1 } }
                    measure_values { name: "b" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h3" }
                    measure_values { name: "a" type: MEASURE_VALUE_TYPE_MULTI
                                     value { double_value: 1 } }
                    measure_values { name: "b" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h4" }
                    measure_values { name: "a" value { varchar_value: "" } }
                    measure_values { name: "b" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h5" }
                    measure_values { name: "b" value { double_value: 1 } }
                    measure_values { name: "a" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h6" }
                    measure_values { name: "a" value { double_value: 1 } }
                    measure_values { name: "host" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h7" }
                    measure_values { name: "a" value { double_value: 1 } }
                    measure_values { name: "b" value { bigint_value: 2 } } }
          records { dimensions { name: "host" value: "h8" } measure_name: "time"
                    measure_values { name: "a" value { double_value: 1 } }
                    measure_values { name: "b" value { bigint_value: 2 } } })",
       {"m MULTI t=1000000 v=1 host=h1 region=eu a:DOUBLE 1 b:BIGINT 2",
        "dimension \"host\" has a value of 0 bytes; it must be 1..2048",
        "measure \"a\" cannot itself be MULTI",
        "measure \"a\" is a VARCHAR of 0 bytes; it must be 1..2048",
        "m MULTI t=1000000 v=1 host=h5 region=eu b:DOUBLE 1 a:BIGINT 2",
        "\"host\" is both a dimension and a measure; rename one of them",
        "m MULTI t=1000000 v=1 host=h7 region=eu a:DOUBLE 1 b:BIGINT 2",
        "measure name \"time\" is reserved (time, measure_name, measure_value, "
        "measure_value::* and ts_* are); rename it"}},
      {"no records", R"(database_name: "d")",
       {"a write carries 1..100 records, this one has 0"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Outcomes(c.request), c.outcomes);
  }
}

TEST(WriteSourceTest, AnInvalidMeasureNameIsReportedBeforeTooManyDimensions) {
  v1::WriteRecordsRequest message;
  v1::Record* r = message.add_records();
  r->set_measure_name("measure_value::double");
  r->set_time(1);
  r->mutable_measure_value()->set_double_value(1);
  for (int i = 0; i <= kMaxDimensionsPerRecord; ++i) {
    v1::Dimension* d = r->add_dimensions();
    d->set_name("d" + std::to_string(i));
    d->set_value("v");
  }
  const std::string bytes = message.SerializeAsString();
  WireWriteRequest wire;
  ASSERT_TRUE(wire.Decode(bytes));
  WireWriteSource source(wire);
  absl::StatusOr<NormalizedRecord> normalized = source.Normalize(0, PartitionKey{});
  ASSERT_FALSE(normalized.ok());
  EXPECT_NE(normalized.status().message().find("is reserved"), std::string::npos)
      << normalized.status();
}

}  // namespace
}  // namespace strata
