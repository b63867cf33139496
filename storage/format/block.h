// The magnetic store's columnar block: the points of one series in one bucket,
// stored column by column (docs/format/block.md has the byte grammar,
// block_format.h the constants). The header carries what pruning and
// block-level aggregates need (count, time range, per-column null count,
// min, max, sum) and can be read without decoding any column.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/value.h"
#include "storage/write_types.h"

namespace strata::format {

// One point of a series: what a `hot` row holds, plus its time.
struct BlockPoint {
  int64_t time_nanos = 0;
  int64_t version = 1;
  std::vector<Measure> measures;  // in the block's column order after decoding
  bool operator==(const BlockPoint&) const = default;
};

struct ColumnSummary {
  std::string name;
  ValueType type = ValueType::kDouble;
  uint32_t null_count = 0;
  // DOUBLE, BIGINT and TIMESTAMP columns with at least one non-NaN value.
  // min/max are exact in int_min/int_max for BIGINT and TIMESTAMP; `sum` is
  // a double for every numeric type.
  bool has_stats = false;
  double min = 0, max = 0, sum = 0;
  int64_t int_min = 0, int_max = 0;
};

struct BlockSummary {
  uint32_t count = 0;
  int64_t min_time = 0;
  int64_t max_time = 0;
  std::vector<ColumnSummary> columns;
};

// Encodes points sorted by strictly increasing time (1 ≤ count ≤
// kMaxPointsPerBlock). INVALID_ARGUMENT when they are not, or when one
// measure name appears with two types.
absl::StatusOr<std::string> EncodeBlock(const std::vector<BlockPoint>& points);

// DATA_LOSS for anything that is not a well-formed block; never reads past
// `bytes` and never allocates more than the bytes can describe.
absl::StatusOr<BlockSummary> DecodeBlockSummary(std::string_view bytes);
absl::StatusOr<std::vector<BlockPoint>> DecodeBlock(std::string_view bytes);

}  // namespace strata::format
