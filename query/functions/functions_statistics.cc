// Statistics aggregates of Timestream's reference (Presto semantics):
// correlation, covariance and linear regression over pairs, skewness and
// kurtosis, the geometric mean, and the bitwise folds. Rows where an
// argument is NULL are left out; too few rows give NULL.
#include <algorithm>
#include <cmath>

#include "common/status.h"
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

// Running sums of pairs (y, x), kept as means and co-moments (Welford), so
// large values do not lose the small differences that make the answer.
class PairMomentsAcc : public Accumulator {
 public:
  enum class Output {
    kCorr,
    kCovarPop,
    kCovarSamp,
    kRegrSlope,
    kRegrIntercept,
    kRegrCount,
    kRegrAvgX,
    kRegrAvgY,
    kRegrSxx,
    kRegrSyy,
    kRegrSxy,
    kRegrR2,
  };
  explicit PairMomentsAcc(Output output) : output_(output) {}
  void Add(const Args& a) override {
    if (a[0].null || a[1].null) return;
    const double y = a[0].AsDouble(), x = a[1].AsDouble();
    ++n_;
    const double dx = x - mean_x_;
    mean_x_ += dx / n_;
    const double dy = y - mean_y_;
    mean_y_ += dy / n_;
    c_xy_ += dx * (y - mean_y_);
    m2_x_ += dx * (x - mean_x_);
    m2_y_ += dy * (y - mean_y_);
  }
  absl::StatusOr<Datum> Finish() override {
    switch (output_) {
      case Output::kCorr:
        if (n_ < 2 || m2_x_ == 0 || m2_y_ == 0) return Datum::Null(kDbl);
        return Datum::Double(c_xy_ / std::sqrt(m2_x_ * m2_y_));
      case Output::kCovarPop:
        if (n_ < 1) return Datum::Null(kDbl);
        return Datum::Double(c_xy_ / n_);
      case Output::kCovarSamp:
        if (n_ < 2) return Datum::Null(kDbl);
        return Datum::Double(c_xy_ / (n_ - 1));
      case Output::kRegrSlope:
        if (n_ < 2 || m2_x_ == 0) return Datum::Null(kDbl);
        return Datum::Double(c_xy_ / m2_x_);
      case Output::kRegrIntercept:
        if (n_ < 2 || m2_x_ == 0) return Datum::Null(kDbl);
        return Datum::Double(mean_y_ - c_xy_ / m2_x_ * mean_x_);
      case Output::kRegrCount:
        return Datum::Bigint(static_cast<int64_t>(n_));
      case Output::kRegrR2:
        // PostgreSQL's: NULL for a constant x, 1 for a constant y.
        if (n_ < 1 || m2_x_ == 0) return Datum::Null(kDbl);
        if (m2_y_ == 0) return Datum::Double(1);
        return Datum::Double(c_xy_ * c_xy_ / (m2_x_ * m2_y_));
      default:
        break;
    }
    if (n_ < 1) return Datum::Null(kDbl);
    switch (output_) {
      case Output::kRegrAvgX:
        return Datum::Double(mean_x_);
      case Output::kRegrAvgY:
        return Datum::Double(mean_y_);
      case Output::kRegrSxx:
        return Datum::Double(m2_x_);
      case Output::kRegrSyy:
        return Datum::Double(m2_y_);
      case Output::kRegrSxy:
        return Datum::Double(c_xy_);
      default:
        break;
    }
    return Datum::Null(kDbl);
  }

 private:
  Output output_;
  double n_ = 0, mean_x_ = 0, mean_y_ = 0, c_xy_ = 0, m2_x_ = 0, m2_y_ = 0;
};

// The third and fourth central moments (Terriberry's online update).
class ShapeAcc : public Accumulator {
 public:
  explicit ShapeAcc(bool kurtosis) : kurtosis_(kurtosis) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    const double x = a[0].AsDouble();
    const double n1 = n_;
    ++n_;
    const double delta = x - mean_;
    const double delta_n = delta / n_;
    const double delta_n2 = delta_n * delta_n;
    const double term1 = delta * delta_n * n1;
    mean_ += delta_n;
    m4_ += term1 * delta_n2 * (n_ * n_ - 3 * n_ + 3) + 6 * delta_n2 * m2_ - 4 * delta_n * m3_;
    m3_ += term1 * delta_n * (n_ - 2) - 3 * delta_n * m2_;
    m2_ += term1;
  }
  absl::StatusOr<Datum> Finish() override {
    if (!kurtosis_) {
      // Presto's skewness: the population moments' ratio.
      if (n_ < 3 || m2_ == 0) return Datum::Null(kDbl);
      return Datum::Double(std::sqrt(n_) * m3_ / std::pow(m2_, 1.5));
    }
    // Presto's kurtosis: the sample excess kurtosis (as Excel's KURT).
    if (n_ < 4 || m2_ == 0) return Datum::Null(kDbl);
    const double n = n_;
    const double variance = m2_ / (n - 1);
    const double a = n * (n + 1) / ((n - 1) * (n - 2) * (n - 3));
    const double b = 3 * (n - 1) * (n - 1) / ((n - 2) * (n - 3));
    return Datum::Double(a * m4_ / (variance * variance) - b);
  }

 private:
  bool kurtosis_;
  double n_ = 0, mean_ = 0, m2_ = 0, m3_ = 0, m4_ = 0;
};

class GeometricMeanAcc : public Accumulator {
 public:
  void Add(const Args& a) override {
    if (a[0].null) return;
    sum_logs_ += std::log(a[0].AsDouble());
    ++n_;
  }
  absl::StatusOr<Datum> Finish() override {
    if (n_ == 0) return Datum::Null(kDbl);
    return Datum::Double(std::exp(sum_logs_ / static_cast<double>(n_)));
  }

 private:
  double sum_logs_ = 0;
  int64_t n_ = 0;
};

class BitwiseAcc : public Accumulator {
 public:
  explicit BitwiseAcc(bool all) : all_(all), value_(all ? ~int64_t{0} : 0) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    value_ = all_ ? (value_ & a[0].i) : (value_ | a[0].i);
    seen_ = true;
  }
  absl::StatusOr<Datum> Finish() override { return seen_ ? Datum::Bigint(value_) : Datum::Null(kBig); }

 private:
  bool all_;
  int64_t value_;
  bool seen_ = false;
};

// percentile_cont(p) and percentile_disc(p) WITHIN GROUP (ORDER BY x [DESC]), which the parser
// writes as f(x, p, descending): the group's values, sorted at Finish. p may be an array of
// fractions (PostgreSQL's), answered with the array of the values at each.
class OrderedSetPercentileAcc : public Accumulator {
 public:
  OrderedSetPercentileAcc(bool continuous, DataType type) : continuous_(continuous), type_(type) {}
  void Add(const Args& a) override {
    if (a[0].null || a[1].null) return;
    fraction_ = a[1];
    descending_ = a.size() > 2 && !a[2].null && a[2].i != 0;
    values_.push_back(a[0]);
    Kept(static_cast<int64_t>(sizeof(Datum)) + a[0].HeapBytes());
  }
  absl::StatusOr<Datum> Finish() override {
    const DataType out = continuous_ ? DataType::kDouble : type_;
    const bool many = KindOf(fraction_.type) == TypeKind::kArray;
    if (values_.empty()) return Datum::Null(many ? *ArrayOf(out) : out);
    std::sort(values_.begin(), values_.end(), [this](const Datum& x, const Datum& y) {
      return descending_ ? Compare(x, y) > 0 : Compare(x, y) < 0;
    });
    if (!many) return ValueAt(fraction_, out);
    std::vector<Datum> at;
    for (const Datum& fraction : fraction_.items()) {
      ASSIGN_OR_RETURN(Datum value, ValueAt(fraction, out));
      at.push_back(std::move(value));
    }
    return Datum::Composite(*ArrayOf(out), std::move(at));
  }

 private:
  // The sorted values' value at `fraction` (NULL for a NULL fraction).
  absl::StatusOr<Datum> ValueAt(const Datum& fraction_value, DataType out) const {
    if (fraction_value.null) return Datum::Null(out);
    const double fraction = fraction_value.AsDouble();
    if (!(fraction >= 0 && fraction <= 1)) {
      return absl::InvalidArgumentError(StrCat(continuous_ ? "percentile_cont" : "percentile_disc",
                                               "(): the fraction must be from 0 to 1, not ",
                                               fraction));
    }
    const size_t n = values_.size();
    if (!continuous_) {
      // The first value whose cumulative share of the rows reaches the fraction.
      const double rank = std::ceil(fraction * static_cast<double>(n));
      const size_t at = rank < 1 ? 0 : std::min(n, static_cast<size_t>(rank)) - 1;
      return values_[at];
    }
    // Linear between the two values around position fraction * (n - 1).
    const double position = fraction * static_cast<double>(n - 1);
    const size_t low = static_cast<size_t>(std::floor(position));
    const size_t high = std::min(n - 1, low + 1);
    const double x = values_[low].AsDouble(), y = values_[high].AsDouble();
    return Datum::Double(x + (y - x) * (position - static_cast<double>(low)));
  }

  bool continuous_;
  DataType type_;
  Datum fraction_;
  bool descending_ = false;
  std::vector<Datum> values_;
};

// mode() WITHIN GROUP (ORDER BY x [DESC]), which the parser writes as mode(x, descending): the
// most frequent value, the first in the order among equally frequent ones (PostgreSQL's).
class ModeAcc : public Accumulator {
 public:
  explicit ModeAcc(DataType type) : type_(type) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    descending_ = !a[1].null && a[1].i != 0;
    values_.push_back(a[0]);
    Kept(static_cast<int64_t>(sizeof(Datum)) + a[0].HeapBytes());
  }
  absl::StatusOr<Datum> Finish() override {
    if (values_.empty()) return Datum::Null(type_);
    std::sort(values_.begin(), values_.end(), [this](const Datum& x, const Datum& y) {
      return descending_ ? Compare(x, y) > 0 : Compare(x, y) < 0;
    });
    size_t best = 0, best_run = 0;
    for (size_t i = 0; i < values_.size();) {
      size_t end = i + 1;
      while (end < values_.size() && Compare(values_[end], values_[i]) == 0) ++end;
      if (end - i > best_run) best = i, best_run = end - i;
      i = end;
    }
    return values_[best];
  }

 private:
  DataType type_;
  bool descending_ = false;
  std::vector<Datum> values_;
};

// An ordered-set percentile's fraction: a number, or an array of numbers.
bool Fractions(DataType t) {
  return Accepts(P::kNumeric, t) ||
         (KindOf(t) == TypeKind::kArray && Accepts(P::kNumeric, ElementType(t)));
}

}  // namespace

void AddStatisticsAggregates(std::vector<AggregateFunction>* aggregates) {
  auto agg = [aggregates](AggregateFunction f) { aggregates->push_back(std::move(f)); };
  using Output = PairMomentsAcc::Output;
  for (auto [name, output, doc] :
       {std::tuple{"corr", Output::kCorr, "Pearson correlation coefficient of the pairs."},
        std::tuple{"covar_pop", Output::kCovarPop, "Population covariance of the pairs."},
        std::tuple{"covar_samp", Output::kCovarSamp, "Sample covariance of the pairs."},
        std::tuple{"regr_slope", Output::kRegrSlope, "Slope of the least-squares line of y on x."},
        std::tuple{"regr_intercept", Output::kRegrIntercept,
                   "Intercept of the least-squares line of y on x."},
        std::tuple{"regr_count", Output::kRegrCount,
                   "The number of pairs where neither is NULL (PostgreSQL's; 0 over none)."},
        std::tuple{"regr_avgx", Output::kRegrAvgX, "The average of x over the pairs."},
        std::tuple{"regr_avgy", Output::kRegrAvgY, "The average of y over the pairs."},
        std::tuple{"regr_sxx", Output::kRegrSxx,
                   "The sum of squares of x's deviations from its average over the pairs."},
        std::tuple{"regr_syy", Output::kRegrSyy,
                   "The sum of squares of y's deviations from its average over the pairs."},
        std::tuple{"regr_sxy", Output::kRegrSxy,
                   "The sum of products of x's and y's deviations from their averages."},
        std::tuple{"regr_r2", Output::kRegrR2,
                   "The square of the correlation coefficient (NULL for a constant x, 1 for a "
                   "constant y)."}}) {
    const DataType type = output == Output::kRegrCount ? kBig : kDbl;
    agg({name, StrCat(name, "(y, x) -> ", type == kBig ? "bigint" : "double"), doc,
         Fixed({P::kNumeric, P::kNumeric}, type, StrCat(name, "(number, number)")),
         [o = output](const Types&) { return std::make_unique<PairMomentsAcc>(o); }});
  }
  agg({"skewness", "skewness(x) -> double", "Skewness of the values (NULL under 3 values).",
       Fixed({P::kNumeric}, kDbl, "skewness(number)"),
       [](const Types&) { return std::make_unique<ShapeAcc>(false); }});
  agg({"kurtosis", "kurtosis(x) -> double", "Excess kurtosis of the values (NULL under 4 values).",
       Fixed({P::kNumeric}, kDbl, "kurtosis(number)"),
       [](const Types&) { return std::make_unique<ShapeAcc>(true); }});
  agg({"geometric_mean", "geometric_mean(x) -> double",
       "The n-th root of the product of the values (NaN for a negative value).",
       Fixed({P::kNumeric}, kDbl, "geometric_mean(number)"),
       [](const Types&) { return std::make_unique<GeometricMeanAcc>(); }});
  agg({"percentile_cont",
       "percentile_cont(fraction | ARRAY[fraction, ...]) WITHIN GROUP (ORDER BY x) -> double | "
       "array(double)",
       "The value at the fraction (0 to 1) of the group's ordered values, interpolated linearly "
       "between the two around it (PostgreSQL's; exact, as approx_percentile here); for an "
       "array of fractions the array of those values.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 3 || !Accepts(P::kNumeric, t[0]) || !Fractions(t[1]) ||
             !Accepts(P::kBoolean, t[2])) {
           return WrongArguments(
               "percentile_cont(fraction | ARRAY[fraction, ...]) WITHIN GROUP (ORDER BY number)");
         }
         if (KindOf(t[1]) == TypeKind::kArray) return Interned(ArrayOf(kDbl));
         return kDbl;
       },
       [](const Types& t) { return std::make_unique<OrderedSetPercentileAcc>(true, t[0]); }});
  agg({"percentile_disc",
       "percentile_disc(fraction | ARRAY[fraction, ...]) WITHIN GROUP (ORDER BY x) -> type of "
       "x | array",
       "The first of the group's ordered values whose share of the rows (from the first) "
       "reaches the fraction (0 to 1): a value of the group (PostgreSQL's); for an array of "
       "fractions the array of those values.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 3 || IsComposite(t[0]) || !Fractions(t[1]) ||
             !Accepts(P::kBoolean, t[2])) {
           return WrongArguments(
               "percentile_disc(fraction | ARRAY[fraction, ...]) WITHIN GROUP (ORDER BY x)");
         }
         if (KindOf(t[1]) == TypeKind::kArray) return Interned(ArrayOf(t[0]));
         return t[0];
       },
       [](const Types& t) { return std::make_unique<OrderedSetPercentileAcc>(false, t[0]); }});
  agg({"mode", "mode() WITHIN GROUP (ORDER BY x) -> type of x",
       "The group's most frequent value; among equally frequent ones the first in the order "
       "(PostgreSQL's).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || IsComposite(t[0]) || !Accepts(P::kBoolean, t[1])) {
           return WrongArguments("mode() WITHIN GROUP (ORDER BY x)");
         }
         return t[0];
       },
       [](const Types& t) { return std::make_unique<ModeAcc>(t[0]); }});
  // bit_and and bit_or: PostgreSQL's names.
  for (auto [name, all] : {std::pair{"bitwise_and_agg", true}, std::pair{"bitwise_or_agg", false},
                           std::pair{"bit_and", true}, std::pair{"bit_or", false}}) {
    const bool postgres = std::string_view(name).starts_with("bit_");
    agg({name, StrCat(name, "(bigint) -> bigint"),
         StrCat(all ? "Bitwise AND of every value" : "Bitwise OR of every value",
                postgres ? (all ? " (PostgreSQL's name of bitwise_and_agg)."
                                : " (PostgreSQL's name of bitwise_or_agg).")
                         : "."),
         Fixed({P::kBigint}, kBig, StrCat(name, "(bigint)")),
         [a = all](const Types&) { return std::make_unique<BitwiseAcc>(a); }});
  }
}

}  // namespace strata::query
