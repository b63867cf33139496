// Fuzz target: arbitrary bytes as a WriteRecords request, through what the
// server does with one: protobuf parsing, conversion (server/write_convert.h)
// and the engine's validation, version rules and group commit, into a real
// data directory. Any input must be written or rejected with a reason; never
// a crash, and the table must still answer a scan afterwards.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "server/write_convert.h"
#include "storage/engine.h"
#include "tests/fuzz/engine_fixture.h"

namespace {

using namespace strata;

struct Fixture : fuzz::EngineFixture {
  Fixture() : EngineFixture("write") {
    TableSpec spec{.database_name = "mydb", .table_name = "tbl", .enable_magnetic_store_writes = true};
    if (!engine->catalog().CreateTable(spec).ok()) Fail("cannot create the table");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  v1::WriteRecordsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;  // gRPC refuses these
  // Always the fixture's table, so requests reach validation and the writer.
  request.set_database_name("mydb");
  request.set_table_name("tbl");
  WriteRequest converted = FromProto(request);
  absl::StatusOr<WriteResult> result = fixture.engine->Write(converted);
  if (std::getenv("STRATA_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "%zu records: %s, %ld written\n", converted.records.size(),
                 result.ok() ? "ok" : std::string(result.status().message()).c_str(),
                 result.ok() ? static_cast<long>(result->total()) : 0L);
  }
  if (result.ok() && result->total() + static_cast<int64_t>(result->rejected.size()) !=
                         static_cast<int64_t>(converted.records.size())) {
    std::fprintf(stderr, "write_fuzz: records neither written nor rejected\n");
    std::abort();
  }
  return 0;
}
