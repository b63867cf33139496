// NormalizeRecord's algorithm over any form a record arrives in: the
// engine's InputRecord (line protocol, Prometheus, scheduled queries, tests)
// or the wire message itself (server/wire/write_convert.h), so a gRPC write's
// strings are copied once, from the request into the normalized record,
// rather than through an InputRecord (docs/benchmarks.md).
//
// `Access` reads a record of type `R`; every member is static:
//   std::optional<std::string> Unreadable(const R&)  a field the server cannot read
//   const S* MeasureName(const R&)   nullptr when unset (S: std::string or string_view)
//   void TakeMeasureName(R&, std::string* out)   assigns it to *out
//   size_t DimensionCount(const R&)
//   std::string_view DimensionName(const R&, size_t), DimensionValue(...)
//   std::optional<MeasureKind> MeasureValueType(const R&)
//   bool HasMeasureValue(const R&)
//   std::optional<ValueView> MeasureValue(const R&)
//   size_t MeasureValueCount(const R&)
//   std::string_view MeasureValueName(const R&, size_t)
//   std::optional<MeasureKind> MeasureValueKind(const R&, size_t)
//   std::optional<ValueView> MeasureValueValue(const R&, size_t)
//   std::optional<int64_t> Time(const R&), Version(const R&)
//   std::optional<TimeUnit> Unit(const R&)
// "Take" may move the field out of the record (it is read once). The
// measure name is assigned in place, not returned: a name within the
// short-string buffer is copied on every move. Measure names and values are
// only read: the record's measures keep the names once per shape and the
// values packed (storage/rows/measure_list.h), so they are viewed, not copied.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/unaligned.h"
#include "storage/catalog/catalog_types.h"
#include "storage/catalog/names.h"
#include "storage/rows/row_codec.h"
#include "storage/rows/write_types.h"
#include "storage/write/name_memo.h"

namespace strata::normalize_internal {

absl::Status Reject(std::string message);
// Converts a count of `unit` to nanoseconds; `subject` names it in a
// rejection ("time", "measure \"x\"").
absl::StatusOr<int64_t> ToNanos(int64_t count, TimeUnit unit, std::string_view subject_kind,
                                std::string_view subject_name);
// CheckValue for any value but a finite DOUBLE (out of line).
absl::Status CheckOtherValue(const std::optional<MeasureKind>& declared,
                             const std::optional<ValueView>& value, TimeUnit unit,
                             std::string_view measure_name, ValueView* out);
// Whether `value` is a finite DOUBLE declared DOUBLE or not declared: nearly
// every value written, which needs no other check.
inline bool IsPlainDouble(const std::optional<MeasureKind>& declared,
                          const std::optional<ValueView>& value) {
  return value && value->type == ValueType::kDouble &&
         (!declared || *declared == MeasureKind::kDouble) && std::isfinite(value->real);
}
// Checks a typed value against its declared type and the value limits, and
// gives it to *out with a TIMESTAMP converted to nanoseconds. A plain DOUBLE
// is passed inline.
inline absl::Status CheckValue(const std::optional<MeasureKind>& declared,
                               const std::optional<ValueView>& value, TimeUnit unit,
                               std::string_view measure_name, ValueView* out) {
  if (IsPlainDouble(declared, value)) {
    *out = *value;
    return absl::OkStatus();
  }
  return CheckOtherValue(declared, value, unit, measure_name, out);
}
// Byte order (the normal form's order of dimensions), deciding most pairs by
// their first byte without a call to memcmp. Names are not empty.
inline bool NameLess(std::string_view a, std::string_view b) {
  const auto first_a = static_cast<unsigned char>(a[0]);
  const auto first_b = static_cast<unsigned char>(b[0]);
  return first_a != first_b ? first_a < first_b : a < b;
}
// Whether two names are equal, without a call to memcmp for those of at
// most 16 bytes (nearly all): the name memo compares ~30 per record.
inline bool SameName(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n > 16) return a == b;
  auto word = LoadUnaligned<uint64_t>;
  auto half = LoadUnaligned<uint32_t>;
  // Two loads that overlap when the name is shorter than both together.
  if (n >= 8) {
    return word(a.data()) == word(b.data()) && word(a.data() + n - 8) == word(b.data() + n - 8);
  }
  if (n >= 4) {
    return half(a.data()) == half(b.data()) && half(a.data() + n - 4) == half(b.data() + n - 4);
  }
  // Bytes 0, n/2 and n-1 are every byte of 1 to 3.
  return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}
// Whether `s` holds a NUL byte, a word at a time with the tail as one more
// load (as IsAscii): the normalizer asks it of every dimension value, where
// a call into memchr each was ~190 instructions per row.
inline bool HasNulByte(std::string_view s) {
  // Not zero exactly when a byte of `w` is (a borrow may mark the byte above
  // a zero byte too, but never marks one without a zero byte below it).
  auto has_zero = [](uint64_t w) {
    return ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0;
  };
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      if (has_zero(LoadUnaligned<uint64_t>(p + i))) return true;
    }
    return has_zero(LoadUnaligned<uint64_t>(p + n - 8));
  }
  if (n >= 4) {
    return has_zero(uint64_t{LoadUnaligned<uint32_t>(p)} |
                    uint64_t{LoadUnaligned<uint32_t>(p + n - 4)} << 32);
  }
  // Bytes 0, n/2 and n-1 are every byte of 1 to 3.
  return n > 0 && (p[0] == '\0' || p[n / 2] == '\0' || p[n - 1] == '\0');
}
// An order for finding equal names, not for showing: by length first, so
// most pairs (attribute names mostly share a prefix) need no memcmp.
inline bool ShortFirst(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}
inline size_t ValueBytes(const ValueView& v) {
  return v.type == ValueType::kVarchar ? v.text.size() : sizeof(int64_t);
}
// Names of measures and dimensions checked against each other: duplicates
// among `measure_names` and a name both a dimension and a measure.
absl::Status CheckNameClashes(std::vector<std::string_view>& measure_names,
                              const NormalizedRecord& record);

// ValidateRequestShape over records read by `Access`, at most `max_records`
// of them (kMaxRecordsPerWrite, or kMaxRecordsPerBulkWrite for a bulk door).
template <typename Access, typename R, typename Records>
absl::Status ValidateShape(const R& common, const Records& records, int max_records) {
  const size_t n = records.size();
  if (n < 1 || n > static_cast<size_t>(max_records)) {
    return absl::InvalidArgumentError(StrCat("a write carries 1..", max_records,
                                             " records, this one has ", n,
                                             n == 0 ? "" : "; split it into several requests"));
  }
  const size_t common_dimensions = Access::DimensionCount(common);
  if (common_dimensions == 0) return absl::OkStatus();
  // A set, not a loop per pair: a 16 MB request can carry a million names on
  // each side, and records[i] × common comparisons would take hours.
  absl::flat_hash_set<std::string_view> common_names;
  common_names.reserve(common_dimensions);
  for (size_t c = 0; c < common_dimensions; ++c) {
    common_names.insert(Access::DimensionName(common, c));
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < Access::DimensionCount(records[i]); ++d) {
      const std::string_view name = Access::DimensionName(records[i], d);
      if (common_names.contains(name)) {
        return absl::InvalidArgumentError(StrCat("dimension \"", name,
                                                 "\" is in both common_attributes and record ", i,
                                                 "; give it in one place only"));
      }
    }
  }
  return absl::OkStatus();
}

// NormalizeInto's measures: checked, their types into `types_out` and their
// values packed into `values_out` as MeasureList holds them; sets out.multi.
// `kind` is the record's measure type (MULTI when none is given and it has
// measure_values). Names are only read where needed: checked when the memo
// does not know them (`known`).
template <typename Access, typename R>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status PackMeasures(
    const R& common, const R& r, const R& values_from, size_t value_count,
    std::optional<MeasureKind> kind, bool own_value, bool has_value, TimeUnit unit, bool known,
    NormalizedRecord& out, absl::InlinedVector<ValueType, 16>* types_out,
    MeasureList::Values* values_out) {
  absl::InlinedVector<ValueType, 16>& types = *types_out;
  MeasureList::Values& values = *values_out;
  auto measure_name_at = [&](size_t i) {
    return out.multi ? Access::MeasureValueName(values_from, i)
                     : std::string_view(out.measure_name);
  };
  // Packed as they are checked into `values`, sized once for every value
  // but a VARCHAR's text (grown for those) once the count is known to be
  // within the limit (a hostile record can name millions of values).
  size_t packed = 0;
  auto pack = [&](const ValueView& v) {
    if (v.type == ValueType::kVarchar) values.resize(values.size() + v.text.size());
    packed = EncodeValue(values.data() + packed, v) - values.data();
  };
  ValueView value;  // each value in turn, checked
  if (kind == MeasureKind::kMulti) {
    if (has_value) {
      return Reject("a MULTI record carries its values in measure_values, not measure_value");
    }
    if (value_count == 0) return Reject("a MULTI record needs at least one entry in measure_values");
    if (static_cast<int>(value_count) > kMaxMeasuresPerRecord) {
      return Reject(StrCat("the record has ", value_count, " measure_values; the limit is ",
                           kMaxMeasuresPerRecord));
    }
    out.multi = true;
    size_t bytes = 0;
    values.resize(value_count * kMaxVarint64Bytes);
    types.resize(value_count);
    for (size_t i = 0; i < value_count; ++i) {
      const std::optional<MeasureKind> declared = Access::MeasureValueKind(values_from, i);
      const std::optional<ValueView> given = Access::MeasureValueValue(values_from, i);
      if (!known) RETURN_IF_ERROR(ValidateMeasureName("measure", measure_name_at(i)));
      // A finite DOUBLE, nearly every value written, is packed here: through
      // CheckValue and EncodeValue it was ~60 instructions a value.
      if (IsPlainDouble(declared, given)) {
        packed = EncodeDouble(values.data() + packed, given->real) - values.data();
        bytes += sizeof(double);
        types[i] = ValueType::kDouble;
        continue;
      }
      const std::string_view name = measure_name_at(i);
      if (declared == MeasureKind::kMulti) {
        return Reject(StrCat("measure \"", name, "\" cannot itself be MULTI"));
      }
      RETURN_IF_ERROR(CheckValue(declared, given, unit, name, &value));
      bytes += ValueBytes(value);
      types[i] = value.type;
      pack(value);
    }
    if (bytes > kMaxMultiMeasureValueBytes) {
      return Reject(StrCat("the record's measure values take ", bytes,
                           " bytes; the limit per record is ", kMaxMultiMeasureValueBytes));
    }
  } else {
    if (value_count > 0) {
      return Reject(StrCat("measure_values is only for MULTI records, but the type is ",
                           MeasureKindName(*kind)));
    }
    RETURN_IF_ERROR(CheckValue(
        kind, own_value ? Access::MeasureValue(r) : Access::MeasureValue(common), unit,
        out.measure_name, &value));
    values.resize(kMaxVarint64Bytes);
    types.push_back(value.type);
    pack(value);
  }
  values.resize(packed);
  return absl::OkStatus();
}

// NormalizeRecord over a record read by `Access`, into `out`, a record as
// default-constructed (the writer's own slot for it: a NormalizedRecord
// holds its dimensions and values inline, ~300 bytes that each move copied;
// on an error `out` holds a part of the record). `common_unreadable` is
// Access::Unreadable(common), found once per request by the caller (a
// hostile common_attributes can carry a million measure values; every record
// would walk them again). `memo`, when given, skips the checks of names the
// previous record already passed, and remembers this record's.
template <typename Access, typename R>
absl::Status NormalizeInto(const R& common, R& r,
                           const std::optional<std::string>& common_unreadable,
                           const PartitionKey& partition_key, NameMemo* memo,
                           NormalizedRecord& out) {
  // The record's own fields win; dimensions come from both. The record's
  // strings are taken into the result; common_attributes', which every
  // record of the request shares, copied.
  const bool own_values = Access::MeasureValueCount(r) > 0;
  const R& values_from = own_values ? r : common;
  const size_t value_count = Access::MeasureValueCount(values_from);
  std::optional<MeasureKind> kind = Access::MeasureValueType(r);
  if (!kind) kind = Access::MeasureValueType(common);
  const bool own_value = Access::HasMeasureValue(r);
  const bool has_value = own_value || Access::HasMeasureValue(common);
  std::optional<int64_t> time = Access::Time(r);
  if (!time) time = Access::Time(common);
  std::optional<TimeUnit> time_unit = Access::Unit(r);
  if (!time_unit) time_unit = Access::Unit(common);
  std::optional<int64_t> version = Access::Version(r);
  if (!version) version = Access::Version(common);

  if (auto unreadable = Access::Unreadable(r)) return Reject(*std::move(unreadable));
  if (common_unreadable) return Reject(StrCat("common_attributes: ", *common_unreadable));
  if (Access::MeasureName(r) != nullptr) {
    Access::TakeMeasureName(r, &out.measure_name);
  } else if (const auto* name = Access::MeasureName(common); name != nullptr) {
    out.measure_name = *name;
  }
  if (out.measure_name.empty()) {
    return Reject("measure_name is missing; every record needs one (or set it in "
                  "common_attributes)");
  }

  const size_t from_common = Access::DimensionCount(common);
  const size_t dimension_count = from_common + Access::DimensionCount(r);
  auto name_at = [&](size_t i) {
    return i < from_common ? Access::DimensionName(common, i)
                           : Access::DimensionName(r, i - from_common);
  };
  // The names are those of the memo's record: every check below that reads
  // names alone passed for them already.
  const bool multi_names = kind == MeasureKind::kMulti || (!kind && value_count > 0);
  const bool known = [&] {
    if (memo == nullptr || !memo->valid() || memo->multi() != multi_names ||
        memo->dimension_count() != dimension_count ||
        memo->name_count() != 1 + dimension_count + (multi_names ? value_count : 0) ||
        !SameName(memo->name(0), out.measure_name)) {
      return false;
    }
    for (size_t i = 0; i < dimension_count; ++i) {
      if (!SameName(memo->name(1 + i), name_at(i))) return false;
    }
    for (size_t i = 0; multi_names && i < value_count; ++i) {
      if (!SameName(memo->name(1 + dimension_count + i),
                    Access::MeasureValueName(values_from, i))) {
        return false;
      }
    }
    return true;
  }();
  if (!known) RETURN_IF_ERROR(ValidateMeasureName("measure", out.measure_name));
  if (dimension_count > static_cast<size_t>(kMaxDimensionsPerRecord)) {
    return Reject(StrCat("the record has ", dimension_count, " dimensions; the limit is ",
                         kMaxDimensionsPerRecord));
  }

  // Dimensions come from common_attributes (the first `from_common`) and
  // the record; they are checked, ordered by name through a permutation
  // (the sort moves small indices, not strings; values never decide, as
  // names are unique, checked below), then copied in that order into the
  // record's one dimension string.
  absl::InlinedVector<uint8_t, 32> order;  // the count is at most 128
  auto value_at = [&](size_t i) {
    return i < from_common ? Access::DimensionValue(common, i)
                           : Access::DimensionValue(r, i - from_common);
  };
  size_t dimension_bytes = 0;
  for (size_t i = 0; i < dimension_count; ++i) {
    const std::string_view name = name_at(i);
    const std::string_view value = value_at(i);
    dimension_bytes += name.size() + value.size();
    if (!known) RETURN_IF_ERROR(ValidateDimensionName(name));
    if (value.empty() || value.size() > kMaxValueBytes) {
      return Reject(StrCat("dimension \"", name, "\" has a value of ", value.size(),
                           " bytes; it must be 1..", kMaxValueBytes));
    }
    if (HasNulByte(value)) {
      return Reject(StrCat("dimension \"", name, "\" has a NUL byte in its value; remove it"));
    }
  }
  if (!known) {
    order.resize(dimension_count);
    for (size_t i = 0; i < dimension_count; ++i) order[i] = static_cast<uint8_t>(i);
    std::sort(order.begin(), order.end(),
              [&](uint8_t a, uint8_t b) { return NameLess(name_at(a), name_at(b)); });
  }
  // The memo's order is this record's when it knows the names (not copied).
  const uint8_t* sorted = known ? memo->order().data() : order.data();
  out.dimensions.Assign(dimension_count, dimension_bytes, [&](size_t k) {
    return DimensionList::Dimension(name_at(sorted[k]), value_at(sorted[k]));
  });
  for (size_t k = 1; !known && k < dimension_count; ++k) {
    if (name_at(sorted[k]) == name_at(sorted[k - 1])) {
      return Reject(StrCat("dimension \"", name_at(sorted[k]),
                           "\" appears twice; a record has each dimension once"));
    }
  }

  const TimeUnit unit = time_unit.value_or(TimeUnit::kMilliseconds);
  // The measures' types, and their values packed as out.measures holds them.
  absl::InlinedVector<ValueType, 16> types;
  MeasureList::Values values;
  if (!kind && value_count > 0) kind = MeasureKind::kMulti;
  RETURN_IF_ERROR((PackMeasures<Access, R>(common, r, values_from, value_count, kind, own_value,
                                           has_value, unit, known, out, &types, &values)));
  auto measure_name_at = [&](size_t i) {
    return out.multi ? Access::MeasureValueName(values_from, i)
                     : std::string_view(out.measure_name);
  };
  // Only for a record the memo does not know, or a new shape.
  auto gather_names = [&] {
    std::vector<std::string_view> names(types.size());
    for (size_t i = 0; i < names.size(); ++i) names[i] = measure_name_at(i);
    return names;
  };
  if (!known) {
    std::vector<std::string_view> measure_names = gather_names();
    RETURN_IF_ERROR(CheckNameClashes(measure_names, out));
  }
  // The shape of the memo's record when names and types are the same (the
  // names are when `known`), else a new one, which the memo keeps once the
  // record passed every check.
  std::shared_ptr<const RowShape> shape;
  if (known && memo->shape() != nullptr &&
      std::equal(types.begin(), types.end(), memo->shape()->types().begin(),
                 memo->shape()->types().end())) {
    shape = memo->shape();
  } else {
    shape = MakeRowShape(gather_names(), types);
    if (shape == nullptr) return absl::InternalError("the record's measures have no shape");
  }
  out.measures = MeasureList(std::move(shape), std::move(values));

  if (!time) {
    return Reject("time is missing; every record needs one (or set it in common_attributes)");
  }
  ASSIGN_OR_RETURN(out.time_nanos, ToNanos(*time, unit, "time", ""));

  out.version = version.value_or(1);
  if (out.version < 1) {
    return Reject(StrCat("version ", out.version, " is below 1; versions start at 1"));
  }

  if (partition_key.type == PartitionKeyType::kDimension &&
      partition_key.enforcement == Enforcement::kRequired) {
    if (!out.dimensions.Find(partition_key.name)) {
      return Reject(StrCat("the table's partition key dimension \"", partition_key.name,
                           "\" is required but missing from the record"));
    }
  }
  if (memo != nullptr) {
    if (!known) {
      memo->Remember(out, order);
    } else if (memo->shape() != out.measures.shape()) {
      memo->set_shape(out.measures.shape());  // the same names, other types
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::normalize_internal
