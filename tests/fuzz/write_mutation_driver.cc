// The WriteRecords target's driver without libFuzzer (driver.h): byte
// mutations (byte_mutator.h) of serialized requests of every shape: scalar
// and MULTI records, common attributes, versions, time units, late times.
#include <string>
#include <vector>

#include "strata/v1/write.pb.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

using namespace strata;

constexpr int64_t kNowMillis = 1'709'294'400'000;  // the fixture's clock

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
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "write", Seeds(), strata::fuzz::MutateBytes, 200'000);
}
