#include "query/window.h"

#include <algorithm>
#include <numeric>

#include "common/status.h"
#include "common/strings.h"
#include "query/error.h"
#include "query/expr.h"

namespace strata::query {
namespace {

struct WindowOnly {
  std::string_view name;
  std::string_view signature;
  std::string_view doc;
};

constexpr WindowOnly kWindowOnly[] = {
    {"row_number", "row_number() -> bigint", "the row's number in its partition, from 1"},
    {"rank", "rank() -> bigint", "1 + the rows ordered before the row's peers (gaps after ties)"},
    {"dense_rank", "dense_rank() -> bigint", "the number of the row's peer group (no gaps)"},
    {"percent_rank", "percent_rank() -> double", "(rank - 1) / (partition rows - 1); 0 for one row"},
    {"cume_dist", "cume_dist() -> double",
     "rows ordered before or with the row, over the partition's rows"},
    {"ntile", "ntile(n) -> bigint", "the bucket 1..n of the row when the partition is cut in n"},
    {"lag", "lag(x [, offset [, default]]) -> type of x",
     "x of the row `offset` (1) rows before, else default (NULL)"},
    {"lead", "lead(x [, offset [, default]]) -> type of x",
     "x of the row `offset` (1) rows after, else default (NULL)"},
    {"first_value", "first_value(x) -> type of x", "x of the frame's first row"},
    {"last_value", "last_value(x) -> type of x", "x of the frame's last row"},
    {"nth_value", "nth_value(x, n) -> type of x", "x of the frame's n-th row (from 1), else NULL"},
};

bool Integer(DataType t) { return t == DataType::kBigint || t == DataType::kUnknown; }

absl::Status ArgCount(const Expr& e, std::string_view sql, size_t low, size_t high) {
  if (e.args.size() >= low && e.args.size() <= high) return absl::OkStatus();
  return SqlError(sql, e.pos, StrCat(e.name, "() takes ",
                                     low == high ? StrCat(low) : StrCat(low, " to ", high),
                                     " arguments, not ", e.args.size()));
}

// The rows of one partition, in window order, and where each row's frame is.
class WindowEvaluator {
 public:
  WindowEvaluator(const WindowCall& call, const std::vector<Row>& rows,
                  const std::vector<std::vector<Datum>>& order_values,
                  const std::vector<std::vector<Datum>>& args, QueryContext* context)
      : call_(call), rows_(rows), order_(order_values), args_(args), context_(context) {}

  // Fills out[idx[i]] for the partition idx[begin, end).
  absl::Status Partition(const std::vector<size_t>& idx, size_t begin, size_t end,
                         std::vector<Datum>* out) {
    const size_t n = end - begin;
    // Peer groups: rows equal in every ORDER BY key. group_starts_ holds
    // each group's first position and, last, n (GROUPS frames count them).
    std::vector<size_t> peer_start(n), peer_end(n);
    group_of_.resize(n);
    group_starts_.clear();
    for (size_t i = 0; i < n;) {
      size_t j = i + 1;
      while (j < n && SameOrder(idx[begin + i], idx[begin + j])) ++j;
      for (size_t k = i; k < j; ++k) {
        peer_start[k] = i;
        peer_end[k] = j;
        group_of_[k] = group_starts_.size();
      }
      group_starts_.push_back(i);
      i = j;
    }
    group_starts_.push_back(n);
    if (call_.range_offsets) RangeKeys(idx, begin, n);
    // IGNORE NULLS: the positions whose argument is not NULL, in order.
    std::vector<size_t> present;
    if (call_.ignore_nulls && !args_.empty()) {
      for (size_t p = 0; p < n; ++p) {
        if (!args_[0][idx[begin + p]].null) present.push_back(p);
      }
    }
    const std::string& f = call_.name;
    int64_t dense = 0;
    std::unique_ptr<Accumulator> acc;
    size_t acc_start = 0, acc_end = 0;  // rows [acc_start, acc_end) are in `acc`
    Datum last;
    bool have_last = false;
    size_t last_start = 0, last_end = 0;
    for (size_t i = 0; i < n; ++i) {
      if ((i & 1023) == 0) RETURN_IF_ERROR(context_->CheckAlive());
      const size_t row = idx[begin + i];
      Datum& result = (*out)[row];
      if (peer_start[i] == i) ++dense;
      if (f == "row_number") {
        result = Datum::Bigint(static_cast<int64_t>(i + 1));
      } else if (f == "rank") {
        result = Datum::Bigint(static_cast<int64_t>(peer_start[i] + 1));
      } else if (f == "dense_rank") {
        result = Datum::Bigint(dense);
      } else if (f == "percent_rank") {
        result = Datum::Double(n == 1 ? 0.0 : static_cast<double>(peer_start[i]) /
                                                  static_cast<double>(n - 1));
      } else if (f == "cume_dist") {
        result = Datum::Double(static_cast<double>(peer_end[i]) / static_cast<double>(n));
      } else if (f == "ntile") {
        const Datum& buckets = args_[0][row];
        if (buckets.null) {
          result = Datum::Null(DataType::kBigint);
          continue;
        }
        if (buckets.i <= 0) {
          return absl::InvalidArgumentError(
              StrCat("ntile() needs a positive number of buckets, not ", buckets.i));
        }
        result = Datum::Bigint(Ntile(i, n, static_cast<uint64_t>(buckets.i)));
      } else if (f == "lag" || f == "lead") {
        int64_t offset = 1;
        if (args_.size() > 1) {
          const Datum& o = args_[1][row];
          if (o.null) {
            result = Datum::Null(call_.type);
            continue;
          }
          if (o.i < 0) {
            return absl::InvalidArgumentError(StrCat(f, "() needs an offset of 0 or more, not ", o.i));
          }
          offset = o.i;
        }
        int64_t at = f == "lag" ? static_cast<int64_t>(i) - offset
                                : static_cast<int64_t>(i) + offset;
        if (call_.ignore_nulls && offset > 0) {
          // The offset-th row before (after) this one whose value is not NULL.
          const auto before = std::lower_bound(present.begin(), present.end(), i) - present.begin();
          const auto after = std::upper_bound(present.begin(), present.end(), i) - present.begin();
          const int64_t k = f == "lag" ? before - offset : after + offset - 1;
          at = k >= 0 && k < static_cast<int64_t>(present.size()) ? static_cast<int64_t>(present[k])
                                                                  : -1;
        }
        if (at >= 0 && at < static_cast<int64_t>(n)) {
          result = args_[0][idx[begin + static_cast<size_t>(at)]];
        } else {
          result = args_.size() > 2 ? args_[2][row] : Datum::Null(call_.type);
        }
      } else {
        // Frame functions: [fs, fe) within the partition.
        auto [fs, fe] = Frame(i, n, peer_start[i], peer_end[i]);
        if (f == "first_value" || f == "last_value" || f == "nth_value") {
          // The frame's rows to choose from: all, or (IGNORE NULLS) those
          // with a value: positions [from, to) of `present`.
          size_t from = fs, to = fe;
          if (call_.ignore_nulls) {
            from = std::lower_bound(present.begin(), present.end(), fs) - present.begin();
            to = std::lower_bound(present.begin(), present.end(), fe) - present.begin();
          }
          auto position = [&](size_t k) { return call_.ignore_nulls ? present[k] : k; };
          size_t at = SIZE_MAX;  // none
          if (f == "first_value" && from < to) at = position(from);
          if (f == "last_value" && from < to) at = position(to - 1);
          if (f == "nth_value") {
            const Datum& nth = args_[1][row];
            if (!nth.null && nth.i <= 0) {
              return absl::InvalidArgumentError(
                  StrCat("nth_value() needs a position of 1 or more, not ", nth.i));
            }
            if (!nth.null && static_cast<uint64_t>(nth.i) <= to - from) {
              at = position(from + nth.i - 1);
            }
          }
          result = at != SIZE_MAX ? args_[0][idx[begin + at]] : Datum::Null(call_.type);
          continue;
        }
        // An aggregate: reuse the last value for the same frame, extend the
        // accumulator when the frame only grew at its end (running totals,
        // whole partitions), start over otherwise (sliding frames).
        if (have_last && fs == last_start && fe == last_end) {
          result = last;
          continue;
        }
        if (!acc || fs != acc_start || fe < acc_end) {
          acc = call_.aggregate->make(call_.arg_types);
          if (call_.distinct) acc = WithDistinctArguments(std::move(acc));
          acc_start = acc_end = fs;
        }
        std::vector<Datum> values(call_.args.size());
        for (; acc_end < fe; ++acc_end) {
          // A frame rebuilt for every row costs rows × frame: the deadline
          // and cancellation are checked by the work done, not by the row.
          if ((++added_ & 0xffff) == 0) RETURN_IF_ERROR(context_->CheckAlive());
          const size_t r = idx[begin + acc_end];
          for (size_t a = 0; a < values.size(); ++a) values[a] = args_[a][r];
          acc->Add(values);
        }
        ASSIGN_OR_RETURN(result, acc->Finish());
        last = result;
        have_last = true;
        last_start = fs;
        last_end = fe;
      }
    }
    return absl::OkStatus();
  }

 private:
  bool SameOrder(size_t a, size_t b) const {
    for (const std::vector<Datum>& key : order_) {
      if (key[a].null != key[b].null) return false;
      if (!key[a].null && Compare(key[a], key[b]) != 0) return false;
    }
    return true;
  }

  // Presto's ntile: the first n % buckets buckets get one row more.
  static int64_t Ntile(size_t i, size_t n, uint64_t buckets) {
    if (buckets >= n) return static_cast<int64_t>(i + 1);
    const size_t base = n / buckets, extra = n % buckets;
    const size_t big = extra * (base + 1);
    if (i < big) return static_cast<int64_t>(i / (base + 1) + 1);
    return static_cast<int64_t>((i - big) / base + extra + 1);
  }

  // RANGE with offsets: the partition's ORDER BY key at each position, as
  // a number that grows along the window's order (negated for DESC); NULL
  // keys (at one end) are outside [keyed_begin_, keyed_end_).
  void RangeKeys(const std::vector<size_t>& idx, size_t begin, size_t n) {
    keys_.assign(n, 0);
    keyed_begin_ = n;
    keyed_end_ = 0;
    for (size_t p = 0; p < n; ++p) {
      const Datum& k = order_[0][idx[begin + p]];
      if (k.null) continue;
      const long double v = k.type == DataType::kDouble ? static_cast<long double>(k.d)
                                                        : static_cast<long double>(k.i);
      keys_[p] = call_.descending[0] ? -v : v;
      keyed_begin_ = std::min(keyed_begin_, p);
      keyed_end_ = p + 1;
    }
  }

  // The first keyed position whose key is >= target (or > target).
  size_t KeyBound(long double target, bool strictly_above) const {
    auto first = keys_.begin() + static_cast<std::ptrdiff_t>(keyed_begin_);
    auto last = keys_.begin() + static_cast<std::ptrdiff_t>(std::max(keyed_begin_, keyed_end_));
    auto it = strictly_above ? std::upper_bound(first, last, target)
                             : std::lower_bound(first, last, target);
    return static_cast<size_t>(it - keys_.begin());
  }

  // GROUPS: the first position of the peer group `groups` away from row
  // i's (negative: before it), or of the group after it (`end`), clamped to
  // the partition.
  int64_t GroupBoundary(size_t i, int64_t groups, bool end) const {
    const int64_t count = static_cast<int64_t>(group_starts_.size()) - 1;
    const int64_t g = static_cast<int64_t>(group_of_[i]) + groups + (end ? 1 : 0);
    return static_cast<int64_t>(group_starts_[static_cast<size_t>(std::clamp<int64_t>(g, 0, count))]);
  }

  std::pair<size_t, size_t> Frame(size_t i, size_t n, size_t peers_begin, size_t peers_end) const {
    const WindowFrame& frame = call_.frame;
    const bool rows = frame.unit == WindowFrame::Unit::kRows;
    const bool keyed = call_.range_offsets && i >= keyed_begin_ && i < keyed_end_;
    auto position = [&](const FrameBound& b, bool start) -> int64_t {
      const bool offset =
          b.kind == FrameBound::Kind::kPreceding || b.kind == FrameBound::Kind::kFollowing;
      if (offset && frame.unit == WindowFrame::Unit::kGroups) {
        const int64_t groups = std::min<int64_t>(b.offset, INT64_MAX / 4);
        return GroupBoundary(i, b.kind == FrameBound::Kind::kPreceding ? -groups : groups, !start);
      }
      if (offset && frame.unit == WindowFrame::Unit::kRange) {
        // A row with a NULL key has only its peers (the other NULLs).
        if (!keyed) return static_cast<int64_t>(start ? peers_begin : peers_end);
        const long double distance = start ? call_.start_distance : call_.end_distance;
        const long double target =
            keys_[i] + (b.kind == FrameBound::Kind::kPreceding ? -distance : distance);
        return static_cast<int64_t>(KeyBound(target, /*strictly_above=*/!start));
      }
      switch (b.kind) {
        case FrameBound::Kind::kUnboundedPreceding: return 0;
        case FrameBound::Kind::kUnboundedFollowing: return static_cast<int64_t>(n);
        case FrameBound::Kind::kCurrentRow:
          if (rows) return static_cast<int64_t>(start ? i : i + 1);
          return static_cast<int64_t>(start ? peers_begin : peers_end);
        case FrameBound::Kind::kPreceding: {
          const int64_t at = static_cast<int64_t>(i) - std::min<int64_t>(b.offset, INT64_MAX / 2);
          return start ? at : at + 1;
        }
        case FrameBound::Kind::kFollowing: {
          const int64_t at = static_cast<int64_t>(i) + std::min<int64_t>(b.offset, INT64_MAX / 2);
          return start ? at : at + 1;
        }
      }
      return 0;
    };
    const int64_t size = static_cast<int64_t>(n);
    const int64_t fs = std::clamp<int64_t>(position(frame.start, true), 0, size);
    const int64_t fe = std::clamp<int64_t>(position(frame.end, false), 0, size);
    return {static_cast<size_t>(fs), static_cast<size_t>(std::max(fs, fe))};
  }

  const WindowCall& call_;
  int64_t added_ = 0;  // rows added to accumulators, for CheckAlive
  std::vector<size_t> group_of_;      // the partition's peer group of each position
  std::vector<size_t> group_starts_;  // each group's first position, then n
  std::vector<long double> keys_;
  size_t keyed_begin_ = 0, keyed_end_ = 0;
  const std::vector<Row>& rows_;
  const std::vector<std::vector<Datum>>& order_;
  const std::vector<std::vector<Datum>>& args_;
  QueryContext* context_;
};

class Window : public RowSink {
 public:
  Window(std::vector<WindowCall> calls, std::vector<int> keep, QueryContext* context,
         RowSink* next)
      : calls_(std::move(calls)), keep_(std::move(keep)), context_(context), next_(next) {}

  absl::Status Push(Row row) override {
    Row kept;
    kept.reserve(keep_.size() + calls_.size());
    for (int c : keep_) kept.push_back(std::move(row[c]));
    RETURN_IF_ERROR(context_->Reserve(RowBytes(kept) + static_cast<int64_t>(sizeof(Row)),
                                      "a window function's rows"));
    rows_.push_back(std::move(kept));
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    const size_t n = rows_.size();
    RETURN_IF_ERROR(context_->Reserve(
        static_cast<int64_t>(n * calls_.size() * (sizeof(Datum) + 2 * sizeof(size_t))),
        "a window function's rows"));
    std::vector<std::vector<Datum>> results(calls_.size(), std::vector<Datum>(n));
    std::vector<size_t> first_order;
    for (size_t c = 0; c < calls_.size(); ++c) {
      const WindowCall& call = calls_[c];
      auto values = [&](const std::vector<const Expr*>& exprs) {
        std::vector<std::vector<Datum>> out(exprs.size(), std::vector<Datum>(n));
        for (size_t k = 0; k < exprs.size(); ++k) {
          for (size_t r = 0; r < n; ++r) out[k][r] = Eval(*exprs[k], rows_[r], context_->eval);
        }
        return out;
      };
      const std::vector<std::vector<Datum>> partition = values(call.partition_by);
      const std::vector<std::vector<Datum>> order = values(call.order_by);
      const std::vector<std::vector<Datum>> args = values(call.args);
      RETURN_IF_ERROR(EvalStatus(*context_));
      std::vector<size_t> idx(n);
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        for (const std::vector<Datum>& key : partition) {
          if (key[a].null != key[b].null) return key[b].null;  // NULL partitions last
          if (key[a].null) continue;
          const int cmp = Compare(key[a], key[b]);
          if (cmp != 0) return cmp < 0;
        }
        for (size_t k = 0; k < order.size(); ++k) {
          const Datum& x = order[k][a];
          const Datum& y = order[k][b];
          if (x.null != y.null) return x.null == call.nulls_first[k];
          if (x.null) continue;
          const int cmp = Compare(x, y);
          if (cmp != 0) return call.descending[k] ? cmp > 0 : cmp < 0;
        }
        return false;
      });
      WindowEvaluator evaluator(call, rows_, order, args, context_);
      for (size_t begin = 0; begin < n;) {
        size_t end = begin + 1;
        while (end < n && SamePartition(partition, idx[begin], idx[end])) ++end;
        RETURN_IF_ERROR(evaluator.Partition(idx, begin, end, &results[c]));
        begin = end;
      }
      if (c == 0) first_order = std::move(idx);
    }
    for (size_t r : first_order) {
      Row row = std::move(rows_[r]);
      for (size_t c = 0; c < calls_.size(); ++c) row.push_back(std::move(results[c][r]));
      RETURN_IF_ERROR(next_->Push(std::move(row)));
      if (context_->enough.load()) break;
    }
    return next_->Finish();
  }

 private:
  static bool SamePartition(const std::vector<std::vector<Datum>>& keys, size_t a, size_t b) {
    for (const std::vector<Datum>& key : keys) {
      if (key[a].null != key[b].null) return false;
      if (!key[a].null && Compare(key[a], key[b]) != 0) return false;
    }
    return true;
  }

  std::vector<WindowCall> calls_;
  std::vector<int> keep_;
  QueryContext* context_;
  RowSink* next_;
  std::vector<Row> rows_;
};

}  // namespace

bool IsWindowOnlyFunction(std::string_view name) {
  return std::any_of(std::begin(kWindowOnly), std::end(kWindowOnly),
                     [&](const WindowOnly& w) { return w.name == name; });
}

absl::Status BindWindowCall(const Expr& e, std::string_view sql, WindowCall* call) {
  call->name = e.name;
  call->distinct = e.distinct;
  for (const ExprPtr& a : e.args) {
    if (a->kind == ExprKind::kStar) continue;
    call->args.push_back(a.get());
    call->arg_types.push_back(a->bound.type);
  }
  const WindowSpec& w = *e.window;
  for (const ExprPtr& p : w.partition_by) call->partition_by.push_back(p.get());
  for (const OrderItem& o : w.order_by) {
    call->order_by.push_back(o.expr.get());
    call->descending.push_back(o.descending);
    call->nulls_first.push_back(o.nulls_first.value_or(o.descending));
  }
  if (w.frame) {
    call->frame = *w.frame;
    const FrameBound& s = call->frame.start;
    const FrameBound& t = call->frame.end;
    auto offset = [](const FrameBound& b) {
      return b.kind == FrameBound::Kind::kPreceding || b.kind == FrameBound::Kind::kFollowing;
    };
    if (s.kind == FrameBound::Kind::kUnboundedFollowing) {
      return SqlError(sql, s.pos, "a window frame cannot start at UNBOUNDED FOLLOWING");
    }
    if (t.kind == FrameBound::Kind::kUnboundedPreceding) {
      return SqlError(sql, t.pos, "a window frame cannot end at UNBOUNDED PRECEDING");
    }
    for (const FrameBound* b : {&s, &t}) {
      if (!offset(*b)) continue;
      if (call->frame.unit == WindowFrame::Unit::kRows && b->value.type != DataType::kBigint) {
        return SqlError(sql, b->pos, "ROWS frames count rows: the offset must be a whole number");
      }
      if (call->frame.unit == WindowFrame::Unit::kGroups) {
        if (b->value.type != DataType::kBigint) {
          return SqlError(sql, b->pos,
                          "GROUPS frames count peer groups: the offset must be a whole number");
        }
        if (w.order_by.empty()) {
          return SqlError(sql, b->pos, "GROUPS with an offset needs ORDER BY");
        }
      }
      if (b->value.type == DataType::kDouble ? b->value.d < 0 : b->value.i < 0) {
        return SqlError(sql, b->pos, "window frame offsets must be 0 or more");
      }
    }
    if (call->frame.unit == WindowFrame::Unit::kRange && (offset(s) || offset(t))) {
      // RANGE n PRECEDING: one ORDER BY key, and a distance of its kind.
      if (w.order_by.size() != 1) {
        return SqlError(sql, s.pos, "RANGE with an offset needs exactly one ORDER BY key");
      }
      const DataType key = w.order_by[0].expr->bound.type;
      for (const FrameBound* b : {&s, &t}) {
        if (!offset(*b)) continue;
        const DataType d = b->value.type;
        const bool fits = key == DataType::kTimestamp || key == DataType::kInterval
                              ? d == DataType::kInterval
                              : IsNumeric(key) && key != DataType::kTimestamp && IsNumeric(d) &&
                                    d != DataType::kTimestamp;
        if (!fits) {
          return SqlError(sql, b->pos,
                          StrCat("RANGE offset ", b->value.ToString(), " does not fit ORDER BY ",
                                 TypeName(key), key == DataType::kTimestamp
                                                    ? ": write a duration, e.g. INTERVAL '5' MINUTE or 5m"
                                                    : ": write a number"));
        }
      }
      auto distance = [](const FrameBound& b) -> long double {
        return b.value.type == DataType::kDouble ? b.value.d : static_cast<long double>(b.value.i);
      };
      call->range_offsets = true;
      call->start_distance = offset(s) ? distance(s) : 0;
      call->end_distance = offset(t) ? distance(t) : 0;
    }
  } else {
    // Presto's default: RANGE UNBOUNDED PRECEDING to CURRENT ROW, which is the
    // whole partition when there is no ORDER BY (every row is a peer).
    call->frame.unit = WindowFrame::Unit::kRange;
    call->frame.start.kind = FrameBound::Kind::kUnboundedPreceding;
    call->frame.end.kind = FrameBound::Kind::kCurrentRow;
  }

  const std::string& f = e.name;
  const std::vector<DataType>& t = call->arg_types;
  call->ignore_nulls = w.ignore_nulls;
  if (w.ignore_nulls && f != "first_value" && f != "last_value" && f != "nth_value" &&
      f != "lag" && f != "lead") {
    return SqlError(sql, e.pos, StrCat("IGNORE NULLS is for first_value, last_value, nth_value, "
                                       "lag and lead, not ", f, "()"));
  }
  if (const AggregateFunction* aggregate = FunctionRegistry::Get().FindAggregate(f)) {
    call->aggregate = aggregate;
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (e.args[i]->kind == ExprKind::kStar && f != "count") {
        return SqlError(sql, e.args[i]->pos, "* is only allowed in count(*)");
      }
    }
    auto type = aggregate->bind(t);
    if (!type.ok()) return SqlError(sql, e.pos, StrCat(f, "(): ", type.status().message()));
    call->type = *type;
    return absl::OkStatus();
  }
  if (!IsWindowOnlyFunction(f)) {
    return SqlError(sql, e.pos, StrCat(f, "() is not a window function; OVER (...) follows "
                                       "aggregates and row_number, rank, dense_rank, "
                                       "percent_rank, cume_dist, ntile, lag, lead, "
                                       "first_value, last_value, nth_value"));
  }
  if (e.distinct) return SqlError(sql, e.pos, StrCat("DISTINCT is not allowed in ", f, "()"));
  if (f == "row_number" || f == "rank" || f == "dense_rank" || f == "percent_rank" ||
      f == "cume_dist") {
    RETURN_IF_ERROR(ArgCount(e, sql, 0, 0));
    call->type = f == "percent_rank" || f == "cume_dist" ? DataType::kDouble : DataType::kBigint;
  } else if (f == "ntile") {
    RETURN_IF_ERROR(ArgCount(e, sql, 1, 1));
    if (!Integer(t[0])) return SqlError(sql, e.pos, "ntile() takes a bigint number of buckets");
    call->type = DataType::kBigint;
  } else if (f == "lag" || f == "lead") {
    RETURN_IF_ERROR(ArgCount(e, sql, 1, 3));
    if (t.size() > 1 && !Integer(t[1])) {
      return SqlError(sql, e.pos, StrCat(f, "() takes a bigint offset"));
    }
    if (t.size() > 2 && t[2] != t[0] && t[2] != DataType::kUnknown && t[0] != DataType::kUnknown &&
        !(IsNumeric(t[0]) && IsNumeric(t[2]))) {
      return SqlError(sql, e.pos, StrCat(f, "(): the default is ", TypeName(t[2]),
                                         " but the value is ", TypeName(t[0])));
    }
    call->type = t[0];
  } else if (f == "nth_value") {
    RETURN_IF_ERROR(ArgCount(e, sql, 2, 2));
    if (!Integer(t[1])) return SqlError(sql, e.pos, "nth_value() takes a bigint position");
    call->type = t[0];
  } else {  // first_value, last_value
    RETURN_IF_ERROR(ArgCount(e, sql, 1, 1));
    call->type = t[0];
  }
  return absl::OkStatus();
}

std::unique_ptr<RowSink> MakeWindow(std::vector<WindowCall> calls, std::vector<int> keep,
                                    QueryContext* context, RowSink* next) {
  return std::make_unique<Window>(std::move(calls), std::move(keep), context, next);
}

std::string WindowFunctionReferenceMarkdown() {
  std::string out = "| function | description |\n|---|---|\n";
  for (const WindowOnly& w : kWindowOnly) out += StrCat("| `", w.signature, "` | ", w.doc, " |\n");
  return out;
}

}  // namespace strata::query
