// Query values and types as they leave the server in query.proto's messages
// (Datum, ColumnType): scalars, and arrays, rows and timeseries nested.
#pragma once

#include <string>
#include <string_view>

#include "query/base/datum.h"
#include "strata/v1/query.pb.h"

namespace strata {

void TypeToProto(query::DataType type, v1::ColumnType* out);
void DatumToProto(const query::Datum& d, v1::Datum* out);

// Text as it may leave the server: protobuf refuses to parse a string field
// that is not UTF-8, so one bad byte would make the client lose the whole
// page. The engine's functions keep text well formed; this is the guard that
// makes it so for any value.
void SetWellFormed(std::string_view s, std::string* out);

}  // namespace strata
