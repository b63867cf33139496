#include "query/base/time_zone.h"

#include <cctype>
#include <string>

#include "absl/time/civil_time.h"
#include "common/strings.h"
#include "query/base/checked_math.h"

namespace strata::query {
namespace {

constexpr int64_t kNanos = 1'000'000'000;

// '+05:30', '-08', '+0930' as seconds east of UTC (at most 14 hours either way, as Presto's).
std::optional<int> ParseOffset(std::string_view text) {
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  std::string digits;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == ':' && i == 3) continue;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    digits += text[i];
  }
  if (digits.size() != 2 && digits.size() != 4) return std::nullopt;
  const int hours = std::stoi(digits.substr(0, 2));
  const int minutes = digits.size() == 4 ? std::stoi(digits.substr(2)) : 0;
  if (minutes >= 60 || hours * 60 + minutes > 14 * 60) return std::nullopt;
  const int seconds = (hours * 60 + minutes) * 60;
  return text[0] == '-' ? -seconds : seconds;
}

}  // namespace

std::optional<absl::TimeZone> LoadTimeZone(std::string_view name) {
  if (std::optional<int> offset = ParseOffset(name)) return absl::FixedTimeZone(*offset);
  if (name.empty() || name.size() > 64 || name.front() == '/' ||
      name.find("..") != std::string_view::npos || name == "localtime") {
    return std::nullopt;
  }
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '+' && ch != '-' &&
        ch != '/') {
      return std::nullopt;
    }
  }
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(std::string(name), &zone)) return std::nullopt;
  return zone;
}

bool NamesUtc(std::string_view name) {
  static constexpr std::string_view kUtc[] = {
      "utc",  "z",         "gmt",     "etc/utc", "+00",           "+00:00",   "-00",  "00:00",
      "zulu", "universal", "etc/gmt", "uct",     "etc/universal", "etc/zulu", "gmt0", "greenwich"};
  for (std::string_view utc : kUtc) {
    if (EqualsIgnoreCase(name, utc)) return true;
  }
  return false;
}

std::optional<int64_t> WallClockAt(int64_t nanos, const absl::TimeZone& zone) {
  const int64_t offset = zone.At(absl::FromUnixNanos(nanos)).offset;
  return CheckedIntegerOp('+', nanos, offset * kNanos);
}

std::optional<int64_t> InstantOfWallClock(int64_t wall_nanos, const absl::TimeZone& zone,
                                          RepeatedTime repeated) {
  int64_t seconds = wall_nanos / kNanos;
  if (wall_nanos % kNanos < 0) --seconds;
  const int64_t fraction = wall_nanos - seconds * kNanos;
  const absl::CivilSecond wall =
      absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
  const absl::TimeZone::TimeInfo info = zone.At(wall);
  const bool later =
      info.kind == absl::TimeZone::TimeInfo::REPEATED && repeated == RepeatedTime::kLater;
  const int64_t instant = absl::ToUnixSeconds(later ? info.post : info.pre);
  std::optional<int64_t> out = CheckedIntegerOp('*', instant, kNanos);
  if (out) out = CheckedIntegerOp('+', *out, fraction);
  return out;
}

int64_t ZoneOffsets::At(int64_t nanos) {
  if (nanos >= from_ && nanos < until_) return offset_;
  const absl::Time t = absl::FromUnixNanos(nanos);
  offset_ = int64_t{zone_.At(t).offset} * kNanos;
  // A change's civil times: `to` in this offset (the one before), `from` in this offset too
  // (the one after): less the offset, each is the instant of its change.
  const auto instant = [this](const absl::CivilSecond& civil, int64_t fallback) {
    const int64_t seconds = absl::ToUnixSeconds(absl::FromCivil(civil, absl::UTCTimeZone()));
    std::optional<int64_t> nanos = CheckedIntegerOp('*', seconds, kNanos);
    if (nanos) nanos = CheckedIntegerOp('-', *nanos, offset_);
    return nanos.value_or(fallback);
  };
  absl::TimeZone::CivilTransition change;
  // PrevTransition finds changes before a whole second: one at `t` itself is found from the
  // next second (one found after `t`, less than a second on, leaves `t` a span of its own).
  from_ =
      zone_.PrevTransition(t + absl::Seconds(1), &change) ? instant(change.to, nanos) : INT64_MIN;
  until_ = zone_.NextTransition(t, &change) ? instant(change.from, nanos + 1) : INT64_MAX;
  if (nanos < from_ || nanos >= until_) from_ = nanos, until_ = nanos + 1;  // this instant only
  return offset_;
}

bool NamesItsZone(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) return true;
  // An offset's sign comes after the time of day's first ':' (a date's '-' come before it).
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  return text.find_first_of("+-", colon) != std::string_view::npos;
}

}  // namespace strata::query
