// Strata's SQL types as PostgreSQL clients see them (docs/protocols.md):
// BIGINT int8, DOUBLE float8, VARCHAR text, BOOLEAN bool, TIMESTAMP
// timestamptz (UTC; PostgreSQL has microseconds, so nanoseconds are
// truncated), INTERVAL interval, an array of these its PostgreSQL array.
// Values in text format for every type and binary for all of these;
// parameters decoded from either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "query/base/datum.h"
#include "query/base/postgres_types.h"

namespace strata::pg {

using query::kOidBool;
using query::kOidBpchar;
using query::kOidDate;
using query::kOidFloat4;
using query::kOidFloat8;
using query::kOidInt2;
using query::kOidInt4;
using query::kOidInt8;
using query::kOidInterval;
using query::kOidIntervalArray;
using query::kOidJson;
using query::kOidJsonb;
using query::kOidName;
using query::kOidNumeric;
using query::kOidOid;
using query::kOidText;
using query::kOidTime;
using query::kOidTimestamp;
using query::kOidTimestamptz;
using query::kOidUnknown;
using query::kOidVarchar;

using query::ArrayOidOf;  // query/base/postgres_types.h
using query::OidOf;
using query::TypeSize;

// format_type()'s name: "bigint", "double precision", "timestamp with time zone", ...
std::string_view PgTypeName(query::DataType type);

// A non-NULL value in text (format 0) or binary (format 1) form; text writes timestamps in
// the session's `zone` (null: UTC), binary as instants.
void EncodeText(const query::Datum& value, std::string* out, const absl::TimeZone* zone = nullptr);
void EncodeBinary(const query::Datum& value, std::string* out);

// A parameter value as sent with Bind: `oid` as declared in Parse (0: not
// declared). Sets `*untyped` for text of no declared or a textual type,
// which takes the type of what it is compared with (QueryParameters).
// INVALID_ARGUMENT (SQLSTATE 22P02) for text that is not of the declared
// type and for binary forms of other types. Timestamp text without an offset is a wall-clock
// time in the session's `zone` (null: UTC).
absl::StatusOr<query::Datum> DecodeParameter(std::string_view bytes, int16_t format, int32_t oid,
                                             bool* untyped, const absl::TimeZone* zone = nullptr);

}  // namespace strata::pg
