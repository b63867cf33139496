#include "query/base/postgres_types.h"

namespace strata::query {
namespace {

constexpr PostgresArrayOid kArrayOids[] = {
    {1000, kOidBool, DataType::kBoolean},        {1005, kOidInt2, DataType::kBigint},
    {1007, kOidInt4, DataType::kBigint},         {1016, kOidInt8, DataType::kBigint},
    {1021, kOidFloat4, DataType::kDouble},       {1022, kOidFloat8, DataType::kDouble},
    {1231, kOidNumeric, DataType::kDouble},      {1009, kOidText, DataType::kVarchar},
    {1015, kOidVarchar, DataType::kVarchar},     {1014, kOidBpchar, DataType::kVarchar},
    {1003, kOidName, DataType::kVarchar},        {199, kOidJson, DataType::kJson},
    {1182, kOidDate, DataType::kDate},           {1183, kOidTime, DataType::kTime},
    {1115, kOidTimestamp, DataType::kTimestamp}, {1185, kOidTimestamptz, DataType::kTimestamp}};

constexpr PostgresType kTypes[] = {
    {kOidBool, "bool", "boolean", 'B', 0, 1000},
    {kOidName, "name", "name", 'S', 0, 1003},
    {kOidInt8, "int8", "bigint", 'N', 0, 1016},
    {kOidInt2, "int2", "smallint", 'N', 0, 1005},
    {kOidInt4, "int4", "integer", 'N', 0, 1007},
    {kOidText, "text", "text", 'S', 0, 1009},
    {kOidOid, "oid", "oid", 'N', 0, 1028},
    {kOidJson, "json", "json", 'U', 0, 199},
    {kOidJsonb, "jsonb", "jsonb", 'U', 0, 3807},
    {kOidFloat4, "float4", "real", 'N', 0, 1021},
    {kOidFloat8, "float8", "double precision", 'N', 0, 1022},
    {kOidUnknown, "unknown", "unknown", 'X', 0, 0},
    {kOidBpchar, "bpchar", "character", 'S', 0, 1014},
    {kOidVarchar, "varchar", "character varying", 'S', 0, 1015},
    {kOidDate, "date", "date", 'D', 0, 1182},
    {kOidTime, "time", "time without time zone", 'D', 0, 1183},
    {kOidTimestamp, "timestamp", "timestamp without time zone", 'D', 0, 1115},
    {kOidTimestamptz, "timestamptz", "timestamp with time zone", 'D', 0, 1185},
    {kOidInterval, "interval", "interval", 'T', 0, kOidIntervalArray},
    {kOidNumeric, "numeric", "numeric", 'N', 0, 1231},
    {1000, "_bool", "boolean[]", 'A', kOidBool, 0},
    {1003, "_name", "name[]", 'A', kOidName, 0},
    {1016, "_int8", "bigint[]", 'A', kOidInt8, 0},
    {1005, "_int2", "smallint[]", 'A', kOidInt2, 0},
    {1007, "_int4", "integer[]", 'A', kOidInt4, 0},
    {1009, "_text", "text[]", 'A', kOidText, 0},
    {1028, "_oid", "oid[]", 'A', kOidOid, 0},
    {199, "_json", "json[]", 'A', kOidJson, 0},
    {3807, "_jsonb", "jsonb[]", 'A', kOidJsonb, 0},
    {1021, "_float4", "real[]", 'A', kOidFloat4, 0},
    {1022, "_float8", "double precision[]", 'A', kOidFloat8, 0},
    {1014, "_bpchar", "character[]", 'A', kOidBpchar, 0},
    {1015, "_varchar", "character varying[]", 'A', kOidVarchar, 0},
    {1182, "_date", "date[]", 'A', kOidDate, 0},
    {1183, "_time", "time without time zone[]", 'A', kOidTime, 0},
    {1115, "_timestamp", "timestamp without time zone[]", 'A', kOidTimestamp, 0},
    {1185, "_timestamptz", "timestamp with time zone[]", 'A', kOidTimestamptz, 0},
    {kOidIntervalArray, "_interval", "interval[]", 'A', kOidInterval, 0},
    {1231, "_numeric", "numeric[]", 'A', kOidNumeric, 0}};

}  // namespace

std::span<const PostgresArrayOid> PostgresArrayOids() { return kArrayOids; }

int32_t ArrayOidOf(DataType type) {
  if (KindOf(type) != TypeKind::kArray) return 0;
  const DataType element = ElementType(type);
  if (element == DataType::kInterval || element == DataType::kIntervalYearToMonth) {
    return kOidIntervalArray;
  }
  if (IsComposite(element) || element == DataType::kUnknown) return 0;
  const int32_t element_oid = OidOf(element);
  for (const PostgresArrayOid& array : kArrayOids) {
    if (array.element_oid == element_oid) return array.oid;
  }
  return 0;
}

int32_t OidOf(DataType type) {
  if (const int32_t array = ArrayOidOf(type); array != 0) return array;
  switch (type) {
    case DataType::kBoolean:
      return kOidBool;
    case DataType::kBigint:
      return kOidInt8;
    case DataType::kDouble:
      return kOidFloat8;
    case DataType::kVarchar:
      return kOidText;
    case DataType::kJson:
      return kOidJson;
    case DataType::kTimestamp:
      return kOidTimestamptz;
    case DataType::kInterval:
      return kOidInterval;
    case DataType::kDate:
      return kOidDate;
    case DataType::kTime:
      return kOidTime;
    case DataType::kIntervalYearToMonth:
      return kOidInterval;
    case DataType::kUnknown:
    case DataType::kFirstComposite:
      return kOidText;
  }
  return kOidText;  // arrays of arrays or rows, rows, maps and timeseries travel as their text
}

int16_t TypeSize(int32_t oid) {
  switch (oid) {
    case kOidBool:
      return 1;
    case kOidInt2:
      return 2;
    case kOidInt4:
    case kOidFloat4:
    case kOidDate:
    case kOidOid:
      return 4;
    case kOidTime:
    case kOidInt8:
    case kOidFloat8:
    case kOidTimestamp:
    case kOidTimestamptz:
      return 8;
    case kOidInterval:
      return 16;
    case kOidName:
      return 64;
    default:
      return -1;
  }
}

std::span<const PostgresType> PostgresTypes() { return kTypes; }

const PostgresType* PostgresTypeOf(int32_t oid) {
  for (const PostgresType& type : kTypes) {
    if (type.oid == oid) return &type;
  }
  return nullptr;
}

}  // namespace strata::query
