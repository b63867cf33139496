#include "common/time_format.h"

#include <cctype>
#include <cstdio>

#include "common/clock.h"

namespace strata {

int64_t SubsecondNanos(int64_t nanos) {
  int64_t r = nanos % kNanosPerSecond;
  return r < 0 ? r + kNanosPerSecond : r;
}

std::tm ToUtcTm(int64_t nanos) {
  std::time_t seconds = static_cast<std::time_t>((nanos - SubsecondNanos(nanos)) / kNanosPerSecond);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return tm;
}

std::string FormatIso8601Millis(int64_t nanos) {
  std::tm tm = ToUtcTm(nanos);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(SubsecondNanos(nanos) / kNanosPerMilli));
  return buf;
}

CivilDate CivilFromDays(int64_t days_since_epoch) {
  const int64_t days = days_since_epoch + 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =  // from March 1
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // March is 0
  CivilDate date;
  date.day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  date.month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  date.year = year_of_era + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t year_of_era = y - era * 400;
  const int64_t day_of_year = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

namespace {

// `value`'s last `width` decimal digits at `out`, zero-padded.
void PutDigits(int64_t value, int width, char* out) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

std::string FormatSqlTimestamp(int64_t nanos) {
  // By hand, not gmtime_r and snprintf (glibc's gmtime_r takes the time zone lock; together
  // about a tenth of the server's CPU in a large read through psql). Nanoseconds since 1970 span
  // the years 1677 to 2262, so the year always has four digits.
  const int64_t subsecond = SubsecondNanos(nanos);
  const int64_t seconds = nanos / kNanosPerSecond - (nanos % kNanosPerSecond < 0 ? 1 : 0);
  int64_t days = seconds / 86400;
  int64_t second_of_day = seconds % 86400;
  if (second_of_day < 0) {
    second_of_day += 86400;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  std::string text(29, '\0');  // "YYYY-MM-DD HH:MM:SS.nnnnnnnnn"
  char* out = text.data();
  PutDigits(date.year, 4, out);
  out[4] = '-';
  PutDigits(date.month, 2, out + 5);
  out[7] = '-';
  PutDigits(date.day, 2, out + 8);
  out[10] = ' ';
  PutDigits(second_of_day / 3600, 2, out + 11);
  out[13] = ':';
  PutDigits(second_of_day / 60 % 60, 2, out + 14);
  out[16] = ':';
  PutDigits(second_of_day % 60, 2, out + 17);
  out[19] = '.';
  PutDigits(subsecond, 9, out + 20);
  return text;
}

namespace {

// Reads 1 to `most` digits at text[*i] (after spaces, as scanf's %d skips them) into *value.
bool ReadNumber(std::string_view text, size_t* i, int most, int* value) {
  while (*i < text.size() && std::isspace(static_cast<unsigned char>(text[*i]))) ++*i;
  int n = 0, v = 0;
  for (; n < most && *i < text.size() && std::isdigit(static_cast<unsigned char>(text[*i]));
       ++n, ++*i) {
    v = v * 10 + (text[*i] - '0');
  }
  *value = v;
  return n > 0;
}

}  // namespace

std::optional<int64_t> ParseTimestamp(std::string_view buf) {
  // By hand, not sscanf (a tenth of a COPY's server time): each field 1 to its width of
  // digits, spaces before a field skipped, as "%4d-%2d-%2d" read them.
  int y, mo, d, h = 0, mi = 0, s = 0;
  size_t i = 0;
  auto literal = [&](char c) {
    if (i >= buf.size() || buf[i] != c) return false;
    ++i;
    return true;
  };
  if (!ReadNumber(buf, &i, 4, &y) || !literal('-') || !ReadNumber(buf, &i, 2, &mo) ||
      !literal('-') || !ReadNumber(buf, &i, 2, &d)) {
    return std::nullopt;
  }
  int64_t fraction = 0, offset_seconds = 0;
  if (i < buf.size() && (buf[i] == 'T' || buf[i] == ' ')) {
    ++i;
    if (!ReadNumber(buf, &i, 2, &h) || !literal(':') || !ReadNumber(buf, &i, 2, &mi)) {
      return std::nullopt;
    }
    if (literal(':') && !ReadNumber(buf, &i, 2, &s)) return std::nullopt;
    if (i < buf.size() && buf[i] == '.') {
      ++i;
      int digits = 0;
      for (; i < buf.size() && std::isdigit(static_cast<unsigned char>(buf[i])); ++i) {
        if (digits++ < 9) fraction = fraction * 10 + (buf[i] - '0');
      }
      for (; digits < 9; ++digits) fraction *= 10;
    }
  }
  if (i < buf.size() && buf[i] == 'Z') {
    ++i;
  } else if (i < buf.size() && (buf[i] == '+' || buf[i] == '-')) {
    // +hh:mm, or +hh alone as PostgreSQL writes a whole hour's offset (2024-01-01 10:00:00+00).
    const size_t sign = i;
    int oh = 0, om = 0;
    auto two_digits = [&](int* v) {
      if (i + 2 > buf.size() || !std::isdigit(static_cast<unsigned char>(buf[i])) ||
          !std::isdigit(static_cast<unsigned char>(buf[i + 1]))) {
        return false;
      }
      *v = (buf[i] - '0') * 10 + (buf[i + 1] - '0');
      i += 2;
      return true;
    };
    ++i;
    if (!two_digits(&oh)) return std::nullopt;
    if (i < buf.size() && buf[i] == ':') {
      ++i;
      if (!two_digits(&om)) return std::nullopt;
    }
    if (oh > 23 || om > 59) return std::nullopt;
    offset_seconds = (buf[sign] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  if (i != buf.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    return std::nullopt;
  }
  // Nanoseconds since the epoch fit 1677-09-21 .. 2262-04-11: a time outside
  // that range is not a timestamp (it would wrap around).
  const int64_t seconds =
      DaysFromCivil(y, mo, d) * 86'400 + h * 3600 + mi * 60 + s - offset_seconds;
  int64_t nanos = 0;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &nanos) ||
      __builtin_add_overflow(nanos, fraction, &nanos)) {
    return std::nullopt;
  }
  return nanos;
}

}  // namespace strata
