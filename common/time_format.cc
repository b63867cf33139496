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

std::string FormatSqlTimestamp(int64_t nanos) {
  std::tm tm = ToUtcTm(nanos);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d.%09lld", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(SubsecondNanos(nanos)));
  return buf;
}

std::optional<int64_t> ParseTimestamp(std::string_view text) {
  std::string buf(text);
  int y, mo, d, h = 0, mi = 0, s = 0, consumed = 0;
  if (std::sscanf(buf.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &consumed) != 3) return std::nullopt;
  size_t i = consumed;
  int64_t fraction = 0, offset_seconds = 0;
  if (i < buf.size() && (buf[i] == 'T' || buf[i] == ' ')) {
    int n = 0;
    if (std::sscanf(buf.c_str() + i + 1, "%2d:%2d%n", &h, &mi, &n) != 2) return std::nullopt;
    i += 1 + n;
    if (i < buf.size() && buf[i] == ':') {
      if (std::sscanf(buf.c_str() + i + 1, "%2d%n", &s, &n) != 1) return std::nullopt;
      i += 1 + n;
    }
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
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  // Nanoseconds since the epoch fit 1677-09-21 .. 2262-04-11: a time outside
  // that range is not a timestamp (it would wrap around).
  const int64_t seconds = static_cast<int64_t>(timegm(&tm)) - offset_seconds;
  int64_t nanos = 0;
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &nanos) ||
      __builtin_add_overflow(nanos, fraction, &nanos)) {
    return std::nullopt;
  }
  return nanos;
}

}  // namespace strata
