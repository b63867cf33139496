// The timeseries type's functions: building a series (create_time_series,
// sequence), filling gaps (interpolate_*), derivatives, integrals and
// correlations. A timeseries value holds its points in time order; NULL
// values are left out when the series is made.
#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
constexpr size_t kMaxSequence = 10'000;

bool IsSeries(DataType t) { return t == DataType::kUnknown || KindOf(t) == TypeKind::kTimeseries; }
bool IsTimestampArray(DataType t) {
  return t == DataType::kUnknown ||
         (KindOf(t) == TypeKind::kArray &&
          (ElementType(t) == DataType::kTimestamp || ElementType(t) == DataType::kUnknown));
}


struct Points {
  const std::vector<int64_t>& times;
  const std::vector<Datum>& values;
  size_t size() const { return values.size(); }
};

Points PointsOf(const Datum& series) {
  static const std::vector<int64_t> kNoTimes;
  return {series.nested ? series.nested->times : kNoTimes, series.items()};
}

// The times to fill: an array's non-NULL timestamps, or a series' times,
// ascending without repeats; or the one timestamp.
std::vector<int64_t> TargetTimes(const Datum& target) {
  std::vector<int64_t> times;
  if (target.type == DataType::kTimestamp) {
    times.push_back(target.i);
  } else if (KindOf(target.type) == TypeKind::kTimeseries) {
    times = target.nested->times;
  } else {
    for (const Datum& t : target.items()) {
      if (!t.null) times.push_back(t.i);
    }
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

// The index of the last point at or before `t`, or -1.
int64_t LastAtOrBefore(const Points& p, int64_t t) {
  auto it = std::upper_bound(p.times.begin(), p.times.end(), t);
  return static_cast<int64_t>(it - p.times.begin()) - 1;
}

// Seconds from the series' first point, where the spline is solved.
double Seconds(int64_t t, int64_t origin) {
  return static_cast<double>(t - origin) / kNanosPerSecond;
}

// A natural cubic spline through the points: its second derivatives.
std::vector<double> SplineSecondDerivatives(const Points& p) {
  const size_t n = p.size();
  std::vector<double> m(n, 0.0);
  if (n < 3) return m;
  std::vector<double> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = Seconds(p.times[i], p.times[0]);
    y[i] = p.values[i].AsDouble();
  }
  // Thomas algorithm on the tridiagonal system for m[1..n-2] (m[0] = m[n-1] = 0).
  std::vector<double> c(n, 0.0), d(n, 0.0);
  for (size_t i = 1; i + 1 < n; ++i) {
    const double h0 = x[i] - x[i - 1], h1 = x[i + 1] - x[i];
    const double a = h0, b = 2 * (h0 + h1), cc = h1;
    const double r = 6 * ((y[i + 1] - y[i]) / h1 - (y[i] - y[i - 1]) / h0);
    const double denom = b - a * c[i - 1];
    c[i] = cc / denom;
    d[i] = (r - a * d[i - 1]) / denom;
  }
  for (size_t i = n - 2; i >= 1; --i) {
    m[i] = d[i] - c[i] * m[i + 1];
    if (i == 1) break;
  }
  return m;
}

enum class Method { kLinear, kSpline, kLocf, kFill };

// The value at `t`, or nullopt where the method gives none (outside the
// series for linear and spline, before it for LOCF).
std::optional<Datum> ValueAt(Method method, const Points& p, const std::vector<double>& m,
                             int64_t t, const Datum& fill) {
  const int64_t i = LastAtOrBefore(p, t);
  if (i >= 0 && p.times[i] == t) return p.values[i];
  switch (method) {
    case Method::kFill: return fill;
    case Method::kLocf:
      if (i < 0) return std::nullopt;
      return p.values[i];
    case Method::kLinear:
    case Method::kSpline: {
      if (i < 0 || i + 1 >= static_cast<int64_t>(p.size())) return std::nullopt;
      const double x0 = Seconds(p.times[i], p.times[0]), x1 = Seconds(p.times[i + 1], p.times[0]);
      const double x = Seconds(t, p.times[0]);
      const double y0 = p.values[i].AsDouble(), y1 = p.values[i + 1].AsDouble();
      const double h = x1 - x0;
      if (method == Method::kLinear) return Datum::Double(y0 + (y1 - y0) * (x - x0) / h);
      const double a = (x1 - x) / h, b = (x - x0) / h;
      return Datum::Double(a * y0 + b * y1 +
                           ((a * a * a - a) * m[i] + (b * b * b - b) * m[i + 1]) * h * h / 6);
    }
  }
  return std::nullopt;
}

// interpolate_*(series, times [, fill]): a series at `times`, or one value.
Datum Interpolate(Method method, const Args& a, DataType result) {
  const Points p = PointsOf(a[0]);
  const Datum fill = method == Method::kFill ? a[2] : Datum::Null();
  std::vector<double> m;
  if (method == Method::kSpline) m = SplineSecondDerivatives(p);
  if (a[1].type == DataType::kTimestamp) {
    std::optional<Datum> v = ValueAt(method, p, m, a[1].i, fill);
    return v ? CoerceTo(*v, result) : Datum::Null(result);
  }
  const DataType value_type = ElementType(result);
  std::vector<int64_t> times;
  std::vector<Datum> values;
  for (int64_t t : TargetTimes(a[1])) {
    std::optional<Datum> v = ValueAt(method, p, m, t, fill);
    if (!v || v->null) continue;
    times.push_back(t);
    values.push_back(CoerceTo(*v, value_type));
  }
  return Datum::Composite(result, std::move(values), std::move(times));
}

// A numeric series' value type, or an error.
absl::StatusOr<DataType> NumericSeries(DataType t, std::string_view signature) {
  if (!IsSeries(t)) return WrongArguments(signature);
  const DataType v = ElementType(t);
  if (t != DataType::kUnknown && !IsNumeric(v) && v != DataType::kUnknown) {
    return absl::InvalidArgumentError(
        StrCat("needs a time series of numbers, not ", TypeName(t), "; expected ", signature));
  }
  return v;
}

double Pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

// Ranks from 1, ties sharing their mean rank.
std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double rank = (static_cast<double>(i + j) / 2) + 1;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

// Pairs i < j with v[i] > v[j], counted while merge-sorting v.
int64_t SortCountingInversions(std::vector<double>* v) {
  std::vector<double> buffer(v->size());
  int64_t inversions = 0;
  for (size_t width = 1; width < v->size(); width *= 2) {
    for (size_t lo = 0; lo < v->size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, v->size()), hi = std::min(lo + 2 * width, v->size());
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) {
        if ((*v)[j] < (*v)[i]) {
          inversions += static_cast<int64_t>(mid - i);
          buffer[out++] = (*v)[j++];
        } else {
          buffer[out++] = (*v)[i++];
        }
      }
      while (i < mid) buffer[out++] = (*v)[i++];
      while (j < hi) buffer[out++] = (*v)[j++];
    }
    v->swap(buffer);
  }
  return inversions;
}

// Pairs within runs of equal neighbours: sum of t(t-1)/2 over the runs.
template <typename Equal>
int64_t TiedPairs(size_t n, Equal equal) {
  int64_t pairs = 0, run = 1;
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && equal(i - 1, i)) {
      ++run;
      continue;
    }
    pairs += run * (run - 1) / 2;
    run = 1;
  }
  return pairs;
}

// Kendall's tau-b (ties in either variable corrected for), by Knight's
// O(n log n) method: sort by (x, y), then count y's inversions while
// merge-sorting it. NaN when either variable is constant.
double KendallTauB(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return x[a] != x[b] ? x[a] < x[b] : y[a] < y[b];
  });
  const int64_t tied_x = TiedPairs(n, [&](size_t a, size_t b) { return x[order[a]] == x[order[b]]; });
  const int64_t tied_both = TiedPairs(n, [&](size_t a, size_t b) {
    return x[order[a]] == x[order[b]] && y[order[a]] == y[order[b]];
  });
  std::vector<double> ys(n);
  for (size_t i = 0; i < n; ++i) ys[i] = y[order[i]];
  const int64_t discordant = SortCountingInversions(&ys);
  const int64_t tied_y = TiedPairs(n, [&](size_t a, size_t b) { return ys[a] == ys[b]; });
  const int64_t pairs = static_cast<int64_t>(n) * static_cast<int64_t>(n - 1) / 2;
  const double numerator =
      static_cast<double>(pairs - tied_x - tied_y + tied_both - 2 * discordant);
  return numerator / std::sqrt(static_cast<double>(pairs - tied_x) *
                               static_cast<double>(pairs - tied_y));
}

class CreateTimeSeriesAcc : public Accumulator {
 public:
  explicit CreateTimeSeriesAcc(DataType type) : type_(type) {}
  void Add(const Args& a) override {
    if (a[0].null || a[1].null) return;
    if (points_.size() == kMaxNestedValues) {
      overflow_ = true;
      return;
    }
    points_.emplace_back(a[0].i, CoerceTo(a[1], ElementType(type_)));
    Kept(static_cast<int64_t>(sizeof(points_.back())) + points_.back().second.HeapBytes());
  }
  absl::StatusOr<Datum> Finish() override {
    if (overflow_) {
      return absl::ResourceExhaustedError(StrCat(
          "create_time_series(): a group has more than ", kMaxNestedValues,
          " points, the most one time series holds; group by more columns or bin the time"));
    }
    // No points (no rows, or NULLs only): NULL, as Presto's aggregates other than count.
    if (points_.empty()) return Datum::Null(type_);
    std::stable_sort(points_.begin(), points_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<int64_t> times;
    std::vector<Datum> values;
    times.reserve(points_.size());
    values.reserve(points_.size());
    for (const auto& [t, v] : points_) {  // copies: more rows may come (Finish)
      times.push_back(t);
      values.push_back(v);
    }
    return Datum::Composite(type_, std::move(values), std::move(times));
  }

 private:
  DataType type_;
  std::vector<std::pair<int64_t, Datum>> points_;
  bool overflow_ = false;
};

}  // namespace

void AddTimeseriesFunctions(std::vector<ScalarFunction>* scalars,
                            std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };
  static constexpr DataType kDbl = DataType::kDouble;

  add({"sequence", "sequence(start, stop [, step]) -> array",
       "start, start + step, ... up to stop (at most 10,000 values): bigints (step 1 or -1 "
       "by default) or timestamps (step an interval): sequence(min(t), max(t), 15s).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature =
             "sequence(bigint, bigint [, bigint]) or sequence(timestamp, timestamp, interval)";
         if (t.size() < 2 || t.size() > 3) return WrongArguments(kSignature);
         const bool times = t[0] == DataType::kTimestamp || t[1] == DataType::kTimestamp;
         for (size_t i = 0; i < 2; ++i) {
           if (t[i] != DataType::kUnknown && t[i] != (times ? DataType::kTimestamp : DataType::kBigint)) {
             return WrongArguments(kSignature);
           }
         }
         if (times && t.size() != 3) {
           return absl::InvalidArgumentError("a sequence of timestamps needs a step: "
                                             "sequence(start, stop, 15s)");
         }
         if (t.size() == 3 && t[2] != DataType::kUnknown &&
             t[2] != (times ? DataType::kInterval : DataType::kBigint)) {
           return WrongArguments(kSignature);
         }
         return Interned(ArrayOf(times ? DataType::kTimestamp : DataType::kBigint));
       },
       [](const Args& a, const EvalContext& c) {
         const int64_t start = a[0].i, stop = a[1].i;
         const int64_t step = a.size() == 3 ? a[2].i : (start <= stop ? 1 : -1);
         if (step == 0 || (start < stop && step < 0) || (start > stop && step > 0)) {
           return FailQuery(c, "sequence(): the step must go from start towards stop (and not be 0)",
                       DataType::kUnknown);
         }
         // The count in 128 bits: a span of the whole int64 range must not wrap.
         const __int128 count = (static_cast<__int128>(stop) - start) / step + 1;
         if (count > static_cast<__int128>(kMaxSequence)) {
           return FailQuery(c, StrCat("sequence(): ", static_cast<int64_t>(std::min<__int128>(count, INT64_MAX)),
                                 " values is more than 10,000; use a larger step or a shorter "
                                 "range"),
                       DataType::kUnknown);
         }
         std::vector<Datum> values;
         values.reserve(static_cast<size_t>(count));
         for (__int128 k = 0; k < count; ++k) {
           Datum v = Datum::Bigint(static_cast<int64_t>(start + k * step));
           v.type = a[0].type == DataType::kUnknown ? a[1].type : a[0].type;
           values.push_back(v);
         }
         return Datum::Composite(DataType::kUnknown, std::move(values));
       }});
  scalars->back().can_fail = true;

  struct Interpolation {
    const char* name;
    Method method;
    const char* doc;
  };
  for (const Interpolation& f :
       {Interpolation{"interpolate_linear", Method::kLinear,
                      "The series at the given times by linear interpolation between its "
                      "points (times outside the series are left out; one timestamp gives a "
                      "double, NULL outside)."},
        Interpolation{"interpolate_spline_cubic", Method::kSpline,
                      "The series at the given times by a natural cubic spline through its "
                      "points (times outside the series are left out)."},
        Interpolation{"interpolate_locf", Method::kLocf,
                      "The series at the given times, each the last value at or before it "
                      "(times before the series are left out)."},
        Interpolation{"interpolate_fill", Method::kFill,
                      "The series at the given times, the fill value where it has no point."}}) {
    const bool fill = f.method == Method::kFill;
    const bool numeric = f.method == Method::kLinear || f.method == Method::kSpline;
    const std::string signature =
        StrCat(f.name, "(timeseries, array(timestamp) | timestamp", fill ? ", fill" : "",
               ") -> timeseries | ", numeric ? "double" : "value");
    add({f.name, signature, f.doc,
         [signature, fill, numeric](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != (fill ? 3u : 2u) || !IsSeries(t[0])) return WrongArguments(signature);
           DataType value = ElementType(t[0]);
           if (numeric) {
             ASSIGN_OR_RETURN(value, NumericSeries(t[0], signature));
             value = kDbl;
           }
           if (fill) {
             ASSIGN_OR_RETURN(value, CommonElementType({value, t[2]}, signature));
           }
           if (value == DataType::kUnknown) value = kDbl;
           if (t[1] == DataType::kTimestamp) return value;
           if (!IsTimestampArray(t[1]) && KindOf(t[1]) != TypeKind::kTimeseries) {
             return WrongArguments(signature);
           }
           return Interned(TimeseriesOf(value));
         },
         nullptr});
    scalars->back().eval_typed = [method = f.method](const Args& a, DataType result,
                                                      const EvalContext&) {
      if (a[0].null || a[1].null) return Datum::Null(result);
      return Interpolate(method, a, result);
    };
    // A NULL fill value fills with NULL (points left out of a series).
    scalars->back().null_propagating = !fill;
  }

  for (auto [name, non_negative] : {std::pair{"derivative_linear", false},
                                    std::pair{"non_negative_derivative_linear", true}}) {
    const std::string signature = StrCat(name, "(timeseries, interval) -> timeseries");
    add({name, signature,
         non_negative ? "As derivative_linear, leaving out the points where it is negative "
                        "(a counter that was reset)."
                      : "The rate of change per interval at each point after the first: "
                        "(v[i] - v[i-1]) / (t[i] - t[i-1]) * interval.",
         [signature](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 2 || (t[1] != DataType::kInterval && t[1] != DataType::kUnknown)) {
             return WrongArguments(signature);
           }
           RETURN_IF_ERROR(NumericSeries(t[0], signature).status());
           return Interned(TimeseriesOf(kDbl));
         },
         nullptr});
    scalars->back().eval_typed = [nn = non_negative](const Args& a, DataType result,
                                                     const EvalContext& c) {
      if (a[1].i <= 0) return FailQuery(c, "derivative_linear(): the interval must be positive", result);
      const Points p = PointsOf(a[0]);
      std::vector<int64_t> times;
      std::vector<Datum> values;
      for (size_t i = 1; i < p.size(); ++i) {
        if (p.times[i] == p.times[i - 1]) continue;
        const double rate = (p.values[i].AsDouble() - p.values[i - 1].AsDouble()) /
                            static_cast<double>(p.times[i] - p.times[i - 1]) *
                            static_cast<double>(a[1].i);
        if (nn && rate < 0) continue;
        times.push_back(p.times[i]);
        values.push_back(Datum::Double(rate));
      }
      return Datum::Composite(result, std::move(values), std::move(times));
    };
    scalars->back().can_fail = true;
  }

  add({"integral_trapezoidal", "integral_trapezoidal(timeseries [, interval]) -> double",
       "The area under the series by the trapezoidal rule, time counted in the interval "
       "(1s by default); NULL for an empty series.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature = "integral_trapezoidal(timeseries [, interval])";
         if (t.empty() || t.size() > 2 ||
             (t.size() == 2 && t[1] != DataType::kInterval && t[1] != DataType::kUnknown)) {
           return WrongArguments(kSignature);
         }
         RETURN_IF_ERROR(NumericSeries(t[0], kSignature).status());
         return kDbl;
       },
       [](const Args& a, const EvalContext& c) {
         const double unit = a.size() == 2 ? static_cast<double>(a[1].i) : kNanosPerSecond;
         if (unit <= 0)
           return FailQuery(c, "integral_trapezoidal(): the interval must be positive", kDbl);
         const Points p = PointsOf(a[0]);
         if (p.size() == 0) return Datum::Null(kDbl);
         double area = 0;
         for (size_t i = 1; i < p.size(); ++i) {
           area += (p.values[i].AsDouble() + p.values[i - 1].AsDouble()) / 2 *
                   static_cast<double>(p.times[i] - p.times[i - 1]) / unit;
         }
         return Datum::Double(area);
       }});
  scalars->back().can_fail = true;

  enum class Correlation { kPearson, kSpearman, kKendall };
  for (const auto& [name, correlation, title] :
       {std::tuple{"correlate_pearson", Correlation::kPearson, "Pearson's"},
        std::tuple{"correlate_spearman", Correlation::kSpearman, "Spearman's rank"},
        std::tuple{"correlate_kendall", Correlation::kKendall, "Kendall's rank (tau-b)"}}) {
    const Correlation kind = correlation;  // clang 14 cannot capture a structured binding
    const std::string signature = StrCat(name, "(timeseries, timeseries) -> double");
    add({name, signature,
         StrCat(title,
                " correlation coefficient of two series with the same times, in [-1, 1]; "
                "NULL for fewer than two points."),
         [signature](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 2) return WrongArguments(signature);
           RETURN_IF_ERROR(NumericSeries(t[0], signature).status());
           RETURN_IF_ERROR(NumericSeries(t[1], signature).status());
           return kDbl;
         },
         [n = std::string(name), kind](const Args& a, const EvalContext& c) {
           const Points p = PointsOf(a[0]), q = PointsOf(a[1]);
           if (p.times != q.times) {
             return FailQuery(c, StrCat(n, "(): both time series must have the same timestamps; "
                                      "interpolate one at the other's times first"),
                         kDbl);
           }
           if (p.size() < 2) return Datum::Null(kDbl);
           std::vector<double> x, y;
           for (size_t i = 0; i < p.size(); ++i) {
             x.push_back(p.values[i].AsDouble());
             y.push_back(q.values[i].AsDouble());
           }
           const double r = kind == Correlation::kKendall    ? KendallTauB(x, y)
                            : kind == Correlation::kSpearman ? Pearson(Ranks(x), Ranks(y))
                                                             : Pearson(x, y);
           return std::isnan(r) ? Datum::Null(kDbl) : Datum::Double(r);
         }});
    scalars->back().can_fail = true;
  }

  aggregates->push_back(
      {"create_time_series", "create_time_series(time, value) -> timeseries",
       "The group's (time, value) points as one time series in time order (NULL values left "
       "out).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || (t[0] != DataType::kTimestamp && t[0] != DataType::kUnknown) ||
             IsComposite(t[1]) || t[1] == DataType::kInterval) {
           return WrongArguments("create_time_series(timestamp, bigint | double | boolean | varchar)");
         }
         return Interned(TimeseriesOf(t[1] == DataType::kUnknown ? kDbl : t[1]));
       },
       [](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<CreateTimeSeriesAcc>(
             *TimeseriesOf(t[1] == DataType::kUnknown ? kDbl : t[1]));
       }});
}

}  // namespace strata::query
