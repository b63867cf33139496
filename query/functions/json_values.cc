#include "query/functions/json_values.h"

#include <cmath>
#include <functional>

#include "common/json_text.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "fmt/format.h"
#include "query/functions/json_document.h"

namespace strata::query::json {
namespace {

// "2024-01-02 03:04:05.500000000" as "2024-01-02T03:04:05.5": ISO 8601, the fraction's
// trailing zeros dropped (and the fraction with them when it is all zeros).
std::string IsoText(int64_t nanos) {
  std::string text = FormatSqlTimestamp(nanos);
  if (text.size() > 10 && text[10] == ' ') text[10] = 'T';
  if (const size_t dot = text.find('.'); dot != std::string::npos) {
    size_t end = text.find_last_not_of('0');
    if (end == dot) end = dot - 1;
    text.erase(end + 1);
  }
  return text;
}

void AppendDouble(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("\"NaN\"");
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    out->append(fmt::format("{}", d));
  }
}

// An object of `values`, the k-th named name(k).
void AppendObject(const std::vector<Datum>& values, std::string* out,
                  const std::function<std::string(size_t)>& name) {
  out->push_back('{');
  for (size_t k = 0; k < values.size(); ++k) {
    if (k > 0) out->push_back(',');
    AppendJsonString(name(k), out);
    out->push_back(':');
    AppendValue(values[k], out);
  }
  out->push_back('}');
}

void AppendNested(const Datum& value, std::string* out) {
  const std::vector<Datum>& items = value.items();
  switch (query::KindOf(value.type)) {
    case TypeKind::kRow: {
      const std::vector<RowField>& fields = RowFields(value.type);
      return AppendObject(items, out, [&fields](size_t k) {
        return k < fields.size() && !fields[k].name.empty() ? fields[k].name : StrCat("f", k + 1);
      });
    }
    case TypeKind::kMap:
      return AppendObject(items, out,
                          [&value](size_t k) { return KeyText(value.nested->keys[k]); });
    case TypeKind::kTimeseries:
      out->push_back('[');
      for (size_t k = 0; k < items.size(); ++k) {
        out->append(k > 0 ? ",{\"time\":" : "{\"time\":");
        AppendJsonString(IsoText(value.nested->times[k]) + "+00:00", out);
        out->append(",\"value\":");
        AppendValue(items[k], out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    default:
      out->push_back('[');
      for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0) out->push_back(',');
        AppendValue(items[k], out);
      }
      out->push_back(']');
      return;
  }
}

}  // namespace

void AppendValue(const Datum& value, std::string* out) {
  if (value.null) {
    out->append("null");
    return;
  }
  if (IsComposite(value.type)) return AppendNested(value, out);
  switch (value.type) {
    case DataType::kBoolean:
      out->append(value.i != 0 ? "true" : "false");
      return;
    case DataType::kBigint:
      out->append(StrCat(value.i));
      return;
    case DataType::kDouble:
      AppendDouble(value.d, out);
      return;
    case DataType::kJson:
      out->append(value.s);
      return;
    case DataType::kTimestamp:
      AppendJsonString(IsoText(value.i) + "+00:00", out);
      return;
    case DataType::kDate:
      AppendJsonString(value.ToString(), out);
      return;
    case DataType::kTime:
      AppendJsonString(IsoText(value.i).substr(11), out);
      return;
    default:
      AppendJsonString(value.ToString(), out);
      return;  // text, intervals
  }
}

std::string ValueText(const Datum& value) {
  std::string out;
  AppendValue(value, &out);
  return out;
}

std::string KeyText(const Datum& value) {
  if (value.type == DataType::kVarchar) return value.s;
  const std::string text = ValueText(value);
  // A timestamp's or a date's JSON is a string: its key is the string's text.
  if (!text.empty() && text.front() == '"') return *ScalarText(text);
  return text;
}

}  // namespace strata::query::json
