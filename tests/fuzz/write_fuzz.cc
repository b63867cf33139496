// Fuzz target: arbitrary bytes as a WriteRecords request, through what the
// server does with one: reading it straight from its bytes
// (server/wire/wire_write_source.h) or, for what that reader leaves, protobuf
// parsing; normalization (the bytes' reading, the message's and the engine's
// WriteRequest path checked against each other record by record; bytes
// protobuf refuses must not be read) and the engine's version rules and group commit,
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
#include "server/wire/wire_write_source.h"
#include "server/wire/write_convert.h"
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
  std::fprintf(stderr, "write_fuzz: %s normalized differently from the bytes, the message or "
                       "through FromProto\n", what);
  std::abort();
}

// NormalizeRecord of each record, with every check (no NameMemo).
class EveryCheck final : public WriteSource {
 public:
  explicit EveryCheck(WriteRequest& request) : request_(request) {}
  std::string_view database_name() const override { return request_.database_name; }
  std::string_view table_name() const override { return request_.table_name; }
  int record_count() const override { return static_cast<int>(request_.records.size()); }
  absl::Status ValidateShape() const override { return ValidateRequestShape(request_); }
  absl::Status NormalizeInto(int i, const PartitionKey& partition_key,
                             NormalizedRecord* out) override {
    ASSIGN_OR_RETURN(*out,
                     NormalizeRecord(request_.common_attributes, request_.records[i], partition_key));
    return absl::OkStatus();
  }

 private:
  WriteRequest& request_;
};

// `source` against `expected`: the shape's verdict and every record.
void CheckAgainst(WriteSource& source, WriteSource& expected) {
  const PartitionKey partition_key{.type = PartitionKeyType::kDimension, .name = "host"};
  const bool shape_ok = source.ValidateShape().ok();
  if (shape_ok != expected.ValidateShape().ok()) Diverged("the request's shape");
  if (source.record_count() != expected.record_count()) Diverged("the record count");
  for (int i = 0; shape_ok && i < source.record_count(); ++i) {
    absl::StatusOr<NormalizedRecord> want = expected.Normalize(i, partition_key);
    absl::StatusOr<NormalizedRecord> got = source.Normalize(i, partition_key);
    if (got.status() != want.status() || (got.ok() && *got != *want)) Diverged("a record");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  v1::WriteRecordsRequest request;
  const bool parsed = request.ParseFromArray(data, static_cast<int>(size));
  // Both doors' limits: WriteRecords' (records past it counted, not kept) and
  // BulkWriteRecords'.
  for (const int max_records : {kMaxRecordsPerWrite, kMaxRecordsPerBulkWrite}) {
    WireWriteRequest wire;
    const bool decoded = wire.Decode(bytes, max_records);
    if (!parsed) {  // gRPC refuses these
      if (decoded) {
        std::fprintf(stderr, "write_fuzz: bytes protobuf refuses were read as a request\n");
        std::abort();
      }
      continue;
    }
    if (decoded) {
      if (wire.database_name() != request.database_name() ||
          wire.table_name() != request.table_name()) {
        Diverged("the names");
      }
      v1::WriteRecordsRequest copy = request;
      ProtoWriteSource message_path(copy, max_records);
      WireWriteSource bytes_path(wire);
      CheckAgainst(bytes_path, message_path);
    }
  }
  if (!parsed) return 0;
  // Always the fixture's table, so requests reach validation and the writer.
  request.set_database_name("mydb");
  request.set_table_name("tbl");
  // The message's normalization and the engine's WriteRequest path
  // (FromProto), both skipping names their previous record passed, against
  // NormalizeRecord with every check, on every record, written or rejected.
  const size_t records = request.records_size();
  {
    v1::WriteRecordsRequest copy = request;
    WriteRequest converted = FromProto(copy);
    WriteRequest reference = converted;
    InputWriteSource engine_path(converted);
    ProtoWriteSource message_path(copy);
    EveryCheck every_check(reference);
    CheckAgainst(message_path, every_check);
    CheckAgainst(engine_path, every_check);
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
