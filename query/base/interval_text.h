// PostgreSQL's interval text, as psql, Grafana and ORMs write it:
// `interval '1 hour'`, `'5 minutes'`, `'1 day 2 hours'`, `'90s'`, `'01:30:00'`,
// `'2 weeks ago'`. Strata's intervals are of two kinds (day-to-second, a
// duration; year-to-month, calendar months), so a text holds one kind.
// Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::query {

struct IntervalText {
  int64_t months = 0;  // years and months
  int64_t nanos = 0;   // weeks, days, hours ... nanoseconds
};

// The parts of `text`: amounts (signed, with a fraction for units up to
// weeks) each followed by a unit (singular, plural or abbreviated: us, ms,
// s/sec, m/min, h/hr, d, w, mon, y/yr), `hh:mm[:ss[.fff]]`, and a final
// `ago` that negates it all. INVALID_ARGUMENT naming what is wrong.
absl::StatusOr<IntervalText> ParseIntervalText(std::string_view text);

// A duration literal's unit in nanoseconds ("m" and "minute": 60e9), 0 for
// an unknown unit.
int64_t DurationUnitNanos(std::string_view unit);

}  // namespace strata::query
