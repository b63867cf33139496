// What planning a scan needs from a table's series registry and measure
// schema: the table's columns, where a scan's values go, and every series
// with its partition and its dimension values as a batch (so WHERE conjuncts
// over dimensions run once per series as vector loops). Deriving it walks
// every series, which cost more than a small query itself; the cache builds
// it once and shares it between queries; a change of the registry
// (TableState::generation) extends it by the new series and measures, or
// builds it anew when a new dimension name came.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "query/base/vector.h"
#include "query/exec/scan_batcher.h"
#include "query/expr/expr.h"
#include "storage/catalog/catalog_types.h"
#include "storage/read/scan.h"
#include "storage/read/table_state.h"

namespace strata::query {

inline constexpr std::string_view kTimeColumn = "time";
inline constexpr std::string_view kMeasureNameColumn = "measure_name";

// The column a scalar measure of `type` is read as: measure_value::<type>.
std::string_view ScalarColumnName(ValueType type);
DataType ToDataType(ValueType type);
// The stored value type a column of `type` can be written as (ToDataType's inverse), if any.
std::optional<ValueType> ToValueType(DataType type);
// A Datum (not NULL) of the SQL type that ToDataType(`type`) names, as a stored value (a
// BIGINT one as a DOUBLE too): what INSERT and a scheduled query's target write.
Value ToStoredValue(const Datum& d, ValueType type);

// Rows of a layout's series batch by the value of one series column, made
// for a column the first time a query looks a value up in it (WHERE
// hostname = 'x', or IN): a query naming a few series of a table of 100,000
// finds them without comparing every series' value (~10 ms). Each column's
// postings are one array of (value hash, row) sorted: made by a sort of
// integers (sorting the values themselves was a fifth of a layout's build,
// comparing strings scattered in memory), and merged in one pass when a
// layout is extended by a few series. Thread-safe.
class SeriesPostings {
 public:
  // A value's hash; values that share one are told apart by comparing them.
  using Hash = uint64_t (*)(std::string_view value);
  static uint64_t DefaultHash(std::string_view value);
  explicit SeriesPostings(Hash hash = DefaultHash) : hash_(hash) {}

  // The rows of `series_batch` (the layout's, which must outlive this)
  // whose VARCHAR `column` holds `value`, in ascending order.
  std::vector<uint32_t> Find(const Batch& series_batch, int column, std::string_view value) const;
  // The postings `old` has made, for `series_batch`: old row i is row
  // `moved[i]` now (ascending), and the rows `added` (ascending) are new.
  // Both must hash alike.
  void Extend(const SeriesPostings& old, const std::vector<uint32_t>& moved,
              const std::vector<uint32_t>& added, const Batch& series_batch);

 private:
  // One column's rows holding a value, sorted by (hash of the value, row).
  struct Column {
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> rows;
  };
  std::unique_ptr<const Column> Make(const Vector& values, const std::vector<uint32_t>& rows) const;
  const Hash hash_;
  mutable absl::Mutex mu_;
  // By column; a column's postings are only read once made.
  mutable absl::flat_hash_map<int, std::unique_ptr<const Column>> by_column_
      ABSL_GUARDED_BY(mu_);
};

// Immutable once built (but for its postings, made as queries need them).
struct TableLayout {
  // Dimensions (sorted by name), measure_name, time, the measure_value::
  // columns of the table's scalar types, then its MULTI attributes (by
  // name). Qualifiers are empty: the planner sets the query's alias.
  Schema schema;
  int measure_name_column = -1;
  int time_column = -1;
  // Columns [0, series_columns) hold a series' values: dimensions and
  // measure_name.
  int series_columns = 0;
  std::shared_ptr<const TableColumns> columns;
  // Row i of `series_batch` is series `series[i]`: its series columns as
  // views into `columns` (other columns empty).
  std::vector<SeriesTarget> series;
  Batch series_batch;
  int64_t partitions = 0;  // distinct partitions among `series`
  SeriesPostings postings;  // of `series_batch`

  // What extending the layout needs: how many of the registry's series (in
  // registration order) it holds, the schema generation they were read at
  // (the same: its measure columns stand), the dimensions' columns and the
  // table's measures (MULTI or not).
  size_t registered = 0;
  uint64_t schema_generation = 0;
  absl::flat_hash_map<std::string, int> dimension_column;
  absl::flat_hash_map<std::string, bool> measure_is_multi;
};

// Builds the layout of `table` from `state` (a copy of its registry).
std::shared_ptr<const TableLayout> BuildTableLayout(const TableInfo& table,
                                                    const TableState& state);
// `old` with the series, measures and attributes `state` registered since
// it was built, sharing what they do not change (O(series) copies of flat
// arrays, not a rebuild: at 100,000 series ~0.5 s became 20-50 ms); `old`
// itself when nothing was; nullptr when a new dimension name came (its
// column goes among the dimensions'): build anew then.
std::shared_ptr<const TableLayout> ExtendTableLayout(const TableInfo& table,
                                                     const std::shared_ptr<const TableLayout>& old,
                                                     const TableState& state);

// Thread-safe. Holds the layouts of recently queried tables, each while its
// table's state lives: a dropped table's layout (for a table of many series,
// megabytes) is let go at the next miss once its state is freed.
class TableLayoutCache {
 public:
  // The layout of `table`, made again only if the registry changed since:
  // extended (ExtendTableLayout), else built anew.
  std::shared_ptr<const TableLayout> Get(const TableInfo& table,
                                         const std::shared_ptr<const TableState>& state);

 private:
  struct Entry {
    // Not an owner: the writer frees a dropped table's state after the
    // sweep, and an expired entry is stale (even if a new state reuses the
    // address).
    std::weak_ptr<const TableState> state;
    uint64_t generation = 0;
    std::shared_ptr<const TableLayout> layout;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<uint32_t, Entry> by_table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::query
