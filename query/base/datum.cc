#include "query/base/datum.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "common/strings.h"
#include "common/time_format.h"

namespace strata::query {
namespace {

struct Shape {
  TypeKind kind = TypeKind::kScalar;
  DataType element = DataType::kUnknown;
  std::vector<RowField> fields;
  std::string name;
  int depth = 1;  // ARRAY[1] is 1, ARRAY[ARRAY[1]] 2
};

// Interned composite shapes. A shape, once made, lives as long as the
// process, so readers take a pointer without a lock; only interning locks.
class ShapeRegistry {
 public:
  static ShapeRegistry& Get() {
    static ShapeRegistry* registry = new ShapeRegistry();
    return *registry;
  }

  const Shape* Find(DataType type) const {
    const size_t i = static_cast<size_t>(type) - static_cast<size_t>(DataType::kFirstComposite);
    return i < shapes_.size() ? shapes_[i].load(std::memory_order_acquire) : nullptr;
  }

  int Depth(DataType type) const {
    const Shape* shape = Find(type);
    return shape ? shape->depth : 0;
  }

  std::optional<DataType> Intern(Shape shape) {
    for (const RowField& f : shape.fields) shape.depth = std::max(shape.depth, Depth(f.type) + 1);
    shape.depth = std::max(shape.depth, Depth(shape.element) + 1);
    if (shape.depth > kMaxTypeNesting) return std::nullopt;
    std::string key = StrCat(static_cast<int>(shape.kind), ":", static_cast<int>(shape.element));
    for (const RowField& f : shape.fields) {
      key += StrCat(":", f.name.size(), ":", f.name, ":", static_cast<int>(f.type));
    }
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    if (count_ == shapes_.size()) return std::nullopt;
    const auto type = static_cast<DataType>(static_cast<size_t>(DataType::kFirstComposite) + count_);
    shapes_[count_++].store(new Shape(std::move(shape)), std::memory_order_release);
    index_.emplace(std::move(key), type);
    return type;
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<std::string, DataType> index_;
  size_t count_ = 0;
  std::array<std::atomic<const Shape*>, kMaxCompositeTypes> shapes_{};
};

const std::vector<RowField>& NoFields() {
  static const auto* none = new std::vector<RowField>();
  return *none;
}

const std::vector<Datum>& NoItems() {
  static const auto* none = new std::vector<Datum>();
  return *none;
}

}  // namespace

TypeKind KindOf(DataType type) {
  const Shape* shape = ShapeRegistry::Get().Find(type);
  return shape ? shape->kind : TypeKind::kScalar;
}

std::optional<DataType> ArrayOf(DataType element) {
  return ShapeRegistry::Get().Intern(
      {.kind = TypeKind::kArray, .element = element, .name = StrCat("array(", TypeName(element), ")")});
}

std::optional<DataType> TimeseriesOf(DataType value) {
  return ShapeRegistry::Get().Intern({.kind = TypeKind::kTimeseries,
                                      .element = value,
                                      .name = StrCat("timeseries(", TypeName(value), ")")});
}

std::optional<DataType> RowOf(std::vector<RowField> fields) {
  std::string name = "row(";
  for (size_t i = 0; i < fields.size(); ++i) {
    name += StrCat(i ? ", " : "", fields[i].name, fields[i].name.empty() ? "" : " ",
                   TypeName(fields[i].type));
  }
  name += ")";
  return ShapeRegistry::Get().Intern(
      {.kind = TypeKind::kRow, .fields = std::move(fields), .name = std::move(name)});
}

std::optional<DataType> MapOf(DataType key, DataType value) {
  return ShapeRegistry::Get().Intern(
      {.kind = TypeKind::kMap,
       .element = value,
       .fields = {{"key", key}, {"value", value}},
       .name = StrCat("map(", TypeName(key), ", ", TypeName(value), ")")});
}

DataType MapKeyType(DataType type) {
  const Shape* shape = ShapeRegistry::Get().Find(type);
  return shape && shape->kind == TypeKind::kMap ? shape->fields[0].type : DataType::kUnknown;
}

std::string TooManyTypesMessage() {
  return StrCat("arrays, rows and time series nest at most ", kMaxTypeNesting,
                " deep, and a server knows at most ", kMaxCompositeTypes,
                " distinct ones (restart it to start afresh)");
}

DataType ElementType(DataType type) {
  const Shape* shape = ShapeRegistry::Get().Find(type);
  return shape ? shape->element : DataType::kUnknown;
}

const std::vector<RowField>& RowFields(DataType type) {
  const Shape* shape = ShapeRegistry::Get().Find(type);
  return shape && shape->kind == TypeKind::kRow ? shape->fields : NoFields();
}

Datum Datum::Composite(DataType type, std::vector<Datum> values, std::vector<int64_t> times) {
  Datum d{.type = type, .null = false};
  d.nested = std::make_shared<const NestedValue>(
      NestedValue{.values = std::move(values), .times = std::move(times)});
  return d;
}

Datum Datum::Map(DataType type, std::vector<Datum> keys, std::vector<Datum> values) {
  Datum d{.type = type, .null = false};
  d.nested = std::make_shared<const NestedValue>(
      NestedValue{.values = std::move(values), .keys = std::move(keys)});
  return d;
}

std::optional<Datum> MakeMap(DataType type, std::vector<std::pair<Datum, Datum>> entries,
                             std::string* problem) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return Compare(a.first, b.first) < 0; });
  std::vector<Datum> keys, values;
  keys.reserve(entries.size());
  values.reserve(entries.size());
  for (auto& [key, value] : entries) {
    if (key.null) {
      *problem = "null";
      return std::nullopt;
    }
    if (!keys.empty() && Compare(keys.back(), key) == 0) {
      *problem = key.ToString();
      return std::nullopt;
    }
    keys.push_back(std::move(key));
    values.push_back(std::move(value));
  }
  return Datum::Map(type, std::move(keys), std::move(values));
}

const std::vector<Datum>& Datum::items() const {
  return nested && !null ? nested->values : NoItems();
}

int64_t Datum::HeapBytes() const {
  int64_t bytes = static_cast<int64_t>(s.capacity());
  if (nested) {
    bytes += static_cast<int64_t>(sizeof(NestedValue) +
                                  (nested->values.capacity() + nested->keys.capacity()) * sizeof(Datum) +
                                  nested->times.capacity() * sizeof(int64_t));
    for (const Datum& v : nested->values) bytes += v.HeapBytes();
    for (const Datum& k : nested->keys) bytes += k.HeapBytes();
  }
  return bytes;
}

std::string_view PostgresTypeName(DataType type) {
  switch (type) {
    case DataType::kBoolean:
      return "boolean";
    case DataType::kBigint:
      return "bigint";
    case DataType::kDouble:
      return "double precision";
    case DataType::kVarchar:
      return "text";
    case DataType::kJson:
      return "json";
    case DataType::kTimestamp:
      return "timestamp with time zone";
    case DataType::kInterval:
      return "interval";
    case DataType::kDate:
      return "date";
    case DataType::kTime:
      return "time without time zone";
    case DataType::kIntervalYearToMonth:
      return "interval";
    case DataType::kUnknown:
    case DataType::kFirstComposite:
      return "text";
  }
  return "text";
}

std::string_view TypeName(DataType type) {
  if (const Shape* shape = ShapeRegistry::Get().Find(type)) return shape->name;
  switch (type) {
    case DataType::kUnknown:
    case DataType::kFirstComposite: return "unknown";
    case DataType::kBoolean: return "boolean";
    case DataType::kBigint: return "bigint";
    case DataType::kDouble: return "double";
    case DataType::kVarchar: return "varchar";
    case DataType::kJson:
      return "json";
    case DataType::kTimestamp: return "timestamp";
    case DataType::kInterval: return "interval day to second";
    case DataType::kDate: return "date";
    case DataType::kTime: return "time";
    case DataType::kIntervalYearToMonth: return "interval year to month";
  }
  return "unknown";
}

bool IsNumeric(DataType t) { return t == DataType::kBigint || t == DataType::kDouble; }

std::string FormatTimestamp(int64_t nanos) { return FormatSqlTimestamp(nanos); }

int64_t DateOfTimestamp(int64_t nanos) {
  // Rounded toward negative infinity (as checked_math.h's FloorDiv, which
  // includes this file's header).
  return nanos / kNanosPerDay - (nanos % kNanosPerDay < 0 ? 1 : 0);
}

std::optional<Datum> ParseDate(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.size() != 10) return std::nullopt;
  std::optional<int64_t> nanos = ParseTimestamp(text);
  if (!nanos) return std::nullopt;
  Datum date = Datum::Date(DateOfTimestamp(*nanos));
  // ParseTimestamp rolls 2024-02-30 over into March: a date must name its day.
  if (date.ToString() != text) return std::nullopt;
  return date;
}

std::optional<Datum> ParseTime(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  // A time of day alone: digits, colons and a fraction (no date, no zone).
  if (text.size() < 5 || text.find_first_not_of("0123456789:.") != std::string_view::npos) {
    return std::nullopt;
  }
  std::optional<int64_t> nanos = ParseTimestamp(StrCat("1970-01-01 ", text));
  if (!nanos || *nanos < 0 || *nanos >= kNanosPerDay) return std::nullopt;
  return Datum::Time(*nanos);
}

std::string Datum::ToString() const {
  if (null) return "NULL";
  if (nested) {
    const std::vector<Datum>& v = nested->values;
    std::string out;
    switch (KindOf(type)) {
      case TypeKind::kRow: {
        const std::vector<RowField>& fields = RowFields(type);
        out = "{";
        for (size_t k = 0; k < v.size(); ++k) {
          std::string name = k < fields.size() && !fields[k].name.empty()
                                 ? fields[k].name : StrCat("field", k);
          out += StrCat(k ? ", " : "", name, "=", v[k].ToString());
        }
        return out + "}";
      }
      case TypeKind::kMap:
        out = "{";
        for (size_t k = 0; k < v.size(); ++k) {
          out += StrCat(k ? ", " : "", nested->keys[k].ToString(), "=", v[k].ToString());
        }
        return out + "}";
      case TypeKind::kTimeseries:
        out = "[";
        for (size_t k = 0; k < v.size(); ++k) {
          out += StrCat(k ? ", " : "", "{time=", FormatTimestamp(nested->times[k]),
                        ", value=", v[k].ToString(), "}");
        }
        return out + "]";
      default:
        out = "[";
        for (size_t k = 0; k < v.size(); ++k) out += StrCat(k ? ", " : "", v[k].ToString());
        return out + "]";
    }
  }
  switch (type) {
    case DataType::kBoolean: return i ? "true" : "false";
    case DataType::kBigint: return StrCat(i);
    case DataType::kDouble: {
      // As Presto and Timestream print them (and PostgreSQL's float8 too).
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
      if (d == std::floor(d) && std::fabs(d) < 1e15) {
        return StrCat(static_cast<int64_t>(d), ".0");
      }
      return fmt::format("{}", d);
    }
    case DataType::kVarchar:
    case DataType::kJson:
      return s;
    case DataType::kTimestamp: return FormatTimestamp(i);
    case DataType::kInterval: {
      int64_t v = i < 0 ? -i : i;
      int64_t days = v / (86400LL * 1'000'000'000);
      v %= 86400LL * 1'000'000'000;
      int64_t h = v / 3'600'000'000'000, m = v / 60'000'000'000 % 60, sec = v / 1'000'000'000 % 60;
      return fmt::format("{}{} {:02}:{:02}:{:02}.{:09}", i < 0 ? "-" : "", days, h, m, sec,
                         v % 1'000'000'000);
    }
    case DataType::kDate: return FormatSqlTimestamp(i * kNanosPerDay).substr(0, 10);
    case DataType::kTime: return FormatSqlTimestamp(i).substr(11);
    case DataType::kIntervalYearToMonth: {
      const int64_t months = i < 0 ? -i : i;
      return fmt::format("{}{}-{}", i < 0 ? "-" : "", months / 12, months % 12);
    }
    case DataType::kUnknown:
    case DataType::kFirstComposite: break;
  }
  return "NULL";
}

int Compare(const Datum& a, const Datum& b) {
  if (a.null || b.null) return a.null == b.null ? 0 : (a.null ? 1 : -1);  // NULLs last
  if (a.nested || b.nested) {
    if (!a.nested || !b.nested) return a.nested ? 1 : -1;
    const NestedValue& x = *a.nested;
    const NestedValue& y = *b.nested;
    for (size_t k = 0; k < x.values.size() && k < y.values.size(); ++k) {
      if (k < x.times.size() && k < y.times.size() && x.times[k] != y.times[k]) {
        return x.times[k] < y.times[k] ? -1 : 1;
      }
      if (k < x.keys.size() && k < y.keys.size()) {
        if (int c = Compare(x.keys[k], y.keys[k]); c != 0) return c;
      }
      if (int c = Compare(x.values[k], y.values[k]); c != 0) return c;
    }
    return x.values.size() < y.values.size() ? -1 : x.values.size() > y.values.size();
  }
  if (IsText(a.type) || IsText(b.type)) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : c > 0;
  }
  if (a.type == DataType::kDouble || b.type == DataType::kDouble) {
    return DoublesOrder(a.AsDouble(), b.AsDouble());
  }
  return a.i < b.i ? -1 : a.i > b.i;
}

void AppendKey(const Datum& d, std::string* out) {
  if (d.null) {
    out->push_back('\0');
    return;
  }
  if (d.nested) {
    out->push_back('\1');
    out->append("n").append(StrCat(d.nested->values.size())).push_back('[');
    for (size_t k = 0; k < d.nested->values.size(); ++k) {
      if (k < d.nested->times.size()) out->append(StrCat(d.nested->times[k], "@"));
      if (k < d.nested->keys.size()) AppendKey(d.nested->keys[k], out);
      AppendKey(d.nested->values[k], out);
    }
    out->push_back(']');
    out->push_back('\x1f');
  } else if (IsText(d.type)) {
    AppendTextKey(d.s, out);
  } else {
    AppendNumberKey(d.type, d.i, d.d, out);
  }
}

void AppendTextKey(std::string_view s, std::string* out) {
  out->push_back('\1');
  out->append(s);
  out->push_back('\0');
  char digits[24];
  out->append(digits, std::to_chars(digits, digits + sizeof(digits), s.size()).ptr);
  out->push_back('\x1f');
}

void AppendNumberKey(DataType type, int64_t i, double d, std::string* out) {
  out->push_back('\1');
  double v = type == DataType::kDouble ? d : static_cast<double>(i);
  if (v == 0) v = 0;  // -0.0 and 0.0 are one group
  if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();  // so are 0/0's -NaN and nan()
  if (type != DataType::kDouble && static_cast<int64_t>(v) != i) {
    out->append("i").append(reinterpret_cast<const char*>(&i), sizeof(i));
  } else {
    out->append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  out->push_back('\x1f');
}

}  // namespace strata::query
