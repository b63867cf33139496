// A QueryResponse carrying a RowPage, encoded straight from query rows into
// protobuf's wire format: no Datum message per cell is built, sized,
// serialized and destroyed (for a large result, most of the server's time
// with row pages went there). The bytes are exactly what serializing the
// message DatumToProto builds would give (tests/unit/server); nested values
// (arrays, maps, rows, time series) are built as messages and serialized.
#pragma once

#include <string>
#include <vector>

#include "grpcpp/support/byte_buffer.h"
#include "query/datum.h"
#include "query/expr.h"  // query::Row

namespace strata {

// The serialized QueryResponse{page: RowPage{rows}}.
std::string EncodeRowPageResponse(const std::vector<query::Row>& rows);

// `bytes` as a gRPC message without copying them.
grpc::ByteBuffer TakeAsByteBuffer(std::string bytes);

}  // namespace strata
