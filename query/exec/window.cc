#include "query/exec/window.h"

#include <algorithm>
#include <array>
#include <deque>
#include <numeric>
#include <optional>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/base/compact_column.h"
#include "query/base/error.h"
#include "query/expr/expr.h"
#include "query/expr/vector_eval.h"
#include "query/functions/window_functions.h"

namespace strata::query {
namespace {

bool Integer(DataType t) { return t == DataType::kBigint || t == DataType::kUnknown; }

absl::Status ArgCount(const Expr& e, std::string_view sql, size_t low, size_t high) {
  if (e.args.size() >= low && e.args.size() <= high) return absl::OkStatus();
  return SqlError(sql, e.pos, StrCat(e.name, "() takes ",
                                     low == high ? StrCat(low) : StrCat(low, " to ", high),
                                     " arguments, not ", e.args.size()));
}

// A call's keys or arguments: the operator's own columns where an expression is one, else
// columns computed for the call.
using Columns = std::vector<const CompactColumn*>;

// The rows of one partition, in window order, and where each row's frame is.
class WindowEvaluator {
 public:
  WindowEvaluator(const WindowCall& call, const Columns& order_values, const Columns& args,
                  QueryContext* context)
      : call_(call), order_(order_values), args_(args), context_(context) {}

  // Sets out[idx[i]] for the partition idx[begin, end).
  absl::Status Partition(const std::vector<size_t>& idx, size_t begin, size_t end,
                         CompactColumn* out) {
    const size_t n = end - begin;
    // Peer groups: rows equal in every ORDER BY key. group_starts_ holds
    // each group's first position and, last, n (GROUPS frames count them).
    peer_start_.resize(n);
    peer_end_.resize(n);
    group_of_.resize(n);
    group_starts_.clear();
    for (size_t i = 0; i < n;) {
      size_t j = i + 1;
      while (j < n && SameOrder(idx[begin + i], idx[begin + j])) ++j;
      for (size_t k = i; k < j; ++k) {
        peer_start_[k] = i;
        peer_end_[k] = j;
        group_of_[k] = group_starts_.size();
      }
      group_starts_.push_back(i);
      i = j;
    }
    group_starts_.push_back(n);
    if (call_.range_offsets) RangeKeys(idx, begin, n);
    // IGNORE NULLS: the positions whose argument is not NULL, in order.
    present_.clear();
    if (call_.ignore_nulls && !args_.empty()) {
      for (size_t p = 0; p < n; ++p) {
        if (!args_[0]->IsNull(idx[begin + p])) present_.push_back(p);
      }
    }
    dense_ = 0;
    acc_.reset();
    have_last_ = false;
    // An aggregate reads its arguments in window order, for runs of rows at a time.
    const int64_t gathered_bytes = call_.aggregate != nullptr ? GatheredBytes(n) : 0;
    absl::Cleanup release = [&] { context_->Release(gathered_bytes); };
    if (call_.aggregate != nullptr) {
      RETURN_IF_ERROR(context_->Reserve(gathered_bytes, "a window function's rows"));
      GatherArguments(idx, begin, n);
    }
    for (size_t i = 0; i < n; ++i) {
      if ((i & 1023) == 0) RETURN_IF_ERROR(context_->CheckAlive());
      if (peer_start_[i] == i) ++dense_;
      ASSIGN_OR_RETURN(Datum result, Value(idx, begin, n, i));
      out->Set(idx[begin + i], result);
    }
    return absl::OkStatus();
  }

 private:
  // The call's value at position i of the partition idx[begin, begin + n).
  absl::StatusOr<Datum> Value(const std::vector<size_t>& idx, size_t begin, size_t n, size_t i) {
    const size_t row = idx[begin + i];
    const std::string& f = call_.name;
    if (f == "row_number") return Datum::Bigint(static_cast<int64_t>(i + 1));
    if (f == "rank") return Datum::Bigint(static_cast<int64_t>(peer_start_[i] + 1));
    if (f == "dense_rank") return Datum::Bigint(dense_);
    if (f == "percent_rank") {
      return Datum::Double(n == 1 ? 0.0 : static_cast<double>(peer_start_[i]) /
                                              static_cast<double>(n - 1));
    }
    if (f == "cume_dist") {
      return Datum::Double(static_cast<double>(peer_end_[i]) / static_cast<double>(n));
    }
    if (f == "ntile") {
      const Datum buckets = args_[0]->Get(row);
      if (buckets.null) return Datum::Null(DataType::kBigint);
      if (buckets.i <= 0) {
        return absl::InvalidArgumentError(
            StrCat("ntile() needs a positive number of buckets, not ", buckets.i));
      }
      return Datum::Bigint(Ntile(i, n, static_cast<uint64_t>(buckets.i)));
    }
    if (f == "lag" || f == "lead") {
      int64_t offset = 1;
      if (args_.size() > 1) {
        const Datum o = args_[1]->Get(row);
        if (o.null) return Datum::Null(call_.type);
        if (o.i < 0) {
          return absl::InvalidArgumentError(StrCat(f, "() needs an offset of 0 or more, not ", o.i));
        }
        offset = o.i;
      }
      int64_t at = f == "lag" ? static_cast<int64_t>(i) - offset : static_cast<int64_t>(i) + offset;
      if (call_.ignore_nulls && offset > 0) {
        // The offset-th row before (after) this one whose value is not NULL.
        const auto before = std::lower_bound(present_.begin(), present_.end(), i) - present_.begin();
        const auto after = std::upper_bound(present_.begin(), present_.end(), i) - present_.begin();
        const int64_t k = f == "lag" ? before - offset : after + offset - 1;
        at = k >= 0 && k < static_cast<int64_t>(present_.size()) ? static_cast<int64_t>(present_[k])
                                                                 : -1;
      }
      if (at >= 0 && at < static_cast<int64_t>(n))
        return args_[0]->Get(idx[begin + static_cast<size_t>(at)]);
      return args_.size() > 2 ? args_[2]->Get(row) : Datum::Null(call_.type);
    }
    // Frame functions: [fs, fe) within the partition, less what EXCLUDE leaves out.
    const auto [fs, fe] = Frame(i, n, peer_start_[i], peer_end_[i]);
    const Runs runs = FrameRuns(i, fs, fe);
    if (f == "first_value" || f == "last_value" || f == "nth_value") {
      return FrameValue(idx, begin, row, runs);
    }
    if (runs.count > 1) return AggregateRuns(runs);
    // An aggregate over one run of rows: reuse the last value for the same frame, extend the
    // accumulator when the frame only grew at its end (running totals, whole partitions),
    // start over otherwise (sliding frames).
    const size_t from = runs.count == 0 ? fs : runs.run[0].first;
    const size_t to = runs.count == 0 ? fs : runs.run[0].second;
    if (have_last_ && from == last_start_ && to == last_end_) return last_;
    if (!acc_ || from != acc_start_ || to < acc_end_) {
      acc_ = NewAccumulator();
      acc_start_ = acc_end_ = from;
    }
    RETURN_IF_ERROR(AddRows(acc_.get(), acc_end_, to));
    acc_end_ = to;
    ASSIGN_OR_RETURN(last_, acc_->Finish());
    have_last_ = true;
    last_start_ = from;
    last_end_ = to;
    return last_;
  }

  // A frame's rows: up to three runs [first, second) of positions, in window order (EXCLUDE
  // TIES can cut one frame into three).
  struct Runs {
    std::array<std::pair<size_t, size_t>, 3> run;
    size_t count = 0;
  };

  // [fs, fe) less the rows EXCLUDE leaves out for position i.
  Runs FrameRuns(size_t i, size_t fs, size_t fe) const {
    Runs out;
    std::array<std::pair<size_t, size_t>, 2> excluded;
    size_t excluded_count = 0;
    const size_t peers_begin = peer_start_[i], peers_end = peer_end_[i];
    switch (call_.frame.exclude) {
      case WindowFrame::Exclude::kNoOthers:
        break;
      case WindowFrame::Exclude::kCurrentRow:
        excluded[excluded_count++] = {i, i + 1};
        break;
      case WindowFrame::Exclude::kGroup:
        excluded[excluded_count++] = {peers_begin, peers_end};
        break;
      case WindowFrame::Exclude::kTies:
        excluded[excluded_count++] = {peers_begin, i};
        excluded[excluded_count++] = {i + 1, peers_end};
        break;
    }
    size_t at = fs;
    for (size_t k = 0; k < excluded_count; ++k) {
      const auto [x_begin, x_end] = excluded[k];
      if (x_begin >= x_end) continue;
      if (x_begin > at && at < fe) out.run[out.count++] = {at, std::min(x_begin, fe)};
      at = std::max(at, x_end);
    }
    if (at < fe) out.run[out.count++] = {at, fe};
    return out;
  }

  // first_value, last_value or nth_value over the frame's runs (with IGNORE NULLS, over the
  // rows among them whose value is not NULL).
  absl::StatusOr<Datum> FrameValue(const std::vector<size_t>& idx, size_t begin, size_t row,
                                   const Runs& runs) const {
    const std::string& f = call_.name;
    // Each run as positions [from, to) of the candidates: the partition's, or `present_`'s.
    std::array<std::pair<size_t, size_t>, 3> spans;
    size_t candidates = 0;
    for (size_t r = 0; r < runs.count; ++r) {
      auto [from, to] = runs.run[r];
      if (call_.ignore_nulls) {
        from = std::lower_bound(present_.begin(), present_.end(), from) - present_.begin();
        to = std::lower_bound(present_.begin(), present_.end(), to) - present_.begin();
      }
      spans[r] = {from, to};
      candidates += to - from;
    }
    // The k-th candidate (from 0) as a partition position.
    auto position = [&](size_t k) {
      for (size_t r = 0;; ++r) {
        const size_t size = spans[r].second - spans[r].first;
        if (k < size) {
          const size_t at = spans[r].first + k;
          return call_.ignore_nulls ? present_[at] : at;
        }
        k -= size;
      }
    };
    size_t at = SIZE_MAX;  // none
    if (f == "first_value" && candidates > 0) at = position(0);
    if (f == "last_value" && candidates > 0) at = position(candidates - 1);
    if (f == "nth_value") {
      const Datum nth = args_[1]->Get(row);
      if (!nth.null && nth.i <= 0) {
        return absl::InvalidArgumentError(
            StrCat("nth_value() needs a position of 1 or more, not ", nth.i));
      }
      if (!nth.null && static_cast<uint64_t>(nth.i) <= candidates) at = position(nth.i - 1);
    }
    return at != SIZE_MAX ? args_[0]->Get(idx[begin + at]) : Datum::Null(call_.type);
  }

  std::unique_ptr<Accumulator> NewAccumulator() const {
    std::unique_ptr<Accumulator> acc = call_.aggregate->make(call_.arg_types);
    return call_.distinct ? WithDistinctArguments(std::move(acc)) : std::move(acc);
  }

  // Adds positions [from, to) to `acc`. A frame rebuilt for every row costs rows × frame: the
  // deadline and cancellation are checked by the work done, not by the row.
  absl::Status AddRows(Accumulator* acc, size_t from, size_t to) {
    while (from < to) {
      const size_t stop = std::min(to, from + kAliveRows);
      acc->AddRun(gathered_args_, from, stop);
      added_ += stop - from;
      from = stop;
      if (added_ >= kAliveRows) {
        added_ = 0;
        RETURN_IF_ERROR(context_->CheckAlive());
      }
    }
    return absl::OkStatus();
  }

  // An aggregate over a frame EXCLUDE cut into several runs: made afresh.
  absl::StatusOr<Datum> AggregateRuns(const Runs& runs) {
    std::unique_ptr<Accumulator> acc = NewAccumulator();
    for (size_t r = 0; r < runs.count; ++r) {
      RETURN_IF_ERROR(AddRows(acc.get(), runs.run[r].first, runs.run[r].second));
    }
    return acc->Finish();
  }

  // The aggregate's arguments at the partition's positions (gathered_args_ points at them):
  // a sliding frame is rebuilt for every row, and AddRun's loops over typed arrays do that
  // several times faster than a Datum made and added for each value.
  void GatherArguments(const std::vector<size_t>& idx, size_t begin, size_t n) {
    gathered_.resize(args_.size());
    gathered_args_.resize(args_.size());
    for (size_t a = 0; a < args_.size(); ++a) {
      Vector& v = gathered_[a];
      v = Vector(call_.arg_types[a]);
      v.ResetNull(n);
      args_[a]->Gather(&idx[begin], n, &v);
      gathered_args_[a] = &v;
    }
  }
  // What GatherArguments holds for a partition of n rows (texts and nested values are views and
  // shared pointers of the columns').
  int64_t GatheredBytes(size_t n) const {
    int64_t bytes = 0;
    for (DataType type : call_.arg_types) {
      const size_t value = IsText(type)        ? sizeof(std::string_view)
                           : IsComposite(type) ? sizeof(std::shared_ptr<const NestedValue>)
                                               : sizeof(int64_t);
      bytes += static_cast<int64_t>(n * (1 + value));
    }
    return bytes;
  }

  bool SameOrder(size_t a, size_t b) const {
    for (const CompactColumn* key : order_) {
      if (key->Compare(a, b) != 0) return false;
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
  // keys (at one end) and NaN keys (next to them or at the other end: a NaN
  // sorts above every number) are outside [keyed_begin_, keyed_end_), as
  // no distance reaches them from a number.
  void RangeKeys(const std::vector<size_t>& idx, size_t begin, size_t n) {
    keys_.assign(n, 0);
    keyed_begin_ = n;
    keyed_end_ = 0;
    for (size_t p = 0; p < n; ++p) {
      const Datum k = order_[0]->Get(idx[begin + p]);
      if (k.null || IsNaN(k)) continue;
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
        // A row with a NULL or NaN key has only its peers (the other NULLs, or NaNs).
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
  const Columns& order_;
  const Columns& args_;
  QueryContext* context_;
  // Rows added to accumulators since the last CheckAlive, which comes every kAliveRows.
  static constexpr size_t kAliveRows = 1 << 16;
  size_t added_ = 0;
  std::vector<Vector> gathered_;  // GatherArguments
  std::vector<const Vector*> gathered_args_;
  // The partition being evaluated: peer groups by position, the positions
  // with a value (IGNORE NULLS), RANGE keys, the aggregate's running state.
  std::vector<size_t> peer_start_, peer_end_;
  std::vector<size_t> group_of_;      // the peer group of each position
  std::vector<size_t> group_starts_;  // each group's first position, then n
  std::vector<size_t> present_;
  std::vector<long double> keys_;
  size_t keyed_begin_ = 0, keyed_end_ = 0;
  int64_t dense_ = 0;
  std::unique_ptr<Accumulator> acc_;
  size_t acc_start_ = 0, acc_end_ = 0;  // rows [acc_start_, acc_end_) are in acc_
  Datum last_;
  bool have_last_ = false;
  size_t last_start_ = 0, last_end_ = 0;
};

// Holds its input's kept columns, then computes each call over them and hands the rows on.
class Window : public BatchSink {
 public:
  Window(std::vector<WindowCall> calls, std::vector<int> keep, std::vector<DataType> types,
         QueryContext* context, BatchSink* next)
      : calls_(std::move(calls)),
        keep_(std::move(keep)),
        types_(std::move(types)),
        context_(context),
        next_(next),
        columns_(keep_.size()) {}

  // The rows of a batch, appended a column at a time: no row is made for each.
  absl::Status Push(const Batch& batch) override {
    int64_t bytes = 0;
    for (size_t k = 0; k < keep_.size(); ++k) {
      bytes += columns_[k].AppendVector(batch.columns[keep_[k]], batch.rows);
    }
    rows_ += batch.rows;
    return context_->Reserve(bytes, "a window function's rows");
  }

  absl::Status Finish() override {
    const size_t n = rows_;
    std::vector<CompactColumn> results(calls_.size());
    std::vector<size_t> first_order;
    Row scratch(keep_.size());
    for (size_t c = 0; c < calls_.size(); ++c) {
      const WindowCall& call = calls_[c];
      // The call's keys and arguments for every row, its order and results:
      // charged while they live; all but the results (and the first call's
      // order, the output's) given back before the next call.
      int64_t bytes = static_cast<int64_t>(n * (12 + 2 * sizeof(size_t)));
      RETURN_IF_ERROR(context_->Reserve(bytes, "a window function's rows"));
      // The call's own columns (computed ones; an expression that is a kept column reads it).
      std::deque<CompactColumn> computed_columns;
      auto evaluate = [&](const std::vector<const Expr*>& exprs, Columns* out) -> absl::Status {
        out->assign(exprs.size(), nullptr);
        // Other expressions are evaluated over the columns they read only (a row's other
        // values, a host name say, are not made for them).
        std::vector<bool> read(keep_.size(), false);
        std::vector<std::pair<size_t, CompactColumn*>> computed;
        for (size_t e = 0; e < exprs.size(); ++e) {
          const Expr& expr = *exprs[e];
          if (expr.kind == ExprKind::kColumn && expr.bound.column >= 0 &&
              static_cast<size_t>(expr.bound.column) < keep_.size()) {
            (*out)[e] = &columns_[expr.bound.column];
            continue;
          }
          MarkColumns(expr, &read);
          (*out)[e] = &computed_columns.emplace_back();
          computed.emplace_back(e, &computed_columns.back());
        }
        if (computed.empty()) return absl::OkStatus();
        for (size_t r = 0; r < n; ++r) {
          for (size_t k = 0; k < keep_.size(); ++k) {
            if (read[k]) scratch[k] = columns_[k].Get(r);
          }
          int64_t row_bytes = 0;
          for (auto& [e, column] : computed) {
            Datum value = Eval(*exprs[e], scratch, context_->eval);
            row_bytes += CompactColumn::BytesOf(value);
            column->Append(value);
          }
          bytes += row_bytes;
          RETURN_IF_ERROR(context_->Reserve(row_bytes, "a window function's rows"));
        }
        return EvalStatus(*context_);
      };
      Columns partition, order, args;
      RETURN_IF_ERROR(evaluate(call.partition_by, &partition));
      RETURN_IF_ERROR(evaluate(call.order_by, &order));
      RETURN_IF_ERROR(evaluate(call.args, &args));
      ASSIGN_OR_RETURN(std::vector<size_t> idx, WindowOrder(n, partition, order, call));
      results[c].Resize(n);
      WindowEvaluator evaluator(call, order, args, context_);
      for (size_t begin = 0; begin < n;) {
        size_t end = begin + 1;
        while (end < n && SamePartition(partition, idx[begin], idx[end])) ++end;
        RETURN_IF_ERROR(evaluator.Partition(idx, begin, end, &results[c]));
        begin = end;
      }
      // The results' text and nested values (lag(host)), kept to the end.
      RETURN_IF_ERROR(context_->Reserve(results[c].ExtraBytes(), "a window function's results"));
      if (c == 0) {
        first_order = std::move(idx);
      } else {
        context_->Release(static_cast<int64_t>(n * sizeof(size_t)));  // idx
      }
      context_->Release(bytes - static_cast<int64_t>(n * (12 + sizeof(size_t))));  // all but the results
    }
    // The rows leave in batches, their texts views of the columns held here.
    for (size_t at = 0; at < n && !context_->enough.load(); at += kBatchRows) {
      const size_t rows = std::min(kBatchRows, n - at);
      Batch batch = NewBatch(types_, rows);
      for (size_t k = 0; k < columns_.size(); ++k) {
        columns_[k].Gather(&first_order[at], rows, &batch.columns[k]);
      }
      for (size_t c = 0; c < results.size(); ++c) {
        results[c].Gather(&first_order[at], rows, &batch.columns[columns_.size() + c]);
      }
      RETURN_IF_ERROR(next_->Push(batch));
    }
    return next_->Finish();
  }

 private:
  // The rows in window order: by partition (NULL partitions last), then by the ORDER BY keys,
  // ties in arrival order.
  absl::StatusOr<std::vector<size_t>> WindowOrder(size_t n, const Columns& partition,
                                                  const Columns& order, const WindowCall& call) {
    auto by_partition = [&](size_t a, size_t b) {
      for (const CompactColumn* key : partition) {
        if (key->IsNull(a) != key->IsNull(b)) return key->IsNull(b);  // NULL partitions last
        const int cmp = key->Compare(a, b);
        if (cmp != 0) return cmp < 0;
      }
      return false;
    };
    auto by_order = [&](size_t a, size_t b) {
      for (size_t k = 0; k < order.size(); ++k) {
        const bool null_a = order[k]->IsNull(a), null_b = order[k]->IsNull(b);
        if (null_a != null_b) return null_a == call.nulls_first[k];
        if (null_a) continue;
        const int cmp = order[k]->Compare(a, b);
        if (cmp != 0) return call.descending[k] ? cmp > 0 : cmp < 0;
      }
      return false;
    };
    std::vector<size_t> idx(n);
    std::vector<size_t> bounds;  // where each partition begins in idx, then its end
    if (std::optional<std::vector<uint32_t>> ids = PartitionIds(partition); ids.has_value()) {
      // The partitions found by a hash of their keys and put in order by one row each, then
      // the rows placed by partition in arrival order: n hash lookups instead of n log n
      // comparisons of the keys.
      uint32_t count = 0;
      std::vector<size_t> first_row;
      for (size_t r = 0; r < n; ++r) {
        if ((*ids)[r] == count) {
          first_row.push_back(r);
          ++count;
        }
      }
      std::vector<uint32_t> by_key(count);
      std::iota(by_key.begin(), by_key.end(), 0);
      std::sort(by_key.begin(), by_key.end(),
                [&](uint32_t a, uint32_t b) { return by_partition(first_row[a], first_row[b]); });
      std::vector<size_t> start(count + 1, 0);
      std::vector<uint32_t> rank(count);
      for (uint32_t k = 0; k < count; ++k) rank[by_key[k]] = k;
      for (size_t r = 0; r < n; ++r) ++start[rank[(*ids)[r]] + 1];
      for (uint32_t k = 0; k < count; ++k) start[k + 1] += start[k];
      bounds = start;
      for (size_t r = 0; r < n; ++r) idx[start[rank[(*ids)[r]]]++] = r;
    } else {
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), by_partition);
      bounds.push_back(0);
      for (size_t i = 1; i < n; ++i) {
        if (!SamePartition(partition, idx[i - 1], idx[i])) bounds.push_back(i);
      }
      bounds.push_back(n);
    }
    if (order.empty()) return idx;
    // One ORDER BY key of one type without NULLs (time, a measure): compared as integers or
    // doubles, as Compare would. A partition's rows come in arrival order, nearly in time
    // order, so an integer key is read where it is; doubles are copied beside the rows first
    // (their sort reads the column at random: rank() by a measure 573-583 -> 410-425 ms).
    const DataType one_type = order.size() == 1 ? order[0]->OneType() : DataType::kUnknown;
    const bool integers = one_type != DataType::kUnknown && one_type != DataType::kDouble &&
                          !IsText(one_type) && !IsComposite(one_type);
    const bool doubles = one_type == DataType::kDouble;
    for (size_t p = 0; p + 1 < bounds.size(); ++p) {
      auto begin = idx.begin() + static_cast<std::ptrdiff_t>(bounds[p]);
      auto end = idx.begin() + static_cast<std::ptrdiff_t>(bounds[p + 1]);
      const CompactColumn& key = *order[0];
      if (integers) {
        if (call.descending[0]) {
          std::stable_sort(begin, end,
                           [&](size_t a, size_t b) { return key.Integer(a) > key.Integer(b); });
        } else {
          std::stable_sort(begin, end,
                           [&](size_t a, size_t b) { return key.Integer(a) < key.Integer(b); });
        }
      } else if (doubles) {
        // The keys' copy, and as much again for the stable sort's buffer, while it lasts.
        const auto scratch =
            static_cast<int64_t>(2 * sizeof(std::pair<double, size_t>)) * (end - begin);
        RETURN_IF_ERROR(context_->Reserve(scratch, "a window function's sort"));
        SortByOneKey<double>(
            begin, end, call.descending[0], [&](size_t r) { return key.Double(r); },
            DoubleSortsBefore);
        context_->Release(scratch);
      } else {
        std::stable_sort(begin, end, by_order);
      }
    }
    return idx;
  }

  // Sorts rows [begin, end) by one key `read` gives as T, stably (ties in the order they are
  // in), `before` ordering the keys: the keys are copied beside the rows first, so the sort
  // reads neighbours.
  template <typename T, typename Read, typename Before>
  static void SortByOneKey(std::vector<size_t>::iterator begin, std::vector<size_t>::iterator end,
                           bool descending, Read read, Before before) {
    std::vector<std::pair<T, size_t>> keyed;
    keyed.reserve(static_cast<size_t>(end - begin));
    for (auto it = begin; it != end; ++it) keyed.emplace_back(read(*it), *it);
    if (descending) {
      std::stable_sort(keyed.begin(), keyed.end(),
                       [&](const auto& a, const auto& b) { return before(b.first, a.first); });
    } else {
      std::stable_sort(keyed.begin(), keyed.end(),
                       [&](const auto& a, const auto& b) { return before(a.first, b.first); });
    }
    for (const auto& [value, row] : keyed) *begin++ = row;
  }

  // Each row's partition as a number, in order of first appearance, where the keys are texts
  // or integers (no double, whose -0 and 0 are one value, nor values of mixed types): nullopt
  // otherwise, or with no PARTITION BY.
  static std::optional<std::vector<uint32_t>> PartitionIds(const Columns& partition) {
    if (partition.empty()) return std::nullopt;
    std::vector<bool> text(partition.size());
    for (size_t k = 0; k < partition.size(); ++k) {
      const DataType type = partition[k]->OneType();
      if (type == DataType::kUnknown || type == DataType::kDouble || IsComposite(type)) {
        return std::nullopt;
      }
      text[k] = IsText(type);
    }
    const size_t n = partition[0]->size();
    std::vector<uint32_t> ids(n);
    absl::flat_hash_map<std::string, uint32_t> found;
    std::string key;
    for (size_t r = 0; r < n; ++r) {
      key.clear();
      for (size_t k = 0; k < partition.size(); ++k) {
        if (text[k]) {
          const std::string_view t = partition[k]->Text(r);
          const auto length = static_cast<uint32_t>(t.size());
          key.append(reinterpret_cast<const char*>(&length), sizeof(length));
          key.append(t);
        } else {
          const int64_t v = partition[k]->Integer(r);
          key.append(reinterpret_cast<const char*>(&v), sizeof(v));
        }
      }
      ids[r] = found.try_emplace(key, static_cast<uint32_t>(found.size())).first->second;
    }
    return ids;
  }

  static bool SamePartition(const Columns& keys, size_t a, size_t b) {
    for (const CompactColumn* key : keys) {
      if (key->Compare(a, b) != 0) return false;
    }
    return true;
  }

  std::vector<WindowCall> calls_;
  std::vector<int> keep_;
  std::vector<DataType> types_;  // of the output: the kept columns, then one per call
  QueryContext* context_;
  BatchSink* next_;
  std::vector<CompactColumn> columns_;  // the kept columns of every row
  size_t rows_ = 0;
};

}  // namespace

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
    call->nulls_first.push_back(o.NullsFirst());
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
  // A * has no type (arg_types leaves it out): only count(*) takes one. ntile(*) read past the
  // types and crashed the server (found by the sql fuzz driver).
  for (const ExprPtr& a : e.args) {
    if (a->kind == ExprKind::kStar && f != "count") {
      return SqlError(sql, a->pos, "* is only allowed in count(*)");
    }
  }
  if (const AggregateFunction* aggregate = FunctionRegistry::Get().FindAggregate(f)) {
    call->aggregate = aggregate;
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

std::unique_ptr<BatchSink> MakeWindow(std::vector<WindowCall> calls, std::vector<int> keep,
                                      std::vector<DataType> types, QueryContext* context,
                                      BatchSink* next) {
  return std::make_unique<Window>(std::move(calls), std::move(keep), std::move(types), context,
                                  next);
}

}  // namespace strata::query
