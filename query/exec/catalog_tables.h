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

}  // namespace strata::query
