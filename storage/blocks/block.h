// The magnetic store's columnar block: the points of one series in one bucket,
// stored column by column (docs/format/block.md has the byte grammar,
// block_format.h the constants). The header carries what pruning and
// block-level aggregates need (count, time range, per-column null count,
// min, max, sum) and can be read without decoding any column.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/value.h"
#include "storage/blocks/int_codec.h"
#include "storage/rows/write_types.h"

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

// One column: which points have a value, and the values of those points in
// order, in the array its type uses.
struct ColumnValues {
  ValueType type = ValueType::kDouble;
  // One per point. To encode (EncodeBlockColumns), empty: every point has one.
  std::vector<bool> present;
  std::vector<double> reals;              // DOUBLE
  std::vector<int64_t> numbers;           // BIGINT, TIMESTAMP, BOOLEAN (0/1)
  std::vector<std::string_view> texts;    // VARCHAR: views into the block's bytes
  size_t size() const;                    // of the array its type uses
};

// A column to encode: its measure name and its values.
struct ColumnToEncode {
  std::string_view name;
  ColumnValues values;
};

// EncodeBlock from the block's columns, for a writer that holds its points
// as columns already (the tiering job, reading the memory head's rows of one
// shape): the same bytes EncodeBlock gives for the same points, with the
// columns in the given order (EncodeBlock's is their first appearance).
// INVALID_ARGUMENT as EncodeBlock, or when a column's values are not one per
// point it says is present.
absl::StatusOr<std::string> EncodeBlockColumns(const std::vector<int64_t>& times,
                                               const std::vector<int64_t>& versions,
                                               const std::vector<ColumnToEncode>& columns);

// A block decoded column by column; a reader decodes only the columns it
// needs (a query reading one of ten measures decodes one).
struct BlockColumns {
  BlockSummary summary;
  std::vector<int64_t> times;
  std::vector<int64_t> versions;  // empty unless asked for
  // Parallel to summary.columns; empty where not wanted.
  std::vector<std::optional<ColumnValues>> columns;
};

// Points of a block decoded with every column, one at a time, as DecodeBlock
// gives them (measures in the block's column order, absent ones left out),
// without building the others: the writer checks a record against one point.
// Each column's value positions are found once (a column's values skip its
// absent points), so a point costs its columns, not its index.
class PointReader {
 public:
  // `block` must outlive the reader.
  explicit PointReader(const BlockColumns& block);
  std::vector<Measure> MeasuresAt(size_t index) const;

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  const BlockColumns& block_;
  std::vector<std::vector<uint32_t>> positions_;  // per column, per point: its value's, or kAbsent
};

// DATA_LOSS for anything that is not a well-formed block; never reads past
// `bytes` and never allocates more than the bytes can describe.
// `bytes` may be the whole block or only its header (BlockHeaderBytes).
absl::StatusOr<BlockSummary> DecodeBlockSummary(std::string_view bytes);
// The leading bytes of a block that hold its header (magic, version, count,
// time range, column statistics): all DecodeBlockSummary reads.
absl::StatusOr<std::string_view> BlockHeaderBytes(std::string_view block);

// How a block is stored (docs/format/block.md, "Stored in two parts"): its
// header in the `cold_header` family and, under the same key in `cold`, the
// rest (its bodies) behind a 3-byte tag, so the header is on disk once.
// Blocks stored whole (format 1) stay as they are: JoinBlock returns them.
struct StoredBlock {
  std::string header;  // BlockHeaderBytes
  std::string bodies;  // the `cold` value
};
absl::StatusOr<StoredBlock> SplitBlock(std::string_view block);
// Whether a `cold` value is a whole block, which carries its own header.
bool IsWholeBlock(std::string_view stored);
// The whole block from its header and its bodies (a `cold` value that is not
// a whole block), into `*block`; DATA_LOSS when the bodies' tag is not
// theirs (the header is checked by the decoders).
absl::Status JoinBlock(std::string_view header, std::string_view bodies, std::string* block);

// A block as a reader has it, without joining its parts: `header`, and the
// bodies of a block stored in two parts (the `cold` value's, tag included);
// no `bodies` when `header` is a whole block.
struct BlockView {
  std::string_view header;
  std::optional<std::string_view> bodies;
};
// The view of a block stored in two parts, checked as JoinBlock checks them.
absl::StatusOr<BlockView> ViewBlock(std::string_view header, std::string_view bodies);

absl::StatusOr<std::vector<BlockPoint>> DecodeBlock(std::string_view bytes);
absl::StatusOr<std::vector<BlockPoint>> DecodeBlock(const BlockView& block);

// Decodes times (unless `with_times` is false: a second pass over a block
// whose times a first one decoded), versions if asked, and the columns
// `wanted` accepts. The bodies of other columns are skipped (their header
// fields are checked). `needed_points` (the positions of the points read,
// ascending: a scan's points that passed its conditions) lets DOUBLE columns
// leave the other points' values 0 and skip their work (float_codec.h,
// DecodeDoubles); a list naming a point past the block's is ignored.
absl::StatusOr<BlockColumns> DecodeBlockColumns(
    std::string_view bytes, bool with_versions,
    const std::function<bool(const ColumnSummary&)>& wanted, bool with_times = true,
    const NeededValues* needed_points = nullptr);
// The same of a block read in its parts (a scan's: no copy of the block).
absl::StatusOr<BlockColumns> DecodeBlockColumns(
    const BlockView& block, bool with_versions,
    const std::function<bool(const ColumnSummary&)>& wanted, bool with_times = true,
    const NeededValues* needed_points = nullptr);

}  // namespace strata::format
