// "system"."tables": each table the caller may see with its settings
// (retention, magnetic writes, partition key) and its storage per tier, as
// `strata table describe` and /metrics tell them, for SQL (the web
// console's schema browser reads it). The engine answers it from the
// catalog; the other "system" tables come from the server.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "query/base/read_access.h"
#include "query/exec/system_tables.h"
#include "storage/engine.h"

namespace strata::query {

inline constexpr std::string_view kSystemTablesTable = "tables";

absl::StatusOr<SystemTable> ReadSystemTablesTable(Engine& storage, const ReadAccess* access);

// A table's settings as "system"."tables" shows them (its first columns: database, table, the
// retentions, magnetic_store_writes, partition_key, created); CREATE and ALTER TABLE answer them.
std::vector<ResultColumn> TableSettingColumns();
std::vector<Datum> TableSettingValues(const TableInfo& table);

}  // namespace strata::query
