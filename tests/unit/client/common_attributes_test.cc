#include "client/common_attributes.h"

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

v1::Record Row(const std::string& host, const std::string& region, const std::string& measure) {
  v1::Record r;
  auto* h = r.add_dimensions();
  h->set_name("host");
  h->set_value(host);
  auto* g = r.add_dimensions();
  g->set_name("region");
  g->set_value(region);
  r.set_measure_name(measure);
  r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  r.set_time_unit(v1::TIME_UNIT_NANOSECONDS);
  r.set_time(1);
  return r;
}

TEST(CommonAttributesTest, WhatEveryRecordSharesMovesToTheCommonAttributes) {
  v1::WriteRecordsRequest request;
  *request.add_records() = Row("a", "eu", "cpu");
  *request.add_records() = Row("b", "eu", "cpu");
  FactorCommonAttributes(&request);
  EXPECT_EQ(request.common_attributes().ShortDebugString(),
            "dimensions { name: \"region\" value: \"eu\" } measure_name: \"cpu\" "
            "measure_value_type: MEASURE_VALUE_TYPE_MULTI time_unit: TIME_UNIT_NANOSECONDS");
  EXPECT_EQ(request.records(0).ShortDebugString(),
            "dimensions { name: \"host\" value: \"a\" } time: 1");
  EXPECT_EQ(request.records(1).ShortDebugString(),
            "dimensions { name: \"host\" value: \"b\" } time: 1");
}

TEST(CommonAttributesTest, DifferencesStayInTheRecords) {
  v1::WriteRecordsRequest request;
  *request.add_records() = Row("a", "eu", "cpu");
  *request.add_records() = Row("a", "us", "mem");
  request.mutable_records(1)->clear_time_unit();
  FactorCommonAttributes(&request);
  EXPECT_EQ(request.common_attributes().ShortDebugString(),
            "dimensions { name: \"host\" value: \"a\" } measure_value_type: MEASURE_VALUE_TYPE_MULTI");
  EXPECT_EQ(request.records(1).ShortDebugString(),
            "dimensions { name: \"region\" value: \"us\" } measure_name: \"mem\" time: 1");
  // One record, or common attributes already set: left alone.
  v1::WriteRecordsRequest one;
  *one.add_records() = Row("a", "eu", "cpu");
  FactorCommonAttributes(&one);
  EXPECT_FALSE(one.has_common_attributes());
}

}  // namespace
}  // namespace strata::cli
