#include "server/pg/types.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/base/postgres_array_text.h"
#include "query/base/time_zone.h"
#include "query/exec/information_schema.h"
#include "query/functions/json_document.h"
#include "server/pg/time_zone_setting.h"

namespace strata::pg {
namespace {

using query::DataType;
using query::Datum;
using query::FloorDiv;

using ArrayOid = query::PostgresArrayOid;

// PostgreSQL's binary timestamps count microseconds from 2000-01-01.
constexpr int64_t kPgEpochMicros = 946'684'800LL * 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400LL * 1'000'000;

void PutInt(std::string* out, uint64_t v, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

uint64_t GetInt(std::string_view bytes) {
  uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

// "10:00:00.5": a time of day with microseconds at most, trailing zeros cut.
std::string TimeText(int64_t nanos) {
  std::string text = TimestampTextIn(nanos, nullptr).substr(11);
  text.resize(text.size() - 3);  // "+00"
  return text;
}

// "1 year 2 mons", "-3 mons", "00:00:00": PostgreSQL's text of a months interval.
std::string MonthsText(int64_t months) {
  if (months == 0) return "00:00:00";
  const int64_t years = months / 12, rest = months % 12;
  std::string out;
  if (years != 0) out = StrCat(years, years == 1 ? " year" : " years");
  if (rest != 0) out += StrCat(out.empty() ? "" : " ", rest, rest == 1 ? " mon" : " mons");
  return out;
}

// PostgreSQL counts days from 2000-01-01.
constexpr int64_t kPgEpochDays = 10'957;

// "1 day", "-1 days -02:00:00", "-03:00:00", "00:00:00.5": PostgreSQL's text of a days-and-time
// interval (a day count but no time shows no clock; a count other than 1 is plural, -1 too).
std::string IntervalText(int64_t nanos) {
  const bool negative = nanos < 0;
  const uint64_t rest = negative ? 0 - static_cast<uint64_t>(nanos) : static_cast<uint64_t>(nanos);
  const uint64_t micros = rest / 1000;
  const uint64_t days = micros / static_cast<uint64_t>(kMicrosPerDay);
  const uint64_t in_day = micros % static_cast<uint64_t>(kMicrosPerDay);
  const std::string sign = negative ? "-" : "";
  std::string out;
  if (days > 0) out = StrCat(sign, days, days == 1 && !negative ? " day" : " days");
  if (days > 0 && in_day == 0) return out;
  const uint64_t seconds = in_day / 1'000'000, fraction = in_day % 1'000'000;
  out += fmt::format("{}{}{:02}:{:02}:{:02}", out.empty() ? "" : " ", sign, seconds / 3600,
                     seconds / 60 % 60, seconds % 60);
  if (fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

absl::Status BadText(std::string_view bytes, std::string_view type) {
  return absl::InvalidArgumentError(
      StrCat("invalid input syntax for type ", type, ": \"", EchoInput(bytes, 60), "\""));
}

// A json or jsonb parameter (psycopg's Json, node-postgres' objects): its text, checked.
absl::StatusOr<Datum> JsonParameter(std::string_view bytes) {
  if (absl::Status checked = query::json::Check(bytes); !checked.ok()) {
    return absl::InvalidArgumentError(
        StrCat("invalid input syntax for type json: ", checked.message()));
  }
  return Datum::Json(std::string(bytes));
}

}  // namespace

std::string_view PgTypeName(DataType type) { return query::PostgresTypeName(type); }

namespace {

// An element's text in PostgreSQL's array text: in double quotes, with " and \ escaped,
// when it is empty, is NULL's spelling, or holds a brace, comma, quote, backslash or space.
void AppendArrayElement(std::string_view text, std::string* out) {
  const bool quoted = text.empty() || EqualsIgnoreCase(text, "null") ||
                      text.find_first_of("{},\"\\ \t\n\r\v\f") != std::string_view::npos;
  if (!quoted) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

// An array of scalars as PostgreSQL writes one: {1,NULL,"a b"}.
void EncodeArrayText(const Datum& value, std::string* out, const absl::TimeZone* zone) {
  std::string text = "{", element;
  bool first = true;
  for (const Datum& item : value.items()) {
    if (!first) text.push_back(',');
    first = false;
    if (item.null) {
      text += "NULL";
      continue;
    }
    EncodeText(item, &element, zone);
    AppendArrayElement(element, &text);
  }
  text.push_back('}');
  *out = std::move(text);
}

// An array of scalars in PostgreSQL's binary form: dimensions (none when empty, else one of
// the elements' count from index 1), whether one is NULL, the element's OID, then each
// element's length (-1 for NULL) and binary form.
void EncodeArrayBinary(const Datum& value, std::string* out) {
  const std::vector<Datum>& items = value.items();
  const bool has_null =
      std::any_of(items.begin(), items.end(), [](const Datum& item) { return item.null; });
  PutInt(out, items.empty() ? 0 : 1, 4);
  PutInt(out, has_null ? 1 : 0, 4);
  PutInt(out, static_cast<uint32_t>(OidOf(query::ElementType(value.type))), 4);
  if (!items.empty()) {
    PutInt(out, items.size(), 4);
    PutInt(out, 1, 4);  // the first index
  }
  std::string element;
  for (const Datum& item : items) {
    if (item.null) {
      PutInt(out, 0xFFFFFFFFu, 4);
      continue;
    }
    EncodeBinary(item, &element);
    PutInt(out, element.size(), 4);
    out->append(element);
  }
}

}  // namespace

void EncodeText(const Datum& value, std::string* out, const absl::TimeZone* zone) {
  if (ArrayOidOf(value.type) != 0) return EncodeArrayText(value, out, zone);
  if (query::IsComposite(value.type)) {  // [[1], [2]], {x=1}, [{time=..., value=...}]
    std::string text = value.ToString();
    *out = IsValidUtf8(text) ? std::move(text) : ToValidUtf8(text);
    return;
  }
  switch (value.type) {
    case DataType::kBoolean: *out = value.i != 0 ? "t" : "f"; break;
    case DataType::kBigint: *out = std::to_string(value.i); break;
    case DataType::kDouble:
      if (std::isnan(value.d)) {
        *out = "NaN";
      } else if (std::isinf(value.d)) {
        *out = value.d > 0 ? "Infinity" : "-Infinity";
      } else {
        *out = fmt::format("{}", value.d);
      }
      break;
    case DataType::kVarchar:
    case DataType::kJson:
      *out = IsValidUtf8(value.s) ? value.s : ToValidUtf8(value.s);
      break;
    case DataType::kTimestamp:
      *out = TimestampTextIn(value.i, zone);
      break;
    case DataType::kInterval: *out = IntervalText(value.i); break;
    case DataType::kDate: *out = value.ToString(); break;
    case DataType::kTime: *out = TimeText(value.i); break;
    case DataType::kIntervalYearToMonth: *out = MonthsText(value.i); break;
    case DataType::kUnknown:
    case DataType::kFirstComposite: out->clear(); break;
  }
}

void EncodeBinary(const Datum& value, std::string* out) {
  out->clear();
  if (ArrayOidOf(value.type) != 0) return EncodeArrayBinary(value, out);
  if (query::IsComposite(value.type)) return EncodeText(value, out);
  switch (value.type) {
    case DataType::kBoolean: out->push_back(value.i != 0 ? 1 : 0); break;
    case DataType::kBigint: PutInt(out, static_cast<uint64_t>(value.i), 8); break;
    case DataType::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &value.d, sizeof bits);
      PutInt(out, bits, 8);
      break;
    }
    case DataType::kVarchar:
    case DataType::kJson:  // json's binary form is its text
    case DataType::kUnknown:
    case DataType::kFirstComposite: EncodeText(value, out); break;
    case DataType::kTimestamp:
      PutInt(out, static_cast<uint64_t>(FloorDiv(value.i, 1000) - kPgEpochMicros), 8);
      break;
    case DataType::kInterval: {
      const int64_t micros = value.i / 1000;
      PutInt(out, static_cast<uint64_t>(micros % kMicrosPerDay), 8);
      PutInt(out, static_cast<uint64_t>(micros / kMicrosPerDay), 4);
      PutInt(out, 0, 4);  // months
      break;
    }
    case DataType::kDate: PutInt(out, static_cast<uint64_t>(value.i - kPgEpochDays), 4); break;
    case DataType::kTime: PutInt(out, static_cast<uint64_t>(value.i / 1000), 8); break;
    case DataType::kIntervalYearToMonth:
      PutInt(out, 0, 8);  // microseconds
      PutInt(out, 0, 4);  // days
      PutInt(out, static_cast<uint64_t>(value.i), 4);
      break;
  }
}

namespace {

// An array parameter in text format ('{1,2,NULL}'), each element decoded as a parameter of
// the element's type.
absl::StatusOr<Datum> DecodeArrayText(std::string_view bytes, const ArrayOid& array,
                                      const absl::TimeZone* zone) {
  std::optional<std::vector<std::optional<std::string>>> elements =
      query::SplitPostgresArrayText(bytes);
  if (!elements) {
    return absl::InvalidArgumentError(StrCat("'", EchoInput(bytes), "' is not an array of at most ",
                                             query::kMaxNestedValues,
                                             " elements; send it as '{1,2}'"));
  }
  std::optional<DataType> type = query::ArrayOf(array.element_type);
  if (!type) return absl::ResourceExhaustedError(query::TooManyTypesMessage());
  std::vector<Datum> items;
  items.reserve(elements->size());
  for (const std::optional<std::string>& element : *elements) {
    if (!element) {
      items.push_back(Datum::Null(array.element_type));
      continue;
    }
    bool untyped = false;
    absl::StatusOr<Datum> item = DecodeParameter(*element, 0, array.element_oid, &untyped, zone);
    if (!item.ok()) return item.status();
    items.push_back(*std::move(item));
  }
  return Datum::Composite(*type, std::move(items));
}

}  // namespace

absl::StatusOr<Datum> DecodeParameter(std::string_view bytes, int16_t format, int32_t oid,
                                      bool* untyped, const absl::TimeZone* zone) {
  *untyped = false;
  if (format == 1) {
    auto need = [&](size_t size) -> absl::Status {
      if (bytes.size() == size) return absl::OkStatus();
      return absl::InvalidArgumentError(StrCat("a binary parameter of type OID ", oid, " has ",
                                               bytes.size(), " bytes, not ", size));
    };
    switch (oid) {
      case kOidInt2:
        if (absl::Status s = need(2); !s.ok()) return s;
        return Datum::Bigint(static_cast<int16_t>(GetInt(bytes)));
      case kOidInt4:
        if (absl::Status s = need(4); !s.ok()) return s;
        return Datum::Bigint(static_cast<int32_t>(GetInt(bytes)));
      case kOidInt8:
        if (absl::Status s = need(8); !s.ok()) return s;
        return Datum::Bigint(static_cast<int64_t>(GetInt(bytes)));
      case kOidFloat4: {
        if (absl::Status s = need(4); !s.ok()) return s;
        const uint32_t bits = static_cast<uint32_t>(GetInt(bytes));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return Datum::Double(f);
      }
      case kOidFloat8: {
        if (absl::Status s = need(8); !s.ok()) return s;
        const uint64_t bits = GetInt(bytes);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return Datum::Double(d);
      }
      case kOidBool:
        if (absl::Status s = need(1); !s.ok()) return s;
        return Datum::Bool(bytes[0] != 0);
      case kOidTimestamp:
      case kOidTimestamptz: {
        if (absl::Status s = need(8); !s.ok()) return s;
        const int64_t micros = static_cast<int64_t>(GetInt(bytes));
        int64_t nanos;
        if (__builtin_add_overflow(micros, kPgEpochMicros, &nanos) ||
            __builtin_mul_overflow(nanos, 1000, &nanos)) {
          return absl::InvalidArgumentError("a binary timestamp parameter is out of range");
        }
        if (oid == kOidTimestamp && zone != nullptr) {
          // timestamp without time zone (a naive datetime): the session's wall clock.
          const std::optional<int64_t> instant =
              query::InstantOfWallClock(nanos, *zone, query::RepeatedTime::kLater);
          if (!instant)
            return absl::InvalidArgumentError("a binary timestamp parameter is out of range");
          nanos = *instant;
        }
        return Datum::Timestamp(nanos);
      }
      case kOidDate: {
        if (absl::Status s = need(4); !s.ok()) return s;
        const int64_t days = static_cast<int32_t>(GetInt(bytes)) + kPgEpochDays;
        if (days < query::DateOfTimestamp(INT64_MIN) + 1 || days > query::DateOfTimestamp(INT64_MAX)) {
          return absl::InvalidArgumentError("a binary date parameter is outside 1677-09-22 .. 2262-04-11");
        }
        return Datum::Date(days);
      }
      case kOidTime: {
        if (absl::Status s = need(8); !s.ok()) return s;
        const int64_t micros = static_cast<int64_t>(GetInt(bytes));
        if (micros < 0 || micros >= query::kNanosPerDay / 1000) {
          return absl::InvalidArgumentError("a binary time parameter is not a time of day");
        }
        return Datum::Time(micros * 1000);
      }
      case kOidText:
      case kOidVarchar:
      case kOidBpchar:
      case kOidName:
        return Datum::Varchar(std::string(bytes));
      case kOidJson:
        return JsonParameter(bytes);
      case kOidJsonb:  // a version byte (1), then the text
        if (bytes.empty() || bytes[0] != 1) {
          return absl::InvalidArgumentError("a binary jsonb parameter must begin with version 1");
        }
        return JsonParameter(bytes.substr(1));
      default:
        return absl::InvalidArgumentError(
            StrCat("binary parameters of type OID ", oid,
                   " are not supported; send it in text format (format code 0)"));
    }
  }
  switch (oid) {
    case kOidInt2:
    case kOidInt4:
    case kOidInt8:
    case kOidOid: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), v);
      if (ec != std::errc() || end != bytes.data() + bytes.size()) return BadText(bytes, "bigint");
      return Datum::Bigint(v);
    }
    case kOidFloat4:
    case kOidFloat8:
    case kOidNumeric: {
      std::string text(bytes);
      if (text == "NaN") return Datum::Double(std::nan(""));
      if (text == "Infinity") return Datum::Double(HUGE_VAL);
      if (text == "-Infinity") return Datum::Double(-HUGE_VAL);
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) return BadText(bytes, "double precision");
      return Datum::Double(v);
    }
    case kOidBool: {
      const std::optional<bool> b = ParseBooleanText(bytes);
      if (b) return Datum::Bool(*b);
      return BadText(bytes, "boolean");
    }
    case kOidDate: {
      std::optional<Datum> date = query::ParseDate(bytes);
      if (!date) return BadText(bytes, "date");
      return *date;
    }
    case kOidTime: {
      std::optional<Datum> time = query::ParseTime(bytes);
      if (!time) return BadText(bytes, "time without time zone");
      return *time;
    }
    case kOidTimestamp:
    case kOidTimestamptz: {
      std::optional<int64_t> nanos = ParseTimestamp(bytes);
      if (!nanos) return BadText(bytes, "timestamp with time zone");
      if (zone != nullptr && !query::NamesItsZone(bytes)) {  // the session's wall clock
        nanos = query::InstantOfWallClock(*nanos, *zone, query::RepeatedTime::kLater);
        if (!nanos) return BadText(bytes, "timestamp with time zone");
      }
      return Datum::Timestamp(*nanos);
    }
    case kOidText:
    case kOidVarchar:
    case kOidBpchar:
    case kOidName:
      return Datum::Varchar(std::string(bytes));
    case kOidJson:
    case kOidJsonb:
      return JsonParameter(bytes);
    default:
      for (const ArrayOid& array : query::PostgresArrayOids()) {
        if (array.oid == oid) return DecodeArrayText(bytes, array, zone);
      }
      // Not declared (0), "unknown", or a type Strata does not have: text
      // that takes the type of what it meets.
      *untyped = true;
      return Datum::Varchar(std::string(bytes));
  }
}

}  // namespace strata::pg
