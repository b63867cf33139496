// How a scheduled query's result rows become records of its target table
// (a TargetSpec, Timestream's mapping model): checked once against the
// query's result columns, then applied row by row.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "query/engine.h"
#include "server/scheduler/target_spec.h"
#include "storage/rows/write_types.h"

namespace strata {

class TargetMapping {
 public:
  // INVALID_ARGUMENT naming the column or mapping that is wrong: a missing
  // or mistyped column, a result column nothing maps, a mapping with
  // neither or both measure mapping kinds.
  static absl::StatusOr<TargetMapping> Compile(const TargetSpec& target,
                                               const std::vector<query::ResultColumn>& columns);

  // Appends the records of one result row, each carrying `version`. A row
  // with no non-NULL measure adds none; a row that cannot become a record
  // (NULL time, no mapping for its measure name) is an error saying why.
  absl::Status Map(const query::Row& row, int64_t version, std::vector<InputRecord>* out) const;

 // The compiled form (public for the compiler's helpers).
  struct Attribute {
    int column = -1;
    std::string name;
    MeasureKind kind = MeasureKind::kDouble;
  };
  // One record per row (multi-measure mappings, or one mixed mapping).
  struct Measure {
    std::string match;  // the measure name column's value it applies to
    std::string measure_name;  // empty: the measure name column's value
    bool multi = false;
    std::vector<Attribute> attributes;  // one, unnamed, for a scalar measure
  };

 private:
  int time_column_ = -1;
  std::vector<std::pair<int, std::string>> dimensions_;
  int measure_name_column_ = -1;
  // Selected by the measure name column (mixed mappings with one), else all.
  bool select_by_name_ = false;
  std::vector<Measure> measures_;
};

}  // namespace strata
