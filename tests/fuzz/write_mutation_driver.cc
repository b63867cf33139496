// The WriteRecords target's driver without libFuzzer (driver.h): byte
// mutations (byte_mutator.h) of serialized requests of every shape: scalar
// and MULTI records, common attributes, versions, time units, late times.
#include <cstdio>
#include <string>
#include <vector>

#include "server/wire/wire_write_source.h"
#include "strata/v1/write.pb.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

using namespace strata;

constexpr int64_t kNowMillis = 1'709'294'400'000;  // the fixture's clock

// Valid encodings protobuf's serializers do not produce, for the server's
// wire reader (server/wire/wire_write_source.h) to be checked on and near: lengths
// padded to five bytes, ten-byte varints, unknown fields of each wire type
// with two-byte tags.
std::string UnusualEncodings() {
  auto padded_length = [](size_t n) {
    std::string out;
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(((n >> (7 * i)) & 0x7f) | 0x80));
    out.push_back(static_cast<char>(n >> 28));
    return out;
  };
  auto bytes = [&](char tag, const std::string& b) { return tag + padded_length(b.size()) + b; };
  const std::string minus_one("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
  const std::string dimension = bytes('\x0a', bytes('\x0a', "host") + bytes('\x12', "a"));
  const std::string measure = bytes(
      '\x2a', bytes('\x0a', "v") + "\x10\x01" + bytes('\x1a', "\x09" + std::string(8, '\x40')));
  const std::string record = dimension + bytes('\x12', "m") + measure + "\x30" + minus_one +
                             "\x40" + minus_one + std::string("\xa0\x01\x05", 3) +
                             std::string("\xa9\x01", 2) + std::string(8, '\x01') +
                             std::string("\xad\x01", 2) + std::string(4, '\x02') +
                             std::string("\xa2\x01\x02zz", 5);
  return bytes('\x0a', "db") + bytes('\x12', "tbl") + bytes('\x22', record) +
         bytes('\x22', dimension) + bytes('\x22', measure);
}

std::vector<std::string> Seeds() {
  std::vector<v1::WriteRecordsRequest> requests(4);
  for (int i = 0; i < 8; ++i) {
    v1::Record* scalar = requests[0].add_records();
    auto* d = scalar->add_dimensions();
    d->set_name("host");
    d->set_value(i % 2 ? "a" : "é€");
    scalar->set_measure_name("cpu");
    scalar->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
    scalar->mutable_measure_value()->set_double_value(i * 0.5);
    scalar->set_time(kNowMillis - i * 1000);
    scalar->set_version(1 + i % 3);

    v1::Record* multi = requests[1].add_records();
    multi->set_measure_name("metrics");
    multi->set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
    auto* n = multi->add_measure_values();
    n->set_name("n");
    n->set_type(v1::MEASURE_VALUE_TYPE_BIGINT);
    n->mutable_value()->set_bigint_value(i % 2 ? INT64_MAX : INT64_MIN);
    auto* s = multi->add_measure_values();
    s->set_name("s");
    s->set_type(v1::MEASURE_VALUE_TYPE_VARCHAR);
    s->mutable_value()->set_varchar_value("text");
    // A DOUBLE as metrics send them: the layout the wire reader reads directly.
    auto* real = multi->add_measure_values();
    real->set_name("usage_user");
    real->set_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
    real->mutable_value()->set_double_value(i * 1.25);
    auto* untyped = multi->add_measure_values();  // the value says the type
    untyped->set_name("usage_idle");
    untyped->mutable_value()->set_double_value(i * 2.5);
    multi->set_time((kNowMillis - i * 3'600'000) * 1000);  // microseconds, hours back
    multi->set_time_unit(v1::TIME_UNIT_MICROSECONDS);

    v1::Record* late = requests[2].add_records();
    late->set_time(kNowMillis / 1000 - 86'400 * (1 + i));  // seconds, days back (magnetic)
    late->mutable_measure_value()->set_bigint_value(i);
  }
  auto* common = requests[2].mutable_common_attributes();
  common->set_measure_name("late");
  common->set_time_unit(v1::TIME_UNIT_SECONDS);
  common->add_dimensions()->set_name("region");
  common->mutable_dimensions(0)->set_value("eu");
  v1::Record* flag = requests[3].add_records();
  flag->set_measure_name("up");
  flag->mutable_measure_value()->set_boolean_value(true);
  flag->set_time(kNowMillis);

  std::vector<std::string> seeds;
  for (const auto& r : requests) seeds.push_back(r.SerializeAsString());
  seeds.push_back(UnusualEncodings());
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  // The hand-built seed must be a request both readers take, or its
  // mutations test little.
  v1::WriteRecordsRequest parsed;
  strata::WireWriteRequest decoded;
  const std::string unusual = UnusualEncodings();
  if (!parsed.ParseFromString(unusual) || !decoded.Decode(unusual) ||
      parsed.records_size() != 3 || decoded.records().size() != 3) {
    std::fprintf(stderr, "write_mutation_driver: the unusual-encodings seed is not a request\n");
    return 1;
  }
  return strata::fuzz::RunDriver(argc, argv, "write", Seeds(), strata::fuzz::MutateBytes, 200'000);
}
