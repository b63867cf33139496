#include "cluster/schema_claims.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

NormalizedRecord Scalar(std::string measure, Value value,
                        DimensionList dimensions = {{"host", "a"}}) {
  NormalizedRecord r;
  r.dimensions = std::move(dimensions);
  r.measure_name = std::move(measure);
  r.measures = MeasureList::Of({{"value", std::move(value)}});
  return r;
}

NormalizedRecord Multi(std::string measure, const std::vector<Measure>& attributes,
                       DimensionList dimensions = {{"host", "a"}}) {
  NormalizedRecord r;
  r.dimensions = std::move(dimensions);
  r.measure_name = std::move(measure);
  r.multi = true;
  r.measures = MeasureList::Of(attributes);
  return r;
}

// The claims a table holds before each case: measure "cpu" DOUBLE, "metrics" MULTI with
// attribute "load" DOUBLE, dimension "host".
ClaimSet Claimed() {
  ClaimSet claimed;
  claimed.measures.emplace("cpu", MeasureKind::kDouble);
  claimed.measures.emplace("metrics", MeasureKind::kMulti);
  claimed.columns.emplace("host", ClaimSet::Column{.dimension = true});
  claimed.columns.emplace("load", ClaimSet::Column{.type = ValueType::kDouble});
  claimed.attributes = 1;
  return claimed;
}

TEST(SchemaClaimsTest, EachRecordIsCheckedAgainstTheClaimsAndTheBatchBeforeIt) {
  struct Case {
    std::string what;
    std::vector<NormalizedRecord> batch;
    std::vector<std::string> expected;  // per record: "" admitted, else a part of the reason
    size_t new_measures = 0;
    size_t new_columns = 0;
  };
  const std::vector<Case> cases = {
      {"known names claim nothing", {Scalar("cpu", Value::Double(1))}, {""}, 0, 0},
      {"a measure in another kind",
       {Scalar("cpu", Value::Bigint(1))},
       {"measure \"cpu\" holds DOUBLE values in this table; this record writes BIGINT"}},
      {"a new measure and dimension are claimed",
       {Scalar("mem", Value::Bigint(1), {{"host", "a"}, {"region", "eu"}})},
       {""},
       1,
       1},
      {"the batch's first claim wins over its later records",
       {Scalar("mem", Value::Bigint(1)), Scalar("mem", Value::Double(1))},
       {"", "measure \"mem\" holds BIGINT values"},
       1,
       0},
      {"an attribute in another type",
       {Multi("metrics", {{"load", Value::Bigint(3)}})},
       {"attribute \"load\" holds DOUBLE values in this table; this record writes BIGINT"}},
      {"an attribute type is table-wide, across measure names",
       {Multi("other", {{"x", Value::Varchar("s")}}), Multi("more", {{"x", Value::Boolean(true)}})},
       {"", "attribute \"x\" holds VARCHAR values"},
       1,
       1},
      {"an attribute named like a dimension",
       {Multi("metrics", {{"host", Value::Double(1)}})},
       {"\"host\" is a dimension in this table, so it cannot also be a MULTI measure attribute"}},
      {"a dimension named like an attribute",
       {Scalar("cpu", Value::Double(1), {{"load", "x"}})},
       {"\"load\" is a MULTI measure attribute (DOUBLE) in this table, so it cannot also be a "
        "dimension"}},
      {"a dimension claimed earlier in the batch",
       {Scalar("cpu", Value::Double(1), {{"zone", "z"}}),
        Multi("metrics", {{"zone", Value::Double(1)}})},
       {"", "\"zone\" is a dimension in this table"},
       0,
       1},
      {"a rejected record claims nothing",
       {Multi("metrics", {{"fresh", Value::Double(1)}, {"load", Value::Bigint(1)}})},
       {"attribute \"load\" holds DOUBLE"},
       0,
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const ClaimSet claimed = Claimed();
    ClaimSet added;
    ASSERT_EQ(c.batch.size(), c.expected.size());
    for (size_t i = 0; i < c.batch.size(); ++i) {
      const std::optional<std::string> reason = AdmitRecord(claimed, c.batch[i], &added);
      if (c.expected[i].empty()) {
        EXPECT_EQ(reason, std::nullopt) << i;
      } else {
        ASSERT_TRUE(reason.has_value()) << i;
        EXPECT_NE(reason->find(c.expected[i]), std::string::npos) << *reason;
      }
    }
    EXPECT_EQ(added.measures.size(), c.new_measures);
    EXPECT_EQ(added.columns.size(), c.new_columns);
  }
}

TEST(SchemaClaimsTest, TheTableLimitsCountEveryClaim) {
  ClaimSet claimed;
  for (int i = 0; i < kMaxMeasureNamesPerTable; ++i) {
    claimed.measures.emplace("m" + std::to_string(i), MeasureKind::kDouble);
  }
  ClaimSet added;
  EXPECT_EQ(AdmitRecord(claimed, Scalar("m7", Value::Double(1)), &added), std::nullopt);
  const std::optional<std::string> full =
      AdmitRecord(claimed, Scalar("new", Value::Double(1)), &added);
  ASSERT_TRUE(full.has_value());
  EXPECT_NE(full->find("measure names, the limit"), std::string::npos) << *full;

  ClaimSet attributes;
  attributes.measures.emplace("metrics", MeasureKind::kMulti);
  for (int i = 0; i < kMaxMultiAttributesPerTable - 1; ++i) {
    attributes.columns.emplace("a" + std::to_string(i),
                               ClaimSet::Column{.type = ValueType::kDouble});
  }
  attributes.attributes = kMaxMultiAttributesPerTable - 1;
  ClaimSet more;
  EXPECT_EQ(AdmitRecord(attributes, Multi("metrics", {{"last", Value::Double(1)}}), &more),
            std::nullopt);
  const std::optional<std::string> over =
      AdmitRecord(attributes, Multi("metrics", {{"one_more", Value::Double(1)}}), &more);
  ASSERT_TRUE(over.has_value());
  EXPECT_NE(over->find("MULTI attribute names, the limit"), std::string::npos) << *over;
}

}  // namespace
}  // namespace strata::cluster
