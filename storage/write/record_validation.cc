#include "storage/write/record_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "storage/catalog/names.h"
#include "storage/write/name_memo.h"
#include "storage/write/record_normalizer.h"

namespace strata {
namespace normalize_internal {
namespace {

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSeconds: return kNanosPerSecond;
    case TimeUnit::kMilliseconds: return kNanosPerMilli;
    case TimeUnit::kMicroseconds: return kNanosPerMicro;
    case TimeUnit::kNanoseconds: return 1;
  }
  return 1;
}

std::string_view UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSeconds: return "SECONDS";
    case TimeUnit::kMilliseconds: return "MILLISECONDS";
    case TimeUnit::kMicroseconds: return "MICROSECONDS";
    case TimeUnit::kNanoseconds: return "NANOSECONDS";
  }
  return "?";
}

// The subject of a rejection ("time", "measure \"cpu\""), formatted only
// when a rejection is actually reported: validation runs per value.
std::string SubjectText(std::string_view kind, std::string_view name) {
  return name.empty() ? std::string(kind) : StrCat(kind, " \"", name, "\"");
}

}  // namespace

absl::Status Reject(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

absl::StatusOr<int64_t> ToNanos(int64_t count, TimeUnit unit, std::string_view subject_kind,
                                std::string_view subject_name) {
  int64_t factor = NanosPerUnit(unit);
  if (count < 0) {
    return Reject(StrCat(SubjectText(subject_kind, subject_name), " ", count,
                         " is before 1970; negative times are not supported"));
  }
  if (count > std::numeric_limits<int64_t>::max() / factor) {
    return Reject(StrCat(SubjectText(subject_kind, subject_name), " ", count, " ",
                         UnitName(unit),
                         " is past 2262-04-11, the last representable time; check time_unit"));
  }
  return count * factor;
}

absl::Status CheckOtherValue(const std::optional<MeasureKind>& declared,
                             const std::optional<ValueView>& value, TimeUnit unit,
                             std::string_view measure_name, ValueView* out) {
  if (!value) {
    return Reject(StrCat(SubjectText("measure", measure_name),
                         " has no value; set one of double_value, bigint_value, "
                         "varchar_value, boolean_value or timestamp_value"));
  }
  ValueView v = *value;
  if (declared && *declared != static_cast<MeasureKind>(v.type)) {
    return Reject(StrCat(SubjectText("measure", measure_name), " is declared ",
                         MeasureKindName(*declared), " but its value is a ", TypeName(v.type),
                         "; make the type and the value agree"));
  }
  switch (v.type) {
    case ValueType::kDouble:
      if (!std::isfinite(v.real)) {
        return Reject(StrCat(SubjectText("measure", measure_name), " is ", v.real,
                             "; NaN and infinite values cannot be stored"));
      }
      break;
    case ValueType::kVarchar:
      if (v.text.empty() || v.text.size() > kMaxValueBytes) {
        return Reject(StrCat(SubjectText("measure", measure_name), " is a VARCHAR of ",
                             v.text.size(), " bytes; it must be 1..", kMaxValueBytes));
      }
      break;
    case ValueType::kTimestamp: {
      ASSIGN_OR_RETURN(v.number, ToNanos(v.number, unit, "measure", measure_name));
      break;
    }
    default:
      break;
  }
  *out = v;
  return absl::OkStatus();
}

absl::Status CheckNameClashes(std::vector<std::string_view>& measure_names,
                              const NormalizedRecord& record) {
  std::sort(measure_names.begin(), measure_names.end(), ShortFirst);
  for (size_t i = 1; i < measure_names.size(); ++i) {
    if (measure_names[i] == measure_names[i - 1]) {
      return Reject(StrCat("measure \"", measure_names[i],
                           "\" appears twice in measure_values; name each once"));
    }
  }
  // With both name lists in one order, one merge finds a name in both.
  absl::InlinedVector<std::string_view, 32> dimension_names;
  dimension_names.reserve(record.dimensions.size());
  for (const auto& d : record.dimensions) dimension_names.push_back(d.first);
  std::sort(dimension_names.begin(), dimension_names.end(), ShortFirst);
  auto dimension = dimension_names.begin();
  for (std::string_view name : measure_names) {
    while (dimension != dimension_names.end() && ShortFirst(*dimension, name)) ++dimension;
    if (dimension != dimension_names.end() && *dimension == name) {
      return Reject(StrCat("\"", name,
                           "\" is both a dimension and a measure; rename one of them"));
    }
  }
  return absl::OkStatus();
}

}  // namespace normalize_internal
namespace {

// Reads an InputRecord for the normalizer (record_normalizer.h).
struct InputAccess {
  static std::optional<std::string> Unreadable(const InputRecord& r) { return r.unreadable; }
  static const std::string* MeasureName(const InputRecord& r) {
    return r.measure_name ? &*r.measure_name : nullptr;
  }
  static void TakeMeasureName(InputRecord& r, std::string* out) {
    *out = *std::move(r.measure_name);
  }
  static size_t DimensionCount(const InputRecord& r) { return r.dimensions.size(); }
  static std::string_view DimensionName(const InputRecord& r, size_t i) {
    return r.dimensions[i].name;
  }
  static std::string_view DimensionValue(const InputRecord& r, size_t i) {
    return r.dimensions[i].value;
  }
  static std::optional<MeasureKind> MeasureValueType(const InputRecord& r) {
    return r.measure_value_type;
  }
  static bool HasMeasureValue(const InputRecord& r) { return r.measure_value.has_value(); }
  static std::optional<ValueView> MeasureValue(const InputRecord& r) {
    if (!r.measure_value) return std::nullopt;
    return ValueView::Of(*r.measure_value);
  }
  static size_t MeasureValueCount(const InputRecord& r) { return r.measure_values.size(); }
  static std::string_view MeasureValueName(const InputRecord& r, size_t i) {
    return r.measure_values[i].name;
  }
  static std::optional<MeasureKind> MeasureValueKind(const InputRecord& r, size_t i) {
    return r.measure_values[i].type;
  }
  static std::optional<ValueView> MeasureValueValue(const InputRecord& r, size_t i) {
    const std::optional<Value>& value = r.measure_values[i].value;
    if (!value) return std::nullopt;
    return ValueView::Of(*value);
  }
  static std::optional<int64_t> Time(const InputRecord& r) { return r.time; }
  static std::optional<TimeUnit> Unit(const InputRecord& r) { return r.time_unit; }
  static std::optional<int64_t> Version(const InputRecord& r) { return r.version; }
};

}  // namespace

absl::Status ValidateRequestShape(const WriteRequest& request, int max_records) {
  return normalize_internal::ValidateShape<InputAccess>(request.common_attributes,
                                                        request.records, max_records);
}

absl::StatusOr<NormalizedRecord> NormalizeRecord(const InputRecord& common, InputRecord record,
                                                 const PartitionKey& partition_key) {
  NormalizedRecord out;
  RETURN_IF_ERROR(normalize_internal::NormalizeInto<InputAccess>(
      common, record, common.unreadable, partition_key, nullptr, out));
  return out;
}

absl::Status NormalizeRequestRecord(WriteRequest& request, int i,
                                    const PartitionKey& partition_key, NameMemo* names,
                                    NormalizedRecord* out) {
  return normalize_internal::NormalizeInto<InputAccess>(
      request.common_attributes, request.records[i], request.common_attributes.unreadable,
      partition_key, names, *out);
}

}  // namespace strata
