// A batch of parsed line-protocol points as the writer's source: each point
// is one MULTI record (measurement -> measure_name, tags -> dimensions,
// fields -> attributes typed by their values), read in place. Through
// InputRecords, the HTTP /write path built and freed a record, its vectors
// and strings per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/line_protocol.h"
#include "server/http/span_write_source.h"

namespace strata {

// A point with what the line-protocol writer decides for it.
struct LineRecord {
  const LinePoint* point = nullptr;  // nullptr: the (empty) common attributes
  int64_t time_nanos = 0;
  int64_t version = 0;
};

// Reads a LineRecord for the normalizer. A field's declared type is its
// value's: line protocol says a type only by the value's form.
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
  static std::optional<MeasureKind> MeasureValueKind(R& r, size_t i);
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

using LineWriteSource = SpanWriteSource<LineAccess>;

}  // namespace strata
