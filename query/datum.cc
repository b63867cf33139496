#include "query/datum.h"

#include <cmath>
#include <cstdio>

#include "common/strings.h"
#include "common/time_format.h"

namespace strata::query {

std::string_view TypeName(DataType type) {
  switch (type) {
    case DataType::kUnknown: return "unknown";
    case DataType::kBoolean: return "boolean";
    case DataType::kBigint: return "bigint";
    case DataType::kDouble: return "double";
    case DataType::kVarchar: return "varchar";
    case DataType::kTimestamp: return "timestamp";
    case DataType::kInterval: return "interval day to second";
  }
  return "unknown";
}

bool IsNumeric(DataType t) { return t == DataType::kBigint || t == DataType::kDouble; }

std::string FormatTimestamp(int64_t nanos) { return FormatSqlTimestamp(nanos); }

std::string Datum::ToString() const {
  if (null) return "NULL";
  switch (type) {
    case DataType::kBoolean: return i ? "true" : "false";
    case DataType::kBigint: return StrCat(i);
    case DataType::kDouble: {
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
        return StrCat(static_cast<int64_t>(d), ".0");
      }
      return fmt::format("{}", d);
    }
    case DataType::kVarchar: return s;
    case DataType::kTimestamp: return FormatTimestamp(i);
    case DataType::kInterval: {
      int64_t v = i < 0 ? -i : i;
      int64_t days = v / (86400LL * 1'000'000'000);
      v %= 86400LL * 1'000'000'000;
      int64_t h = v / 3'600'000'000'000, m = v / 60'000'000'000 % 60, sec = v / 1'000'000'000 % 60;
      return fmt::format("{}{} {:02}:{:02}:{:02}.{:09}", i < 0 ? "-" : "", days, h, m, sec,
                         v % 1'000'000'000);
    }
    case DataType::kUnknown: break;
  }
  return "NULL";
}

int Compare(const Datum& a, const Datum& b) {
  if (a.null || b.null) return a.null == b.null ? 0 : (a.null ? 1 : -1);  // NULLs last
  if (a.type == DataType::kVarchar || b.type == DataType::kVarchar) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : c > 0;
  }
  if (a.type == DataType::kDouble || b.type == DataType::kDouble) {
    double x = a.AsDouble(), y = b.AsDouble();
    return x < y ? -1 : x > y;
  }
  return a.i < b.i ? -1 : a.i > b.i;
}

void AppendKey(const Datum& d, std::string* out) {
  if (d.null) {
    out->push_back('\0');
    return;
  }
  out->push_back('\1');
  if (d.type == DataType::kVarchar) {
    out->append(d.s);
    out->push_back('\0');
    out->append(StrCat(d.s.size()));
  } else {
    double v = d.AsDouble();
    if (v == 0) v = 0;  // -0.0 and 0.0 are one group
    if (d.type != DataType::kDouble && static_cast<int64_t>(v) != d.i) {
      out->append("i").append(reinterpret_cast<const char*>(&d.i), sizeof(d.i));
    } else {
      out->append(reinterpret_cast<const char*>(&v), sizeof(v));
    }
  }
  out->push_back('\x1f');
}

}  // namespace strata::query
