// Time zones and the instants Strata's timestamps are (UTC nanoseconds): loading a zone by
// name, an instant's wall-clock time in a zone and back. Shared by the zone functions
// (at_timezone, with_timezone), the session's zone (a PostgreSQL session's SET TIME ZONE:
// query/parse/session_zone.h) and the binder, which reads a literal's text in that zone.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/time/time.h"

namespace strata::query {

// A zone by its IANA name ('Europe/Berlin', 'UTC') or a fixed offset east of UTC ('+05:30',
// '-08', '+0930'; at most 14 hours); nullopt for neither. A name is a path under the zone
// database: only letters, digits and _+-/ in it, never `..`.
std::optional<absl::TimeZone> LoadTimeZone(std::string_view name);

// Whether `name` is one of UTC's own spellings ('UTC', 'Z', 'GMT', 'Etc/UTC', '+00:00', ...):
// a zone that changes nothing.
bool NamesUtc(std::string_view name);

// The wall-clock time in `zone` at the instant `nanos`, written as a UTC timestamp (its
// fields are the zone's); nullopt past the timestamps' range.
std::optional<int64_t> WallClockAt(int64_t nanos, const absl::TimeZone& zone);

// Which instant a wall-clock time that a change back from summer time repeats is.
enum class RepeatedTime {
  kFirst,  // the earlier (Java's and so Presto's choice: with_timezone)
  kLater,  // the later, in standard time (PostgreSQL's choice: a session's zone)
};

// The instant a wall-clock time in `zone` is (WallClockAt's inverse). A time that a change to
// summer time skips moves on by the gap (both Presto's and PostgreSQL's choice); a repeated
// one is as `repeated` says. nullopt past the timestamps' range.
std::optional<int64_t> InstantOfWallClock(int64_t wall_nanos, const absl::TimeZone& zone,
                                          RepeatedTime repeated = RepeatedTime::kFirst);

// A zone's offset at instants, for a vector of them: kept over the span between two changes
// of it, so that rows in time order look the zone up once per span, not once each.
class ZoneOffsets {
 public:
  explicit ZoneOffsets(const absl::TimeZone& zone) : zone_(zone) {}
  // The offset east of UTC at the instant `nanos`, in nanoseconds.
  int64_t At(int64_t nanos);

 private:
  const absl::TimeZone& zone_;
  int64_t from_ = 1, until_ = 0;  // the span [from_, until_) offset_ holds for: none yet
  int64_t offset_ = 0;
};

// Whether a timestamp's text names its zone: it ends in 'Z' or an offset after its time of
// day ('2024-03-01 10:00:00+01', '2024-03-01T10:00Z'). Text without one is a wall-clock time.
bool NamesItsZone(std::string_view text);

}  // namespace strata::query
