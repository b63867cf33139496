// The stored form of catalog records: a format byte, then varint and
// length-prefixed fields in a fixed order. New fields are appended; decoders
// accept records with fewer fields (older writers) and refuse unknown formats.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"

namespace strata {

std::string EncodeDatabase(const DatabaseInfo& db);
absl::StatusOr<DatabaseInfo> DecodeDatabase(std::string_view bytes);

std::string EncodeTable(const TableInfo& table);
absl::StatusOr<TableInfo> DecodeTable(std::string_view bytes);

}  // namespace strata
