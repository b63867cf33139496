#include "server/remote_write_source.h"

#include <optional>
#include <string>

#include "storage/record_normalizer.h"

namespace strata {
namespace {

// Reads a SampleRecord for the normalizer (storage/record_normalizer.h).
struct SampleAccess {
  using R = const SampleRecord;
  static std::optional<std::string> Unreadable(R&) { return std::nullopt; }
  static const std::string_view* MeasureName(R& r) {
    return r.series != nullptr ? &r.series->name : nullptr;
  }
  static void TakeMeasureName(R& r, std::string* out) { out->assign(r.series->name); }
  static size_t DimensionCount(R& r) {
    return r.series != nullptr ? r.series->dimensions.size() : 0;
  }
  static std::string_view DimensionName(R& r, size_t i) { return r.series->dimensions[i].first; }
  static std::string_view DimensionValue(R& r, size_t i) {
    return r.series->dimensions[i].second;
  }
  static std::optional<MeasureKind> MeasureValueType(R& r) {
    if (r.series == nullptr) return std::nullopt;
    return MeasureKind::kDouble;
  }
  static bool HasMeasureValue(R& r) { return r.series != nullptr; }
  static std::optional<ValueView> MeasureValue(R& r) {
    if (r.series == nullptr) return std::nullopt;
    return ValueView::Double(r.value);
  }
  static size_t MeasureValueCount(R&) { return 0; }
  static std::string_view MeasureValueName(R&, size_t) { return {}; }
  static std::optional<MeasureKind> MeasureValueKind(R&, size_t) { return std::nullopt; }
  static std::optional<ValueView> MeasureValueValue(R&, size_t) { return std::nullopt; }
  static std::optional<int64_t> Time(R& r) {
    if (r.series == nullptr) return std::nullopt;
    return r.time_ms;
  }
  static std::optional<TimeUnit> Unit(R& r) {
    if (r.series == nullptr) return std::nullopt;
    return TimeUnit::kMilliseconds;
  }
  static std::optional<int64_t> Version(R& r) {
    if (r.series == nullptr) return std::nullopt;
    return r.version;
  }
};

constexpr SampleRecord kNoCommonAttributes{};

}  // namespace

absl::Status RemoteWriteSource::ValidateShape() const {
  return normalize_internal::ValidateShape<SampleAccess>(kNoCommonAttributes, records_);
}

absl::StatusOr<NormalizedRecord> RemoteWriteSource::Normalize(int i,
                                                              const PartitionKey& partition_key) {
  return normalize_internal::Normalize<SampleAccess, SampleAccess::R>(
      kNoCommonAttributes, records_[i], std::nullopt, partition_key, &names_);
}

}  // namespace strata
