// PostgreSQL's generate_series(start, stop [, step]): the array whose elements a FROM item or a
// select item of that name makes rows of (query/parse/set_returning.cc). Unlike Timestream's
// sequence, a step that leads away from stop makes no values rather than an error, the step
// is 1 unless given (never -1), numbers may be decimals, a timestamp's step may be months, and
// a series may have a million values.
#include <cmath>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/calendar.h"
#include "query/base/interval_text.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

constexpr std::string_view kSignature =
    "generate_series(bigint, bigint [, bigint]), generate_series(double, double [, double]) or "
    "generate_series(timestamp, timestamp, interval)";
constexpr int64_t kNanosPerDay = 86'400'000'000'000;

bool IsNumber(DataType t) { return t == DataType::kBigint || t == DataType::kDouble; }
bool IsTime(DataType t) { return t == DataType::kTimestamp || t == DataType::kDate; }
// A text step is read as PostgreSQL reads '1 day' there.
bool IsTimeStep(DataType t) {
  return t == DataType::kInterval || t == DataType::kIntervalYearToMonth || t == DataType::kVarchar;
}

absl::StatusOr<DataType> Bind(const Types& t) {
  if (t.size() < 2 || t.size() > 3) return WrongArguments(kSignature);
  const bool times = IsTime(t[0]) || IsTime(t[1]);
  bool doubles = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == DataType::kUnknown) continue;
    const bool fits = times ? (i < 2 ? IsTime(t[i]) : IsTimeStep(t[i])) : IsNumber(t[i]);
    if (!fits) return WrongArguments(kSignature);
    doubles = doubles || t[i] == DataType::kDouble;
  }
  if (times && t.size() != 3) {
    return absl::InvalidArgumentError(
        "generate_series() of timestamps needs a step: generate_series(start, stop, INTERVAL "
        "'1' HOUR)");
  }
  const DataType element =
      times ? DataType::kTimestamp : (doubles ? DataType::kDouble : DataType::kBigint);
  return Interned(ArrayOf(element));
}

// Charges each value to the query's memory and refuses more than an array holds.
class SeriesBuilder {
 public:
  SeriesBuilder(DataType element, const EvalContext& c)
      : element_(element), c_(c), bytes_("generate_series()", c) {}

  // False, with the query failed saying why, once the series is too long.
  bool Add(Datum value) {
    if (values_.size() == kMaxNestedValues) {
      FailQuery(c_,
                StrCat("generate_series(): more than ", kMaxNestedValues,
                       " values; use a larger step or a shorter range"),
                element_);
      return false;
    }
    if (!bytes_.Add(value)) return false;
    values_.push_back(std::move(value));
    return true;
  }

  // What a series that failed answers (the query failed with it).
  Datum Null() const { return Datum::Null(*ArrayOf(element_)); }

  Datum Finish() {
    c_.Charge(static_cast<size_t>(bytes_.bytes()));
    return Datum::Composite(*ArrayOf(element_), std::move(values_));
  }

 private:
  const DataType element_;
  const EvalContext& c_;
  ArrayBytes bytes_;
  std::vector<Datum> values_;
};

Datum ZeroStep(const EvalContext& c, DataType element) {
  return FailQuery(c, "generate_series(): the step cannot be 0", *ArrayOf(element));
}

Datum Bigints(const Args& a, const EvalContext& c) {
  const int64_t start = a[0].i, stop = a[1].i, step = a.size() == 3 ? a[2].i : 1;
  if (step == 0) return ZeroStep(c, DataType::kBigint);
  SeriesBuilder series(DataType::kBigint, c);
  // In 128 bits: a series across the whole int64 range must not wrap.
  for (__int128 v = start; step > 0 ? v <= stop : v >= stop; v += step) {
    if (!series.Add(Datum::Bigint(static_cast<int64_t>(v)))) return series.Null();
  }
  return series.Finish();
}

// The power of ten that makes `a` and `b` whole numbers, or 0 if none up to 10^9 does: a
// decimal series is then counted in those units, so 0.1 steps reach 0.3 exactly as
// PostgreSQL's numeric does, not 0.30000000000000004.
int64_t DecimalScale(double a, double b) {
  int64_t scale = 1;
  for (int digits = 0; digits <= 9; ++digits, scale *= 10) {
    const double x = a * static_cast<double>(scale), y = b * static_cast<double>(scale);
    if (std::abs(x) > 1e15 || std::abs(y) > 1e15) return 0;
    if (x == std::round(x) && y == std::round(y)) return scale;
  }
  return 0;
}

Datum Doubles(const Args& a, const EvalContext& c) {
  const double start = a[0].AsDouble(), stop = a[1].AsDouble();
  const double step = a.size() == 3 ? a[2].AsDouble() : 1;
  if (step == 0) return ZeroStep(c, DataType::kDouble);
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) {
    return FailQuery(c, "generate_series(): start, stop and step must be finite numbers",
                     *ArrayOf(DataType::kDouble));
  }
  SeriesBuilder series(DataType::kDouble, c);
  const double count = std::floor((stop - start) / step);
  if (count < 0) return series.Finish();
  const int64_t scale = DecimalScale(start, step);
  for (double k = 0; k <= count + 1; ++k) {
    const double v = scale != 0 ? (std::round(start * static_cast<double>(scale)) +
                                   k * std::round(step * static_cast<double>(scale))) /
                                      static_cast<double>(scale)
                                : start + k * step;
    if (step > 0 ? v > stop : v < stop) break;
    if (!series.Add(Datum::Double(v))) return series.Null();
  }
  return series.Finish();
}

int64_t Nanos(const Datum& time) {
  return time.type == DataType::kDate ? time.i * kNanosPerDay : time.i;
}

// The step of a series of timestamps: an interval, or a text PostgreSQL would read as one
// ('1 day', '1 month 2 days'); nullopt with the query failed if the text is not one.
std::optional<IntervalText> TimeStep(const Datum& step, const EvalContext& c) {
  if (step.type == DataType::kIntervalYearToMonth) return IntervalText{.months = step.i};
  if (step.type == DataType::kInterval) return IntervalText{.nanos = step.i};
  absl::StatusOr<IntervalText> parsed = ParseIntervalText(step.s);
  if (!parsed.ok()) {
    FailQuery(c,
              StrCat("generate_series(): the step '", step.s,
                     "' is not an interval: ", parsed.status().message()),
              DataType::kUnknown);
    return std::nullopt;
  }
  return *parsed;
}

Datum Timestamps(const Args& a, const EvalContext& c) {
  const DataType type = *ArrayOf(DataType::kTimestamp);
  const std::optional<IntervalText> step = TimeStep(a[2], c);
  if (!step) return Datum::Null(type);
  if (step->months == 0 && step->nanos == 0) return ZeroStep(c, DataType::kTimestamp);
  if (std::abs(step->months) > kMaxCalendarMonths) {
    return FailQuery(
        c, StrCat("generate_series(): a step of ", step->months, " months is too long"), type);
  }
  // Forward if the step is, taking a month as 30 days (as PostgreSQL compares intervals).
  const bool forward = static_cast<__int128>(step->months) * 30 * kNanosPerDay + step->nanos > 0;
  const int64_t stop = Nanos(a[1]);
  SeriesBuilder series(DataType::kTimestamp, c);
  // Each value the last one plus the step, as PostgreSQL adds them: Jan 31, Feb 29, Mar 29.
  std::optional<int64_t> v = Nanos(a[0]);
  while (v && (forward ? *v <= stop : *v >= stop)) {
    if (!series.Add(Datum::Timestamp(*v))) return series.Null();
    if (step->months != 0) v = AddMonths(*v, step->months);
    if (v && __builtin_add_overflow(*v, step->nanos, &*v)) v.reset();
  }
  return series.Finish();
}

}  // namespace

void AddGenerateSeriesFunctions(std::vector<ScalarFunction>* scalars) {
  scalars->push_back(
      {"generate_series", "generate_series(start, stop [, step]) -> array",
       "PostgreSQL's: in FROM or as a select item, a row for each of start, start + step, ... "
       "while not past stop (none if the step leads away from it; step 1 unless given): "
       "bigints, decimals (doubles) or timestamps (step an interval, months too); at most "
       "1,000,000 values. Elsewhere, the array of them.",
       Bind, [](const Args& a, const EvalContext& c) {
         if (IsTime(a[0].type) || IsTime(a[1].type)) return Timestamps(a, c);
         for (const Datum& v : a) {
           if (v.type == DataType::kDouble) return Doubles(a, c);
         }
         return Bigints(a, c);
       }});
  scalars->back().can_fail = true;
}

}  // namespace strata::query
