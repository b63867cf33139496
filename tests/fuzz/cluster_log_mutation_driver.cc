// The shard log's driver without libFuzzer (driver.h): byte mutations (byte_mutator.h) of
// valid entries, a barrier, writes of records of several shapes and a DELETE's points.
#include <string>
#include <vector>

#include "cluster/log_entry.h"
#include "cluster/record_codec.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

using strata::MeasureList;
using strata::Value;
using strata::cluster::LogEntry;

std::vector<std::string> Seeds() {
  std::string records;
  for (int i = 0; i < 5; ++i) {
    strata::NormalizedRecord r;
    r.dimensions.emplace_back("host", "h" + std::to_string(i));
    r.measure_name = i % 2 ? "cpu" : "state";
    r.multi = i % 2 == 0;
    r.measures = i % 2 ? MeasureList::Of({{"cpu", Value::Double(i * 0.5)}})
                       : MeasureList::Of({{"n", Value::Bigint(-i)},
                                          {"s", Value::Varchar("ok")},
                                          {"b", Value::Boolean(true)}});
    r.time_nanos = 1'700'000'000'000'000'000 + i;
    r.version = i;
    strata::cluster::EncodeRecord(i * 3, r, &records);
  }
  LogEntry writes{.kind = LogEntry::kWrites,
                  .epoch = 7,
                  .leader_nanos = 1'700'000'000'000'000'000,
                  .catalog_revision = 12,
                  .previous_digest = 0x0123456789abcdefULL,
                  .intended_sequence = 42,
                  .id = "n1-0-7-3"};
  writes.writes.push_back({"demo", "cpu", strata::cluster::EncodeRecords(5, records)});
  writes.writes.push_back({"demo", "mem", strata::cluster::EncodeRecords(0, "")});
  const LogEntry barrier{.kind = LogEntry::kBarrier, .epoch = 8, .id = "n2-0-8-barrier-0"};
  // A DELETE's points: series and times, no measures.
  std::string points;
  for (int i = 0; i < 3; ++i) {
    strata::NormalizedRecord p;
    p.dimensions.emplace_back("host", "h" + std::to_string(i));
    p.measure_name = "cpu";
    p.time_nanos = 1'700'000'000'000'000'000 + i;
    strata::cluster::EncodeRecord(i, p, &points);
  }
  LogEntry deletes{.kind = LogEntry::kDeletes, .epoch = 8, .id = "n2-0-8-4"};
  deletes.writes.push_back({"demo", "cpu", strata::cluster::EncodeRecords(3, points)});
  return {EncodeLogEntry(writes), EncodeLogEntry(barrier), EncodeLogEntry(deletes)};
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "shard log entry", Seeds(), strata::fuzz::MutateBytes,
                                 200'000);
}
