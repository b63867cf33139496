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

namespace strata::pg {

inline constexpr int32_t kOidBool = 16;
inline constexpr int32_t kOidName = 19;
inline constexpr int32_t kOidInt8 = 20;
inline constexpr int32_t kOidInt2 = 21;
inline constexpr int32_t kOidInt4 = 23;
inline constexpr int32_t kOidText = 25;
inline constexpr int32_t kOidOid = 26;
inline constexpr int32_t kOidJson = 114;
inline constexpr int32_t kOidJsonb = 3802;
inline constexpr int32_t kOidFloat4 = 700;
inline constexpr int32_t kOidFloat8 = 701;
inline constexpr int32_t kOidUnknown = 705;
inline constexpr int32_t kOidBpchar = 1042;
inline constexpr int32_t kOidVarchar = 1043;
inline constexpr int32_t kOidDate = 1082;
inline constexpr int32_t kOidTime = 1083;
inline constexpr int32_t kOidTimestamp = 1114;
inline constexpr int32_t kOidTimestamptz = 1184;
inline constexpr int32_t kOidInterval = 1186;
inline constexpr int32_t kOidNumeric = 1700;
inline constexpr int32_t kOidIntervalArray = 1187;

// The OID of a type's column: an array of scalars is PostgreSQL's array of them (bigint[]
// int8[]: 1016), sent as {1,2,NULL} in text; other arrays, rows, maps and timeseries are
// text (25) of Strata's form ([[1], [2]], {x=1}).
int32_t OidOf(query::DataType type);
// The array OID of `type` when it is an array of scalars, else 0.
int32_t ArrayOidOf(query::DataType type);
// Bytes of the type (-1: variable), for RowDescription.
int16_t TypeSize(int32_t oid);
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
