#include "storage/catalog/catalog_codec.h"

#include "common/coding.h"

namespace strata {
namespace {

constexpr uint8_t kCatalogFormatV1 = 1;

}  // namespace

std::string EncodeDatabase(const DatabaseInfo& db) {
  std::string out(1, static_cast<char>(kCatalogFormatV1));
  PutVarint64(&out, db.id);
  PutLengthPrefixed(&out, db.name);
  PutLengthPrefixed(&out, db.description);
  PutVarsint64(&out, db.creation_time_nanos);
  PutVarsint64(&out, db.last_updated_time_nanos);
  return out;
}

absl::StatusOr<DatabaseInfo> DecodeDatabase(std::string_view bytes) {
  Decoder in(bytes);
  DatabaseInfo db;
  uint8_t format;
  uint64_t id;
  std::string_view name, description;
  if (!in.GetByte(&format) || format != kCatalogFormatV1 || !in.GetVarint64(&id) ||
      !in.GetLengthPrefixed(&name) || !in.GetLengthPrefixed(&description) ||
      !in.GetVarsint64(&db.creation_time_nanos) || !in.GetVarsint64(&db.last_updated_time_nanos)) {
    return CorruptionError("database record");
  }
  db.id = static_cast<uint32_t>(id);
  db.name = name;
  db.description = description;
  return db;
}

std::string EncodeTable(const TableInfo& t) {
  std::string out(1, static_cast<char>(kCatalogFormatV1));
  PutVarint64(&out, t.id);
  PutLengthPrefixed(&out, t.database_name);
  PutLengthPrefixed(&out, t.name);
  PutVarsint64(&out, t.retention.memory_store_retention_hours);
  PutVarsint64(&out, t.retention.magnetic_store_retention_days);
  out.push_back(t.enable_magnetic_store_writes ? 1 : 0);
  out.push_back(static_cast<char>(t.partition_key.type));
  PutLengthPrefixed(&out, t.partition_key.name);
  out.push_back(static_cast<char>(t.partition_key.enforcement));
  PutVarsint64(&out, t.creation_time_nanos);
  PutVarsint64(&out, t.last_updated_time_nanos);
  PutVarsint64(&out, t.memory_store_floor_nanos);
  PutVarsint64(&out, t.retention_floor_nanos);
  return out;
}

absl::StatusOr<TableInfo> DecodeTable(std::string_view bytes) {
  Decoder in(bytes);
  TableInfo t;
  uint8_t format, magnetic, key_type, enforcement;
  uint64_t id;
  std::string_view database, name, key_name;
  if (!in.GetByte(&format) || format != kCatalogFormatV1 || !in.GetVarint64(&id) ||
      !in.GetLengthPrefixed(&database) || !in.GetLengthPrefixed(&name) ||
      !in.GetVarsint64(&t.retention.memory_store_retention_hours) ||
      !in.GetVarsint64(&t.retention.magnetic_store_retention_days) || !in.GetByte(&magnetic) ||
      !in.GetByte(&key_type) || key_type > 1 || !in.GetLengthPrefixed(&key_name) ||
      !in.GetByte(&enforcement) || enforcement > 1 || !in.GetVarsint64(&t.creation_time_nanos) ||
      !in.GetVarsint64(&t.last_updated_time_nanos) ||
      !in.GetVarsint64(&t.memory_store_floor_nanos) || !in.GetVarsint64(&t.retention_floor_nanos)) {
    return CorruptionError("table record");
  }
  t.id = static_cast<uint32_t>(id);
  t.database_name = database;
  t.name = name;
  t.enable_magnetic_store_writes = magnetic != 0;
  t.partition_key.type = static_cast<PartitionKeyType>(key_type);
  t.partition_key.name = key_name;
  t.partition_key.enforcement = static_cast<Enforcement>(enforcement);
  return t;
}

}  // namespace strata
