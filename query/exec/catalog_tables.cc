#include "query/exec/catalog_tables.h"

#include "common/status.h"
#include "common/strings.h"
#include "query/exec/information_schema.h"

namespace strata::query {
namespace {

std::string PartitionKeyText(const PartitionKey& key) {
  if (key.type == PartitionKeyType::kMeasure) return "measure_name";
  return StrCat("dimension ", key.name,
                key.enforcement == Enforcement::kRequired ? " (required)" : " (optional)");
}

}  // namespace

std::vector<ResultColumn> TableSettingColumns() {
  return {{"database", DataType::kVarchar},
          {"table", DataType::kVarchar},
          {"memory_store_retention_hours", DataType::kBigint},
          {"magnetic_store_retention_days", DataType::kBigint},
          {"magnetic_store_writes", DataType::kBoolean},
          {"partition_key", DataType::kVarchar},
          {"created", DataType::kTimestamp}};
}

std::vector<Datum> TableSettingValues(const TableInfo& t) {
  return {Datum::Varchar(t.database_name),
          Datum::Varchar(t.name),
          Datum::Bigint(t.retention.memory_store_retention_hours),
          Datum::Bigint(t.retention.magnetic_store_retention_days),
          Datum::Bool(t.enable_magnetic_store_writes),
          Datum::Varchar(PartitionKeyText(t.partition_key)),
          Datum::Timestamp(t.creation_time_nanos)};
}

absl::StatusOr<SystemTable> ReadSystemTablesTable(Engine& storage, const ReadAccess* access) {
  SystemTable out{.columns = TableSettingColumns()};
  for (ResultColumn column :
       std::vector<ResultColumn>{{"memory_store_bytes", DataType::kBigint},
                                 {"memory_store_rows", DataType::kBigint},
                                 {"magnetic_store_bytes", DataType::kBigint},
                                 {"magnetic_store_blocks", DataType::kBigint},
                                 {"late_write_bytes", DataType::kBigint},
                                 {"late_write_rows", DataType::kBigint},
                                 {"last_maintenance", DataType::kTimestamp}}) {
    out.columns.push_back(std::move(column));
  }
  ASSIGN_OR_RETURN(std::vector<TableInfo> tables, VisibleTables(storage.catalog(), access));
  for (const TableInfo& t : tables) {
    // A table dropped since the listing has no storage to tell.
    absl::StatusOr<TableStorageStats> stats = storage.StorageStats(t);
    const TableStorageStats s = stats.ok() ? *stats : TableStorageStats{};
    std::vector<Datum> row = TableSettingValues(t);
    for (Datum value :
         {Datum::Bigint(s.memory_store.bytes), Datum::Bigint(s.memory_store.entries),
          Datum::Bigint(s.magnetic_blocks.bytes), Datum::Bigint(s.magnetic_blocks.entries),
          Datum::Bigint(s.magnetic_delta.bytes), Datum::Bigint(s.magnetic_delta.entries),
          s.last_run_nanos > 0 ? Datum::Timestamp(s.last_run_nanos)
                               : Datum::Null(DataType::kTimestamp)}) {
      row.push_back(std::move(value));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace strata::query
