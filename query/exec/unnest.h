// UNNEST: each input row joined with the elements of its arrays or the
// points of its time series (CROSS JOIN UNNEST(series) AS t(time, value)).
#pragma once

#include <memory>
#include <vector>

#include "query/exec/operators.h"
#include "query/expr/expr.h"

namespace strata::query {

// The columns one UNNEST argument of type `type` adds: one for an array of
// scalars, one per field for an array of rows, time and value for a time
// series. Empty when the type cannot be unnested.
std::vector<DataType> UnnestColumnTypes(DataType type);

struct UnnestSpec {
  std::vector<const Expr*> args;  // bound to the input row
  bool with_ordinality = false;
  int input_width = 0;
  std::vector<DataType> output_types;  // the input's columns, then the unnested ones
};

// Pushes, for every input row, one row per element of the longest argument
// (the shorter ones NULL there); a row whose arguments are all empty or
// NULL adds none.
std::unique_ptr<BatchSink> MakeUnnest(const UnnestSpec* spec, QueryContext* context,
                                      BatchSink* next);

}  // namespace strata::query
