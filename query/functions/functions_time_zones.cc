// Time zones (Timestream's at_timezone and with_timezone, Presto's AT TIME ZONE). Strata's
// timestamps are instants in UTC, as Timestream's are. at_timezone gives an instant's
// wall-clock time in a zone, as a timestamp: grouped by local days or hours with date_trunc, it
// follows summer time. with_timezone is its inverse: the instant a zone's wall-clock time is.
// Zones come from the IANA database (Debian's tzdata, read through Abseil) or are fixed
// offsets. Timestream itself answers in UTC only; its users shift by hand, wrongly across a
// change to summer time.
#include <cctype>
#include <optional>
#include <string>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Args = std::vector<Datum>;
using P = Param;

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

// A zone by its IANA name ('Europe/Berlin', 'UTC') or a fixed offset; nullopt for neither.
// A name is a path under the zone database: only letters, digits and _+-/ in it, never `..`.
std::optional<absl::TimeZone> LoadZone(const std::string& name) {
  if (std::optional<int> offset = ParseOffset(name)) return absl::FixedTimeZone(*offset);
  if (name.empty() || name.size() > 64 || name.front() == '/' ||
      name.find("..") != std::string::npos || name == "localtime") {
    return std::nullopt;
  }
  for (char ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '+' && ch != '-' &&
        ch != '/') {
      return std::nullopt;
    }
  }
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(name, &zone)) return std::nullopt;
  return zone;
}

// The zone named `name`, remembered for this thread's next row (a query names one zone).
const absl::TimeZone* FindZone(std::string_view name) {
  thread_local std::string last_name;
  thread_local std::optional<absl::TimeZone> last;
  if (!last || last_name != name) {
    last_name = std::string(name);
    last = LoadZone(last_name);
    if (!last) last_name.clear();
  }
  return last ? &*last : nullptr;
}

Datum UnknownZone(std::string_view function, std::string_view name, const EvalContext& c) {
  return FailQuery(c,
                   StrCat(function, "(): '", EchoInput(name),
                          "' is not a time zone; name one of the IANA database, as "
                          "'Europe/Berlin' or 'America/New_York', or an offset, as '+05:30'"),
                   kTs);
}

Datum OutOfRange(std::string_view function, const EvalContext& c) {
  return FailQuery(c,
                   StrCat(function,
                          "(): the result is outside the range of timestamps "
                          "(1677-09-21 to 2262-04-11)"),
                   kTs);
}

}  // namespace

void AddTimeZoneFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  add({"at_timezone", "at_timezone(timestamp, zone) -> timestamp",
       "The wall-clock time in a zone (an IANA name such as 'Europe/Berlin', or an offset such "
       "as '+05:30') at the instant: date_trunc('day', at_timezone(time, 'Europe/Berlin')) is "
       "the local day, summer time included. `ts AT TIME ZONE zone` is the same.",
       Fixed({P::kTimestamp, P::kVarchar}, kTs, "at_timezone(timestamp, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const absl::TimeZone* zone = FindZone(a[1].s);
         if (zone == nullptr) return UnknownZone("at_timezone", a[1].s, c);
         const int64_t offset = zone->At(absl::FromUnixNanos(a[0].i)).offset;
         std::optional<int64_t> local = CheckedIntegerOp('+', a[0].i, offset * kNanosPerSecond);
         if (!local) return OutOfRange("at_timezone", c);
         return Datum::Timestamp(*local);
       }});
  add({"with_timezone", "with_timezone(timestamp, zone) -> timestamp",
       "The instant a zone's wall-clock time is, in UTC (at_timezone's inverse): "
       "with_timezone(TIMESTAMP '2024-07-01 00:00:00', 'Europe/Berlin') is 2024-06-30 "
       "22:00:00. A time that a change to summer time skips moves on by the gap; one it "
       "repeats is the first.",
       Fixed({P::kTimestamp, P::kVarchar}, kTs, "with_timezone(timestamp, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const absl::TimeZone* zone = FindZone(a[1].s);
         if (zone == nullptr) return UnknownZone("with_timezone", a[1].s, c);
         const int64_t nanos = a[0].i;
         int64_t seconds = nanos / kNanosPerSecond;
         if (nanos % kNanosPerSecond < 0) --seconds;
         const int64_t fraction = nanos - seconds * kNanosPerSecond;
         const absl::CivilSecond wall =
             absl::ToCivilSecond(absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
         // `pre` (the offset before a change) is Java's and so Presto's choice for both a
         // skipped time (it lands after the gap) and a repeated one (the first).
         const int64_t instant = absl::ToUnixSeconds(zone->At(wall).pre);
         std::optional<int64_t> out = CheckedIntegerOp('*', instant, kNanosPerSecond);
         if (out) out = CheckedIntegerOp('+', *out, fraction);
         if (!out) return OutOfRange("with_timezone", c);
         return Datum::Timestamp(*out);
       }});
}

}  // namespace strata::query
