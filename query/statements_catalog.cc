// SHOW DATABASES, SHOW TABLES, SHOW MEASURES and DESCRIBE: the catalog as
// the caller may see it.
#include <memory>
#include <set>
#include <string>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/functions/functions.h"
#include "query/statements.h"
#include "storage/read/table_state.h"

namespace strata::query {
namespace {

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

// The table SHOW MEASURES or DESCRIBE names, if the caller may read it.
absl::StatusOr<std::shared_ptr<const TableInfo>> ReadableTable(const Statement& stmt,
                                                                const StatementRun& run) {
  if (run.options.access != nullptr) {
    if (absl::Status allowed = run.options.access->CheckRead(stmt.database, stmt.table);
        !allowed.ok()) {
      return SqlError(run.sql, stmt.table_pos, allowed);
    }
  }
  auto table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  if (!table.ok()) return SqlError(run.sql, stmt.table_pos, table.status());
  return *table;
}

}  // namespace

absl::Status ShowDatabases(const Statement& stmt, const StatementRun& run) {
  std::vector<Row> rows;
  std::string token;
  do {
    ASSIGN_OR_RETURN(auto page, run.storage.catalog().ListDatabases(kMaxPageSize, token));
    for (const DatabaseInfo& db : page.items) {
      if (run.options.access != nullptr && !run.options.access->MaySee(db.name)) continue;
      if (Matches(stmt.like, db.name)) rows.push_back({Datum::Varchar(db.name)});
    }
    token = page.next_token;
  } while (!token.empty());
  return run.Emit({{"Database", DataType::kVarchar}}, std::move(rows));
}

absl::Status ShowTables(const Statement& stmt, const StatementRun& run) {
  const ReadAccess* access = run.options.access;
  const Catalog& catalog = run.storage.catalog();
  if (!stmt.database.empty()) {
    // One the caller may not see is answered as a missing one.
    if (access != nullptr && !access->MaySee(stmt.database)) {
      return SqlError(run.sql, stmt.table_pos, Catalog::NoSuchDatabase(stmt.database));
    }
    auto db = catalog.DescribeDatabase(stmt.database);
    if (!db.ok()) return SqlError(run.sql, stmt.table_pos, db.status());
  }
  std::vector<Row> rows;
  std::string token;
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
  return run.Emit(std::move(columns), std::move(rows));
}

absl::Status ShowMeasures(const Statement& stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(std::shared_ptr<const TableInfo> table, ReadableTable(stmt, run));
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, run.storage.TableStateOf(*table));
  const std::vector<std::shared_ptr<const SeriesInfo>> series = state->AllSeries();
  std::vector<Row> rows;
  for (const auto& [name, schema] : state->Measures()) {
    if (!Matches(stmt.like, name)) continue;
    std::set<std::string> dimensions;
    for (const auto& s : series) {
      if (s->measure_name != name) continue;
      for (const auto& [d, v] : s->dimensions) dimensions.insert(d);
    }
    std::string list = "[";
    for (const std::string& d : dimensions) {
      list += StrCat(list.size() > 1 ? ", " : "", "{dimension_name: ", d, ", data_type: varchar}");
    }
    list += "]";
    rows.push_back({Datum::Varchar(name), Datum::Varchar(LowerTypeName(schema.kind)),
                    Datum::Varchar(list)});
  }
  return run.Emit({{"measure_name", DataType::kVarchar},
                   {"data_type", DataType::kVarchar},
                   {"dimensions", DataType::kVarchar}},
                  std::move(rows));
}

// The columns of SELECT *, in its order (the table layout).
absl::Status DescribeTable(const Statement& stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(std::shared_ptr<const TableInfo> table, ReadableTable(stmt, run));
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, run.storage.TableStateOf(*table));
  const std::shared_ptr<const TableLayout> layout = run.layouts.Get(*table, state);
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
  return run.Emit({{"Column", DataType::kVarchar},
                   {"Type", DataType::kVarchar},
                   {"Timestream attribute type", DataType::kVarchar}},
                  std::move(rows));
}

}  // namespace strata::query
