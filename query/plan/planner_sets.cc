// Planner: UNION, INTERSECT and EXCEPT (query/exec/set_operation.h runs them:
// SetOperationNode).
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/source_nodes.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

std::string_view OperationName(SetOperation op) {
  switch (op) {
    case SetOperation::kUnion: return "UNION";
    case SetOperation::kIntersect: return "INTERSECT";
    case SetOperation::kExcept: return "EXCEPT";
    case SetOperation::kNone: break;
  }
  return "?";
}

}  // namespace

std::optional<DataType> UnionColumnType(DataType a, DataType b) {
  if (a == DataType::kUnknown) return b;
  if (b == DataType::kUnknown || a == b) return a;
  if (!IsNumeric(a) || !IsNumeric(b) || a == DataType::kTimestamp || b == DataType::kTimestamp) {
    return std::nullopt;
  }
  return DataType::kDouble;
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::PlanSetOperation(SelectStmt& select) {
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> left, PlanSelect(std::move(select.set_left)));
  if (!select.set_right) return left;  // `(query ORDER BY a) ORDER BY b`: one operand
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> right, PlanSelect(std::move(select.set_right)));
  return CombineSetOperation(std::move(left), std::move(right), select.set_operation,
                             select.set_all);
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::CombineSetOperation(std::shared_ptr<Plan> left,
                                                                   std::shared_ptr<Plan> right,
                                                                   SetOperation op, bool all) {
  const std::string_view name = OperationName(op);
  if (left->output.size() != right->output.size()) {
    return SqlError(sql_, {0}, StrCat(name, ": the queries return ", left->output.size(), " and ",
                                      right->output.size(), " columns; they must return the same "
                                      "number"));
  }
  // Column names come from the left query, types from both: NULL takes the
  // other side's, BIGINT with DOUBLE is DOUBLE; other mixes need a CAST.
  auto plan = std::make_shared<Plan>();
  plan->output = left->output;
  for (size_t c = 0; c < plan->output.size(); ++c) {
    DataType& t = plan->output[c].type;
    const DataType r = right->output[c].type;
    const std::optional<DataType> common = UnionColumnType(t, r);
    if (!common) {
      return SqlError(
          sql_, {0},
          StrCat(name, ": column ", c + 1, " (\"", plan->output[c].name, "\") is ", TypeName(t),
                 " on the left and ", TypeName(r), " on the right; CAST one side"));
    }
    t = *common;
    plan->output[c].qualifier.clear();
  }
  plan->root = std::make_shared<SetOperationNode>(left, right, plan->output, op, all,
                                                  StrCat(name, all ? " ALL" : ""));
  return plan;
}

}  // namespace strata::query
