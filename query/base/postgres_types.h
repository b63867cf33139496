// Strata's types as PostgreSQL knows them: the OIDs the PostgreSQL wire sends
// (server/pg/types.h) and the rows of pg_catalog.pg_type that tools read
// (query/exec/pg_catalog.h), with format_type()'s names.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "query/base/datum.h"

namespace strata::query {

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

// PostgreSQL's array types Strata reads parameters of (psycopg sends a list of numbers as
// int2[] ... float8[]) and sends arrays of scalars as, with the element's OID and type.
struct PostgresArrayOid {
  int32_t oid;
  int32_t element_oid;
  DataType element_type;
};
std::span<const PostgresArrayOid> PostgresArrayOids();

// The OID of a type's column: an array of scalars is PostgreSQL's array of them (bigint[]
// int8[]: 1016), sent as {1,2,NULL} in text; other arrays, rows, maps and timeseries are
// text (25) of Strata's form ([[1], [2]], {x=1}).
int32_t OidOf(DataType type);
// The array OID of `type` when it is an array of scalars, else 0.
int32_t ArrayOidOf(DataType type);
// Bytes of the type (-1: variable), as RowDescription and pg_type.typlen give it.
int16_t TypeSize(int32_t oid);

// A row of pg_catalog.pg_type: the types above, each also as its array.
struct PostgresType {
  int32_t oid;
  std::string_view name;       // typname: int8, _int8
  std::string_view formatted;  // format_type(): bigint, bigint[]
  char category;               // typcategory: N numeric, S string, D date/time, A array, ...
  int32_t element;             // typelem: an array's element type, else 0
  int32_t array;               // typarray: the array of this type, else 0
};
std::span<const PostgresType> PostgresTypes();
// nullptr: not one of PostgresTypes().
const PostgresType* PostgresTypeOf(int32_t oid);

}  // namespace strata::query
