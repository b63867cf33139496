#include "server/wire/catalog_convert.h"

#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata {
namespace {

void ToProtoTime(int64_t nanos, google::protobuf::Timestamp* out) {
  out->set_seconds(nanos / kNanosPerSecond);
  out->set_nanos(static_cast<int32_t>(nanos % kNanosPerSecond));
}

RetentionProperties RetentionFromProto(const v1::RetentionProperties& p) {
  return {.memory_store_retention_hours = p.memory_store_retention_hours(),
          .magnetic_store_retention_days = p.magnetic_store_retention_days()};
}

absl::StatusOr<PartitionKey> PartitionKeyFromProto(const v1::Schema& schema) {
  PartitionKey key;
  if (schema.composite_partition_key_size() == 0) return key;
  if (schema.composite_partition_key_size() > 1) {
    return absl::InvalidArgumentError(
        StrCat("schema.composite_partition_key has ", schema.composite_partition_key_size(),
                     " keys; a table is partitioned by exactly one (a dimension, or "
                     "measure_name)"));
  }
  const v1::PartitionKey& p = schema.composite_partition_key(0);
  switch (p.type()) {
    case v1::PARTITION_KEY_TYPE_DIMENSION: key.type = PartitionKeyType::kDimension; break;
    case v1::PARTITION_KEY_TYPE_MEASURE: key.type = PartitionKeyType::kMeasure; break;
    default:
      return absl::InvalidArgumentError(
          "partition key type must be PARTITION_KEY_TYPE_DIMENSION or "
          "PARTITION_KEY_TYPE_MEASURE");
  }
  key.name = p.name();
  switch (p.enforcement_in_record()) {
    case v1::PARTITION_KEY_ENFORCEMENT_REQUIRED: key.enforcement = Enforcement::kRequired; break;
    case v1::PARTITION_KEY_ENFORCEMENT_UNSPECIFIED:
    case v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL: key.enforcement = Enforcement::kOptional; break;
    default:
      return absl::InvalidArgumentError(
          "partition key enforcement_in_record must be REQUIRED or OPTIONAL");
  }
  return key;
}

}  // namespace

void ToProto(const DatabaseInfo& db, v1::Database* out) {
  out->set_database_name(db.name);
  out->set_description(db.description);
  out->set_table_count(db.table_count);
  ToProtoTime(db.creation_time_nanos, out->mutable_creation_time());
  ToProtoTime(db.last_updated_time_nanos, out->mutable_last_updated_time());
}

void ToProto(const TableInfo& table, v1::Table* out) {
  out->set_database_name(table.database_name);
  out->set_table_name(table.name);
  out->set_table_status(v1::TABLE_STATUS_ACTIVE);
  auto* retention = out->mutable_retention_properties();
  retention->set_memory_store_retention_hours(table.retention.memory_store_retention_hours);
  retention->set_magnetic_store_retention_days(table.retention.magnetic_store_retention_days);
  out->mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(
      table.enable_magnetic_store_writes);
  auto* key = out->mutable_schema()->add_composite_partition_key();
  const bool dimension = table.partition_key.type == PartitionKeyType::kDimension;
  key->set_type(dimension ? v1::PARTITION_KEY_TYPE_DIMENSION : v1::PARTITION_KEY_TYPE_MEASURE);
  key->set_name(table.partition_key.name);
  key->set_enforcement_in_record(table.partition_key.enforcement == Enforcement::kRequired
                                     ? v1::PARTITION_KEY_ENFORCEMENT_REQUIRED
                                     : v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL);
  ToProtoTime(table.creation_time_nanos, out->mutable_creation_time());
  ToProtoTime(table.last_updated_time_nanos, out->mutable_last_updated_time());
}

absl::StatusOr<TableSpec> TableSpecFromProto(const v1::CreateTableRequest& request) {
  TableSpec spec;
  spec.database_name = request.database_name();
  spec.table_name = request.table_name();
  if (request.has_retention_properties()) {
    spec.retention = RetentionFromProto(request.retention_properties());
  }
  spec.enable_magnetic_store_writes =
      request.magnetic_store_write_properties().enable_magnetic_store_writes();
  ASSIGN_OR_RETURN(spec.partition_key, PartitionKeyFromProto(request.schema()));
  return spec;
}

absl::StatusOr<TableUpdate> TableUpdateFromProto(const v1::UpdateTableRequest& request) {
  TableUpdate update;
  if (request.has_retention_properties()) {
    update.retention = RetentionFromProto(request.retention_properties());
  }
  if (request.has_magnetic_store_write_properties()) {
    update.enable_magnetic_store_writes =
        request.magnetic_store_write_properties().enable_magnetic_store_writes();
  }
  if (request.has_schema()) {
    ASSIGN_OR_RETURN(update.partition_key, PartitionKeyFromProto(request.schema()));
  }
  return update;
}

void ToProto(const TableStorageStats& stats, v1::TableStorage* out) {
  auto usage = [](const TierUsage& u, v1::TierUsage* p) {
    p->set_bytes(u.bytes);
    p->set_entries(u.entries);
  };
  usage(stats.memory_store, out->mutable_memory_store());
  usage(stats.magnetic_blocks, out->mutable_magnetic_store());
  usage(stats.magnetic_delta, out->mutable_magnetic_late_writes());
  if (stats.last_run_nanos != 0) {
    ToProtoTime(stats.last_run_nanos, out->mutable_last_maintenance_time());
  }
  out->set_last_rows_tiered(stats.last_tiering.rows_moved);
  out->set_last_late_writes_merged(stats.last_tiering.delta_rows_merged);
  out->set_last_rows_expired(stats.last_retention.rows_dropped);
  out->set_last_tiering_millis(stats.last_tiering.duration_nanos / kNanosPerMilli);
  out->set_last_retention_millis(stats.last_retention.duration_nanos / kNanosPerMilli);
  out->set_rows_tiered_total(stats.rows_tiered_total);
  out->set_rows_expired_total(stats.rows_expired_total);
}

}  // namespace strata
