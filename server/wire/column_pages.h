// Result pages in the columnar form (ColumnPage in query.proto): one typed
// array per column instead of a Datum message per cell.
#pragma once

#include <vector>

#include "query/base/datum.h"
#include "query/base/vector.h"
#include "query/expr/expr.h"
#include "strata/v1/query.pb.h"

namespace strata {

// `rows` (each one value per column of `types`) as a ColumnPage. Text that is
// not UTF-8 is made well formed, as in row pages.
void ToColumnPage(const std::vector<query::DataType>& types, const std::vector<query::Row>& rows,
                  v1::ColumnPage* out);

// Appends rows [start, start + n) of `batch` (the select list's columns,
// `types` as the result reports them) to `page`. A column the batch does not
// hold (size 0) is NULL.
void AppendToColumnPage(const std::vector<query::DataType>& types, const query::Batch& batch,
                        size_t start, size_t n, v1::ColumnPage* page);

}  // namespace strata
