// The SQL standard's information_schema, as tables a query reads like any
// other (any columns, any WHERE, joins): `schemata` (one row per database:
// PostgreSQL clients see a Strata database as a schema), `tables` and
// `columns`, of what the caller may see. psql, Grafana, DBeaver and ORMs
// read these to list what there is.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/read_access.h"
#include "query/base/shard_reads.h"
#include "query/exec/system_tables.h"
#include "query/exec/table_layout.h"
#include "storage/engine.h"

namespace strata::query {

inline constexpr std::string_view kInformationSchema = "information_schema";

// The tables there are, for messages.
std::vector<std::string> InformationSchemaTables();

// Where a table's columns come from on a cluster node that holds some of its shards only:
// every node reading them (query/base/shard_reads.h), merged.
struct ClusterColumns {
  ShardReads* reads = nullptr;
  std::chrono::steady_clock::time_point deadline;
};

// `table` read whole (tables the caller may not see left out; `access` null:
// all); NOT_FOUND when there is no such table. `cluster` (when its reads are set) gives
// `columns` every column any shard of a table holds, not this node's shards' alone.
absl::StatusOr<SystemTable> ReadInformationSchema(std::string_view table, Engine& storage,
                                                  TableLayoutCache& layouts,
                                                  const ReadAccess* access,
                                                  const ClusterColumns& cluster = {});

// The columns of `t` as this node's engine holds them, or, on a cluster node reading some
// of its shards from others (`cluster` with its reads set), as every node reading them
// does (merged).
absl::StatusOr<Schema> ColumnsOfTable(const TableInfo& t, Engine& storage,
                                      TableLayoutCache& layouts, const ClusterColumns& cluster);

// Calls `each` with every table the caller may see and its columns (ColumnsOfTable); a
// table dropped since it was listed is left out.
absl::Status ForEachTableColumns(Engine& storage, TableLayoutCache& layouts,
                                 const ReadAccess* access, const ClusterColumns& cluster,
                                 const std::function<void(const TableInfo&, const Schema&)>& each);

// Every table the caller may see (`access` null: all), database by database.
absl::StatusOr<std::vector<TableInfo>> VisibleTables(const Catalog& catalog,
                                                     const ReadAccess* access);

}  // namespace strata::query
