// Key layout of every column family (docs/architecture.md, "Storage layout").
// Integers in keys are fixed-width big-endian so bytewise order is numeric
// order. Names never contain '\0' (names.h forbids it), so '\0' separates them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::keys {

// catalog CF ---------------------------------------------------------------
// 'd' \0 <database>                → database record
// 't' \0 <database> \0 <table>     → table record
// 'n' \0 <counter>                 → next id (fixed64 BE)
// 'x' <table id u32>  ...          → per-table catalog data (series, schemas);
//                                    dropped with the table as one range
std::string Database(std::string_view database);
std::string DatabasePrefix();
std::string Table(std::string_view database, std::string_view table);
std::string TablePrefix();
std::string Counter(std::string_view name);
std::string TableCatalogPrefix(uint32_t table_id);

// hot, cold, cold_delta, index CFs: every key starts with the table id -------
std::string TableDataPrefix(uint32_t table_id);

// The exclusive upper bound of all keys starting with `prefix`
// (prefix + 1 in the last byte that is not 0xff).
std::string PrefixEnd(std::string_view prefix);

}  // namespace strata::keys
