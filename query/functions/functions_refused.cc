// The functions of Timestream's reference, and PostgreSQL's that psql users
// type, that Strata does not run, each with the reason and what to write
// instead: the binder's answer to a call of one, and the "Not supported"
// table of docs/sql.md.
#include "query/functions/functions.h"

namespace strata::query {

constexpr std::string_view kTableSizes =
    "a table's storage is in \"system\".\"tables\": SELECT pg_size_pretty(memory_store_bytes + "
    "magnetic_store_bytes + late_write_bytes) FROM \"system\".\"tables\" WHERE database = 'db' "
    "AND \"table\" = 'tbl'";

const std::vector<RefusedFunction>& RefusedFunctions() {
  static const std::vector<RefusedFunction> kRefused = {
      {"timezone_hour",
       "Strata's timestamps are UTC, so the zone hour is always 0; at_timezone gives the "
       "wall-clock time in another zone"},
      {"timezone_minute",
       "Strata's timestamps are UTC, so the zone minute is always 0; at_timezone gives the "
       "wall-clock time in another zone"},
      {"to_utf8", "Strata has no varbinary type; varchar is UTF-8 already"},
      {"from_utf8", "Strata has no varbinary type; varchar is UTF-8 already"},
      {"md5", "Strata has no varbinary type"},
      {"sha1", "Strata has no varbinary type"},
      {"sha256", "Strata has no varbinary type"},
      {"sha512", "Strata has no varbinary type"},
      {"xxhash64", "Strata has no varbinary type"},
      {"crc32", "Strata has no varbinary type"},
      {"to_big_endian_64", "Strata has no varbinary type"},
      {"from_big_endian_64", "Strata has no varbinary type"},
      // PostgreSQL's sizes take a relation's oid; Strata's are a system table's columns.
      {"pg_total_relation_size", kTableSizes},
      {"pg_relation_size", kTableSizes},
      {"pg_table_size", kTableSizes},
      {"pg_indexes_size", "Strata keeps no indexes apart from its tables' storage"},
      {"pg_database_size",
       "a database's storage is the sum of its tables' in \"system\".\"tables\": SELECT "
       "pg_size_pretty(sum(memory_store_bytes + magnetic_store_bytes + late_write_bytes)) FROM "
       "\"system\".\"tables\" WHERE database = 'db'"},
  };
  return kRefused;
}

const RefusedFunction* FindRefusedFunction(std::string_view name) {
  for (const RefusedFunction& f : RefusedFunctions()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace strata::query
