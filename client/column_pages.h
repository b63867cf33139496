// Reading columnar result pages (ColumnPage in query.proto) back into rows,
// for writers that print row by row.
#pragma once

#include "absl/status/statusor.h"
#include "strata/v1/query.pb.h"

namespace strata::cli {

// The rows of `page`, typed by `metadata`'s columns. INVALID_ARGUMENT (the
// page does not match its columns: a server of another protocol version or
// a broken one) says what is off.
absl::StatusOr<v1::RowPage> RowsFromColumns(const v1::QueryMetadata& metadata,
                                            const v1::ColumnPage& page);

}  // namespace strata::cli
