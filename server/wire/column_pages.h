// Result pages in the columnar form (ColumnPage in query.proto): one typed
// array per column instead of a Datum message per cell.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "query/base/datum.h"
#include "query/base/relayed_pages.h"
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
// The same of the batch's columns `columns` (positions in `batch` and `types`), in that order.
void AppendColumnsToPage(const std::vector<query::DataType>& types, const query::Batch& batch,
                         const std::vector<int>& columns, size_t start, size_t n,
                         v1::ColumnPage* page);

// The bytes `page`'s values take: what a page being filled counts against the server's
// budget, and is cut at.
int64_t ColumnPageBytes(const v1::ColumnPage& page);

// Serialized QueryResponse{column_page} pages of the columns `columns` (positions) of rows of
// `types`, cut as `form` says as the
// Query service cuts its own (at its page size, or once ColumnPageBytes reaches the page's
// bytes): a cluster node's fragment makes them for the node that relays them to its client
// (query/base/relayed_pages.h).
std::unique_ptr<query::PageEncoder> NewColumnPageEncoder(std::vector<query::DataType> types,
                                                         std::vector<int> columns,
                                                         query::RelayForm form);

}  // namespace strata
