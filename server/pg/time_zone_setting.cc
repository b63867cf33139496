#include "server/pg/time_zone_setting.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/time_zone.h"

namespace strata::pg {
namespace {

// "+05:30", "-07:00": an offset in seconds east of UTC as the engine names it.
std::string OffsetName(int seconds) {
  const int magnitude = std::abs(seconds);
  return absl::StrFormat("%c%02d:%02d", seconds < 0 ? '-' : '+', magnitude / 3600,
                         magnitude % 3600 / 60);
}

// SET TIME ZONE -7, 5.5: hours east of UTC (at most 14 either way, whole minutes).
std::optional<std::string> HoursEast(std::string_view value) {
  std::string text(value);
  char* end = nullptr;
  const double hours = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(std::fabs(hours) <= 14)) {
    return std::nullopt;
  }
  const double minutes = hours * 60;
  if (minutes != std::floor(minutes)) return std::nullopt;
  return OffsetName(static_cast<int>(minutes) * 60);
}

// POSIX's 'UTC+3', 'GMT-01:00': hours west of UTC.
std::optional<std::string> PosixWest(std::string_view value) {
  if (value.size() < 5 || !(EqualsIgnoreCase(value.substr(0, 3), "utc") ||
                            EqualsIgnoreCase(value.substr(0, 3), "gmt"))) {
    return std::nullopt;
  }
  const char sign = value[3];
  if (sign != '+' && sign != '-') return std::nullopt;
  std::string_view rest = value.substr(4);
  int hours = 0, minutes = 0;
  size_t i = 0;
  for (; i < rest.size() && i < 2 && std::isdigit(static_cast<unsigned char>(rest[i])); ++i) {
    hours = hours * 10 + (rest[i] - '0');
  }
  if (i == 0) return std::nullopt;
  if (i < rest.size()) {
    if (rest[i] != ':' || rest.size() != i + 3 ||
        !std::isdigit(static_cast<unsigned char>(rest[i + 1])) ||
        !std::isdigit(static_cast<unsigned char>(rest[i + 2]))) {
      return std::nullopt;
    }
    minutes = (rest[i + 1] - '0') * 10 + (rest[i + 2] - '0');
  }
  if (hours > 14 || minutes > 59) return std::nullopt;
  const int west = (hours * 60 + minutes) * 60;
  return OffsetName(sign == '+' ? -west : west);
}

// 'america/new_york' as the zone database spells it: each word capitalized.
std::string Capitalized(std::string_view name) {
  std::string out(name);
  bool start = true;
  for (char& c : out) {
    c = static_cast<char>(start ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
    start = c == '/' || c == '_' || c == '-';
  }
  return out;
}

}  // namespace

std::optional<std::string> ZoneForSetting(std::string_view value) {
  if (EqualsIgnoreCase(value, "local") || EqualsIgnoreCase(value, "default") ||
      query::NamesUtc(value)) {
    return "UTC";
  }
  if (std::optional<std::string> hours = HoursEast(value)) return hours;
  if (std::optional<std::string> west = PosixWest(value)) return west;
  for (const std::string& name :
       {std::string(value), Capitalized(value), absl::AsciiStrToUpper(std::string(value))}) {
    if (query::LoadTimeZone(name)) return name;
  }
  return std::nullopt;
}

std::string InvalidZoneMessage(std::string_view value) {
  return StrCat("invalid value for parameter \"TimeZone\": \"", EchoInput(value),
                "\"; name an IANA time zone ('Europe/Berlin', 'America/New_York', 'UTC') or "
                "hours east of UTC (SET TIME ZONE -7)");
}

std::string TimestampTextIn(int64_t nanos, const absl::TimeZone* zone) {
  int offset = 0;
  int64_t wall = nanos;
  if (zone != nullptr) {
    offset = zone->At(absl::FromUnixNanos(nanos)).offset;
    if (__builtin_add_overflow(nanos, int64_t{offset} * 1'000'000'000, &wall)) {
      wall = nanos;  // past the timestamps' range: written in UTC, as its offset says
      offset = 0;
    }
  }
  int64_t micros_floor = wall / 1000;
  if (wall % 1000 < 0) --micros_floor;
  std::string text = FormatSqlTimestamp(micros_floor * 1000);  // "... .123456000"
  const size_t dot = text.find('.');
  if (dot != std::string::npos) {
    text.resize(dot + 7);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  const int magnitude = std::abs(offset);
  absl::StrAppendFormat(&text, "%c%02d", offset < 0 ? '-' : '+', magnitude / 3600);
  if (magnitude % 3600 != 0) absl::StrAppendFormat(&text, ":%02d", magnitude % 3600 / 60);
  if (magnitude % 60 != 0) absl::StrAppendFormat(&text, ":%02d", magnitude % 60);
  return text;
}

}  // namespace strata::pg
