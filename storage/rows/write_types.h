// The write path's vocabulary: a WriteRecords request as the engine sees it
// (fields keep their presence so common attributes can be merged), the
// normalized record that validation produces, and the per-request result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/value.h"
#include "storage/rows/dimension_list.h"
#include "storage/rows/measure_list.h"

namespace strata {

// WriteRecords' limit, Timestream's.
inline constexpr int kMaxRecordsPerWrite = 100;
// BulkWriteRecords' (and a line-protocol or remote-write body's writes): a
// write's fixed cost (a call, a group commit's wake-ups and sync) was about
// half of a 100-record write's server CPU (docs/benchmarks.md, "Ingest paths").
inline constexpr int kMaxRecordsPerBulkWrite = 10'000;
inline constexpr int kMaxDimensionsPerRecord = 128;
inline constexpr int kMaxMeasuresPerRecord = 256;
inline constexpr size_t kMaxValueBytes = 2048;
inline constexpr size_t kMaxMultiMeasureValueBytes = 2048;
inline constexpr int kMaxMeasureNamesPerTable = 8192;
inline constexpr int kMaxMultiAttributesPerTable = 1024;
inline constexpr int64_t kFutureWindowNanos = 15 * 60 * 1'000'000'000LL;

// Numbered as the wire's TimeUnit, one below (server/wire/write_convert.h).
enum class TimeUnit { kMilliseconds, kSeconds, kMicroseconds, kNanoseconds };

// What a record says its measure is: one of the scalar types, or MULTI.
// Numbered as the wire's MeasureValueType (server/wire/write_convert.h).
enum class MeasureKind : uint8_t {
  kDouble = 1,
  kBigint,
  kVarchar,
  kBoolean,
  kTimestamp,
  kMulti,
};
// "DOUBLE" .. "TIMESTAMP" (a scalar kind is its value type), or "MULTI".
inline std::string_view MeasureKindName(MeasureKind kind) {
  return kind == MeasureKind::kMulti ? "MULTI" : TypeName(static_cast<ValueType>(kind));
}

struct InputDimension {
  std::string name;
  std::string value;
};

// A TIMESTAMP value here is still in the record's time unit.
struct InputMeasure {
  std::string name;
  std::optional<MeasureKind> type;
  std::optional<Value> value;
};

// A Record as sent: every scalar field optional, so that the record's own
// value can win over common_attributes.
struct InputRecord {
  std::vector<InputDimension> dimensions;
  std::optional<std::string> measure_name;
  std::optional<MeasureKind> measure_value_type;
  std::optional<Value> measure_value;
  std::vector<InputMeasure> measure_values;
  std::optional<int64_t> time;
  std::optional<TimeUnit> time_unit;
  std::optional<int64_t> version;
  // Set when the request carried a field the server cannot read (an enum
  // value it does not know, e.g. time_unit 99): the record is rejected with
  // this reason rather than read with a default.
  std::optional<std::string> unreadable;
};

struct WriteRequest {
  std::string database_name;
  std::string table_name;
  InputRecord common_attributes;
  std::vector<InputRecord> records;
};

// A merged, validated record. Dimensions are sorted by name; for a scalar
// record `measures` holds one entry named after the measure.
struct NormalizedRecord {
  DimensionList dimensions;
  std::string measure_name;
  bool multi = false;
  MeasureList measures;
  int64_t time_nanos = 0;
  int64_t version = 1;
  // MULTI, or the scalar measure's type.
  MeasureKind kind() const {
    return multi ? MeasureKind::kMulti : static_cast<MeasureKind>(measures.type(0));
  }
  bool operator==(const NormalizedRecord&) const = default;
};

// Why a record was rejected, coarsely (for metrics; `reason` says exactly).
enum class RejectionClass {
  kInvalid,     // the record itself: names, values, limits per record
  kTimeWindow,  // outside the memory store's window, the magnetic store's, or the future
  kSchema,      // another type or meaning than the table holds for a name, table limits
  kVersion,     // other values at the same identity without a higher version
};

struct RejectedRecord {
  int record_index = 0;
  std::string reason;
  std::optional<int64_t> existing_version;
  RejectionClass rejection_class = RejectionClass::kInvalid;
};

struct WriteResult {
  int64_t memory_store = 0;
  int64_t magnetic_store = 0;
  int64_t deleted = 0;  // points a deletion found and removed (a cluster's DELETE)
  std::vector<RejectedRecord> rejected;
  int64_t total() const { return memory_store + magnetic_store; }
};

}  // namespace strata
