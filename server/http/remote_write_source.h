// Samples of a Prometheus remote-write request as the writer's source: each
// sample is a scalar DOUBLE record of its series (`__name__` ->
// measure_name, the other labels -> dimensions), read in place from the
// parsed request. A batch holds samples of any series, so a request of
// 2,000 series with one sample each (what Prometheus sends) is 20 writes of
// 100, not 2,000 writes of one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "server/http/span_write_source.h"

namespace strata {

// A series' labels as a record's names: views of the request's strings.
struct SeriesLabels {
  std::string_view name;  // __name__
  // The other labels with a value (Prometheus sends no empty ones).
  absl::InlinedVector<std::pair<std::string_view, std::string_view>, 8> dimensions;
};

struct SampleRecord {
  const SeriesLabels* series = nullptr;  // nullptr: the (empty) common attributes
  double value = 0;
  int64_t time_ms = 0;
  int64_t version = 0;
};

// Reads a SampleRecord for the normalizer.
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
  // A scalar record has no measure_values.
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

using RemoteWriteSource = SpanWriteSource<SampleAccess>;

}  // namespace strata
