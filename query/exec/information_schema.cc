#include "query/exec/information_schema.h"

#include "common/status.h"
#include "common/strings.h"
#include "query/exec/shard_fragments.h"
#include "query/expr/sql_text.h"

namespace strata::query {
namespace {

constexpr std::string_view kCatalogName = "strata";

Datum Text(std::string_view s) { return Datum::Varchar(std::string(s)); }

ResultColumn TextColumn(std::string name) { return {std::move(name), DataType::kVarchar}; }

// The columns PostgreSQL's information_schema.columns gives that clients
// read (DBeaver, ORMs): the type's internal name and its sizes.
struct PostgresColumnFacts {
  std::string_view udt_name;
  int64_t numeric_precision = -1;  // -1: NULL
  int64_t numeric_scale = -1;
  int64_t datetime_precision = -1;
};

PostgresColumnFacts FactsOf(DataType type) {
  switch (type) {
    case DataType::kBigint: return {"int8", 64, 0};
    case DataType::kDouble: return {"float8", 53};
    case DataType::kBoolean: return {"bool"};
    case DataType::kJson:
      return {"json"};
    case DataType::kTimestamp: return {"timestamptz", -1, -1, 6};
    case DataType::kTime: return {"time", -1, -1, 6};
    case DataType::kDate: return {"date", -1, -1, 0};
    case DataType::kInterval:
    case DataType::kIntervalYearToMonth: return {"interval", -1, -1, 6};
    default: return {"text"};
  }
}

Datum Number(int64_t v) { return v < 0 ? Datum::Null(DataType::kBigint) : Datum::Bigint(v); }

}  // namespace

absl::StatusOr<std::vector<TableInfo>> VisibleTables(const Catalog& catalog,
                                                     const ReadAccess* access) {
  std::vector<TableInfo> out;
  std::string token;
  do {
    ASSIGN_OR_RETURN(auto page, catalog.ListTables("", kMaxPageSize, token));
    for (TableInfo& t : page.items) {
      if (access == nullptr || access->MaySee(t.database_name, t.name)) out.push_back(std::move(t));
    }
    token = page.next_token;
  } while (!token.empty());
  return out;
}

absl::StatusOr<Schema> ColumnsOfTable(const TableInfo& t, Engine& storage,
                                      TableLayoutCache& layouts, const ClusterColumns& cluster) {
  absl::StatusOr<std::vector<FragmentSite>> sites =
      cluster.reads != nullptr ? cluster.reads->Sites() : std::vector<FragmentSite>();
  RETURN_IF_ERROR(sites.status());
  if (sites->empty()) {
    ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, storage.TableStateOf(t));
    return layouts.Get(t, state)->schema;
  }
  const std::string select_all =
      StrCat("SELECT * FROM ", QuoteIdentifier(t.database_name), ".", QuoteIdentifier(t.name));
  std::vector<std::vector<ResultColumn>> described;
  for (const FragmentSite& site : *sites) {
    ASSIGN_OR_RETURN(described.emplace_back(),
                     cluster.reads->Describe(site, select_all, cluster.deadline));
  }
  return MergeFragmentColumns(described, t.name);
}

absl::Status ForEachTableColumns(Engine& storage, TableLayoutCache& layouts,
                                 const ReadAccess* access, const ClusterColumns& cluster,
                                 const std::function<void(const TableInfo&, const Schema&)>& each) {
  ASSIGN_OR_RETURN(std::vector<TableInfo> tables, VisibleTables(storage.catalog(), access));
  for (const TableInfo& t : tables) {
    absl::StatusOr<Schema> schema = ColumnsOfTable(t, storage, layouts, cluster);
    if (!schema.ok()) {
      // Dropped since it was listed; another node's failure to answer fails the query.
      if (cluster.reads == nullptr || absl::IsNotFound(schema.status())) continue;
      return schema.status();
    }
    each(t, *schema);
  }
  return absl::OkStatus();
}

namespace {

absl::StatusOr<SystemTable> Schemata(const Catalog& catalog, const ReadAccess* access) {
  SystemTable out{.columns = {TextColumn("catalog_name"), TextColumn("schema_name"),
                              TextColumn("schema_owner")}};
  std::string token;
  do {
    ASSIGN_OR_RETURN(auto page, catalog.ListDatabases(kMaxPageSize, token));
    for (const DatabaseInfo& db : page.items) {
      if (access != nullptr && !access->MaySee(db.name)) continue;
      out.rows.push_back({Text(kCatalogName), Text(db.name), Text("strata")});
    }
    token = page.next_token;
  } while (!token.empty());
  return out;
}

absl::StatusOr<SystemTable> Tables(const Catalog& catalog, const ReadAccess* access) {
  SystemTable out{.columns = {TextColumn("table_catalog"), TextColumn("table_schema"),
                              TextColumn("table_name"), TextColumn("table_type"),
                              TextColumn("is_insertable_into")}};
  ASSIGN_OR_RETURN(std::vector<TableInfo> tables, VisibleTables(catalog, access));
  for (const TableInfo& t : tables) {
    // Not insertable through SQL: writes come through WriteRecords and the ingest protocols.
    out.rows.push_back({Text(kCatalogName), Text(t.database_name), Text(t.name), Text("BASE TABLE"),
                        Text("NO")});
  }
  return out;
}

absl::StatusOr<SystemTable> Columns(Engine& storage, TableLayoutCache& layouts,
                                    const ReadAccess* access, const ClusterColumns& cluster) {
  SystemTable out{.columns = {TextColumn("table_catalog"), TextColumn("table_schema"),
                              TextColumn("table_name"), TextColumn("column_name"),
                              {"ordinal_position", DataType::kBigint},
                              TextColumn("column_default"), TextColumn("is_nullable"),
                              TextColumn("data_type"),
                              {"character_maximum_length", DataType::kBigint},
                              {"numeric_precision", DataType::kBigint},
                              {"numeric_scale", DataType::kBigint},
                              {"datetime_precision", DataType::kBigint},
                              TextColumn("udt_name"), TextColumn("is_updatable")}};
  RETURN_IF_ERROR(ForEachTableColumns(
      storage, layouts, access, cluster, [&](const TableInfo& t, const Schema& schema) {
        int64_t position = 0;
        for (const ColumnInfo& c : schema) {
          const PostgresColumnFacts facts = FactsOf(c.type);
          out.rows.push_back({Text(kCatalogName), Text(t.database_name), Text(t.name), Text(c.name),
                              Datum::Bigint(++position), Datum::Null(DataType::kVarchar),
                              Text("YES"), Text(PostgresTypeName(c.type)),
                              Datum::Null(DataType::kBigint), Number(facts.numeric_precision),
                              Number(facts.numeric_scale), Number(facts.datetime_precision),
                              Text(facts.udt_name), Text("NO")});
        }
      }));
  return out;
}

}  // namespace

std::vector<std::string> InformationSchemaTables() { return {"columns", "schemata", "tables"}; }

absl::StatusOr<SystemTable> ReadInformationSchema(std::string_view table, Engine& storage,
                                                  TableLayoutCache& layouts,
                                                  const ReadAccess* access,
                                                  const ClusterColumns& cluster) {
  if (table == "schemata") return Schemata(storage.catalog(), access);
  if (table == "tables") return Tables(storage.catalog(), access);
  if (table == "columns") return Columns(storage, layouts, access, cluster);
  return absl::NotFoundError(StrCat("information_schema has no table \"", table, "\""));
}

}  // namespace strata::query
