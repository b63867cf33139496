// INSERT INTO t [(columns)] VALUES ... | SELECT ...: each row of the query one MULTI record of
// the table, written as WriteRecords writes (through the InsertSink of a server: the caller's
// write grant, the write path's rules, a cluster's shard logs). docs/sql.md, "INSERT", says
// which column becomes what.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "query/base/error.h"
#include "query/insert_sink.h"
#include "query/plan/planner.h"
#include "query/statements.h"
#include "storage/read/table_state.h"

namespace strata::query {
namespace {

// What one column of the query's rows becomes.
struct ColumnRole {
  enum class Kind { kTime, kMeasureName, kVersion, kDimension, kMeasure, kSkipped };
  Kind kind = Kind::kSkipped;
  std::string name;
  MeasureKind measure = MeasureKind::kDouble;  // kMeasure's type
  DataType type = DataType::kUnknown;          // the query's
};

// Each column's role, by its name: time, measure_name and version are theirs; a name the table
// has as a dimension or a measure stays one; another VARCHAR column is a new dimension, any
// other a new measure.
absl::StatusOr<std::vector<ColumnRole>> Roles(const Statement& stmt, const StatementRun& run,
                                              const Schema& output, const TableLayout& layout) {
  if (!stmt.columns.empty() && stmt.columns.size() != output.size()) {
    return SqlError(run.sql, stmt.columns.front().second,
                    StrCat("INSERT names ", stmt.columns.size(), " columns but its query gives ",
                           output.size()));
  }
  std::vector<ColumnRole> roles(output.size());
  std::set<std::string> seen;
  bool time = false;
  bool measure = false;
  for (size_t c = 0; c < output.size(); ++c) {
    ColumnRole& role = roles[c];
    role.name = stmt.columns.empty() ? output[c].name : stmt.columns[c].first;
    role.type = output[c].type;
    const Position at = stmt.columns.empty() ? stmt.table_pos : stmt.columns[c].second;
    auto wrong = [&](std::string_view message) {
      return SqlError(run.sql, at, StrCat("column ", role.name, ": ", message));
    };
    if (!seen.insert(role.name).second) return wrong("named twice");
    const bool null_only = role.type == DataType::kUnknown;
    if (role.name == kTimeColumn) {
      if (role.type != DataType::kTimestamp && role.type != DataType::kVarchar && !null_only) {
        return wrong(StrCat("the time is a timestamp (or its text), not ", TypeName(role.type)));
      }
      role.kind = ColumnRole::Kind::kTime;
      time = true;
    } else if (role.name == kMeasureNameColumn) {
      if (role.type != DataType::kVarchar && !null_only) return wrong("measure_name is varchar");
      role.kind = ColumnRole::Kind::kMeasureName;
    } else if (role.name == "version") {
      if (role.type != DataType::kBigint && !null_only) return wrong("a version is a bigint");
      role.kind = ColumnRole::Kind::kVersion;
    } else if (layout.dimension_column.contains(role.name) ||
               (role.type == DataType::kVarchar && !layout.measure_is_multi.contains(role.name) &&
                !layout.columns->attribute_column.contains(role.name))) {
      if (role.type != DataType::kVarchar && !null_only) {
        return wrong(
            StrCat("a dimension's values are varchar, not ", TypeName(role.type), "; CAST them"));
      }
      role.kind = ColumnRole::Kind::kDimension;
    } else if (null_only) {
      role.kind = ColumnRole::Kind::kSkipped;  // NULL in every row: nothing to write
      measure = true;
    } else {
      const std::optional<ValueType> kind = ToValueType(role.type);
      if (!kind.has_value()) {
        return wrong(StrCat("a measure is a double, bigint, varchar, boolean or timestamp, not ",
                            TypeName(role.type)));
      }
      role.kind = ColumnRole::Kind::kMeasure;
      role.measure = static_cast<MeasureKind>(*kind);  // a scalar kind is its value type
      // A whole number into a DOUBLE measure the table has: written as a double.
      auto known = layout.columns->attribute_column.find(role.name);
      if (known != layout.columns->attribute_column.end() &&
          static_cast<MeasureKind>(known->second.type) == MeasureKind::kDouble &&
          *kind == ValueType::kBigint) {
        role.measure = MeasureKind::kDouble;
      }
      measure = true;
    }
  }
  if (!time) {
    return SqlError(
        run.sql, stmt.table_pos,
        StrCat("INSERT needs a time column: each row is a point in time",
               stmt.columns.empty() ? "; name the columns: INSERT INTO db.tbl (time, host, usage) "
                                      "VALUES ..."
                                    : ""));
  }
  if (!measure) {
    return SqlError(run.sql, stmt.table_pos,
                    "INSERT needs a measure column: a number, boolean or timestamp, or a name the "
                    "table has as a measure (a VARCHAR column is a dimension)");
  }
  return roles;
}

// Turns the query's rows into records and writes them a hundred at a time; keeps the first
// few rejections with their row's number.
class InsertWriter final : public RowSink {
 public:
  static constexpr size_t kBatch = 100;
  static constexpr size_t kReasonsKept = 5;
  // Past this, an INSERT stops: an INSERT ... SELECT reading its own table could otherwise
  // read what it writes until its timeout.
  static constexpr int64_t kMaxRows = 5'000'000;

  InsertWriter(const TableInfo& table, std::vector<ColumnRole> roles, int64_t now_nanos,
               std::function<absl::StatusOr<WriteResult>(WriteRequest)> write)
      : table_(table), roles_(std::move(roles)), now_(now_nanos), write_(std::move(write)) {
    batch_.database_name = table.database_name;
    batch_.table_name = table.name;
  }

  absl::Status Push(Row row) override {
    if (rows_ == kMaxRows) {
      return absl::ResourceExhaustedError(
          StrCat("an INSERT writes at most ", kMaxRows, " rows (", written_,
                 " were written); insert a narrower time range at a time"));
    }
    ++rows_;
    InputRecord record{.measure_name = table_.name,
                       .measure_value_type = MeasureKind::kMulti,
                       .time_unit = TimeUnit::kNanoseconds};
    std::optional<std::string> wrong;
    for (size_t c = 0; c < roles_.size() && !wrong; ++c) {
      const ColumnRole& role = roles_[c];
      const Datum& value = row[c];
      if (value.null) {
        if (role.kind == ColumnRole::Kind::kTime) wrong = "its time is NULL";
        if (role.kind == ColumnRole::Kind::kMeasureName) wrong = "its measure_name is NULL";
        continue;  // a NULL dimension or measure is absent
      }
      switch (role.kind) {
        case ColumnRole::Kind::kTime:
          if (role.type == DataType::kVarchar) {
            record.time = ParseTimestamp(value.s);
            if (!record.time) wrong = StrCat("its time '", value.s, "' is not a timestamp");
          } else {
            record.time = value.i;
          }
          break;
        case ColumnRole::Kind::kMeasureName:
          record.measure_name = value.s;
          break;
        case ColumnRole::Kind::kVersion:
          record.version = value.i;
          break;
        case ColumnRole::Kind::kDimension:
          record.dimensions.push_back({role.name, value.s});
          break;
        case ColumnRole::Kind::kMeasure:
          record.measure_values.push_back(
              {role.name, role.measure,
               ToStoredValue(value, static_cast<ValueType>(role.measure))});
          break;
        case ColumnRole::Kind::kSkipped:
          break;
      }
    }
    if (!wrong && record.measure_values.empty()) wrong = "every measure is NULL";
    if (wrong) {
      Reject(rows_, *wrong);
      return absl::OkStatus();
    }
    if (!record.version) record.version = NextArrivalVersion(now_);
    batch_.records.push_back(std::move(record));
    batch_rows_.push_back(rows_);
    return batch_.records.size() == kBatch ? Flush() : absl::OkStatus();
  }

  absl::Status Finish() override { return Flush(); }

  int64_t written() const { return written_; }
  // The rejections as an error, or OK when there were none.
  absl::Status Rejections() const {
    if (rejected_ == 0) return absl::OkStatus();
    std::vector<std::pair<int64_t, std::string>> kept = reasons_;
    std::sort(kept.begin(), kept.end());
    std::string reasons;
    for (const auto& [row, reason] : kept) reasons += StrCat("; row ", row, ": ", reason);
    return absl::InvalidArgumentError(
        StrCat("INSERT wrote ", written_, " of ", rows_, " rows; ", rejected_,
               rejected_ == 1 ? " was" : " were", " rejected", reasons,
               rejected_ > static_cast<int64_t>(reasons_.size()) ? "; ..." : ""));
  }

 private:
  absl::Status Flush() {
    if (batch_.records.empty()) return absl::OkStatus();
    WriteRequest request;
    request.database_name = batch_.database_name;
    request.table_name = batch_.table_name;
    request.records = std::move(batch_.records);
    batch_.records.clear();
    ASSIGN_OR_RETURN(WriteResult result, write_(std::move(request)));
    written_ += result.total();
    for (const RejectedRecord& r : result.rejected) {
      Reject(batch_rows_.at(r.record_index),
             r.existing_version ? StrCat(r.reason, " (stored version ", *r.existing_version, ")")
                                : r.reason);
    }
    batch_rows_.clear();
    return absl::OkStatus();
  }

  void Reject(int64_t row, std::string_view reason) {
    ++rejected_;
    if (reasons_.size() < kReasonsKept) reasons_.emplace_back(row, std::string(reason));
  }

  const TableInfo& table_;
  const std::vector<ColumnRole> roles_;
  const int64_t now_;
  const std::function<absl::StatusOr<WriteResult>(WriteRequest)> write_;
  WriteRequest batch_;
  std::vector<int64_t> batch_rows_;  // each batched record's row number
  int64_t rows_ = 0;
  int64_t written_ = 0;
  int64_t rejected_ = 0;
  std::vector<std::pair<int64_t, std::string>> reasons_;  // by row number
};

}  // namespace

absl::Status InsertRows(Statement stmt, const StatementRun& run) {
  if (run.options.access != nullptr) {
    if (absl::Status allowed = run.options.access->CheckWrite(stmt.database, stmt.table);
        !allowed.ok()) {
      return SqlError(run.sql, stmt.table_pos, allowed);
    }
  }
  auto table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  if (absl::IsNotFound(table.status()) && run.options.catch_up_catalog &&
      run.options.catch_up_catalog()) {
    table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  }
  if (!table.ok()) return SqlError(run.sql, stmt.table_pos, table.status());
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, run.storage.TableStateOf(**table));
  const std::shared_ptr<const TableLayout> layout = run.layouts.Get(**table, state);
  Planner planner(run.storage, run.layouts, run.sql, &run.context, &run.stats);
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
  ASSIGN_OR_RETURN(std::vector<ColumnRole> roles, Roles(stmt, run, plan->output, *layout));
  const std::vector<ResultColumn> answer = {{"rows_inserted", DataType::kBigint}};
  if (run.options.describe_only) return run.sink.Columns(answer);
  InsertSink* sink = run.options.inserts;
  InsertWriter writer(**table, std::move(roles), run.context.eval.now_nanos,
                      [&](WriteRequest request) -> absl::StatusOr<WriteResult> {
                        RETURN_IF_ERROR(run.context.CheckAlive());
                        return sink != nullptr ? sink->Write(std::move(request))
                                               : run.storage.Write(std::move(request));
                      });
  RETURN_IF_ERROR(run.context.CheckAlive());
  RETURN_IF_ERROR(plan->Run(&run.context, &writer));
  RETURN_IF_ERROR(writer.Finish());  // the last batch, if the run did not write it
  RETURN_IF_ERROR(writer.Rejections());
  run.stats.rows_returned = 0;
  return run.Emit(answer, {{Datum::Bigint(writer.written())}});
}

}  // namespace strata::query
