#include "server/line_write_source.h"

#include <optional>
#include <string>

#include "storage/record_normalizer.h"

namespace strata {
namespace {

MeasureKind KindOf(ValueType type) {
  switch (type) {
    case ValueType::kDouble: return MeasureKind::kDouble;
    case ValueType::kBigint: return MeasureKind::kBigint;
    case ValueType::kVarchar: return MeasureKind::kVarchar;
    case ValueType::kBoolean: return MeasureKind::kBoolean;
    case ValueType::kTimestamp: return MeasureKind::kTimestamp;
  }
  return MeasureKind::kDouble;
}

// Reads a LineRecord for the normalizer (storage/record_normalizer.h). A
// field's declared type is its value's: line protocol says a type only by
// the value's form.
struct LineAccess {
  using R = const LineRecord;
  static std::optional<std::string> Unreadable(R&) { return std::nullopt; }
  static const std::string* MeasureName(R& r) {
    return r.point != nullptr ? &r.point->measurement : nullptr;
  }
  static void TakeMeasureName(R& r, std::string* out) { out->assign(r.point->measurement); }
  static size_t DimensionCount(R& r) { return r.point != nullptr ? r.point->tags.size() : 0; }
  static std::string_view DimensionName(R& r, size_t i) { return r.point->tags[i].first; }
  static std::string_view DimensionValue(R& r, size_t i) { return r.point->tags[i].second; }
  static std::optional<MeasureKind> MeasureValueType(R& r) {
    if (r.point == nullptr) return std::nullopt;
    return MeasureKind::kMulti;
  }
  static bool HasMeasureValue(R&) { return false; }
  static std::optional<ValueView> MeasureValue(R&) { return std::nullopt; }
  static size_t MeasureValueCount(R& r) { return r.point != nullptr ? r.point->fields.size() : 0; }
  static std::string_view MeasureValueName(R& r, size_t i) { return r.point->fields[i].first; }
  static std::optional<MeasureKind> MeasureValueKind(R& r, size_t i) {
    return KindOf(r.point->fields[i].second.type);
  }
  static std::optional<ValueView> MeasureValueValue(R& r, size_t i) {
    return ValueView::Of(r.point->fields[i].second);
  }
  static std::optional<int64_t> Time(R& r) {
    if (r.point == nullptr) return std::nullopt;
    return r.time_nanos;
  }
  static std::optional<TimeUnit> Unit(R& r) {
    if (r.point == nullptr) return std::nullopt;
    return TimeUnit::kNanoseconds;
  }
  static std::optional<int64_t> Version(R& r) {
    if (r.point == nullptr) return std::nullopt;
    return r.version;
  }
};

constexpr LineRecord kNoCommonAttributes{};

}  // namespace

absl::Status LineWriteSource::ValidateShape() const {
  return normalize_internal::ValidateShape<LineAccess>(kNoCommonAttributes, records_);
}

absl::StatusOr<NormalizedRecord> LineWriteSource::Normalize(int i,
                                                            const PartitionKey& partition_key) {
  return normalize_internal::Normalize<LineAccess, LineAccess::R>(
      kNoCommonAttributes, records_[i], std::nullopt, partition_key, &names_);
}

}  // namespace strata
