// The stored form of one data point in the `hot` and `cold_delta` families:
//   version (varint) · count (varint) · count × [name (length-prefixed) ·
//   type (1 byte) · value]
// where a value is a DOUBLE (8 bytes), BIGINT/TIMESTAMP (zig-zag varint),
// BOOLEAN (1 byte) or VARCHAR (length-prefixed). A scalar record stores one
// measure named after the measure_name. Decoding rejects truncated or
// unknown bytes instead of reading past them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/write_types.h"

namespace strata {

struct StoredRow {
  int64_t version = 1;
  std::vector<Measure> measures;
};

void EncodeRow(const StoredRow& row, std::string* out);
absl::StatusOr<StoredRow> DecodeRow(std::string_view bytes);
// Decodes into `row`, reusing its measures' storage (scans decode millions
// of rows; this saves an allocation per measure name). `row` is unspecified
// after an error.
absl::Status DecodeRowInto(std::string_view bytes, StoredRow* row);

}  // namespace strata
