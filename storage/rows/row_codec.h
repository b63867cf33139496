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
#include "absl/types/span.h"
#include "common/coding.h"
#include "storage/rows/value_codec.h"
#include "storage/rows/write_types.h"

namespace strata {

class RowShape;

struct StoredRow {
  int64_t version = 1;
  std::vector<Measure> measures;
};

// Appends the encoded row to `out`.
void EncodeRow(const StoredRow& row, std::string* out);
// The same row in two parts, as the memory head keeps it (storage/rows/head_rows.h):
// the signature of its measures (count, then each name and type: what
// rows of one shape share, RowShape::Signature) and its compact form (the
// version, then each value). A row's signature and compact form hold
// exactly the bytes of its encoding, which RowShape::AppendEncodedRow puts
// back together.
void EncodeRowSignature(const std::vector<Measure>& measures, std::string* out);
// The same from the names and types: storage/rows/value_codec.h.
void EncodeCompactRow(const StoredRow& row, std::string* out);
// The compact form from the version and the values' bytes
// (MeasureList::values).
void AppendCompactRow(int64_t version, std::string_view values, std::string* out);
absl::StatusOr<StoredRow> DecodeRow(std::string_view bytes);
// Decodes into `row`, reusing its measures' storage (scans decode millions
// of rows; this saves an allocation per measure name). `row` is unspecified
// after an error.
absl::Status DecodeRowInto(std::string_view bytes, StoredRow* row);
// The same for a row the memory head stores compactly (RowReader's shape).
absl::Status DecodeRowInto(std::string_view bytes, const RowShape* shape, StoredRow* row);

// Walks an encoded row without copying anything, for readers that keep few
// of its measures (a query reading one of ten attributes).
class RowReader {
 public:
  explicit RowReader(std::string_view bytes) : in_(bytes), size_(bytes.size()) {}
  // A row the memory head stores compactly: its version and values, with
  // the names and types of `shape` (storage/rows/head_rows.h); null: `bytes` is
  // an encoded row.
  RowReader(std::string_view bytes, const RowShape* shape)
      : in_(bytes), size_(bytes.size()), shape_(shape) {}
  // Reads the version and the measure count; false if they are corrupt.
  bool Start(int64_t* version);
  // The next measure; false at the end or on corruption (see ok()).
  bool Next(MeasureView* m);
  // False if the bytes were corrupt (a truncated value, an unknown type,
  // bytes left over).
  bool ok() const { return ok_; }

 private:
  Decoder in_;
  size_t size_;
  const RowShape* shape_ = nullptr;
  size_t next_ = 0;  // with a shape: the next measure's index
  uint64_t left_ = 0;
  bool ok_ = true;
};

}  // namespace strata
