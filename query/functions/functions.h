// The function registry: every SQL function Strata knows, each a small struct
// with its documentation line (docs/sql.md is generated from these and
// checked by a test), a binder that checks argument types and gives the
// result type, and an evaluator.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/datum.h"
#include "query/base/vector.h"

namespace strata::query {

struct EvalContext {
  int64_t now_nanos = 0;  // fixed for the whole query
  // The first evaluation error (a CAST that cannot convert its value).
  // Evaluation itself returns values; operators check this after each batch (or row)
  // and fail the query with it.
  mutable std::string error;
  // The query's deadline and cancel flag, for evaluation that loops within
  // one row (a lambda over a 1,000,000-element array, nested in another):
  // operators check them between batches, which one such row can outlast.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* cancelled = nullptr;
  mutable bool stopped = false;  // the error is the deadline's or the cancellation's
  // Work done, in calls and in bytes copied (Charge), and when the clock is read next.
  mutable uint64_t steps = 0;
  mutable uint64_t next_check = kStepsBetweenChecks;
  // The most bytes one computed array may hold, its elements' texts and nested values
  // counted as often as they appear (Datum::HeapBytes): the query's memory limit. Without it
  // transform(sequence(1, 10000), x -> <a 4 MiB text>) copied the text 10,000 times, past
  // every memory limit, into one value (docs/sql.md, "Literals and operators": limits).
  int64_t max_value_bytes = 256 << 20;
  // The bytes of the long values (texts and arrays of kLongValueBytes or more) computed into the
  // batches in flight, held to max_value_bytes as well: a batch's values live until it has been
  // handed on, so 1,024 rows of lpad(x, 1000000, 'x') held 1 GB at once. Operators give their
  // batch's part back once it is gone (ValuesInFlight).
  mutable int64_t value_bytes_in_flight = 0;
  // Past this, the batch being evaluated is better computed in parts (ValuesInFlight's
  // split_rows): its values stop as too many, though within max_value_bytes.
  mutable int64_t split_above = INT64_MAX;
  mutable bool too_many_value_bytes = false;  // the error is value_bytes_in_flight's

  // False once the query has an error (its answer is decided: the rest of
  // the row's work is waste) or, checked every 256 steps, is past its
  // deadline or cancelled (recorded as the error, with `stopped`).
  bool KeepGoing() const {
    if (!error.empty()) return false;
    if (++steps < next_check) return true;
    next_check = steps + kStepsBetweenChecks;
    const bool cancel = cancelled != nullptr && cancelled->load(std::memory_order_relaxed);
    if (!cancel && std::chrono::steady_clock::now() <= deadline) return true;
    error = cancel ? "the query was cancelled" : "the query ran past its timeout";
    stopped = true;
    return false;
  }
  // Counts `bytes` made or copied as work: one step per 64 KiB, so that calls copying
  // megabytes each (a lambda doubling a text) reach the clock as often as cheap ones do.
  void Charge(size_t bytes) const { steps += bytes >> 16; }
  // After a call or a || link made a text of `bytes`: a long one (up to kMaxTextBytes, in
  // chains and nestings as long as the statement allows) counts as work by its bytes and
  // reads the clock when due. False once the query should stop.
  bool KeepGoingAfterText(size_t bytes) const {
    if (bytes < kLongTextBytes) return error.empty();
    Charge(bytes);
    return KeepGoing();
  }

  // Counts a value of `bytes` computed into a batch: a long one adds to value_bytes_in_flight.
  // False, with the query failed saying so, once they pass max_value_bytes (or split_above).
  bool HoldInFlight(int64_t bytes) const {
    if (bytes < static_cast<int64_t>(kLongValueBytes)) return true;
    value_bytes_in_flight += bytes;
    if (value_bytes_in_flight <= max_value_bytes && value_bytes_in_flight <= split_above) {
      return true;
    }
    if (error.empty()) {
      error = TooManyValueBytesMessage();
      too_many_value_bytes = true;
    }
    return false;
  }
  // Forgets an error of value_bytes_in_flight's, for an operator that evaluates its batch again
  // in smaller parts.
  void ForgetTooManyValueBytes() const {
    if (!too_many_value_bytes) return;
    too_many_value_bytes = false;
    error.clear();
  }
  std::string TooManyValueBytesMessage() const;

  static constexpr uint64_t kStepsBetweenChecks = 256;
  static constexpr size_t kLongTextBytes = 64 << 10;
  static constexpr size_t kLongValueBytes = 64 << 10;
};

// Gives back, when it ends, the value bytes in flight (EvalContext::value_bytes_in_flight)
// counted while it lived: an operator's batch, with the values computed for it, is dropped once
// handed on, and what the operators after it keep they charge to the query themselves.
class ValuesInFlight {
 public:
  // `split_rows`: the rows of the batch an operator that can compute it in parts evaluates.
  // With more than one, its values past kBatchBytes stop its evaluation as too many (smaller
  // batches of long values run several times faster: they stay in the caches, in pages the
  // allocator reuses) until EndEvaluation.
  explicit ValuesInFlight(const EvalContext& context, size_t split_rows = 0)
      : context_(context), mark_(context.value_bytes_in_flight), split_above_(context.split_above) {
    if (split_rows > 1) context.split_above = mark_ + kBatchBytes;
  }
  ~ValuesInFlight() {
    GiveBack();
    EndEvaluation();
  }
  // Gives them back now (the values are gone).
  void GiveBack() const { context_.value_bytes_in_flight = mark_; }
  // The batch is evaluated: what the operators it is handed to compute is theirs to split.
  void EndEvaluation() const { context_.split_above = split_above_; }
  ValuesInFlight(const ValuesInFlight&) = delete;
  ValuesInFlight& operator=(const ValuesInFlight&) = delete;

 private:
  const EvalContext& context_;
  const int64_t mark_;
  const int64_t split_above_;
};

// The longest text a query computes (||, concat, replace, array_join): a
// fold such as reduce(..., (s, x) -> s || s, ...) doubles its text per
// element, so without a bound one short query could take the server's memory.
inline constexpr size_t kMaxTextBytes = 16 << 20;
// The query error for text past kMaxTextBytes, naming what made it.
std::string TextTooLongMessage(std::string_view what);
// The bytes of an array being made, element by element (each with Datum::HeapBytes: a copy
// of a long text counts as often as it appears), held to EvalContext::max_value_bytes.
class ArrayBytes {
 public:
  // `what` names the maker in the error ("transform()").
  ArrayBytes(std::string_view what, const EvalContext& context) : what_(what), context_(context) {}
  // Counts `element`; false, with the query failed saying so, once the array passes the limit.
  bool Add(const Datum& element);
  int64_t bytes() const { return bytes_; }

 private:
  const std::string_view what_;
  const EvalContext& context_;
  int64_t bytes_ = 0;
};

struct ScalarFunction {
  std::string name;
  std::string signature;  // e.g. "bin(timestamp, interval) -> timestamp"
  std::string doc;
  // Checks the argument types; the message of an error names the problem.
  std::function<absl::StatusOr<DataType>(const std::vector<DataType>&)> bind;
  std::function<Datum(const std::vector<Datum>&, const EvalContext&)> eval;
  // NULL in, NULL out, without calling eval (most functions).
  bool null_propagating = true;
  // Evaluation can record an error in the EvalContext (an overflow, an
  // invalid pattern), so the executor must not evaluate it ahead of the
  // conditions that guard it.
  bool can_fail = false;
  // A new value per call (random): never folded into a constant.
  bool volatile_value = false;
  // try(x): evaluated by query/expr/expr.cc, which turns x's error into NULL.
  bool catches_errors = false;
  // Optional, for NULL-propagating functions on hot paths: the same as eval
  // over whole vectors. `out` comes sized to the rows, all NULL. False when it
  // cannot take these arguments (an error to report, a case it leaves to eval):
  // the rows are then made one by one through eval.
  std::function<bool(const std::vector<Vector>& args, Vector* out)> eval_batch;
  // Instead of eval, for functions whose value depends on the bound result
  // type (ARRAY[1, 2.5] makes doubles of both; row() names its fields).
  std::function<Datum(const std::vector<Datum>&, DataType result, const EvalContext&)> eval_typed;
  // filter, transform, reduce, ...: bound and evaluated by BindLambdaCall and
  // EvalLambdaCall (query/expr/expr.h).
  bool takes_lambdas = false;
  // Takes JSON arguments as JSON (the constructors embed them as they are); every other
  // function is given a JSON argument as its VARCHAR text (query/expr/expr.cc).
  bool keeps_json = false;
};

// Calls `f` (eval or eval_typed) on evaluated arguments; the result carries
// the bound type `result` (the type of an array, row or timeseries value).
Datum CallScalar(const ScalarFunction& f, const std::vector<Datum>& args, DataType result,
                 const EvalContext& context);

// What a magnetic block's header says of an aggregate's argument column over
// all the block's points: enough for count, sum, avg, min and max to take the
// whole block without its values.
struct ColumnStats {
  int64_t count = 0;     // non-NULL values (for count(*): the points)
  bool has_sum = false;  // `sum` is the values added in time order, exactly
                         // what adding them one by one from 0 gives
  double sum = 0;
  Datum min, max;        // NULL when the header does not know them
};

// What an aggregate needs from ColumnStats to take a whole block.
enum class StatsUse {
  kNone,      // it needs the values (or their order)
  kCount,     // `count`
  kSum,       // `count` and `sum` (has_sum)
  kExtremes,  // `min` and `max`, unless `count` is 0
};

// Accumulates one group's values of an aggregate.
class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual void Add(const std::vector<Datum>& args) = 0;
  // Adds rows [begin, end) of the argument vectors (one per argument, none
  // for count(*)). The default goes row by row through Add; the common
  // aggregates override it with loops over the typed arrays.
  virtual void AddRun(const std::vector<const Vector*>& args, size_t begin, size_t end);
  // Adds a whole block's values by their statistics. Called only for a
  // function whose `stats_use` is not kNone, with the statistics it needs.
  virtual void AddStats(const ColumnStats& stats);
  // The group's value; an error (a BIGINT sum that overflows) fails the query. Must leave the
  // state whole: a window's frame that grows (a running array_agg) adds more rows and asks
  // again (before, array_agg and create_time_series moved their values out, and map_agg's
  // index then pointed past its emptied entries: a server crash).
  virtual absl::StatusOr<Datum> Finish() = 0;
  // Where to add the bytes the accumulator comes to keep as it grows (the
  // values of array_agg, approx_percentile, map_agg, DISTINCT): the grouping
  // operator charges them to the query's memory budget, so many large groups
  // fail the query instead of the server.
  virtual void MeterInto(int64_t* bytes) { kept_bytes_ = bytes; }

 protected:
  void Kept(int64_t bytes) {
    if (kept_bytes_ != nullptr) *kept_bytes_ += bytes;
  }

 private:
  int64_t* kept_bytes_ = nullptr;
};

struct AggregateFunction {
  std::string name;
  std::string signature;
  std::string doc;
  std::function<absl::StatusOr<DataType>(const std::vector<DataType>&)> bind;
  // `arg_types` as bound; `distinct` for count(DISTINCT x) and friends.
  std::function<std::unique_ptr<Accumulator>(const std::vector<DataType>& arg_types)> make;
  StatsUse stats_use = StatsUse::kNone;
  // As ScalarFunction::keeps_json.
  bool keeps_json = false;
  // Adds NULL arguments as values (array_agg, json_agg): its FILTER's condition is evaluated
  // for itself (WithFilterArgument), where other aggregates' FILTER is made of the arguments
  // NULLed where the condition fails (query/parse/parser.cc).
  bool keeps_nulls = false;
};

class FunctionRegistry {
 public:
  static const FunctionRegistry& Get();

  const ScalarFunction* FindScalar(std::string_view name) const;
  const AggregateFunction* FindAggregate(std::string_view name) const;
  // Every function name, for "did you mean" and docs/sql.md.
  std::vector<std::string_view> Names() const;
  const std::vector<ScalarFunction>& scalars() const { return scalars_; }
  const std::vector<AggregateFunction>& aggregates() const { return aggregates_; }

 private:
  FunctionRegistry();
  std::vector<ScalarFunction> scalars_;
  std::vector<AggregateFunction> aggregates_;
};

// Wraps an accumulator so it only sees each distinct argument once
// (count(DISTINCT x) and friends).
std::unique_ptr<Accumulator> WithDistinctArguments(std::unique_ptr<Accumulator> inner);
// agg(x) FILTER (WHERE c) of an aggregate that keeps NULLs: gives the accumulator the
// arguments but the last (c) of the rows whose last is true.
std::unique_ptr<Accumulator> WithFilterArgument(std::unique_ptr<Accumulator> inner);
// agg(x ORDER BY k, ...): keeps each row's first `values` arguments and its order keys (the
// arguments after them), and at Finish gives the values to an accumulator from `make` in
// the keys' order (each key descending or not, its NULLs first or not).
std::unique_ptr<Accumulator> OrderedArguments(std::function<std::unique_ptr<Accumulator>()> make,
                                              size_t values, std::vector<bool> descending,
                                              std::vector<bool> nulls_first);

// avg's final step over partial states, for an aggregation split across a cluster's
// fragments (query/plan/planner_shards.cc); not callable from SQL. Its arguments are
// (sum as DOUBLE, count), or for a BIGINT's exact sum (sum(x / kAvgPartBase),
// sum(x % kAvgPartBase), count).
const AggregateFunction& AverageOfPartials();
// count's and count_if's final step over the fragments' counts: their sum, and 0 (not NULL)
// when no fragment sent a row for the group.
const AggregateFunction& CountOfPartials();
inline constexpr int64_t kAvgPartBase = int64_t{1} << 24;

// SQL LIKE: % matches any run of characters, _ one character (of UTF-8, not a byte); after
// `escape` (empty: none), %, _ or the escape itself stands for itself.
bool LikeMatch(std::string_view text, std::string_view pattern, std::string_view escape = {});
// Why `pattern` with `escape` is no LIKE pattern (the escape is not one character, or one in
// the pattern is not followed by %, _ or itself); empty if it is one.
std::string LikePatternError(std::string_view pattern, std::string_view escape);

// A function of Timestream's reference Strata refuses, and why.
struct RefusedFunction {
  std::string_view name;
  std::string_view reason;  // with what to write instead where there is a way
};
const std::vector<RefusedFunction>& RefusedFunctions();
const RefusedFunction* FindRefusedFunction(std::string_view name);

// Renders the registry as the function reference of docs/sql.md.
std::string FunctionReferenceMarkdown();

}  // namespace strata::query
