// Turns a table scan's rows (storage/read/scan.h) into column batches holding
// only the columns a query reads: a series' dimensions and measure_name come
// from the series (views of strings held for the whole query), time and
// the measure values from each point. Columns the query does not read stay
// empty, so a query pays only for what it uses.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "query/base/vector.h"
#include "query/expr/block_bounds.h"
#include "storage/read/scan.h"
#include "storage/read/table_state.h"
#include "storage/rows/row_codec.h"

namespace strata::query {

// How one series fills a row: its column values (dimensions, measure_name),
// and whether its measure is MULTI (values go to attribute columns by name)
// or scalar (to the measure_value::<type> column).
struct SeriesColumns {
  // (column, value) pairs in a SeriesChunk of the TableColumns.
  absl::Span<const std::pair<int, std::string_view>> values;
  bool multi = false;
};

// Registry entries and their series' column values, views into them. A
// table's columns share the chunks of the layout they extend, so a new
// series costs a chunk of its own, not a copy of every series' values.
struct SeriesChunk {
  std::vector<std::shared_ptr<const SeriesInfo>> registry;
  std::vector<std::pair<int, std::string_view>> values;  // each series' in turn
};

// A MULTI attribute's column and its table-wide type: a value of another
// type (written before the one-type rule) reads as NULL, never converted.
struct AttributeColumn {
  int column = -1;
  ValueType type = ValueType::kDouble;
};

// Where a table's values go in the query's schema.
struct TableColumns {
  std::vector<DataType> types;  // every column of the schema
  int time_column = -1;
  std::map<ValueType, int> scalar_column;                  // measure_value::<type>
  absl::flat_hash_map<std::string, AttributeColumn> attribute_column;  // by name
  absl::flat_hash_map<uint64_t, SeriesColumns> series;     // by series id
  std::vector<std::shared_ptr<const SeriesChunk>> chunks;  // what `series` views
};

// The column a measure value of this name and type fills for `series`, or
// -1 when the query's schema has none (the series is newer than the plan,
// or the value's type is not its column's).
int MeasureColumnOf(const TableColumns& table, const SeriesColumns& series,
                    std::string_view name, ValueType type);

class ScanBatcher {
 public:
  // `read[i]` says whether column i is filled. A whole block in which no
  // point can pass one of `bounds` is skipped. The arguments must outlive
  // the batcher.
  ScanBatcher(const TableColumns& table, const std::vector<bool>& read,
              const std::vector<ValueBound>& bounds);

  // Appends `row` (decoded or encoded); rows of series unknown to `table`
  // (created after the query was planned) are skipped. True when the batch
  // is full; DATA_LOSS for an encoded row that is corrupt.
  absl::StatusOr<bool> Add(const ScanRow& row);
  // Appends the points of a magnetic block inside the block's time range,
  // decoding only the columns read. Calls `full` whenever the batch fills
  // (it must Flush); false from `full` stops, and AddBlock returns false.
  absl::StatusOr<bool> AddBlock(const WholeBlock& block, const std::function<bool()>& full);
  // Appends the rows of a memory-head series inside its time range, as Add
  // would each (with the head's prefetch ahead). Calls `full` as AddBlock.
  absl::StatusOr<bool> AddHeadSeries(const HeadSeries& series, const std::function<bool()>& full);
  // Hands the rows added so far to `push` (columns not read are empty; the
  // batch is valid during the call only), then starts a new batch.
  absl::Status Flush(const std::function<absl::Status(const Batch&)>& push);
  size_t rows() const { return batch_.rows; }
  // Whole blocks skipped by `bounds` so far.
  int64_t blocks_ruled_out() const { return blocks_ruled_out_; }

 private:
  int MeasureColumn(size_t position, std::string_view name, ValueType type);
  // Stores the measure at row `r` if the query reads its column.
  void AddMeasure(size_t r, size_t position, const MeasureView& m);
  // Starts an empty batch. Its columns are sized for a full one (every value
  // NULL) at its first row, not before: the batch a scan's last Flush starts,
  // and a scan that finds no row, cost nothing (~4 % of a one-host query).
  void Clear();
  void SizeForFullBatch();
  int ColumnOf(std::string_view name, ValueType type) const {
    return MeasureColumnOf(table_, *series_, name, type);
  }
  // True if one of bounds_ rules out every point of a block of the current
  // series.
  bool RuledOut(const format::BlockSummary& summary) const;
  // Per point of a block (its bounded columns decoded): 0 where a value
  // bound rules the point out.
  std::vector<uint8_t> PointsThatMayPass(const format::BlockColumns& bounded) const;
  // Makes `series` current; false if it is unknown.
  bool SelectSeries(uint64_t series);
  // Starts a row: the series' columns and the time. Returns its index.
  size_t StartRow(int64_t time_nanos);

  const TableColumns& table_;
  const std::vector<bool>& read_;
  const std::vector<ValueBound>& bounds_;
  int64_t blocks_ruled_out_ = 0;
  std::vector<int> read_columns_;
  bool sized_ = false;  // read columns sized for a full batch (SizeForFullBatch)
  Batch batch_;
  uint64_t last_series_ = UINT64_MAX;
  const SeriesColumns* series_ = nullptr;
  std::vector<std::pair<int, std::string_view>> series_values_;  // of series_, columns read
  // The attribute column last found for each measure position: a series'
  // points usually list their attributes in the same order.
  struct CachedColumn {
    std::string name;
    ValueType type = ValueType::kDouble;
    int column = -1;
  };
  std::vector<CachedColumn> position_cache_;
  // The attribute columns of the last shape of the memory head's compact
  // rows (storage/rows/head_rows.h), by measure position (-1: not read).
  uint64_t cached_shape_serial_ = 0;  // RowShape::serial(); 0: none
  std::vector<int> shape_columns_;
  std::vector<std::pair<size_t, int>> shape_reads_;  // (position, column) of those read
  // Each of bounds_ with the position of the shape's value that feeds its
  // column (-1: none, so the column is NULL in the shape's rows).
  std::vector<std::pair<const ValueBound*, int>> shape_bounds_;
  // False if the compact row `values` (of a fixed-layout shape) fails one of
  // bounds_: the row is dropped before any of its columns is filled.
  bool FixedRowMayPass(std::string_view values, const RowShape& shape) const;
  const std::vector<int>& ShapeColumns(const RowShape& shape);
  // Appends rows of the head of one fixed-layout shape (storage/rows/head_rows.h)
  // a column at a time: each read value read from its fixed offset in a
  // tight loop, the series' columns filled once for the run. The rows must
  // fit in the batch. False if a row is corrupt.
  bool AddFixedRun(absl::Span<const HeadRow> rows, const RowShape& shape);
  // The same for a shape whose values are not all of fixed size: each row's
  // values read in turn into their columns, the series' columns filled once
  // for the run. False if a row is corrupt.
  bool AddShapeRun(absl::Span<const HeadRow> rows, const RowShape& shape);
  // Stores the values of `compact`, a compact row of `shape`, at row `r`
  // (`columns`: ShapeColumns(shape)). False if the row is corrupt.
  bool StoreShapeRow(std::string_view compact, const RowShape& shape,
                     const std::vector<int>& columns, size_t r);
  // Starts run_times_.size() rows: the series' columns and the times.
  // Returns the first row's index.
  size_t StartRun();
  std::vector<const char*> run_values_;  // AddFixedRun's scratch: each row's values
  std::vector<int64_t> run_times_;       // the runs' scratch: each row's time
  void StoreMeasure(size_t r, int column, const MeasureView& m);
};

}  // namespace strata::query
