// Writes records into a closed data directory the way the writer did before
// a table's names had one type and one meaning (an attribute name of another
// type per measure, a name both a dimension and an attribute): no schema
// checks at all. Tests of how such directories still read use it to build
// one; nothing else should.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "storage/catalog/catalog_types.h"
#include "storage/rows/write_types.h"

namespace strata::testing {

// `table` is the table's catalog entry (for its id and partition key); the
// engine holding `data_dir` must be closed. Records go to the memory store
// with their version, replacing any row at the same key.
absl::Status LegacyWrite(const std::string& data_dir, const TableInfo& table,
                         const WriteRequest& request);

// Renames a database and one of its tables in the closed data directory's
// catalog, without the rules for new names: how a directory from before the
// 3-character minimum (names such as `db` and `t`) looks. The table keeps its
// id, so its data stays with it.
absl::Status LegacyRename(const std::string& data_dir, const DatabaseInfo& database,
                          const TableInfo& table, const std::string& new_database,
                          const std::string& new_table);

}  // namespace strata::testing
