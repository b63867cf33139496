// Writes records into a closed data directory the way the writer did before
// a table's names had one type and one meaning (an attribute name of another
// type per measure, a name both a dimension and an attribute): no schema
// checks at all. Tests of how such directories still read use it to build
// one; nothing else should.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "storage/catalog_types.h"
#include "storage/write_types.h"

namespace strata::testing {

// `table` is the table's catalog entry (for its id and partition key); the
// engine holding `data_dir` must be closed. Records go to the memory store
// with their version, replacing any row at the same key.
absl::Status LegacyWrite(const std::string& data_dir, const TableInfo& table,
                         const WriteRequest& request);

}  // namespace strata::testing
