// SHOW DATABASES, SHOW TABLES, SHOW MEASURES and DESCRIBE: the catalog as
// the caller may see it.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/base/shard_reads.h"
#include "query/expr/sql_text.h"
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

// On a cluster node that holds some shards only (query/base/shard_reads.h): the rows `sql`
// answers at every node chosen to read the shards, this one included; nullopt when this node
// holds every shard (its own engine knows the whole table then).
absl::StatusOr<std::optional<std::vector<Row>>> RowsAtEverySite(const StatementRun& run,
                                                                const std::string& sql) {
  ShardReads* reads = run.options.shard_reads;
  if (reads == nullptr || run.options.shard_scope != nullptr) return std::nullopt;
  ASSIGN_OR_RETURN(std::vector<FragmentSite> sites, reads->Sites());
  if (sites.empty()) return std::nullopt;
  std::vector<Row> rows;
  QueryStats scanned;  // a catalog statement reads no rows: nothing to count
  for (const FragmentSite& site : sites) {
    RETURN_IF_ERROR(reads->Run(
        site, sql, {}, run.context.deadline, run.context.cancelled, [] {},
        [&rows](const Batch& batch, const std::vector<ResultColumn>&) -> absl::StatusOr<bool> {
          for (size_t r = 0; r < batch.rows; ++r) {
            Row& row = rows.emplace_back();
            for (const Vector& column : batch.columns) row.push_back(column.Get(r));
          }
          return true;
        },
        /*relay=*/nullptr, &scanned));
  }
  return rows;
}

std::string QualifiedName(const TableInfo& table) {
  return StrCat(QuoteIdentifier(table.database_name), ".", QuoteIdentifier(table.name));
}

std::string DimensionListText(const std::set<std::string>& dimensions) {
  std::string list = "[";
  for (const std::string& d : dimensions) {
    list += StrCat(list.size() > 1 ? ", " : "", "{dimension_name: ", d, ", data_type: varchar}");
  }
  return list + "]";
}

// DimensionListText's names back.
void AddDimensionNames(std::string_view list, std::set<std::string>* dimensions) {
  constexpr std::string_view kBefore = "{dimension_name: ", kAfter = ", data_type: varchar}";
  for (size_t at = list.find(kBefore); at != std::string_view::npos; at = list.find(kBefore, at)) {
    at += kBefore.size();
    const size_t end = list.find(kAfter, at);
    if (end == std::string_view::npos) return;
    dimensions->emplace(list.substr(at, end - at));
    at = end;
  }
}

// SHOW MEASURES' rows of every node reading the shards, one per measure: its type where a
// node first reported it, the dimensions any node saw with it.
std::vector<Row> MergeMeasures(std::vector<Row> rows, const std::optional<std::string>& like) {
  std::map<std::string, std::pair<std::string, std::set<std::string>>> by_name;
  for (const Row& row : rows) {
    if (row.size() != 3 || !Matches(like, row[0].s)) continue;
    auto [at, added] = by_name.try_emplace(row[0].s, row[1].s, std::set<std::string>());
    AddDimensionNames(row[2].s, &at->second.second);
  }
  std::vector<Row> merged;
  for (const auto& [name, measure] : by_name) {
    merged.push_back({Datum::Varchar(name), Datum::Varchar(measure.first),
                      Datum::Varchar(DimensionListText(measure.second))});
  }
  return merged;
}

// DESCRIBE's rows of every node reading the shards, once each, in a single node's order:
// dimensions by name, measure_name, time, the measure_value:: columns, MULTI attributes.
std::vector<Row> MergeDescriptions(const std::vector<Row>& rows) {
  auto rank = [](const Row& row) {
    const std::string& kind = row[2].s;
    if (kind == "DIMENSION") return std::pair(0, 0);
    if (kind == "MEASURE_NAME") return std::pair(1, 0);
    if (kind == "TIMESTAMP") return std::pair(2, 0);
    if (kind != "MEASURE_VALUE") return std::pair(4, 0);
    for (MeasureKind k : {MeasureKind::kDouble, MeasureKind::kBigint, MeasureKind::kVarchar,
                          MeasureKind::kBoolean, MeasureKind::kTimestamp}) {
      if (LowerTypeName(k) == row[1].s) return std::pair(3, static_cast<int>(k));
    }
    return std::pair(3, 99);
  };
  std::map<std::tuple<int, int, std::string>, Row> ordered;
  for (const Row& row : rows) {
    if (row.size() != 3) continue;
    const auto [part, sub] = rank(row);
    ordered.try_emplace({part, sub, row[0].s}, row);
  }
  std::vector<Row> merged;
  for (auto& [key, row] : ordered) merged.push_back(std::move(row));
  return merged;
}

// A list shows every name created before it, through any node of a cluster: a node's copy of
// the catalog may be a moment behind.
void CatchUpForList(const StatementRun& run) {
  if (run.options.catch_up_catalog) run.options.catch_up_catalog();
}

}  // namespace

absl::Status ShowDatabases(const Statement& stmt, const StatementRun& run) {
  CatchUpForList(run);
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
  CatchUpForList(run);
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
  const std::vector<ResultColumn> columns = {{"measure_name", DataType::kVarchar},
                                             {"data_type", DataType::kVarchar},
                                             {"dimensions", DataType::kVarchar}};
  ASSIGN_OR_RETURN(std::optional<std::vector<Row>> everywhere,
                   RowsAtEverySite(run, "SHOW MEASURES FROM " + QualifiedName(*table)));
  if (everywhere) return run.Emit(columns, MergeMeasures(std::move(*everywhere), stmt.like));
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
    rows.push_back({Datum::Varchar(name), Datum::Varchar(LowerTypeName(schema.kind)),
                    Datum::Varchar(DimensionListText(dimensions))});
  }
  return run.Emit(columns, std::move(rows));
}

// The columns of SELECT *, in its order (the table layout).
absl::Status DescribeTable(const Statement& stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(std::shared_ptr<const TableInfo> table, ReadableTable(stmt, run));
  const std::vector<ResultColumn> result = {{"Column", DataType::kVarchar},
                                            {"Type", DataType::kVarchar},
                                            {"Timestream attribute type", DataType::kVarchar}};
  ASSIGN_OR_RETURN(std::optional<std::vector<Row>> everywhere,
                   RowsAtEverySite(run, "DESCRIBE " + QualifiedName(*table)));
  if (everywhere) return run.Emit(result, MergeDescriptions(*everywhere));
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
  return run.Emit(result, std::move(rows));
}

}  // namespace strata::query
