// Fuzz target: arbitrary bytes as a WriteRecords request, through what the
// server does with one: protobuf parsing, normalization straight from the
// message (server/write_convert.h; checked against the engine's WriteRequest
// path record by record) and the engine's version rules and group commit,
// into a real data directory. Any input must be written or rejected with a reason; never
// a crash, and the table must still answer a scan afterwards.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
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

[[noreturn]] void Diverged(const char* what) {
  std::fprintf(stderr, "write_fuzz: %s normalized differently from the message and through "
                       "FromProto\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  v1::WriteRecordsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;  // gRPC refuses these
  // Always the fixture's table, so requests reach validation and the writer.
  request.set_database_name("mydb");
  request.set_table_name("tbl");
  // stratad normalizes records straight from the message; the engine's
  // WriteRequest path (FromProto, NormalizeRecord) must agree with it on
  // every record, written or rejected.
  const size_t records = request.records_size();
  {
    v1::WriteRecordsRequest copy = request;
    WriteRequest converted = FromProto(copy);
    InputWriteSource engine_path(converted);
    ProtoWriteSource wire_path(copy);
    const PartitionKey partition_key{.type = PartitionKeyType::kDimension, .name = "host"};
    const bool shape_ok = wire_path.ValidateShape().ok();
    if (shape_ok != engine_path.ValidateShape().ok()) Diverged("the request's shape");
    for (int i = 0; shape_ok && i < wire_path.record_count(); ++i) {
      absl::StatusOr<NormalizedRecord> expected = engine_path.Normalize(i, partition_key);
      absl::StatusOr<NormalizedRecord> actual = wire_path.Normalize(i, partition_key);
      if (actual.status() != expected.status() || (actual.ok() && *actual != *expected)) {
        Diverged("a record");
      }
    }
  }
  ProtoWriteSource source(request);
  absl::Notification written;
  absl::StatusOr<WriteResult> result;
  fixture.engine->WriteAsync(source, [&](absl::StatusOr<WriteResult> r) {
    result = std::move(r);
    written.Notify();
  });
  written.WaitForNotification();
  if (std::getenv("STRATA_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "%zu records: %s, %ld written\n", records,
                 result.ok() ? "ok" : std::string(result.status().message()).c_str(),
                 result.ok() ? static_cast<long>(result->total()) : 0L);
  }
  if (result.ok() && result->total() + static_cast<int64_t>(result->rejected.size()) !=
                         static_cast<int64_t>(records)) {
    std::fprintf(stderr, "write_fuzz: records neither written nor rejected\n");
    std::abort();
  }
  return 0;
}
