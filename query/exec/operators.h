// The executor's operators. Data flows push-style: a source (a table scan or
// materialized rows) pushes column batches (vector.h) into the lower half of
// the chain, which filters (WHERE) and aggregates a batch at a time; the
// aggregate's groups, or the filtered rows of a query without one, then flow
// through HAVING, projection, ordering, LIMIT and OFFSET as batches when the
// result sink takes them (Plan::columnar), else as rows (and always as rows
// through DISTINCT and windows), ending at the caller's result sink. Push
// fits the storage scan, which is callback-driven, and lets LIMIT stop the
// scan early.
//
// Thread-safety: one query's operators run on one thread; the QueryContext
// flags may be set from others (cancellation).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "query/base/memory_budget.h"
#include "query/base/read_access.h"
#include "query/base/shard_reads.h"
#include "query/base/vector.h"
#include "query/expr/expr.h"
#include "query/functions/functions.h"

namespace strata::query {

class PlanAnalysis;  // query/exec/plan_analysis.h
class ShardFragmentsNode;  // query/exec/shard_fragments.h
class SystemTables;  // query/exec/system_tables.h
struct QueryProgress;  // query/base/running_queries.h

// A plan whose answer is one ShardFragmentsNode's rows, some of their columns as they are
// (PassThroughFragments): that node hands its remote fragments' pages, made there in the
// client's form, to `sink` as they are (query/base/relayed_pages.h), counting their rows in
// `stats`.
struct RelayedAnswer {
  const ShardFragmentsNode* node = nullptr;
  std::vector<int> columns;  // the answer's columns: positions among the node's
  ResultSink* sink = nullptr;
  RelayForm form;
  QueryStats* stats = nullptr;
};

// Per-query state shared by the operators.
struct QueryContext {
  EvalContext eval;
  // Set by whoever may cancel the query (CancelQuery, a client that left).
  const std::atomic<bool>* cancelled = nullptr;
  std::atomic<bool> enough{false};  // LIMIT reached: sources may stop
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  int64_t memory_limit_bytes = 256 << 20;
  int64_t memory_used_bytes = 0;
  // The server-wide budget the query's memory also comes from (none in
  // tests that run the engine alone). Taken in steps of kBudgetStep, so the
  // shared counter is touched once per step rather than once per row.
  MemoryBudget* shared_budget = nullptr;
  int64_t shared_bytes = 0;
  // What the caller may read; null: everything.
  const ReadAccess* access = nullptr;
  // The "system" tables (QueryOptions); null: none.
  const SystemTables* system_tables = nullptr;
  QueryProgress* progress = nullptr;  // what the scans have read so far (SHOW QUERIES)
  // The database of table names written without one (QueryOptions).
  std::string default_database;
  bool postgres_names = false;  // QueryOptions'
  // QueryOptions' shard_reads and shard_scope (query/base/shard_reads.h).
  ShardReads* shard_reads = nullptr;
  const ShardScope* shard_scope = nullptr;
  LocalLeaderRead* local_leader_read = nullptr;  // QueryOptions'
  const RelayedAnswer* relayed_answer = nullptr;  // null: none relayed
  bool relays_pages = false;  // the answer's sink takes pages other nodes make (planning's)
  const std::function<bool()>* catch_up_catalog = nullptr;  // QueryOptions'; null: none
  uint32_t alive_ticks = 0;  // Tick's count (one query's operators run on one thread)
  // EXPLAIN ANALYZE's record of what each plan node did; null otherwise.
  PlanAnalysis* analysis = nullptr;
  // The rows of each WITH query read more than once, made at its first reading and replayed
  // at the others (KeptRowsNode, by its plan), for the life of the query.
  std::map<const void*, std::shared_ptr<const std::vector<Row>>> kept_rows;

  QueryContext() = default;
  QueryContext(const QueryContext&) = delete;
  QueryContext& operator=(const QueryContext&) = delete;
  ~QueryContext();

  // CANCELLED or DEADLINE_EXCEEDED when the query must stop.
  absl::Status CheckAlive() const;
  // CheckAlive once every 4096 calls: for a loop whose steps are too cheap
  // to check each (a join's pairs), so that however small each of its
  // inputs, the loop stops within a bounded number of steps.
  absl::Status Tick() {
    if ((++alive_ticks & 4095) != 0) return absl::OkStatus();
    return CheckAlive();
  }
  // Accounts `bytes` of operator state; RESOURCE_EXHAUSTED past the query's
  // limit or the server's budget.
  absl::Status Reserve(int64_t bytes, std::string_view what);
  // Gives back bytes of a Reserve whose state is gone (a page sent on).
  void Release(int64_t bytes);
};

// The query's evaluation error (EvalContext::error) as a status, if an
// expression just failed; OK otherwise.
absl::Status EvalStatus(const QueryContext& context);

class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual absl::Status Push(Row row) = 0;
  virtual absl::Status Finish() = 0;
};

class BatchSink {
 public:
  virtual ~BatchSink() = default;
  // `batch` is valid during the call only.
  virtual absl::Status Push(const Batch& batch) = 0;
  virtual absl::Status Finish() = 0;
};

// For an operator whose Push evaluates its whole batch before handing anything on: true when
// that evaluation stopped because the values it computed would not fit the query's memory at
// once (EvalContext::too_many_value_bytes) and the batch has more than one row. The error is
// then forgotten, and the operator drops what it computed and pushes the batch again as two
// halves (PushHalves), computed and handed on one at a time; for a single row the error stands.
// Ends `in_flight`'s evaluation (ValuesInFlight::EndEvaluation).
bool EvaluateInHalves(const Batch& batch, const QueryContext& context,
                      const ValuesInFlight& in_flight);
// Gives back `in_flight` (the operator's values for `batch`, dropped) and pushes `batch` into
// `sink` as two halves.
absl::Status PushHalves(const Batch& batch, const ValuesInFlight& in_flight, BatchSink* sink);

// Keeps the rows of each batch for which the predicate is true.
std::unique_ptr<BatchSink> MakeBatchFilter(const Expr* predicate, QueryContext* context,
                                           BatchSink* next);
// Evaluates the select list over whole batches (the columnar result path).
std::unique_ptr<BatchSink> MakeBatchProject(std::vector<const Expr*> exprs, QueryContext* context,
                                            BatchSink* next);
// Turns batches into rows of the given width (columns a query does not read
// may be empty in the batch; they become NULL).
std::unique_ptr<BatchSink> MakeBatchesToRows(int width, QueryContext* context, RowSink* next);
// Gathers rows into batches of the given column types.
std::unique_ptr<RowSink> MakeRowsToBatches(std::vector<DataType> types, QueryContext* context,
                                           BatchSink* next);

// Keeps rows for which the predicate is true (HAVING).
std::unique_ptr<RowSink> MakeFilter(const Expr* predicate, QueryContext* context,
                                    RowSink* next);
// Computes one output column per expression.
std::unique_ptr<RowSink> MakeProject(std::vector<const Expr*> exprs, QueryContext* context,
                                     RowSink* next);

struct AggregateSpec {
  const AggregateFunction* function = nullptr;
  std::vector<const Expr*> args;  // bound to the input; empty for count(*)
  std::vector<DataType> arg_types;
  bool distinct = false;
  // agg(x ORDER BY k, ...): the keys, bound to the input, and how each orders. The
  // accumulator then reads its group's rows in that order (OrderedArguments).
  std::vector<const Expr*> order_keys;
  std::vector<bool> descending, nulls_first;
  // agg(x) FILTER (WHERE c) of an aggregate that keeps NULLs (Expr::filtered): c, bound to the
  // input; the accumulator sees only the rows it holds for (WithFilterArgument).
  const Expr* filter = nullptr;
};
// Hash aggregation over batches: emits [group keys..., aggregates...] per
// group, in first-seen order, at Finish. Without group keys it emits exactly
// one row, also for no input. Consecutive rows with equal keys (a series'
// points in one time bin, as scans deliver them) are found without hashing
// and handed to the accumulators as one run.
class AggregateSink : public BatchSink {
 public:
  // Adds a whole magnetic block to the group `keys` by its statistics, one
  // per aggregate (all of whose functions have a `stats_use`).
  virtual absl::Status AddStats(Row keys, const std::vector<ColumnStats>& stats) = 0;
  // How many groups so far have a value above `bound` in key `key`.
  virtual int64_t GroupsAbove(size_t key, const Datum& bound) const = 0;
  // How many groups so far.
  virtual int64_t Groups() const = 0;
};
std::unique_ptr<AggregateSink> MakeAggregate(std::vector<const Expr*> keys,
                                             std::vector<AggregateSpec> aggregates,
                                             QueryContext* context, RowSink* next);
// The same groups as batches of `types` (the keys', then the aggregates').
std::unique_ptr<AggregateSink> MakeAggregate(std::vector<const Expr*> keys,
                                             std::vector<AggregateSpec> aggregates,
                                             std::vector<DataType> types, QueryContext* context,
                                             BatchSink* next);

struct SortKey {
  int column = 0;
  bool descending = false;
  bool nulls_first = false;
};
// Whether row `a` sorts before row `b` by `keys` (ORDER BY's order: NULLs where each key puts
// them, values by Compare), and whether the two are peers (equal in every key).
bool SortsBefore(const Row& a, const Row& b, const std::vector<SortKey>& keys);
bool SameSortKeys(const Row& a, const Row& b, const std::vector<SortKey>& keys);
// Sorts all rows; with a limit, keeps only the top `limit` (a heap, not a
// full sort).
std::unique_ptr<RowSink> MakeSort(std::vector<SortKey> keys, std::optional<int64_t> limit,
                                  QueryContext* context, RowSink* next);
// The same over batches (batch_sort.cc): rows leave in batches once all came.
std::unique_ptr<BatchSink> MakeBatchSort(std::vector<SortKey> keys, std::optional<int64_t> limit,
                                         QueryContext* context, BatchSink* next);
// Drops rows whose first `width` columns equal an earlier row's.
std::unique_ptr<RowSink> MakeDistinct(int width, QueryContext* context, RowSink* next);
// Drops rows whose `columns` equal an earlier row's: the first row of each (DISTINCT ON).
std::unique_ptr<RowSink> MakeDistinct(std::vector<int> columns, QueryContext* context,
                                      RowSink* next);
// Passes the first `limit` rows, then tells the sources they may stop.
std::unique_ptr<RowSink> MakeLimit(int64_t limit, QueryContext* context, RowSink* next);
// FETCH FIRST n ROWS WITH TIES over rows in order: the first `limit` rows, then those equal to
// the last of them in every one of `keys` (NULL equal to NULL).
std::unique_ptr<RowSink> MakeLimitWithTies(int64_t limit, std::vector<SortKey> keys, RowSink* next);
// Drops the first `skip` rows (OFFSET).
std::unique_ptr<RowSink> MakeOffset(int64_t skip, RowSink* next);
// Keeps the first `width` columns (drops helper columns used for ORDER BY).
std::unique_ptr<RowSink> MakeTruncate(int width, RowSink* next);
// LIMIT, OFFSET and the truncation over batches.
std::unique_ptr<BatchSink> MakeBatchLimit(int64_t limit, QueryContext* context, BatchSink* next);
std::unique_ptr<BatchSink> MakeBatchOffset(int64_t skip, BatchSink* next);
std::unique_ptr<BatchSink> MakeBatchTruncate(int width, BatchSink* next);

// Runs one plan's pipeline, whose rows go to `out` in the pipeline around
// it. LIMIT's "enough" (QueryContext::enough) belongs to a pipeline: a
// subquery's LIMIT stops the subquery's scan, not the query it feeds, and an
// outer LIMIT reached by the subquery's rows stops the subquery and what the
// outer query reads next. The flag is saved and cleared for `body`, and
// swapped whenever rows cross into `out`.
absl::Status RunPipeline(QueryContext* context, RowSink* out,
                         const std::function<absl::Status(RowSink*)>& body);
// The same for a pipeline whose rows cross as batches.
absl::Status RunBatchPipeline(QueryContext* context, BatchSink* out,
                              const std::function<absl::Status(BatchSink*)>& body);

// Materializes rows (subqueries and WITH queries).
class CollectSink : public RowSink {
 public:
  explicit CollectSink(QueryContext* context) : context_(context) {}
  absl::Status Push(Row row) override;
  absl::Status Finish() override { return absl::OkStatus(); }
  std::vector<Row>& rows() { return rows_; }

 private:
  QueryContext* context_;
  std::vector<Row> rows_;
};

}  // namespace strata::query
