#include "query/engine.h"

#include <chrono>

#include "common/status.h"
#include "common/strings.h"
#include "query/functions.h"
#include "query/parser.h"
#include "query/planner.h"
#include "query/table_layout.h"
#include "storage/table_state.h"

namespace strata::query {
namespace {

// Cuts the rows into pages for the ResultSink and counts them. The page
// being filled counts against the query's memory (a page of 100,000 wide
// rows is large); the sink accounts for pages it holds on to.
class Pager : public RowSink {
 public:
  Pager(ResultSink* sink, int page_size, QueryStats* stats, QueryContext* context)
      : sink_(sink), page_size_(page_size), stats_(stats), context_(context) {}
  absl::Status Push(Row row) override {
    const int64_t bytes = RowBytes(row);
    RETURN_IF_ERROR(context_->Reserve(bytes, "a page of results"));
    page_bytes_ += bytes;
    page_.push_back(std::move(row));
    ++stats_->rows_returned;
    if (static_cast<int>(page_.size()) >= page_size_) return Flush();
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

absl::Status Emit(ResultSink* sink, Pager& pager, std::vector<ResultColumn> columns,
                  std::vector<Row> rows) {
  RETURN_IF_ERROR(sink->Columns(columns));
  for (Row& row : rows) RETURN_IF_ERROR(pager.Push(std::move(row)));
  return pager.Finish();
}

bool Matches(const std::optional<std::string>& like, const std::string& name) {
  return !like || LikeMatch(name, *like);
}

std::string LowerTypeName(MeasureKind kind) {
  switch (kind) {
    case MeasureKind::kDouble: return "double";
    case MeasureKind::kBigint: return "bigint";
    case MeasureKind::kVarchar: return "varchar";
    case MeasureKind::kBoolean: return "boolean";
    case MeasureKind::kTimestamp: return "timestamp";
    case MeasureKind::kMulti: return "multi";
  }
  return "unknown";
}

// The rows a DELETE's SELECT * returns, as points of the table: the series
// from the dimension columns (those before measure_name) and measure_name,
// the time from `time`.
class DeleteCollector final : public RowSink {
 public:
  // Past this, a DELETE is refused: its points are held in memory.
  static constexpr size_t kMaxPoints = 5'000'000;

  DeleteCollector(const TableInfo& table, const TableState& state, const Schema& columns,
                  QueryContext* context)
      : table_(table), state_(state), context_(context) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].name == kMeasureNameColumn) measure_name_ = static_cast<int>(c);
      if (columns[c].name == kTimeColumn) time_ = static_cast<int>(c);
    }
    for (int c = 0; c < measure_name_; ++c) dimensions_.emplace_back(c, columns[c].name);
  }

  absl::Status Push(Row row) override {
    if (points_.size() >= kMaxPoints) {
      return absl::ResourceExhaustedError(StrCat(
          "the DELETE matches more than ", kMaxPoints, " rows; delete a narrower time range at "
          "a time"));
    }
    if (points_.size() % 4096 == 0) {
      RETURN_IF_ERROR(context_->Reserve(4096 * sizeof(PointToDelete), "the rows to delete"));
    }
    NormalizedRecord series;
    series.measure_name = row[measure_name_].s;
    for (const auto& [column, name] : dimensions_) {
      if (!row[column].null) series.dimensions.emplace_back(name, row[column].s);
    }
    const std::optional<uint64_t> id = state_.FindSeries(SeriesKeyView::Of(series));
    if (!id) return absl::OkStatus();  // registered after the scan began: not this DELETE's
    points_.push_back(
        {.pk_hash = PartitionHash(series.measure_name, series.dimensions, table_.partition_key),
         .series = *id,
         .time_nanos = row[time_].i});
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  std::vector<PointToDelete> TakePoints() { return std::move(points_); }

 private:
  const TableInfo& table_;
  const TableState& state_;
  QueryContext* context_;
  int measure_name_ = -1;
  int time_ = -1;
  std::vector<std::pair<int, std::string>> dimensions_;
  std::vector<PointToDelete> points_;
};

}  // namespace

absl::StatusOr<QueryStats> QueryEngine::Execute(std::string_view sql, const QueryOptions& options,
                                                ResultSink* sink) {
  const auto started = std::chrono::steady_clock::now();
  QueryStats stats;
  QueryContext context;
  context.eval.now_nanos = storage_.clock().NowNanos();
  context.memory_limit_bytes = options.memory_limit_bytes;
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
  const ReadAccess* access = options.access;
  Pager pager(sink, std::max(1, options.page_size), &stats, &context);

  ASSIGN_OR_RETURN(Statement stmt, Parse(sql, options.parameters));
  if (stmt.database.empty() && !stmt.table.empty() &&
      (stmt.kind == Statement::Kind::kDescribe || stmt.kind == Statement::Kind::kShowMeasures ||
       stmt.kind == Statement::Kind::kDelete)) {
    if (options.default_database.empty()) {
      return SqlError(absl::StatusCode::kNotFound, sql, stmt.table_pos,
                      StrCat("\"", stmt.table, "\" names no database: write it as "
                             "\"database\".\"table\", or set a default database (USE db in the "
                             "shell, --database, QueryRequest.database)"));
    }
    stmt.database = options.default_database;
  }
  // The syntax tree is the query's memory too (up to ~30 MB for 256 KiB of
  // SQL), and the planner's copies of it are of the same order.
  RETURN_IF_ERROR(context.Reserve(2 * stmt.expressions * static_cast<int64_t>(sizeof(Expr)),
                                  "its syntax tree"));
  const Catalog& catalog = storage_.catalog();
  auto finish = [&]() -> absl::StatusOr<QueryStats> {
    stats.elapsed_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
    return stats;
  };

  switch (stmt.kind) {
    case Statement::Kind::kShowDatabases: {
      std::vector<Row> rows;
      std::string token;
      do {
        ASSIGN_OR_RETURN(auto page, catalog.ListDatabases(kMaxPageSize, token));
        for (const DatabaseInfo& db : page.items) {
          if (access != nullptr && !access->MaySee(db.name)) continue;
          if (Matches(stmt.like, db.name)) rows.push_back({Datum::Varchar(db.name)});
        }
        token = page.next_token;
      } while (!token.empty());
      RETURN_IF_ERROR(Emit(sink, pager, {{"Database", DataType::kVarchar}}, std::move(rows)));
      return finish();
    }
    case Statement::Kind::kShowTables: {
      std::vector<Row> rows;
      std::string token;
      if (!stmt.database.empty()) {
        // One the caller may not see is answered as a missing one.
        if (access != nullptr && !access->MaySee(stmt.database)) {
          return SqlError(sql, stmt.table_pos, Catalog::NoSuchDatabase(stmt.database));
        }
        auto db = catalog.DescribeDatabase(stmt.database);
        if (!db.ok()) return SqlError(sql, stmt.table_pos, db.status());
      }
      do {
        ASSIGN_OR_RETURN(auto page, catalog.ListTables(stmt.database, kMaxPageSize, token));
        for (const TableInfo& t : page.items) {
          if (!Matches(stmt.like, t.name)) continue;
          if (access != nullptr && !access->MaySee(t.database_name, t.name)) continue;
          if (stmt.database.empty()) {
            rows.push_back({Datum::Varchar(t.database_name), Datum::Varchar(t.name)});
          } else {
            rows.push_back({Datum::Varchar(t.name)});
          }
        }
        token = page.next_token;
      } while (!token.empty());
      std::vector<ResultColumn> columns = {{"Table", DataType::kVarchar}};
      if (stmt.database.empty()) columns.insert(columns.begin(), {"Database", DataType::kVarchar});
      RETURN_IF_ERROR(Emit(sink, pager, columns, std::move(rows)));
      return finish();
    }
    case Statement::Kind::kShowMeasures:
    case Statement::Kind::kDescribe: {
      if (access != nullptr) {
        if (absl::Status allowed = access->CheckRead(stmt.database, stmt.table); !allowed.ok()) {
          return SqlError(sql, stmt.table_pos, allowed);
        }
      }
      auto table = catalog.FindTable(stmt.database, stmt.table);
      if (!table.ok()) {
        return SqlError(sql, stmt.table_pos, table.status());
      }
      ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, storage_.TableStateOf(**table));
      if (stmt.kind == Statement::Kind::kShowMeasures) {
        const std::vector<std::shared_ptr<const SeriesInfo>> series = state->AllSeries();
        const auto measures = state->Measures();
        std::vector<Row> rows;
        for (const auto& [name, schema] : measures) {
          if (!Matches(stmt.like, name)) continue;
          std::set<std::string> dimensions;
          for (const auto& s : series) {
            if (s->measure_name != name) continue;
            for (const auto& [d, v] : s->dimensions) dimensions.insert(d);
          }
          std::string list = "[";
          for (const std::string& d : dimensions) {
            list += StrCat(list.size() > 1 ? ", " : "", "{dimension_name: ", d,
                           ", data_type: varchar}");
          }
          list += "]";
          rows.push_back({Datum::Varchar(name), Datum::Varchar(LowerTypeName(schema.kind)),
                          Datum::Varchar(list)});
        }
        RETURN_IF_ERROR(Emit(sink, pager,
                             {{"measure_name", DataType::kVarchar},
                              {"data_type", DataType::kVarchar},
                              {"dimensions", DataType::kVarchar}},
                             std::move(rows)));
        return finish();
      }
      // DESCRIBE: the columns of SELECT *, in its order (the table layout).
      const std::shared_ptr<const TableLayout> layout = layouts_.Get(**table, state);
      const Schema& columns = layout->schema;
      std::vector<Row> rows;
      auto add = [&rows](std::string column, std::string_view type, std::string kind) {
        rows.push_back({Datum::Varchar(std::move(column)), Datum::Varchar(std::string(type)),
                        Datum::Varchar(std::move(kind))});
      };
      for (int c = 0; c < layout->measure_name_column; ++c) {
        add(columns[c].name, "varchar", "DIMENSION");
      }
      add("measure_name", "varchar", "MEASURE_NAME");
      add("time", "timestamp", "TIMESTAMP");
      for (const auto& [type, c] : layout->columns->scalar_column) {
        add(columns[c].name, LowerTypeName(static_cast<MeasureKind>(type)), "MEASURE_VALUE");
      }
      const int first_attribute =
          layout->time_column + 1 + static_cast<int>(layout->columns->scalar_column.size());
      for (int c = first_attribute; c < static_cast<int>(columns.size()); ++c) {
        const ValueType type = layout->columns->attribute_column.at(columns[c].name).type;
        add(columns[c].name, LowerTypeName(static_cast<MeasureKind>(type)), "MULTI");
      }
      RETURN_IF_ERROR(Emit(sink, pager,
                           {{"Column", DataType::kVarchar},
                            {"Type", DataType::kVarchar},
                            {"Timestream attribute type", DataType::kVarchar}},
                           std::move(rows)));
      return finish();
    }
    case Statement::Kind::kShowQueries:
    case Statement::Kind::kKillQuery: {
      if (options.running == nullptr) {
        return absl::FailedPreconditionError("SHOW QUERIES and KILL QUERY need the server");
      }
      if (stmt.kind == Statement::Kind::kKillQuery) {
        RETURN_IF_ERROR(options.running->Kill(stmt.query_id));
        RETURN_IF_ERROR(Emit(sink, pager, {{"killed", DataType::kVarchar}},
                             {{Datum::Varchar(stmt.query_id)}}));
        return finish();
      }
      std::vector<Row> rows;
      for (const RunningQuery& q : options.running->List()) {
        rows.push_back({Datum::Varchar(q.id), Datum::Varchar(q.text), Datum::Varchar(q.token),
                        Datum::Varchar(q.peer), Datum::Timestamp(q.started_nanos),
                        Datum::Interval(q.elapsed_nanos), Datum::Bigint(q.rows_scanned),
                        Datum::Bigint(q.bytes_scanned)});
      }
      RETURN_IF_ERROR(Emit(sink, pager,
                           {{"query_id", DataType::kVarchar},
                            {"query", DataType::kVarchar},
                            {"token", DataType::kVarchar},
                            {"client", DataType::kVarchar},
                            {"started", DataType::kTimestamp},
                            {"elapsed", DataType::kInterval},
                            {"rows_scanned", DataType::kBigint},
                            {"bytes_scanned", DataType::kBigint}},
                           std::move(rows)));
      return finish();
    }
    case Statement::Kind::kSelect:
    case Statement::Kind::kExplain:
    case Statement::Kind::kDelete:  // planned below, like a SELECT
      break;
  }

  Planner planner(storage_, layouts_, sql, &context, &stats);
  if (stmt.kind == Statement::Kind::kDelete) {
    if (access != nullptr) {
      for (absl::Status allowed : {access->CheckRead(stmt.database, stmt.table),
                                   access->CheckWrite(stmt.database, stmt.table)}) {
        if (!allowed.ok()) return SqlError(sql, stmt.table_pos, allowed);
      }
    }
    auto table = catalog.FindTable(stmt.database, stmt.table);
    if (!table.ok()) return SqlError(sql, stmt.table_pos, table.status());
    ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, storage_.TableStateOf(**table));
    ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
    if (options.describe_only) {
      RETURN_IF_ERROR(sink->Columns({{"rows_deleted", DataType::kBigint}}));
      return finish();
    }
    DeleteCollector collector(**table, *state, plan->output, &context);
    RETURN_IF_ERROR(context.CheckAlive());
    RETURN_IF_ERROR(plan->run(&collector));
    ASSIGN_OR_RETURN(int64_t deleted, storage_.Delete(**table, collector.TakePoints()));
    stats.rows_returned = 0;
    RETURN_IF_ERROR(Emit(sink, pager, {{"rows_deleted", DataType::kBigint}},
                         {{Datum::Bigint(deleted)}}));
    return finish();
  }
  const bool explain = stmt.kind == Statement::Kind::kExplain;
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
  if (explain) {
    std::vector<Row> rows;
    for (const std::string& line : plan->explain) rows.push_back({Datum::Varchar(line)});
    stats = QueryStats{};  // planning's pruning figures describe the plan, not a run
    RETURN_IF_ERROR(Emit(sink, pager, {{"plan", DataType::kVarchar}}, std::move(rows)));
    return finish();
  }
  std::vector<ResultColumn> columns;
  for (const ColumnInfo& c : plan->output) columns.push_back({c.name, c.type});
  RETURN_IF_ERROR(sink->Columns(columns));
  if (options.describe_only) return finish();

  RETURN_IF_ERROR(context.CheckAlive());
  if (plan->run_batches && sink->TakesBatches()) {
    BatchPager batches(sink, &stats);
    RETURN_IF_ERROR(plan->run_batches(&batches));
    return finish();
  }
  RETURN_IF_ERROR(plan->run(&pager));
  return finish();
}

}  // namespace strata::query
