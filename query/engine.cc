#include "query/engine.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/shard_reads.h"
#include "query/exec/plan_analysis.h"
#include "query/exec/shard_fragments.h"
#include "query/exec/table_layout.h"
#include "query/expr/expr.h"
#include "query/functions/functions.h"
#include "query/parse/parser.h"
#include "query/plan/planner.h"
#include "query/statements.h"

namespace strata::query {
namespace {

// The memory the statement's array parameters take in its plan: each array copied, and the
// hash set of an IN list over it.
int64_t ListParameterBytes(const QueryParameters& parameters) {
  int64_t bytes = 0;
  auto add = [&bytes](const Datum& value) {
    if (!IsComposite(value.type)) return;
    bytes += static_cast<int64_t>(sizeof(Datum)) + value.HeapBytes() + InListBytes(value);
  };
  for (const Datum& value : parameters.positional) add(value);
  for (const auto& [name, value] : parameters.named) add(value);
  return bytes;
}

// Cuts the rows into pages for the ResultSink and counts them. The page
// being filled counts against the query's memory (a page of 100,000 wide
// rows is large); the sink accounts for pages it holds on to.
class Pager : public RowSink {
 public:
  Pager(ResultSink* sink, int page_size, QueryStats* stats, QueryContext* context)
      : sink_(sink), page_size_(page_size), stats_(stats), context_(context) {}
  absl::Status Push(Row row) override {
    const int64_t bytes = RowBytes(row);
    // A row that would take the page past kPageBytes starts the next one.
    if (!page_.empty() && page_bytes_ + bytes > kPageBytes) RETURN_IF_ERROR(Flush());
    RETURN_IF_ERROR(context_->Reserve(bytes, "a page of results"));
    page_bytes_ += bytes;
    page_.push_back(std::move(row));
    ++stats_->rows_returned;
    if (static_cast<int>(page_.size()) >= page_size_ || page_bytes_ >= kPageBytes) return Flush();
    return absl::OkStatus();
  }
  absl::Status Finish() override { return Flush(); }

 private:
  absl::Status Flush() {
    if (page_.empty()) return absl::OkStatus();
    std::vector<Row> page;
    page.swap(page_);
    absl::Status sent = sink_->Rows(std::move(page));
    context_->Release(page_bytes_);
    page_bytes_ = 0;
    return sent;
  }
  ResultSink* sink_;
  int page_size_;
  QueryStats* stats_;
  QueryContext* context_;
  std::vector<Row> page_;
  int64_t page_bytes_ = 0;
};

// The columnar result path: batches straight to the sink.
class BatchPager : public BatchSink {
 public:
  BatchPager(ResultSink* sink, QueryStats* stats) : sink_(sink), stats_(stats) {}
  absl::Status Push(const Batch& batch) override {
    stats_->rows_returned += static_cast<int64_t>(batch.rows);
    return sink_->Batches(batch);
  }
  absl::Status Finish() override { return sink_->EndBatches(); }

 private:
  ResultSink* sink_;
  QueryStats* stats_;
};

// EXPLAIN ANALYZE's run: the answer's rows counted and dropped.
class CountedAnswer final : public RowSink, public BatchSink {
 public:
  absl::Status Push(Row) override {
    ++rows;
    return absl::OkStatus();
  }
  absl::Status Push(const Batch& batch) override {
    rows += static_cast<int64_t>(batch.rows);
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  int64_t rows = 0;
};

std::string Millis(int64_t nanos) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f ms", static_cast<double>(nanos) / 1e6);
  return text;
}

// EXPLAIN ANALYZE: runs the plan (as batches where it can be), then its lines with what each
// node did, the time planning took (uncorrelated subqueries run then) and the run's.
absl::StatusOr<std::vector<std::string>> AnalyzedPlan(const Plan& plan, const StatementRun& run,
                                                      int64_t planning_nanos) {
  PlanAnalysis analysis;
  CountedAnswer answer;
  run.context.analysis = &analysis;
  const auto started = std::chrono::steady_clock::now();
  absl::Status ran = plan.columnar ? plan.RunBatches(&run.context, &answer)
                                   : plan.Run(&run.context, static_cast<RowSink*>(&answer));
  const int64_t execution_nanos = NanosSince(started);
  run.context.analysis = nullptr;
  RETURN_IF_ERROR(ran);
  std::vector<std::string> lines = plan.Explain(&analysis);
  lines.push_back(StrCat("Planning time: ", Millis(planning_nanos)));
  lines.push_back(StrCat("Execution time: ", Millis(execution_nanos), " (", answer.rows,
                         answer.rows == 1 ? " row)" : " rows)"));
  // What the scans read and what pruning spared them (the query's statistics: planning's
  // pruning, the run's reads, a cluster's fragments').
  const QueryStats& s = run.stats;
  lines.push_back(StrCat("Scanned: ", s.rows_scanned, " rows, ", s.bytes_scanned, " bytes; series ",
                         s.series_scanned, " (", s.series_pruned, " pruned), partitions ",
                         s.partitions_scanned, " (", s.partitions_pruned, " pruned), blocks ",
                         s.blocks_scanned, " (", s.blocks_pruned, " pruned), hours ",
                         s.buckets_scanned, " (", s.buckets_pruned, " pruned)"));
  return lines;
}

// SELECT, and EXPLAIN of one: planned, then run into the sink as batches
// when both the plan and the sink can, else as pages of rows.
absl::Status RunSelect(Statement stmt, const StatementRun& run) {
  const bool explain = stmt.kind == Statement::Kind::kExplain;
  const auto started = std::chrono::steady_clock::now();
  run.context.relays_pages = !explain && run.sink.TakesBatches() && run.sink.RelaysPages();
  Planner planner(run.storage, run.layouts, run.sql, &run.context, &run.stats);
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
  if (explain) {
    std::vector<Row> rows;
    // A cluster node's small leader read: where the rows come from, above the plan.
    if (const LocalLeaderRead* local = run.context.local_leader_read; local != nullptr) {
      rows.push_back({Datum::Varchar(local->Describe())});
    }
    std::vector<std::string> lines;
    if (stmt.analyze && !run.options.describe_only) {
      ASSIGN_OR_RETURN(lines, AnalyzedPlan(*plan, run, NanosSince(started)));
    } else {
      lines = plan->Explain();
      run.stats = QueryStats{};  // planning's pruning figures describe the plan, not a run
    }
    for (const std::string& line : lines) rows.push_back({Datum::Varchar(line)});
    // PostgreSQL's tools read the plan from a column named as PostgreSQL names it.
    const std::string column = run.context.postgres_names ? "QUERY PLAN" : "plan";
    return run.Emit({{column, DataType::kVarchar}}, std::move(rows));
  }
  std::vector<ResultColumn> columns;
  for (const ColumnInfo& c : plan->output) columns.push_back({c.name, c.type});
  RETURN_IF_ERROR(run.sink.Columns(columns));
  if (run.options.describe_only) return absl::OkStatus();
  RETURN_IF_ERROR(run.context.CheckAlive());
  if (plan->columnar && run.sink.TakesBatches()) {
    BatchPager batches(&run.sink, &run.stats);
    // Rows other nodes read that are the answer as they are go to the client as they made
    // them (query/base/relayed_pages.h).
    std::optional<RelayedAnswer> relayed;
    if (const std::optional<RelayForm> form = run.sink.RelaysPages()) {
      std::vector<int> columns;
      if (const ShardFragmentsNode* fragments = PassThroughFragments(*plan, &columns)) {
        relayed = RelayedAnswer{.node = fragments,
                                .columns = std::move(columns),
                                .sink = &run.sink,
                                .form = *form,
                                .stats = &run.stats};
        run.context.relayed_answer = &*relayed;
      }
    }
    absl::Status ran = plan->RunBatches(&run.context, &batches);
    run.context.relayed_answer = nullptr;
    return ran;
  }
  return plan->Run(&run.context, &run.pager);
}

}  // namespace

absl::Status StatementRun::Emit(std::vector<ResultColumn> columns, std::vector<Row> rows) const {
  RETURN_IF_ERROR(sink.Columns(columns));
  for (Row& row : rows) RETURN_IF_ERROR(pager.Push(std::move(row)));
  return pager.Finish();
}

absl::StatusOr<QueryStats> QueryEngine::Execute(std::string_view sql, const QueryOptions& options,
                                                ResultSink* sink) {
  const auto started = std::chrono::steady_clock::now();
  QueryStats stats;
  QueryContext context;
  context.eval.now_nanos = storage_.clock().NowNanos();
  context.memory_limit_bytes = options.memory_limit_bytes;
  context.eval.max_value_bytes = options.memory_limit_bytes;
  if (options.timeout_millis > 0) {
    context.deadline = started + std::chrono::milliseconds(options.timeout_millis);
  }
  context.cancelled = options.cancelled;
  context.eval.deadline = context.deadline;
  context.eval.cancelled = options.cancelled;
  context.shared_budget = options.shared_budget;
  context.access = options.access;
  context.system_tables = options.system_tables;
  context.progress = options.progress;
  context.default_database = options.default_database;
  context.postgres_names = options.postgres_names;
  context.shard_reads = options.shard_reads;
  context.shard_scope = options.shard_scope;
  context.local_leader_read = options.local_leader_read;
  if (options.catch_up_catalog) context.catch_up_catalog = &options.catch_up_catalog;
  Pager pager(sink, std::max(1, options.page_size), &stats, &context);

  ASSIGN_OR_RETURN(Statement stmt, Parse(sql, options.parameters));
  // A fragment reads: a statement that changes anything there would change one replica
  // outside its shard's log.
  if (options.shard_scope != nullptr && stmt.kind != Statement::Kind::kSelect &&
      stmt.kind != Statement::Kind::kDescribe && stmt.kind != Statement::Kind::kShowMeasures) {
    return absl::InvalidArgumentError(
        "a fragment is a SELECT, DESCRIBE or SHOW MEASURES; nothing that writes");
  }
  if (stmt.database.empty() && !stmt.table.empty() &&
      (stmt.kind == Statement::Kind::kDescribe || stmt.kind == Statement::Kind::kShowMeasures ||
       stmt.kind == Statement::Kind::kDelete || stmt.kind == Statement::Kind::kInsert ||
       stmt.kind == Statement::Kind::kCopyFrom || stmt.kind == Statement::Kind::kCreateTable ||
       stmt.kind == Statement::Kind::kAlterTable || stmt.kind == Statement::Kind::kDropTable)) {
    if (options.default_database.empty()) {
      return SqlError(absl::StatusCode::kNotFound, sql, stmt.table_pos,
                      StrCat("\"", stmt.table,
                             "\" names no database: write it as "
                             "\"database\".\"table\", or set a default database (USE db in the "
                             "shell, --database, QueryRequest.database)"));
    }
    stmt.database = options.default_database;
  }
  // The syntax tree is the query's memory too (up to ~30 MB for 256 KiB of
  // SQL), and the planner's copies of it are of the same order.
  RETURN_IF_ERROR(context.Reserve(2 * stmt.expressions * static_cast<int64_t>(sizeof(Expr)),
                                  "its syntax tree"));
  // A list parameter (`= ANY($1)`, up to 1,000,000 values) is copied into the plan as one
  // array, and hashed where it is an IN list.
  RETURN_IF_ERROR(context.Reserve(ListParameterBytes(options.parameters), "its list parameters"));
  auto finish = [&]() -> absl::StatusOr<QueryStats> {
    stats.elapsed_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    return stats;
  };
  const StatementRun run{.sql = sql,
                         .options = options,
                         .storage = storage_,
                         .layouts = layouts_,
                         .context = context,
                         .stats = stats,
                         .sink = *sink,
                         .pager = pager};
  absl::Status done;
  switch (stmt.kind) {
    case Statement::Kind::kShowDatabases:
      done = ShowDatabases(stmt, run);
      break;
    case Statement::Kind::kShowTables:
      done = ShowTables(stmt, run);
      break;
    case Statement::Kind::kShowMeasures:
      done = ShowMeasures(stmt, run);
      break;
    case Statement::Kind::kShowFunctions:
      done = ShowFunctions(stmt, run);
      break;
    case Statement::Kind::kDescribe:
      done = DescribeTable(stmt, run);
      break;
    case Statement::Kind::kShowQueries:
      done = ShowQueries(stmt, run);
      break;
    case Statement::Kind::kKillQuery:
      done = KillQuery(stmt, run);
      break;
    case Statement::Kind::kDelete:
      done = DeleteRows(std::move(stmt), run);
      break;
    case Statement::Kind::kInsert:
      done = InsertRows(std::move(stmt), run);
      break;
    case Statement::Kind::kCopyFrom:
      done = CopyFrom(std::move(stmt), run);
      break;
    case Statement::Kind::kCreateDatabase:
    case Statement::Kind::kAlterDatabase:
    case Statement::Kind::kDropDatabase:
    case Statement::Kind::kCreateTable:
    case Statement::Kind::kAlterTable:
    case Statement::Kind::kDropTable:
      done = ChangeCatalog(stmt, run);
      break;
    case Statement::Kind::kSelect:
    case Statement::Kind::kExplain:
      done = RunSelect(std::move(stmt), run);
      break;
  }
  RETURN_IF_ERROR(done);
  return finish();
}

}  // namespace strata::query
