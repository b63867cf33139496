// A scheduled query's target: which table its result rows are written to and
// how each result column becomes part of a record (Timestream's mapping
// model: a time column, dimension columns, and either one multi-measure
// record per row or mixed measures chosen per row). The scheduler's own
// type; scheduled_query_proto.h reads it from the API's TargetConfiguration.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "storage/rows/write_types.h"

namespace strata {

struct TargetSpec {
  // A result column written as a measure (or a multi-measure attribute).
  struct AttributeMapping {
    std::string source_column;
    std::string target_name;          // empty: the source column's name
    std::optional<MeasureKind> type;  // nullopt: not given (or unknown)
  };
  // One multi-measure record per row.
  struct MultiMeasures {
    std::string target_measure_name;  // empty: the measure name column's value
    std::vector<AttributeMapping> attributes;
  };
  // A measure of the mixed model, for rows whose measure name column holds
  // `measure_name` (or every row without a measure name column).
  struct MixedMeasure {
    std::string measure_name;
    std::string source_column;
    std::string target_measure_name;
    std::optional<MeasureKind> type;  // kMulti: `attributes` are its values
    std::vector<AttributeMapping> attributes;
  };

  std::string database_name;
  std::string table_name;
  std::string time_column;
  std::vector<std::string> dimensions;  // result columns written as dimensions
  std::optional<MultiMeasures> multi;   // exactly one of `multi` and `mixed`
  std::vector<MixedMeasure> mixed;
  std::string measure_name_column;      // empty: none
};

}  // namespace strata
