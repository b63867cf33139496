#include "storage/record_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "storage/names.h"

namespace strata {
namespace {

absl::Status Reject(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

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

std::string_view KindName(MeasureKind kind) {
  if (kind == MeasureKind::kMulti) return "MULTI";
  return TypeName(static_cast<ValueType>(kind));
}

// Converts a count of `unit` to nanoseconds; fails past year 2262.
absl::StatusOr<int64_t> ToNanos(int64_t count, TimeUnit unit, std::string_view what) {
  int64_t factor = NanosPerUnit(unit);
  if (count < 0) {
    return Reject(StrCat(what, " ", count, " is before 1970; negative times are not supported"));
  }
  if (count > std::numeric_limits<int64_t>::max() / factor) {
    return Reject(StrCat(what, " ", count, " ", UnitName(unit),
                         " is past 2262-04-11, the last representable time; check time_unit"));
  }
  return count * factor;
}

// Checks a typed value against its declared type and the value limits, and
// converts TIMESTAMP values to nanoseconds. `what` names the measure.
absl::StatusOr<Value> CheckValue(const std::optional<MeasureKind>& declared,
                                 const std::optional<Value>& value, TimeUnit unit,
                                 std::string_view what) {
  if (!value) {
    return Reject(StrCat(what, " has no value; set one of double_value, bigint_value, "
                               "varchar_value, boolean_value or timestamp_value"));
  }
  if (declared && *declared != static_cast<MeasureKind>(value->type)) {
    return Reject(StrCat(what, " is declared ", KindName(*declared), " but its value is a ",
                         TypeName(value->type), "; make the type and the value agree"));
  }
  Value v = *value;
  switch (v.type) {
    case ValueType::kDouble:
      if (!std::isfinite(v.real)) {
        return Reject(StrCat(what, " is ", v.real, "; NaN and infinite values cannot be stored"));
      }
      break;
    case ValueType::kVarchar:
      if (v.text.empty() || v.text.size() > kMaxValueBytes) {
        return Reject(StrCat(what, " is a VARCHAR of ", v.text.size(), " bytes; it must be 1..",
                             kMaxValueBytes));
      }
      break;
    case ValueType::kTimestamp: {
      ASSIGN_OR_RETURN(v.number, ToNanos(v.number, unit, what));
      break;
    }
    default:
      break;
  }
  return v;
}

size_t ValueBytes(const Value& v) {
  return v.type == ValueType::kVarchar ? v.text.size() : sizeof(int64_t);
}

}  // namespace

absl::StatusOr<std::vector<InputRecord>> MergeCommonAttributes(const WriteRequest& request) {
  const int n = static_cast<int>(request.records.size());
  if (n < 1 || n > kMaxRecordsPerWrite) {
    return absl::InvalidArgumentError(StrCat("a write carries 1..", kMaxRecordsPerWrite,
                                             " records, this one has ", n,
                                             n == 0 ? "" : "; split it into several requests"));
  }
  const InputRecord& common = request.common_attributes;
  std::vector<InputRecord> merged;
  merged.reserve(n);
  for (int i = 0; i < n; ++i) {
    const InputRecord& r = request.records[i];
    for (const InputDimension& d : r.dimensions) {
      for (const InputDimension& c : common.dimensions) {
        if (c.name == d.name) {
          return absl::InvalidArgumentError(StrCat(
              "dimension \"", d.name, "\" is in both common_attributes and record ", i,
              "; give it in one place only"));
        }
      }
    }
    InputRecord m;
    m.dimensions = common.dimensions;
    m.dimensions.insert(m.dimensions.end(), r.dimensions.begin(), r.dimensions.end());
    m.measure_name = r.measure_name ? r.measure_name : common.measure_name;
    m.measure_value_type = r.measure_value_type ? r.measure_value_type : common.measure_value_type;
    m.measure_value = r.measure_value ? r.measure_value : common.measure_value;
    m.measure_values = r.measure_values.empty() ? common.measure_values : r.measure_values;
    m.time = r.time ? r.time : common.time;
    m.time_unit = r.time_unit ? r.time_unit : common.time_unit;
    m.version = r.version ? r.version : common.version;
    merged.push_back(std::move(m));
  }
  return merged;
}

absl::StatusOr<NormalizedRecord> NormalizeRecord(const InputRecord& r,
                                                 const PartitionKey& partition_key) {
  NormalizedRecord out;
  if (!r.measure_name || r.measure_name->empty()) {
    return Reject("measure_name is missing; every record needs one (or set it in "
                  "common_attributes)");
  }
  RETURN_IF_ERROR(ValidateMeasureName("measure", *r.measure_name));
  out.measure_name = *r.measure_name;

  if (static_cast<int>(r.dimensions.size()) > kMaxDimensionsPerRecord) {
    return Reject(StrCat("the record has ", r.dimensions.size(), " dimensions; the limit is ",
                         kMaxDimensionsPerRecord));
  }
  for (const InputDimension& d : r.dimensions) {
    RETURN_IF_ERROR(ValidateDimensionName(d.name));
    if (d.value.empty() || d.value.size() > kMaxValueBytes) {
      return Reject(StrCat("dimension \"", d.name, "\" has a value of ", d.value.size(),
                           " bytes; it must be 1..", kMaxValueBytes));
    }
    if (d.value.find('\0') != std::string::npos) {
      return Reject(StrCat("dimension \"", d.name, "\" has a NUL byte in its value; remove it"));
    }
    out.dimensions.emplace_back(d.name, d.value);
  }
  std::sort(out.dimensions.begin(), out.dimensions.end());
  for (size_t i = 1; i < out.dimensions.size(); ++i) {
    if (out.dimensions[i].first == out.dimensions[i - 1].first) {
      return Reject(StrCat("dimension \"", out.dimensions[i].first,
                           "\" appears twice; a record has each dimension once"));
    }
  }

  const TimeUnit unit = r.time_unit.value_or(TimeUnit::kMilliseconds);
  std::optional<MeasureKind> kind = r.measure_value_type;
  if (!kind && !r.measure_values.empty()) kind = MeasureKind::kMulti;
  if (kind == MeasureKind::kMulti) {
    if (r.measure_value) {
      return Reject("a MULTI record carries its values in measure_values, not measure_value");
    }
    if (r.measure_values.empty()) {
      return Reject("a MULTI record needs at least one entry in measure_values");
    }
    if (static_cast<int>(r.measure_values.size()) > kMaxMeasuresPerRecord) {
      return Reject(StrCat("the record has ", r.measure_values.size(),
                           " measure_values; the limit is ", kMaxMeasuresPerRecord));
    }
    out.multi = true;
    size_t bytes = 0;
    for (const InputMeasure& m : r.measure_values) {
      RETURN_IF_ERROR(ValidateMeasureName("measure", m.name));
      if (m.type == MeasureKind::kMulti) {
        return Reject(StrCat("measure \"", m.name, "\" cannot itself be MULTI"));
      }
      ASSIGN_OR_RETURN(Value v, CheckValue(m.type, m.value, unit,
                                           StrCat("measure \"", m.name, "\"")));
      bytes += ValueBytes(v);
      out.measures.push_back({m.name, std::move(v)});
    }
    if (bytes > kMaxMultiMeasureValueBytes) {
      return Reject(StrCat("the record's measure values take ", bytes,
                           " bytes; the limit per record is ", kMaxMultiMeasureValueBytes));
    }
    std::vector<std::string_view> names;
    for (const Measure& m : out.measures) names.push_back(m.name);
    std::sort(names.begin(), names.end());
    for (size_t i = 1; i < names.size(); ++i) {
      if (names[i] == names[i - 1]) {
        return Reject(StrCat("measure \"", names[i],
                             "\" appears twice in measure_values; name each once"));
      }
    }
  } else {
    if (!r.measure_values.empty()) {
      return Reject(StrCat("measure_values is only for MULTI records, but the type is ",
                           KindName(*kind)));
    }
    ASSIGN_OR_RETURN(Value v, CheckValue(kind, r.measure_value, unit,
                                         StrCat("measure \"", out.measure_name, "\"")));
    out.measures.push_back({out.measure_name, std::move(v)});
  }

  for (const auto& [name, value] : out.dimensions) {
    for (const Measure& m : out.measures) {
      if (m.name == name) {
        return Reject(StrCat("\"", name,
                             "\" is both a dimension and a measure; rename one of them"));
      }
    }
  }

  if (!r.time) return Reject("time is missing; every record needs one (or set it in "
                             "common_attributes)");
  ASSIGN_OR_RETURN(out.time_nanos, ToNanos(*r.time, unit, "time"));

  out.version = r.version.value_or(1);
  if (out.version < 1) {
    return Reject(StrCat("version ", out.version, " is below 1; versions start at 1"));
  }

  if (partition_key.type == PartitionKeyType::kDimension &&
      partition_key.enforcement == Enforcement::kRequired) {
    bool present = std::any_of(out.dimensions.begin(), out.dimensions.end(),
                               [&](const auto& d) { return d.first == partition_key.name; });
    if (!present) {
      return Reject(StrCat("the table's partition key dimension \"", partition_key.name,
                           "\" is required but missing from the record"));
    }
  }
  return out;
}

}  // namespace strata
