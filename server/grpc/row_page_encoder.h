// A QueryResponse carrying a RowPage, encoded straight from query rows into
// protobuf's wire format: no Datum message per cell is built, sized,
// serialized and destroyed (for a large result, most of the server's time
// with row pages went there). The bytes are exactly what serializing the
// message DatumToProto builds would give (tests/unit/server); nested values
// (arrays, maps, rows, time series) are built as messages and serialized.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grpcpp/support/byte_buffer.h"
#include "query/base/datum.h"
#include "query/base/relayed_pages.h"
#include "query/base/vector.h"
#include "query/expr/expr.h"  // query::Row

namespace strata {

// The serialized QueryResponse{page: RowPage{rows}}.
std::string EncodeRowPageResponse(const std::vector<query::Row>& rows);

// Rows [start, start + n) of `batch` appended to `rows` as RowPage entries:
// the bytes EncodeRowPageResponse writes for the rows the batch makes
// (Vector::Get per cell; a column the batch does not hold is NULL), without
// making them. RowPageResponse wraps what was appended.
void AppendBatchRows(const query::Batch& batch, size_t start, size_t n, std::string* rows);
// The same of the batch's columns `columns` (positions), in that order.
void AppendBatchColumnsRows(const query::Batch& batch, const std::vector<int>& columns,
                            size_t start, size_t n, std::string* rows);
std::string RowPageResponse(std::string_view rows);

// Serialized QueryResponse pages of the columns `columns` (positions) of batches of `types`
// in the client's form: RowPage entries (form.row_pages; cut as the Query service cuts its own
// row pages, at its page size or once the rows' bytes reach the page's) or a ColumnPage
// (server/wire/column_pages.h). A cluster node's fragment makes them for the node that relays
// them to its client (query/base/relayed_pages.h).
std::unique_ptr<query::PageEncoder> NewResultPageEncoder(std::vector<query::DataType> types,
                                                         std::vector<int> columns,
                                                         query::RelayForm form);

// `bytes` as a gRPC message without copying them.
grpc::ByteBuffer TakeAsByteBuffer(std::string bytes);

}  // namespace strata
