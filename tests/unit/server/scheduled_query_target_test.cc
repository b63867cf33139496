#include "server/scheduler/target_mapping.h"
#include "server/scheduler/scheduled_query_proto.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

using query::DataType;
using query::Datum;

const std::vector<query::ResultColumn> kColumns = {{"host", DataType::kVarchar},
                                                   {"minute", DataType::kTimestamp},
                                                   {"avg_cpu", DataType::kDouble},
                                                   {"samples", DataType::kBigint}};

// The scheduler's TargetSpec of an API TargetConfiguration (a valid one).
TargetSpec SpecOf(const v1::TargetConfiguration& target) {
  absl::StatusOr<TargetSpec> spec = TargetSpecFromProto(target);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.value_or(TargetSpec{});
}

v1::TargetConfiguration MultiTarget() {
  v1::TargetConfiguration t;
  t.set_database_name("mydb");
  t.set_table_name("rollup");
  t.set_time_column("minute");
  t.add_dimension_mappings()->set_name("host");
  auto* multi = t.mutable_multi_measure_mappings();
  multi->set_target_multi_measure_name("cpu_1m");
  auto* a = multi->add_multi_measure_attribute_mappings();
  a->set_source_column("avg_cpu");
  a->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  auto* b = multi->add_multi_measure_attribute_mappings();
  b->set_source_column("samples");
  b->set_target_multi_measure_attribute_name("count");
  b->set_measure_value_type(v1::MEASURE_VALUE_TYPE_BIGINT);
  return t;
}

TEST(TargetMappingTest, MultiMeasureRowsBecomeOneRecordEach) {
  auto mapping = TargetMapping::Compile(SpecOf(MultiTarget()), kColumns);
  ASSERT_TRUE(mapping.ok()) << mapping.status();
  std::vector<InputRecord> out;
  ASSERT_TRUE(mapping->Map({Datum::Varchar("h1"), Datum::Timestamp(60'000'000'000),
                            Datum::Double(2.5), Datum::Bigint(3)},
                           42, &out)
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].measure_name, "cpu_1m");
  EXPECT_EQ(out[0].measure_value_type, MeasureKind::kMulti);
  ASSERT_EQ(out[0].dimensions.size(), 1u);
  EXPECT_EQ(out[0].dimensions[0].value, "h1");
  EXPECT_EQ(out[0].time, 60'000'000'000);
  EXPECT_EQ(out[0].time_unit, TimeUnit::kNanoseconds);
  EXPECT_EQ(out[0].version, 42);
  ASSERT_EQ(out[0].measure_values.size(), 2u);
  EXPECT_EQ(out[0].measure_values[1].name, "count");
  EXPECT_EQ(out[0].measure_values[1].value->number, 3);
}

TEST(TargetMappingTest, APlainTargetSpecNeedsNoApiMessage) {
  TargetSpec spec{.time_column = "minute",
                  .dimensions = {"host"},
                  .multi = TargetSpec::MultiMeasures{
                      .target_measure_name = "cpu_1m",
                      .attributes = {{.source_column = "avg_cpu", .type = MeasureKind::kDouble},
                                     {.source_column = "samples",
                                      .target_name = "count",
                                      .type = MeasureKind::kBigint}}}};
  auto mapping = TargetMapping::Compile(spec, kColumns);
  ASSERT_TRUE(mapping.ok()) << mapping.status();
  std::vector<InputRecord> out;
  ASSERT_TRUE(mapping->Map({Datum::Varchar("h1"), Datum::Timestamp(1), Datum::Double(0.5),
                            Datum::Bigint(2)},
                           7, &out)
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].measure_values.size(), 2u);
  EXPECT_EQ(out[0].measure_values[0].name, "avg_cpu");
  EXPECT_EQ(out[0].measure_values[1].name, "count");
  // A mixed measure of no type is refused, naming it.
  spec.multi.reset();
  spec.mixed.push_back({.source_column = "avg_cpu"});
  auto untyped = TargetMapping::Compile(spec, kColumns);
  ASSERT_FALSE(untyped.ok());
  EXPECT_NE(std::string(untyped.status().message()).find("\"avg_cpu\" needs a measure_value_type"),
            std::string::npos)
      << untyped.status();
}

TEST(TargetMappingTest, NullsLeaveOutDimensionsAndAttributes) {
  auto mapping = TargetMapping::Compile(SpecOf(MultiTarget()), kColumns);
  ASSERT_TRUE(mapping.ok());
  std::vector<InputRecord> out;
  ASSERT_TRUE(mapping->Map({Datum::Null(DataType::kVarchar), Datum::Timestamp(1),
                            Datum::Null(DataType::kDouble), Datum::Bigint(1)},
                           1, &out)
                  .ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].dimensions.empty());
  EXPECT_EQ(out[0].measure_values.size(), 1u);
  out.clear();
  // Every measure NULL: no record.
  ASSERT_TRUE(mapping->Map({Datum::Varchar("h"), Datum::Timestamp(1), Datum::Null(DataType::kDouble),
                            Datum::Null(DataType::kBigint)},
                           1, &out)
                  .ok());
  EXPECT_TRUE(out.empty());
  // A NULL time cannot be written.
  EXPECT_FALSE(mapping->Map({Datum::Varchar("h"), Datum::Null(DataType::kTimestamp),
                             Datum::Double(1), Datum::Bigint(1)},
                            1, &out)
                   .ok());
}

TEST(TargetMappingTest, MixedMappingsChosenByTheMeasureNameColumn) {
  v1::TargetConfiguration t;
  t.set_time_column("t");
  t.set_measure_name_column("m");
  auto* cpu = t.add_mixed_measure_mappings();
  cpu->set_measure_name("cpu");
  cpu->set_source_column("v");
  cpu->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  auto* mem = t.add_mixed_measure_mappings();
  mem->set_measure_name("mem");
  mem->set_target_measure_name("memory");
  mem->set_source_column("v");
  mem->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  const std::vector<query::ResultColumn> columns = {
      {"t", DataType::kTimestamp}, {"m", DataType::kVarchar}, {"v", DataType::kBigint}};
  auto mapping = TargetMapping::Compile(SpecOf(t), columns);
  ASSERT_TRUE(mapping.ok()) << mapping.status();
  std::vector<InputRecord> out;
  ASSERT_TRUE(mapping->Map({Datum::Timestamp(5), Datum::Varchar("mem"), Datum::Bigint(7)}, 1, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].measure_name, "memory");
  EXPECT_EQ(out[0].measure_value->real, 7.0);  // BIGINT written as DOUBLE
  absl::Status unknown = mapping->Map({Datum::Timestamp(5), Datum::Varchar("disk"), Datum::Bigint(7)}, 1, &out);
  EXPECT_NE(std::string(unknown.message()).find("\"disk\""), std::string::npos) << unknown;
}

TEST(TargetMappingTest, MistakesNameTheColumn) {
  struct Case {
    std::function<void(v1::TargetConfiguration&)> change;
    const char* message;
  };
  const Case cases[] = {
      {[](auto& t) { t.set_time_column("time"); }, "time column \"time\" is not a column"},
      {[](auto& t) { t.set_time_column("host"); }, "time column \"host\" is varchar; it must be timestamp"},
      {[](auto& t) { t.mutable_dimension_mappings(0)->set_name("minute"); },
       "dimension \"minute\" is timestamp"},
      {[](auto& t) { t.clear_dimension_mappings(); }, "\"host\" is not mapped"},
      {[](auto& t) {
         t.mutable_multi_measure_mappings()->mutable_multi_measure_attribute_mappings(1)
             ->set_measure_value_type(v1::MEASURE_VALUE_TYPE_VARCHAR);
       },
       "\"samples\" is bigint and cannot be written as VARCHAR"},
      {[](auto& t) {
         t.mutable_multi_measure_mappings()->mutable_multi_measure_attribute_mappings(0)
             ->set_measure_value_type(v1::MEASURE_VALUE_TYPE_BIGINT);
       },
       "\"avg_cpu\" is double and cannot be written as BIGINT"},
      {[](auto& t) { t.mutable_multi_measure_mappings()->clear_target_multi_measure_name(); },
       "target_multi_measure_name"},
      {[](auto& t) { t.clear_multi_measure_mappings(); }, "exactly one of multi_measure_mappings"},
      {[](auto& t) {
         t.mutable_multi_measure_mappings()->mutable_multi_measure_attribute_mappings(1)
             ->set_source_column("nope");
       },
       "\"nope\" is not a column of the query's result"},
  };
  for (const Case& c : cases) {
    v1::TargetConfiguration t = MultiTarget();
    c.change(t);
    auto mapping = TargetMapping::Compile(SpecOf(t), kColumns);
    ASSERT_FALSE(mapping.ok()) << c.message;
    EXPECT_EQ(mapping.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(mapping.status().message()).find(c.message), std::string::npos)
        << mapping.status().message();
  }
}

}  // namespace
}  // namespace strata
