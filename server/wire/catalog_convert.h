// Translation between the CatalogService messages and the catalog's types.
// Decoding validates what only the wire can get wrong (several partition
// keys, unknown enum values); the catalog validates the rest.
#pragma once

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"
#include "storage/engine.h"
#include "strata/v1/catalog.pb.h"

namespace strata {

void ToProto(const DatabaseInfo& db, v1::Database* out);
void ToProto(const TableInfo& table, v1::Table* out);
void ToProto(const TableStorageStats& stats, v1::TableStorage* out);

absl::StatusOr<TableSpec> TableSpecFromProto(const v1::CreateTableRequest& request);
absl::StatusOr<TableUpdate> TableUpdateFromProto(const v1::UpdateTableRequest& request);

}  // namespace strata
