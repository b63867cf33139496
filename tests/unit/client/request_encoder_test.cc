// The one-pass encoder against protobuf's serializer: the same bytes for every
// kind of field, presence, sign and length (a nested length of one, two and
// three bytes, where the encoder's guess is wrong both ways).
#include "client/request_encoder.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

std::string Encoded(const v1::WriteRecordsRequest& request) {
  // A used buffer, as a sender's is: longer than the request, and not zeros.
  static std::string buffer(100, 'x');
  const size_t length = EncodeWriteRecordsRequest(request, &buffer);
  EXPECT_LE(length, buffer.size());
  return buffer.substr(0, length);
}

void ExpectProtobufsBytes(const v1::WriteRecordsRequest& request) {
  std::string expected;
  ASSERT_TRUE(request.SerializeToString(&expected));
  EXPECT_EQ(Encoded(request), expected) << request.DebugString();
}

TEST(RequestEncoderTest, EmptyAndDefaultFieldsAreLeftOutAsProtobufLeavesThem) {
  v1::WriteRecordsRequest request;
  ExpectProtobufsBytes(request);
  request.add_records();  // an empty record is still one
  request.mutable_common_attributes();
  ExpectProtobufsBytes(request);
  v1::Record* r = request.add_records();
  r->set_measure_name("");  // optional: present though empty
  r->set_time(0);
  r->set_version(0);
  r->mutable_measure_value()->set_double_value(0);  // a oneof's member, set to its default
  r->add_dimensions();                              // a dimension with neither field
  r->add_measure_values()->mutable_value();         // a value with no member set
  ExpectProtobufsBytes(request);
}

TEST(RequestEncoderTest, EveryValueKindSignAndEnum) {
  v1::WriteRecordsRequest request;
  request.set_database_name("db");
  request.set_table_name("tbl");
  auto add = [&](auto set) {
    v1::Record* r = request.add_records();
    r->set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
    set(r->add_measure_values()->mutable_value());
  };
  add([](v1::MeasureValue* v) { v->set_double_value(-1.5e300); });
  add([](v1::MeasureValue* v) { v->set_bigint_value(-1); });  // ten bytes
  add([](v1::MeasureValue* v) { v->set_bigint_value(INT64_MAX); });
  add([](v1::MeasureValue* v) { v->set_bigint_value(0); });
  add([](v1::MeasureValue* v) { v->set_varchar_value(""); });
  add([](v1::MeasureValue* v) { v->set_boolean_value(false); });
  add([](v1::MeasureValue* v) { v->set_boolean_value(true); });
  add([](v1::MeasureValue* v) { v->set_timestamp_value(INT64_MIN); });
  v1::Record* r = request.add_records();
  r->set_measure_value_type(static_cast<v1::MeasureValueType>(-3));  // a number sent as is
  r->set_time_unit(v1::TIME_UNIT_NANOSECONDS);
  r->set_time(-5);
  r->set_version(1LL << 40);
  ExpectProtobufsBytes(request);
}

TEST(RequestEncoderTest, NestedLengthsOfOneTwoAndThreeBytes) {
  for (size_t size : {0, 1, 100, 127, 128, 200, 16'383, 16'384, 70'000}) {
    v1::WriteRecordsRequest request;
    v1::Record* r = request.add_records();
    v1::Dimension* d = r->add_dimensions();
    d->set_name("n");
    d->set_value(std::string(size, 'v'));
    r->add_measure_values()->mutable_value()->set_varchar_value(std::string(size, 'x'));
    r->mutable_measure_value()->set_varchar_value(std::string(size, 'y'));
    ExpectProtobufsBytes(request);
  }
}

TEST(RequestEncoderTest, RandomRequests) {
  std::mt19937_64 random(42);
  auto text = [&](size_t max) {
    std::string s(random() % (max + 1), 'a');
    for (char& c : s) c = static_cast<char>('a' + random() % 26);
    return s;
  };
  auto chance = [&](int percent) { return static_cast<int>(random() % 100) < percent; };
  auto value = [&](v1::MeasureValue* v) {
    switch (random() % 6) {
      case 0:
        v->set_double_value(std::ldexp(static_cast<double>(random()), -30));
        break;
      case 1:
        v->set_bigint_value(static_cast<int64_t>(random()));
        break;
      case 2:
        v->set_varchar_value(text(300));
        break;
      case 3:
        v->set_boolean_value(chance(50));
        break;
      case 4:
        v->set_timestamp_value(static_cast<int64_t>(random() >> (random() % 64)));
        break;
      default:
        break;  // no member
    }
  };
  for (int round = 0; round < 300; ++round) {
    v1::WriteRecordsRequest request;
    if (chance(80)) request.set_database_name(text(20));
    if (chance(80)) request.set_table_name(text(20));
    const int records = static_cast<int>(random() % 120) + (chance(50) ? 1 : 0);
    for (int i = -1; i < records; ++i) {
      if (i == -1 && chance(50)) continue;
      v1::Record* r = i == -1 ? request.mutable_common_attributes() : request.add_records();
      for (int d = static_cast<int>(random() % 12); d > 0; --d) {
        v1::Dimension* dimension = r->add_dimensions();
        dimension->set_name(text(30));
        dimension->set_value(text(chance(5) ? 200 : 40));
      }
      if (chance(70)) r->set_measure_name(text(20));
      if (chance(30)) value(r->mutable_measure_value());
      if (chance(70)) r->set_measure_value_type(static_cast<v1::MeasureValueType>(random() % 7));
      for (int m = static_cast<int>(random() % 15); m > 0; --m) {
        v1::MultiMeasureValue* measure = r->add_measure_values();
        if (chance(95)) measure->set_name(text(25));
        if (chance(90)) measure->set_type(static_cast<v1::MeasureValueType>(random() % 7));
        if (chance(95)) value(measure->mutable_value());
      }
      if (chance(90)) r->set_time(static_cast<int64_t>(random()));
      if (chance(50)) r->set_time_unit(static_cast<v1::TimeUnit>(random() % 5));
      if (chance(30)) r->set_version(static_cast<int64_t>(random() % 1000));
    }
    ExpectProtobufsBytes(request);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata::cli
