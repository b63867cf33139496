#include "storage/record_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/inlined_vector.h"
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

// The subject of a rejection ("time", "measure \"cpu\""), formatted only
// when a rejection is actually reported: validation runs per value.
struct Subject {
  std::string_view kind;
  std::string_view name;
  std::string Text() const { return name.empty() ? std::string(kind) : StrCat(kind, " \"", name, "\""); }
};

// Converts a count of `unit` to nanoseconds; fails past year 2262.
absl::StatusOr<int64_t> ToNanos(int64_t count, TimeUnit unit, const Subject& subject) {
  int64_t factor = NanosPerUnit(unit);
  if (count < 0) {
    return Reject(StrCat(subject.Text(), " ", count,
                         " is before 1970; negative times are not supported"));
  }
  if (count > std::numeric_limits<int64_t>::max() / factor) {
    return Reject(StrCat(subject.Text(), " ", count, " ", UnitName(unit),
                         " is past 2262-04-11, the last representable time; check time_unit"));
  }
  return count * factor;
}

// Checks a typed value against its declared type and the value limits, and
// converts TIMESTAMP values to nanoseconds. Takes the value to move it into
// the normalized record.
absl::StatusOr<Value> CheckValue(const std::optional<MeasureKind>& declared,
                                 std::optional<Value> value, TimeUnit unit,
                                 std::string_view measure_name) {
  const Subject subject{"measure", measure_name};
  if (!value) {
    return Reject(StrCat(subject.Text(), " has no value; set one of double_value, bigint_value, "
                               "varchar_value, boolean_value or timestamp_value"));
  }
  if (declared && *declared != static_cast<MeasureKind>(value->type)) {
    return Reject(StrCat(subject.Text(), " is declared ", KindName(*declared), " but its value is a ",
                         TypeName(value->type), "; make the type and the value agree"));
  }
  Value v = *std::move(value);
  switch (v.type) {
    case ValueType::kDouble:
      if (!std::isfinite(v.real)) {
        return Reject(StrCat(subject.Text(), " is ", v.real, "; NaN and infinite values cannot be stored"));
      }
      break;
    case ValueType::kVarchar:
      if (v.text.empty() || v.text.size() > kMaxValueBytes) {
        return Reject(StrCat(subject.Text(), " is a VARCHAR of ", v.text.size(), " bytes; it must be 1..",
                             kMaxValueBytes));
      }
      break;
    case ValueType::kTimestamp: {
      ASSIGN_OR_RETURN(v.number, ToNanos(v.number, unit, subject));
      break;
    }
    default:
      break;
  }
  return v;
}

// Byte order (the normal form's order of dimensions), deciding most pairs of
// names by their first byte without a call to memcmp (a record sorts ~25
// pairs; names are not empty).
bool NameLess(const std::string& a, const std::string& b) {
  const auto first_a = static_cast<unsigned char>(a[0]);
  const auto first_b = static_cast<unsigned char>(b[0]);
  return first_a != first_b ? first_a < first_b : a < b;
}

// An order for finding equal names, not for showing: by length first, so
// most pairs (attribute names mostly share a prefix) need no memcmp.
bool ShortFirst(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

size_t ValueBytes(const Value& v) {
  return v.type == ValueType::kVarchar ? v.text.size() : sizeof(int64_t);
}

}  // namespace

absl::Status ValidateRequestShape(const WriteRequest& request) {
  const int n = static_cast<int>(request.records.size());
  if (n < 1 || n > kMaxRecordsPerWrite) {
    return absl::InvalidArgumentError(StrCat("a write carries 1..", kMaxRecordsPerWrite,
                                             " records, this one has ", n,
                                             n == 0 ? "" : "; split it into several requests"));
  }
  const auto& common = request.common_attributes.dimensions;
  if (common.empty()) return absl::OkStatus();
  for (int i = 0; i < n; ++i) {
    for (const InputDimension& d : request.records[i].dimensions) {
      for (const InputDimension& c : common) {
        if (c.name == d.name) {
          return absl::InvalidArgumentError(StrCat(
              "dimension \"", d.name, "\" is in both common_attributes and record ", i,
              "; give it in one place only"));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<NormalizedRecord> NormalizeRecord(const InputRecord& common, InputRecord r,
                                                 const PartitionKey& partition_key) {
  // The record's own fields win; dimensions come from both. The record's
  // strings are moved into the result (`r` is the caller's copy);
  // common_attributes', which every record of the request shares, copied.
  const bool own_values = !r.measure_values.empty();
  const std::vector<InputMeasure>& measure_values =
      own_values ? r.measure_values : common.measure_values;
  const std::optional<MeasureKind>& measure_value_type =
      r.measure_value_type ? r.measure_value_type : common.measure_value_type;
  const bool own_value = r.measure_value.has_value();
  const std::optional<Value>& measure_value = own_value ? r.measure_value : common.measure_value;
  const std::optional<int64_t>& time = r.time ? r.time : common.time;
  const std::optional<TimeUnit>& time_unit = r.time_unit ? r.time_unit : common.time_unit;
  const std::optional<int64_t>& version = r.version ? r.version : common.version;

  NormalizedRecord out;
  if (r.unreadable) return Reject(*r.unreadable);
  if (common.unreadable) return Reject(StrCat("common_attributes: ", *common.unreadable));
  if (r.measure_name) {
    out.measure_name = *std::move(r.measure_name);
  } else if (common.measure_name) {
    out.measure_name = *common.measure_name;
  }
  if (out.measure_name.empty()) {
    return Reject("measure_name is missing; every record needs one (or set it in "
                  "common_attributes)");
  }
  RETURN_IF_ERROR(ValidateMeasureName("measure", out.measure_name));

  const size_t dimension_count = common.dimensions.size() + r.dimensions.size();
  if (dimension_count > static_cast<size_t>(kMaxDimensionsPerRecord)) {
    return Reject(StrCat("the record has ", dimension_count, " dimensions; the limit is ",
                         kMaxDimensionsPerRecord));
  }
  // Dimensions come from common_attributes (the first `from_common`) and
  // the record; they are checked, ordered by name through a permutation
  // (the sort moves small indices, not strings; values never decide, as
  // names are unique, checked below), then moved or copied in that order.
  const size_t from_common = common.dimensions.size();
  auto dimension_at = [&](size_t i) -> const InputDimension& {
    return i < from_common ? common.dimensions[i] : r.dimensions[i - from_common];
  };
  absl::InlinedVector<uint8_t, 32> order(dimension_count);  // the count is at most 128
  for (size_t i = 0; i < dimension_count; ++i) {
    order[i] = static_cast<uint8_t>(i);
    const InputDimension& d = dimension_at(i);
    RETURN_IF_ERROR(ValidateDimensionName(d.name));
    if (d.value.empty() || d.value.size() > kMaxValueBytes) {
      return Reject(StrCat("dimension \"", d.name, "\" has a value of ", d.value.size(),
                           " bytes; it must be 1..", kMaxValueBytes));
    }
    if (d.value.find('\0') != std::string::npos) {
      return Reject(StrCat("dimension \"", d.name, "\" has a NUL byte in its value; remove it"));
    }
  }
  std::sort(order.begin(), order.end(), [&](uint8_t a, uint8_t b) {
    return NameLess(dimension_at(a).name, dimension_at(b).name);
  });
  out.dimensions.reserve(dimension_count);
  for (const uint8_t i : order) {
    if (i < from_common) {
      out.dimensions.emplace_back(common.dimensions[i].name, common.dimensions[i].value);
    } else {
      InputDimension& own = r.dimensions[i - from_common];
      out.dimensions.emplace_back(std::move(own.name), std::move(own.value));
    }
  }
  for (size_t i = 1; i < out.dimensions.size(); ++i) {
    if (out.dimensions[i].first == out.dimensions[i - 1].first) {
      return Reject(StrCat("dimension \"", out.dimensions[i].first,
                           "\" appears twice; a record has each dimension once"));
    }
  }

  const TimeUnit unit = time_unit.value_or(TimeUnit::kMilliseconds);
  std::vector<std::string_view> measure_names;  // views of out.measures, in ShortFirst order
  measure_names.reserve(std::max<size_t>(1, measure_values.size()));
  std::optional<MeasureKind> kind = measure_value_type;
  if (!kind && !measure_values.empty()) kind = MeasureKind::kMulti;
  if (kind == MeasureKind::kMulti) {
    if (measure_value) {
      return Reject("a MULTI record carries its values in measure_values, not measure_value");
    }
    if (measure_values.empty()) {
      return Reject("a MULTI record needs at least one entry in measure_values");
    }
    if (static_cast<int>(measure_values.size()) > kMaxMeasuresPerRecord) {
      return Reject(StrCat("the record has ", measure_values.size(),
                           " measure_values; the limit is ", kMaxMeasuresPerRecord));
    }
    out.multi = true;
    size_t bytes = 0;
    out.measures.reserve(measure_values.size());
    for (size_t i = 0; i < measure_values.size(); ++i) {
      const InputMeasure& m = measure_values[i];
      RETURN_IF_ERROR(ValidateMeasureName("measure", m.name));
      if (m.type == MeasureKind::kMulti) {
        return Reject(StrCat("measure \"", m.name, "\" cannot itself be MULTI"));
      }
      Measure& added = out.measures.emplace_back();
      if (own_values) {
        InputMeasure& own = r.measure_values[i];
        added.name = std::move(own.name);
        ASSIGN_OR_RETURN(added.value, CheckValue(own.type, std::move(own.value), unit, added.name));
      } else {
        added.name = m.name;
        ASSIGN_OR_RETURN(added.value, CheckValue(m.type, m.value, unit, added.name));
      }
      bytes += ValueBytes(added.value);
    }
    if (bytes > kMaxMultiMeasureValueBytes) {
      return Reject(StrCat("the record's measure values take ", bytes,
                           " bytes; the limit per record is ", kMaxMultiMeasureValueBytes));
    }
    for (const Measure& m : out.measures) measure_names.push_back(m.name);
    std::sort(measure_names.begin(), measure_names.end(), ShortFirst);
    for (size_t i = 1; i < measure_names.size(); ++i) {
      if (measure_names[i] == measure_names[i - 1]) {
        return Reject(StrCat("measure \"", measure_names[i],
                             "\" appears twice in measure_values; name each once"));
      }
    }
  } else {
    if (!measure_values.empty()) {
      return Reject(StrCat("measure_values is only for MULTI records, but the type is ",
                           KindName(*kind)));
    }
    ASSIGN_OR_RETURN(Value v, own_value ? CheckValue(kind, std::move(r.measure_value), unit,
                                                     out.measure_name)
                                        : CheckValue(kind, measure_value, unit, out.measure_name));
    out.measures.push_back({out.measure_name, std::move(v)});
    measure_names.push_back(out.measures.back().name);
  }

  // With both name lists in one order, one merge finds a name in both.
  absl::InlinedVector<std::string_view, 32> dimension_names;
  dimension_names.reserve(out.dimensions.size());
  for (const auto& d : out.dimensions) dimension_names.push_back(d.first);
  std::sort(dimension_names.begin(), dimension_names.end(), ShortFirst);
  auto dimension = dimension_names.begin();
  for (std::string_view name : measure_names) {
    while (dimension != dimension_names.end() && ShortFirst(*dimension, name)) ++dimension;
    if (dimension != dimension_names.end() && *dimension == name) {
      return Reject(StrCat("\"", name,
                           "\" is both a dimension and a measure; rename one of them"));
    }
  }

  if (!time) {
    return Reject("time is missing; every record needs one (or set it in common_attributes)");
  }
  ASSIGN_OR_RETURN(out.time_nanos, ToNanos(*time, unit, Subject{"time", ""}));

  out.version = version.value_or(1);
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
