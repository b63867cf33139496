#include "query/exec/pg_catalog.h"

#include <algorithm>
#include <map>

#include "common/status.h"
#include "common/strings.h"
#include "query/base/postgres_types.h"

namespace strata::query {
namespace {

constexpr int64_t kPgCatalogOid = 11;
constexpr int64_t kInformationSchemaOid = 13'000;
constexpr int64_t kDatabaseOid = 5;   // PostgreSQL's "postgres"
constexpr int64_t kOwnerOid = 10;     // the bootstrap superuser's
constexpr int32_t kEncodingUtf8 = 6;  // pg_encoding_to_char(6) is UTF8

Datum PgText(std::string_view s) { return Datum::Varchar(std::string(s)); }
Datum PgOid(int64_t oid) { return Datum::Bigint(oid); }
Datum PgInt(int64_t v) { return Datum::Bigint(v); }
Datum PgBool(bool v) { return Datum::Bool(v); }
Datum PgNullText() { return Datum::Null(DataType::kVarchar); }

ResultColumn PgTextColumn(std::string name) { return {std::move(name), DataType::kVarchar}; }
ResultColumn PgIntColumn(std::string name) { return {std::move(name), DataType::kBigint}; }
ResultColumn PgBoolColumn(std::string name) { return {std::move(name), DataType::kBoolean}; }

absl::StatusOr<SystemTable> Namespaces(const Catalog& catalog, const ReadAccess* access) {
  SystemTable out{.columns = {PgIntColumn("oid"), PgTextColumn("nspname"), PgIntColumn("nspowner"),
                              PgTextColumn("nspacl")}};
  out.rows.push_back({PgOid(kPgCatalogOid), PgText(kPgCatalog), PgOid(kOwnerOid), PgNullText()});
  out.rows.push_back(
      {PgOid(kInformationSchemaOid), PgText(kInformationSchema), PgOid(kOwnerOid), PgNullText()});
  std::string token;
  do {
    ASSIGN_OR_RETURN(auto page, catalog.ListDatabases(kMaxPageSize, token));
    for (const DatabaseInfo& db : page.items) {
      if (access != nullptr && !access->MaySee(db.name)) continue;
      out.rows.push_back(
          {PgOid(PgSchemaOid(db.id)), PgText(db.name), PgOid(kOwnerOid), PgNullText()});
    }
    token = page.next_token;
  } while (!token.empty());
  return out;
}

// The schema OID of each database the tables are in.
absl::StatusOr<std::map<std::string, int64_t, std::less<>>> SchemaOids(const Catalog& catalog) {
  std::map<std::string, int64_t, std::less<>> out;
  std::string token;
  do {
    ASSIGN_OR_RETURN(auto page, catalog.ListDatabases(kMaxPageSize, token));
    for (const DatabaseInfo& db : page.items) out[db.name] = PgSchemaOid(db.id);
    token = page.next_token;
  } while (!token.empty());
  return out;
}

absl::StatusOr<SystemTable> Classes(const Catalog& catalog, const ReadAccess* access) {
  SystemTable out{.columns = {PgIntColumn("oid"),
                              PgTextColumn("relname"),
                              PgIntColumn("relnamespace"),
                              PgIntColumn("reltype"),
                              PgIntColumn("relowner"),
                              PgIntColumn("relam"),
                              {"reltuples", DataType::kDouble},
                              PgBoolColumn("relhasindex"),
                              PgBoolColumn("relisshared"),
                              PgTextColumn("relpersistence"),
                              PgTextColumn("relkind"),
                              PgIntColumn("relchecks"),
                              PgBoolColumn("relhasrules"),
                              PgBoolColumn("relhastriggers"),
                              PgBoolColumn("relhassubclass"),
                              PgBoolColumn("relrowsecurity"),
                              PgBoolColumn("relispartition"),
                              PgTextColumn("reloptions"),
                              PgTextColumn("relacl")}};
  ASSIGN_OR_RETURN(const auto schemas, SchemaOids(catalog));
  ASSIGN_OR_RETURN(std::vector<TableInfo> tables, VisibleTables(catalog, access));
  for (const TableInfo& t : tables) {
    const auto schema = schemas.find(t.database_name);
    out.rows.push_back(
        {PgOid(PgTableOid(t.id)), PgText(t.name),
         schema == schemas.end() ? Datum::Null(DataType::kBigint) : PgOid(schema->second), PgOid(0),
         PgOid(kOwnerOid), PgOid(0),
         Datum::Double(-1),  // never analyzed, as PostgreSQL says of a new table
         PgBool(false), PgBool(false), PgText("p"), PgText("r"), PgInt(0), PgBool(false),
         PgBool(false), PgBool(false), PgBool(false), PgBool(false), PgNullText(), PgNullText()});
  }
  return out;
}

absl::StatusOr<SystemTable> Attributes(Engine& storage, TableLayoutCache& layouts,
                                       const ReadAccess* access, const ClusterColumns& cluster) {
  SystemTable out{
      .columns = {PgIntColumn("attrelid"), PgTextColumn("attname"), PgIntColumn("atttypid"),
                  PgIntColumn("attlen"), PgIntColumn("attnum"), PgIntColumn("attndims"),
                  PgIntColumn("atttypmod"), PgBoolColumn("attnotnull"), PgBoolColumn("atthasdef"),
                  PgBoolColumn("atthasmissing"), PgTextColumn("attidentity"),
                  PgTextColumn("attgenerated"), PgBoolColumn("attisdropped"),
                  PgBoolColumn("attislocal"), PgIntColumn("attinhcount"),
                  PgIntColumn("attcollation"), PgTextColumn("attacl"), PgTextColumn("attoptions")}};
  RETURN_IF_ERROR(ForEachTableColumns(
      storage, layouts, access, cluster, [&](const TableInfo& t, const Schema& schema) {
        int64_t number = 0;
        for (const ColumnInfo& c : schema) {
          const int32_t type = OidOf(c.type);
          out.rows.push_back(
              {PgOid(PgTableOid(t.id)), PgText(c.name), PgOid(type), PgInt(TypeSize(type)),
               PgInt(++number), PgInt(ArrayOidOf(c.type) != 0 ? 1 : 0), PgInt(-1),
               PgBool(IsAlwaysSet(c.name)), PgBool(false), PgBool(false), PgText(""), PgText(""),
               PgBool(false), PgBool(true), PgInt(0), PgOid(0), PgNullText(), PgNullText()});
        }
      }));
  return out;
}

SystemTable Types() {
  SystemTable out{
      .columns = {
          PgIntColumn("oid"),           PgTextColumn("typname"),     PgIntColumn("typnamespace"),
          PgIntColumn("typowner"),      PgIntColumn("typlen"),       PgBoolColumn("typbyval"),
          PgTextColumn("typtype"),      PgTextColumn("typcategory"), PgBoolColumn("typispreferred"),
          PgBoolColumn("typisdefined"), PgTextColumn("typdelim"),    PgIntColumn("typrelid"),
          PgIntColumn("typelem"),       PgIntColumn("typarray"),     PgBoolColumn("typnotnull"),
          PgIntColumn("typbasetype"),   PgIntColumn("typtypmod"),    PgIntColumn("typndims"),
          PgIntColumn("typcollation"),  PgTextColumn("typdefault")}};
  for (const PostgresType& type : PostgresTypes()) {
    const int16_t size = TypeSize(type.oid);
    out.rows.push_back({PgOid(type.oid),
                        PgText(type.name),
                        PgOid(kPgCatalogOid),
                        PgOid(kOwnerOid),
                        PgInt(size),
                        PgBool(size > 0 && size <= 8),
                        PgText(type.oid == kOidUnknown ? "p" : "b"),
                        PgText(std::string(1, type.category)),
                        PgBool(false),
                        PgBool(true),
                        PgText(","),
                        PgOid(0),
                        PgOid(type.element),
                        PgOid(type.array),
                        PgBool(false),
                        PgOid(0),
                        PgInt(-1),
                        PgInt(0),
                        PgOid(type.category == 'S' ? 100 : 0),
                        PgNullText()});
  }
  return out;
}

SystemTable Databases() {
  SystemTable out{.columns = {PgIntColumn("oid"), PgTextColumn("datname"), PgIntColumn("datdba"),
                              PgIntColumn("encoding"), PgTextColumn("datcollate"),
                              PgTextColumn("datctype"), PgBoolColumn("datistemplate"),
                              PgBoolColumn("datallowconn"), PgIntColumn("datconnlimit"),
                              PgTextColumn("datacl")}};
  out.rows.push_back({PgOid(kDatabaseOid), PgText("strata"), PgOid(kOwnerOid), PgInt(kEncodingUtf8),
                      PgText("C.UTF-8"), PgText("C.UTF-8"), PgBool(false), PgBool(true), PgInt(-1),
                      PgNullText()});
  return out;
}

// The catalogs of what Strata does not keep: their columns, no rows.
struct EmptyCatalog {
  std::string_view name;
  std::vector<ResultColumn> columns;
};
const std::vector<EmptyCatalog>& EmptyCatalogs() {
  static const std::vector<EmptyCatalog> catalogs = {
      {"pg_attrdef",
       {PgIntColumn("oid"), PgIntColumn("adrelid"), PgIntColumn("adnum"), PgTextColumn("adbin")}},
      {"pg_description",
       {PgIntColumn("objoid"), PgIntColumn("classoid"), PgIntColumn("objsubid"),
        PgTextColumn("description")}},
      {"pg_enum",
       {PgIntColumn("oid"),
        PgIntColumn("enumtypid"),
        {"enumsortorder", DataType::kDouble},
        PgTextColumn("enumlabel")}},
      {"pg_index",
       {PgIntColumn("indexrelid"), PgIntColumn("indrelid"), PgIntColumn("indnatts"),
        PgBoolColumn("indisunique"), PgBoolColumn("indisprimary"), PgTextColumn("indkey")}},
      {"pg_constraint",
       {PgIntColumn("oid"), PgTextColumn("conname"), PgIntColumn("connamespace"),
        PgTextColumn("contype"), PgIntColumn("conrelid"), PgIntColumn("confrelid"),
        PgTextColumn("conkey"), PgTextColumn("confkey")}},
      {"pg_sequence",
       {PgIntColumn("seqrelid"), PgIntColumn("seqtypid"), PgIntColumn("seqstart"),
        PgIntColumn("seqincrement"), PgIntColumn("seqmax"), PgIntColumn("seqmin"),
        PgIntColumn("seqcache"), PgBoolColumn("seqcycle")}},
      {"pg_inherits", {PgIntColumn("inhrelid"), PgIntColumn("inhparent"), PgIntColumn("inhseqno")}},
  };
  return catalogs;
}

}  // namespace

std::vector<std::string> PgCatalogTables() {
  std::vector<std::string> names = {"pg_attribute", "pg_class", "pg_database", "pg_namespace",
                                    "pg_type"};
  for (const EmptyCatalog& empty : EmptyCatalogs()) names.emplace_back(empty.name);
  std::sort(names.begin(), names.end());
  return names;
}

bool IsPgCatalogTable(std::string_view name) {
  const std::vector<std::string> names = PgCatalogTables();
  return std::find(names.begin(), names.end(), name) != names.end();
}

absl::StatusOr<SystemTable> ReadPgCatalog(std::string_view table, Engine& storage,
                                          TableLayoutCache& layouts, const ReadAccess* access,
                                          const ClusterColumns& cluster) {
  if (table == "pg_namespace") return Namespaces(storage.catalog(), access);
  if (table == "pg_class") return Classes(storage.catalog(), access);
  if (table == "pg_attribute") return Attributes(storage, layouts, access, cluster);
  if (table == "pg_type") return Types();
  if (table == "pg_database") return Databases();
  for (const EmptyCatalog& empty : EmptyCatalogs()) {
    if (empty.name == table) return SystemTable{.columns = empty.columns};
  }
  return absl::NotFoundError(StrCat("pg_catalog has no table \"", table, "\""));
}

}  // namespace strata::query
