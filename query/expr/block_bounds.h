// Block min/max pruning: the conjuncts of WHERE that compare a measure column
// with a constant (`usage > 90`, `90 < usage`, `n BETWEEN 1 AND 5`, `x = 3`)
// bound the values a row may hold. A magnetic block's header carries each
// column's null count, min and max, so a block in which no value can pass a
// bound is skipped without decoding it. Pruning never changes a result: the
// WHERE filter still runs on every row read.
#pragma once

#include <string>
#include <vector>

#include "query/expr/expr.h"
#include "storage/blocks/block.h"

namespace strata::query {

// The comparisons a bound may make, the column on the left.
enum class BoundOp { kLess, kLessOrEqual, kGreater, kGreaterOrEqual, kEqual };
// "<", "<=", ">", ">=", "=": for EXPLAIN and test messages.
const char* BoundOpName(BoundOp op);

// `column <op> value`, with the column on the left. An enum, not the SQL spelling: it is
// judged at every point a block's bounded column holds.
struct ValueBound {
  int column = -1;
  DataType type = DataType::kUnknown;  // the column's: DOUBLE, BIGINT or TIMESTAMP
  BoundOp op = BoundOp::kEqual;
  Datum value;
  std::string text;  // for EXPLAIN
};

// The bounds among `conjuncts` on columns at or after `first_measure_column`
// (the measure values, whose blocks have min/max).
std::vector<ValueBound> ExtractValueBounds(const std::vector<const Expr*>& conjuncts,
                                           int first_measure_column,
                                           const EvalContext& context);

// True if no point of a block can pass `bound`, given the summary of the
// block's column that feeds the bound's column (nullptr: the block has no
// such column, so every point holds NULL there) and the block's point count.
bool RulesOut(const ValueBound& bound, const format::ColumnSummary* column, uint32_t count);

// Clears `keep[i]` (one per point of a block) at each point whose value in
// the block column `values` (the column that feeds the bound's) fails
// `bound` or is absent (NULL, which WHERE drops); values of another type than
// the bound's column are not judged. Late materialization: only points that
// may pass are decoded further.
void ClearPointsThatFail(const ValueBound& bound, const format::ColumnValues& values,
                         std::vector<uint8_t>* keep);
// False if a DOUBLE value `v` of the bound's column fails `bound` (a bound on
// a BIGINT or TIMESTAMP column does not judge it: true).
bool DoubleMayPass(const ValueBound& bound, double v);

}  // namespace strata::query
