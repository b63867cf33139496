// CREATE, ALTER and DROP of databases and tables: the CatalogService's calls, written in SQL
// for the clients that only speak it (psql, the web console, the HTTP SQL API). They go
// through the same CatalogChanges as those calls (a cluster's through etcd), with the same
// grants. CREATE and ALTER answer the database's or table's settings as they now are; DROP
// answers nothing.
#include <set>
#include <string>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/exec/catalog_tables.h"
#include "query/statements.h"
#include "storage/catalog/catalog_changes.h"

namespace strata::query {
namespace {

using Kind = Statement::Kind;

CatalogChanges& Changes(const StatementRun& run) {
  return run.options.ddl != nullptr ? *run.options.ddl : run.storage.catalog();
}

// Looks `find` up in this node's catalog, again after catching up with the cluster's when
// the first look found nothing (a table created through another node a moment ago).
template <typename Find>
auto FindCaughtUp(const StatementRun& run, Find find) -> decltype(find()) {
  auto found = find();
  if (absl::IsNotFound(found.status()) && Changes(run).CatchUpForRead()) found = find();
  return found;
}

// A property's value as the setting it names takes it, or an error at the value.
class Properties {
 public:
  Properties(const Statement& stmt, const StatementRun& run) : stmt_(stmt), run_(run) {}

  // Every property is one of `known`, named once.
  absl::Status CheckNames(const std::vector<std::string_view>& known) const {
    std::set<std::string_view> seen;
    for (const CatalogProperty& property : stmt_.properties) {
      if (!seen.insert(property.name).second) {
        return Error(property.pos, StrCat(property.name, " is set twice"));
      }
      if (std::find(known.begin(), known.end(), property.name) != known.end()) continue;
      std::string list;
      for (std::string_view name : known) list += StrCat(list.empty() ? "" : ", ", name);
      return Error(property.pos,
                   StrCat("unknown property ", property.name, "; ",
                          TableStatement() ? "a table's" : "a database's", " are ", list));
    }
    return absl::OkStatus();
  }

  const CatalogProperty* Find(std::string_view name) const {
    for (const CatalogProperty& property : stmt_.properties) {
      if (property.name == name) return &property;
    }
    return nullptr;
  }

  // A whole number of `unit` ("hours"); the catalog checks its range.
  absl::StatusOr<std::optional<int64_t>> Count(std::string_view name, std::string_view unit) const {
    const CatalogProperty* property = Find(name);
    if (property == nullptr) return std::nullopt;
    if (property->value.type != DataType::kBigint) {
      return Error(property->value_pos, StrCat(name, " is a whole number of ", unit));
    }
    return property->value.i;
  }

  absl::StatusOr<std::optional<bool>> Flag(std::string_view name) const {
    const CatalogProperty* property = Find(name);
    if (property == nullptr) return std::nullopt;
    if (property->value.type != DataType::kBoolean) {
      return Error(property->value_pos, StrCat(name, " is TRUE or FALSE"));
    }
    return property->value.i != 0;
  }

  absl::StatusOr<std::optional<std::string>> Text(std::string_view name,
                                                  std::string_view what) const {
    const CatalogProperty* property = Find(name);
    if (property == nullptr) return std::nullopt;
    if (property->value.type != DataType::kVarchar) {
      return Error(property->value_pos, StrCat(name, " is ", what, " as a 'string'"));
    }
    return property->value.s;
  }

  absl::StatusOr<std::optional<Enforcement>> PartitionKeyEnforcement() const {
    ASSIGN_OR_RETURN(std::optional<std::string> text,
                     Text("partition_key_enforcement", "'required' or 'optional'"));
    if (!text.has_value()) return std::nullopt;
    if (EqualsIgnoreCase(*text, "required")) return Enforcement::kRequired;
    if (EqualsIgnoreCase(*text, "optional")) return Enforcement::kOptional;
    return Error(Find("partition_key_enforcement")->value_pos,
                 "partition_key_enforcement is 'required' or 'optional'");
  }

  absl::Status Error(Position at, std::string_view message) const {
    return SqlError(run_.sql, at, message);
  }

 private:
  bool TableStatement() const {
    return stmt_.kind == Kind::kCreateTable || stmt_.kind == Kind::kAlterTable;
  }

  const Statement& stmt_;
  const StatementRun& run_;
};

// The settings CREATE TABLE and ALTER TABLE take, named as "system"."tables" shows them.
const std::vector<std::string_view> kTableProperties = {
    "memory_store_retention_hours", "magnetic_store_retention_days", "magnetic_store_writes",
    "partition_key", "partition_key_enforcement"};

absl::Status EmitTable(const StatementRun& run, const TableInfo& table) {
  return run.Emit(TableSettingColumns(), {TableSettingValues(table)});
}

std::vector<ResultColumn> DatabaseColumns() {
  return {{"database", DataType::kVarchar}, {"description", DataType::kVarchar}};
}

absl::Status EmitDatabase(const StatementRun& run, const DatabaseInfo& db) {
  return run.Emit(DatabaseColumns(), {{Datum::Varchar(db.name), Datum::Varchar(db.description)}});
}

absl::Status CreateTable(const Statement& stmt, const StatementRun& run) {
  const Properties properties(stmt, run);
  RETURN_IF_ERROR(properties.CheckNames(kTableProperties));
  TableSpec spec{.database_name = stmt.database, .table_name = stmt.table};
  ASSIGN_OR_RETURN(std::optional<int64_t> hours,
                   properties.Count("memory_store_retention_hours", "hours"));
  ASSIGN_OR_RETURN(std::optional<int64_t> days,
                   properties.Count("magnetic_store_retention_days", "days"));
  ASSIGN_OR_RETURN(std::optional<bool> writes, properties.Flag("magnetic_store_writes"));
  ASSIGN_OR_RETURN(std::optional<std::string> key,
                   properties.Text("partition_key", "measure_name or a dimension's name"));
  ASSIGN_OR_RETURN(std::optional<Enforcement> enforcement, properties.PartitionKeyEnforcement());
  if (hours) spec.retention.memory_store_retention_hours = *hours;
  if (days) spec.retention.magnetic_store_retention_days = *days;
  spec.enable_magnetic_store_writes = writes.value_or(false);
  if (key.has_value() && key->empty()) {
    return properties.Error(properties.Find("partition_key")->value_pos,
                            "partition_key is 'measure_name' or the name of the dimension to "
                            "partition by, not empty");
  }
  if (key.has_value() && *key != "measure_name") {
    spec.partition_key = {.type = PartitionKeyType::kDimension, .name = *key};
  }
  if (enforcement.has_value()) {
    if (spec.partition_key.type == PartitionKeyType::kMeasure) {
      return properties.Error(properties.Find("partition_key_enforcement")->pos,
                              "partition_key_enforcement is for a dimension's partition key: "
                              "set partition_key to the dimension's name");
    }
    spec.partition_key.enforcement = *enforcement;
  }
  if (run.options.describe_only) return run.Emit(TableSettingColumns(), {});
  absl::StatusOr<TableInfo> created = Changes(run).CreateTable(spec);
  if (absl::IsAlreadyExists(created.status()) && stmt.if_exists) {
    // Left as it is, as `strata table create --if-not-exists` leaves it.
    created = FindCaughtUp(
        run, [&] { return run.storage.catalog().DescribeTable(stmt.database, stmt.table); });
  }
  if (!created.ok()) return SqlError(run.sql, stmt.table_pos, created.status());
  return EmitTable(run, *created);
}

absl::Status AlterTable(const Statement& stmt, const StatementRun& run) {
  const Properties properties(stmt, run);
  RETURN_IF_ERROR(properties.CheckNames(kTableProperties));
  if (const CatalogProperty* key = properties.Find("partition_key")) {
    return SqlError(absl::StatusCode::kFailedPrecondition, run.sql, key->pos,
                    "a table's partition key is fixed once it is created (its rows are "
                    "placed by it); partition_key_enforcement may change");
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> hours,
                   properties.Count("memory_store_retention_hours", "hours"));
  ASSIGN_OR_RETURN(std::optional<int64_t> days,
                   properties.Count("magnetic_store_retention_days", "days"));
  ASSIGN_OR_RETURN(std::optional<bool> writes, properties.Flag("magnetic_store_writes"));
  ASSIGN_OR_RETURN(std::optional<Enforcement> enforcement, properties.PartitionKeyEnforcement());
  // The settings not written stay as they are: start from the table's.
  absl::StatusOr<TableInfo> was = FindCaughtUp(
      run, [&] { return run.storage.catalog().DescribeTable(stmt.database, stmt.table); });
  if (!was.ok()) return SqlError(run.sql, stmt.table_pos, was.status());
  TableUpdate update;
  if (hours || days) {
    update.retention = was->retention;
    if (hours) update.retention->memory_store_retention_hours = *hours;
    if (days) update.retention->magnetic_store_retention_days = *days;
  }
  update.enable_magnetic_store_writes = writes;
  if (enforcement.has_value()) {
    if (was->partition_key.type == PartitionKeyType::kMeasure) {
      return properties.Error(properties.Find("partition_key_enforcement")->pos,
                              "partition_key_enforcement is for a table partitioned by a "
                              "dimension; this one is partitioned by measure_name");
    }
    update.partition_key = was->partition_key;
    update.partition_key->enforcement = *enforcement;
  }
  if (run.options.describe_only) return run.Emit(TableSettingColumns(), {});
  absl::StatusOr<TableInfo> changed = Changes(run).UpdateTable(stmt.database, stmt.table, update);
  if (!changed.ok()) return SqlError(run.sql, stmt.table_pos, changed.status());
  return EmitTable(run, *changed);
}

// DROP TABLE and DROP DATABASE: `drop` tried again after catching up with the cluster's catalog
// when it found nothing; nothing found is no error under IF EXISTS.
template <typename Drop>
absl::Status Dropped(const Statement& stmt, const StatementRun& run, Drop drop) {
  if (run.options.describe_only) return run.Emit({}, {});
  absl::Status dropped = drop();
  if (absl::IsNotFound(dropped) && Changes(run).CatchUpForRead()) dropped = drop();
  if (absl::IsNotFound(dropped) && stmt.if_exists) dropped = absl::OkStatus();
  if (!dropped.ok()) return SqlError(run.sql, stmt.table_pos, dropped);
  return run.Emit({}, {});
}

// A database's one property.
absl::StatusOr<std::optional<std::string>> Description(const Statement& stmt,
                                                       const StatementRun& run) {
  const Properties properties(stmt, run);
  RETURN_IF_ERROR(properties.CheckNames({"description"}));
  return properties.Text("description", "free text");
}

absl::Status CreateDatabase(const Statement& stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(std::optional<std::string> description, Description(stmt, run));
  if (run.options.describe_only) return run.Emit(DatabaseColumns(), {});
  absl::StatusOr<DatabaseInfo> created =
      Changes(run).CreateDatabase(stmt.database, description.value_or(""));
  if (absl::IsAlreadyExists(created.status()) && stmt.if_exists) {
    created =
        FindCaughtUp(run, [&] { return run.storage.catalog().DescribeDatabase(stmt.database); });
  }
  if (!created.ok()) return SqlError(run.sql, stmt.table_pos, created.status());
  return EmitDatabase(run, *created);
}

absl::Status AlterDatabase(const Statement& stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(std::optional<std::string> description, Description(stmt, run));
  if (run.options.describe_only) return run.Emit(DatabaseColumns(), {});
  absl::StatusOr<DatabaseInfo> changed =
      description.has_value() ? Changes(run).UpdateDatabase(stmt.database, *description)
                              : FindCaughtUp(run, [&] {
                                  return run.storage.catalog().DescribeDatabase(stmt.database);
                                });
  if (!changed.ok()) return SqlError(run.sql, stmt.table_pos, changed.status());
  return EmitDatabase(run, *changed);
}

}  // namespace

absl::Status ChangeCatalog(const Statement& stmt, const StatementRun& run) {
  const bool table = stmt.kind == Kind::kCreateTable || stmt.kind == Kind::kAlterTable ||
                     stmt.kind == Kind::kDropTable;
  if (run.options.access != nullptr) {
    const std::string_view what = [&] {
      switch (stmt.kind) {
        case Kind::kCreateDatabase:
          return "create databases";
        case Kind::kAlterDatabase:
          return "change databases";
        case Kind::kDropDatabase:
          return "drop databases";
        case Kind::kCreateTable:
          return "create tables";
        case Kind::kAlterTable:
          return "change tables";
        default:
          return "drop tables";
      }
    }();
    if (absl::Status allowed = run.options.access->CheckCatalogChange(stmt.database, table, what);
        !allowed.ok()) {
      return SqlError(run.sql, stmt.table_pos, allowed);
    }
  }
  switch (stmt.kind) {
    case Kind::kCreateTable:
      return CreateTable(stmt, run);
    case Kind::kAlterTable:
      return AlterTable(stmt, run);
    case Kind::kDropTable:
      return Dropped(stmt, run,
                     [&] { return Changes(run).DeleteTable(stmt.database, stmt.table); });
    case Kind::kCreateDatabase:
      return CreateDatabase(stmt, run);
    case Kind::kAlterDatabase:
      return AlterDatabase(stmt, run);
    case Kind::kDropDatabase:
      return Dropped(stmt, run, [&] { return Changes(run).DeleteDatabase(stmt.database); });
    default:
      return absl::InternalError("not a change of the catalog");
  }
}

}  // namespace strata::query
