// Planner: joins. FROM's tree is walked twice: PrepareFrom resolves every
// item's schema (tables by their layout, subqueries and WITH queries by
// planning them), then BuildFrom builds the sources top-down, moving each
// WHERE and ON conjunct as far down as the join kinds allow, so a conjunct
// on one table becomes that table's scan pushdown (time range, series
// selection, block pruning) before any row reaches the join. Equalities
// between the two sides become the hash join's keys; the rest of ON is
// checked on each matching pair.
#include <algorithm>

#include "absl/strings/match.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/hash_join.h"
#include "query/expr/vector_eval.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {
namespace {

enum Side : int { kNeither = 0, kLeftSide = 1, kRightSide = 2, kBothSides = 3, kUnresolved = 4 };

// How many visible columns of `schema` the column reference `e` names.
int Matches(const Schema& schema, const Expr& e) {
  int n = 0;
  for (const ColumnInfo& c : schema) {
    if (c.name == e.name && (e.qualifier.empty() ? !c.hidden : c.qualifier == e.qualifier)) ++n;
  }
  return n;
}

// Which sides' columns `e` reads. kUnresolved when a name is missing or
// ambiguous (binding above the join then says so), or when the conjunct
// holds an aggregate or a window function (which cannot move).
int SideOf(const Expr& e, const Schema& left, const Schema& right) {
  if (e.kind == ExprKind::kColumn) {
    const int l = Matches(left, e), r = Matches(right, e);
    if (l + r != 1) return kUnresolved;
    return l == 1 ? kLeftSide : kRightSide;
  }
  if (e.kind == ExprKind::kCall && (e.window || FunctionRegistry::Get().FindAggregate(e.name))) {
    return kUnresolved;
  }
  int side = kNeither;
  for (const ExprPtr& a : e.args) side |= SideOf(*a, left, right);
  return side;
}

std::string_view KindName(JoinKind kind) {
  switch (kind) {
    case JoinKind::kInner: return "INNER";
    case JoinKind::kLeft: return "LEFT";
    case JoinKind::kRight: return "RIGHT";
    case JoinKind::kFull: return "FULL";
    case JoinKind::kCross: return "CROSS";
    case JoinKind::kNone: break;
  }
  return "?";
}

int64_t SaturatingProduct(int64_t a, int64_t b) {
  if (a > 0 && b > INT64_MAX / a) return INT64_MAX;
  return a * b;
}

void CollectFromNames(const TableRef& ref, std::vector<std::pair<std::string, std::string>>* out,
                      bool* star) {
  if (ref.on) CollectColumnNames(*ref.on, out, star);
  for (const ExprPtr& e : ref.unnest) CollectColumnNames(*e, out, star);
  for (const std::string& name : ref.using_columns) out->emplace_back("", name);
  if (ref.left) CollectFromNames(*ref.left, out, star);
  if (ref.right) CollectFromNames(*ref.right, out, star);
}

// NATURAL JOIN's columns: the visible names of the left side that the
// right side has too, in the left side's order, each once.
std::vector<std::string> NaturalJoinColumns(const Schema& left, const Schema& right) {
  std::vector<std::string> names;
  for (const ColumnInfo& l : left) {
    if (l.hidden || std::find(names.begin(), names.end(), l.name) != names.end()) continue;
    const bool shared = std::any_of(right.begin(), right.end(), [&](const ColumnInfo& r) {
      return !r.hidden && r.name == l.name;
    });
    if (shared) names.push_back(l.name);
  }
  return names;
}

}  // namespace

absl::StatusOr<Planner::Source> Planner::PlanJoin(SelectStmt& select) {
  // The columns the statement names: a joined table decodes only those.
  used_columns_.clear();
  uses_star_ = false;
  for (const SelectItem& item : select.items) {
    CollectColumnNames(*item.expr, &used_columns_, &uses_star_);
  }
  for (const ExprPtr* e : {&select.where, &select.having}) {
    if (*e) CollectColumnNames(**e, &used_columns_, &uses_star_);
  }
  for (const ExprPtr& g : select.group_by) CollectColumnNames(*g, &used_columns_, &uses_star_);
  for (const OrderItem& o : select.order_by) {
    CollectColumnNames(*o.expr, &used_columns_, &uses_star_);
  }
  CollectFromNames(*select.from, &used_columns_, &uses_star_);

  ASSIGN_OR_RETURN(std::unique_ptr<FromNode> root, PrepareFrom(*select.from));
  std::vector<ExprPtr> conjuncts;
  if (select.where) {
    if (ContainsAggregate(*select.where)) {
      return SqlError(sql_, select.where->pos,
                      "aggregates are not allowed in WHERE; use HAVING after GROUP BY");
    }
    conjuncts = TakeConjuncts(std::move(select.where));
  }
  // Every WHERE conjunct is applied inside the join tree (pushed down, or
  // as a filter on the join that needs both sides).
  return BuildFrom(*root, std::move(conjuncts));
}

absl::StatusOr<std::unique_ptr<Planner::FromNode>> Planner::PrepareFrom(TableRef& ref) {
  RETURN_IF_ERROR(context_->CheckAlive());
  auto node = std::make_unique<FromNode>();
  node->ref = &ref;
  if (!ref.unnest.empty()) {  // FROM UNNEST(...) alone: over one empty row
    ASSIGN_OR_RETURN(node, PrepareUnnest(ref, {}));
    node->planned = UnnestSource(*node, OneRowSource());
    return node;
  }
  if (ref.join == JoinKind::kNone) {
    QualifyTable(ref);
    ASSIGN_OR_RETURN(std::optional<Source> system,
                     ref.subquery || ref.database.empty() ? std::optional<Source>()
                                                          : PlanSystemTable(ref));
    if (system) {
      node->schema = system->schema();
      node->planned = std::move(system);
    } else if (!ref.subquery && !ref.database.empty()) {
      RETURN_IF_ERROR(RefuseTableColumnAliases(ref));
      ASSIGN_OR_RETURN(std::optional<Source> sharded, PlanShardedTable(ref, nullptr));
      if (sharded) {
        node->schema = sharded->schema();
        node->planned = std::move(sharded);
      } else {
        ASSIGN_OR_RETURN(ResolvedTable table, ResolveTable(ref));
        node->schema = std::move(table.schema);
      }
    } else {
      ASSIGN_OR_RETURN(Source planned, PlanInnerQuery(ref));
      node->schema = planned.schema();
      node->planned = std::move(planned);
    }
    return node;
  }
  ASSIGN_OR_RETURN(node->left, PrepareFrom(*ref.left));
  if (!ref.right->unnest.empty()) {
    // UNNEST reads the rows before it: a lateral cross join.
    if (ref.join != JoinKind::kCross) {
      return SqlError(sql_, ref.pos, "UNNEST joins with CROSS JOIN UNNEST(...) or a comma; "
                                     "filter its rows in WHERE");
    }
    ASSIGN_OR_RETURN(node->right, PrepareUnnest(*ref.right, node->left->schema));
    node->schema = node->left->schema;
    node->schema.insert(node->schema.end(), node->right->schema.begin(),
                        node->right->schema.end());
    return node;
  }
  const bool lateral = ref.right->lateral && ref.right->subquery;
  if (lateral) {
    RETURN_IF_ERROR(RewriteLateralJoin(ref));
    // Its keys' outer columns are read by the join now (the statement's were collected before).
    if (ref.on) CollectColumnNames(*ref.on, &used_columns_, &uses_star_);
  }
  absl::StatusOr<std::unique_ptr<FromNode>> prepared = PrepareFrom(*ref.right);
  if (lateral && !prepared.ok() &&
      absl::StrContains(prepared.status().message(), "does not exist")) {
    // An outer column the subquery names where it cannot be read: say where it can, before
    // the statement's line and caret.
    const absl::string_view message = prepared.status().message();
    const size_t line = std::min(message.find("\nLINE "), message.size());
    return absl::Status(prepared.status().code(),
                        StrCat(message.substr(0, line),
                               "; a LATERAL subquery reads the items before it only as `inner = "
                               "outer.column` in its WHERE, naming the outer item",
                               message.substr(line)));
  }
  ASSIGN_OR_RETURN(node->right, std::move(prepared));
  const Schema& left = node->left->schema;
  const Schema& right = node->right->schema;
  node->schema = left;
  node->schema.insert(node->schema.end(), right.begin(), right.end());
  if (ref.natural) {
    ref.using_columns = NaturalJoinColumns(left, right);
    if (ref.using_columns.empty()) ref.join = JoinKind::kCross;
    // The scans below this join read the shared columns too.
    for (const std::string& name : ref.using_columns) used_columns_.emplace_back("", name);
  }
  for (const std::string& name : ref.using_columns) {
    Expr column;
    column.kind = ExprKind::kColumn;
    column.name = name;
    auto find = [&](const Schema& schema, std::string_view side) -> absl::StatusOr<int> {
      int found = -1;
      for (size_t i = 0; i < schema.size(); ++i) {
        if (schema[i].hidden || schema[i].name != name) continue;
        if (found >= 0) {
          return SqlError(sql_, ref.pos, StrCat("USING column \"", name, "\" is ambiguous on the ",
                                                side, " side of the join"));
        }
        found = static_cast<int>(i);
      }
      if (found < 0) {
        return SqlError(sql_, ref.pos, StrCat("USING column \"", name, "\" is not a column of the ",
                                              side, " side of the join"));
      }
      return found;
    };
    ASSIGN_OR_RETURN(int l, find(left, "left"));
    ASSIGN_OR_RETURN(int r, find(right, "right"));
    const DataType lt = left[l].type, rt = right[r].type;
    if (lt != rt && !(IsNumeric(lt) && IsNumeric(rt)) && lt != DataType::kUnknown &&
        rt != DataType::kUnknown) {
      return SqlError(sql_, ref.pos, StrCat("USING column \"", name, "\" is ", TypeName(lt),
                                            " on the left and ", TypeName(rt), " on the right"));
    }
    node->schema[left.size() + r].hidden = true;
    node->using_columns.emplace_back(l, r);
  }
  return node;
}

namespace {

struct ScanColumn {
  const TableScanNode* scan;
  int column;  // a series column of the scan
};

// The table scan's series column that `column` of `node` carries down through nodes that keep
// or drop rows by it alike (PlanNode::ColumnBelow): a join's dynamic filter there narrows the
// series the scan reads, through a subquery's filters, projections, groups and windows.
std::optional<ScanColumn> SeriesColumnBelow(const PlanNode& top, int column) {
  const PlanNode* node = &top;
  while (true) {
    if (const auto* scan = dynamic_cast<const TableScanNode*>(node)) {
      if (column >= scan->series_columns()) return std::nullopt;
      return ScanColumn{scan, column};
    }
    column = node->ColumnBelow(column);
    if (column < 0 || node->inputs().empty()) return std::nullopt;
    node = node->inputs()[0].get();
  }
}

}  // namespace

// A single FROM item: a table scan with `pushed` as its WHERE, or a planned
// subquery with `pushed` as a filter on its rows.
absl::StatusOr<Planner::Source> Planner::BuildFromItem(FromNode& node,
                                                       std::vector<ExprPtr> pushed) {
  auto where = std::make_shared<SelectStmt>();
  where->where = JoinConjuncts(std::move(pushed));
  Source source;
  if (node.planned) {
    source = std::move(*node.planned);
    if (where->where) RETURN_IF_ERROR(BindWhere(*where->where, source.schema()));
  } else {
    ASSIGN_OR_RETURN(source, PlanTable(*node.ref, *where));
    // PlanTable leaves the conjuncts the scan does not answer, bound.
    std::vector<bool>& read = source.scan->columns_read();
    const Schema& schema = source.schema();
    for (size_t c = 0; c < schema.size(); ++c) {
      const ColumnInfo& column = schema[c];
      read[c] = uses_star_ ||
                std::any_of(used_columns_.begin(), used_columns_.end(), [&](const auto& used) {
                  return used.second == column.name &&
                         (used.first.empty() || used.first == column.qualifier);
                });
    }
    if (where->where) MarkColumns(*where->where, &read);
    source.scan->ShowColumnsRead();
    // Not the single-table fast paths: the join needs every row.
    source.scan = nullptr;
  }
  if (where->where) {
    const Expr* predicate = where->where.get();
    source.node = std::make_shared<FilterNode>(std::move(source.node), predicate, where);
  }
  return source;
}

void Planner::NarrowBuildSide(const FromNode& node, JoinSpec* spec) const {
  const Schema& left_schema = node.left->schema;
  const Schema& right_schema = node.right->schema;
  const Schema& build_schema = spec->build_left ? left_schema : right_schema;
  const size_t offset = spec->build_left ? 0 : left_schema.size();
  std::vector<bool> need(build_schema.size(), false);
  for (size_t c = 0; c < build_schema.size(); ++c) {
    need[c] = std::any_of(used_columns_.begin(), used_columns_.end(), [&](const auto& used) {
      return used.second == build_schema[c].name &&
             (used.first.empty() || used.first == build_schema[c].qualifier);
    });
  }
  if (spec->residual != nullptr) {
    std::vector<bool> joined(node.schema.size(), false);
    MarkColumns(*spec->residual, &joined);
    for (size_t c = 0; c < build_schema.size(); ++c) need[c] = need[c] || joined[offset + c];
  }
  for (auto [l, r] : node.using_columns) need[spec->build_left ? l : r] = true;
  spec->narrow_build = true;
  for (size_t c = 0; c < need.size(); ++c) {
    if (need[c]) spec->build_keep.push_back(static_cast<int>(c));
  }
}

absl::StatusOr<Planner::Source> Planner::BuildFrom(FromNode& node, std::vector<ExprPtr> pushed) {
  if (node.ref->join == JoinKind::kNone) return BuildFromItem(node, std::move(pushed));

  const Schema& left_schema = node.left->schema;
  const Schema& right_schema = node.right->schema;
  std::vector<ExprPtr> to_left, to_right, condition, above;
  if (node.right->unnest) {
    // CROSS JOIN UNNEST: conjuncts on the left side filter before it, the
    // rest after.
    for (ExprPtr& c : pushed) {
      (SideOf(*c, left_schema, right_schema) == kLeftSide ? to_left : above)
          .push_back(std::move(c));
    }
    ASSIGN_OR_RETURN(Source left, BuildFrom(*node.left, std::move(to_left)));
    Source source = UnnestSource(*node.right, std::move(left));
    return FilterAbove(std::move(source), std::move(above));
  }

  // A join: sort the conjuncts from above (WHERE, or the join around this
  // one) and from ON by the sides they read and what the join kind allows.
  const JoinKind kind = node.ref->join;
  const bool inner = kind == JoinKind::kInner || kind == JoinKind::kCross;
  for (ExprPtr& c : pushed) {
    const int side = SideOf(*c, left_schema, right_schema);
    if (side == kLeftSide && (inner || kind == JoinKind::kLeft)) {
      to_left.push_back(std::move(c));
    } else if (side == kRightSide && (inner || kind == JoinKind::kRight)) {
      to_right.push_back(std::move(c));
    } else if (inner && side != kUnresolved) {
      condition.push_back(std::move(c));
    } else {
      above.push_back(std::move(c));
    }
  }
  if (node.ref->on) {
    if (ContainsAggregate(*node.ref->on) || ContainsWindow(*node.ref->on)) {
      return SqlError(sql_, node.ref->on->pos, "ON cannot use aggregates or window functions");
    }
    for (ExprPtr& c : TakeConjuncts(std::move(node.ref->on))) {
      const int side = SideOf(*c, left_schema, right_schema);
      // A condition on the side whose rows are kept whatever it says stays
      // in the join; one on the side that only supplies matches filters it.
      if (side == kLeftSide && (kind == JoinKind::kInner || kind == JoinKind::kRight)) {
        to_left.push_back(std::move(c));
      } else if (side == kRightSide && (kind == JoinKind::kInner || kind == JoinKind::kLeft)) {
        to_right.push_back(std::move(c));
      } else {
        condition.push_back(std::move(c));
      }
    }
  }
  ASSIGN_OR_RETURN(Source left, BuildFrom(*node.left, std::move(to_left)));
  ASSIGN_OR_RETURN(Source right, BuildFrom(*node.right, std::move(to_right)));

  auto spec = std::make_shared<JoinSpec>();
  auto owned = std::make_shared<std::vector<ExprPtr>>();  // keys and conditions the spec points at
  spec->kind = kind;
  spec->left_width = static_cast<int>(left_schema.size());
  spec->right_width = static_cast<int>(right_schema.size());
  for (const ColumnInfo& c : node.schema) spec->output_types.push_back(c.type);
  spec->using_columns = node.using_columns;
  std::vector<std::string> key_text;
  for (auto [l, r] : node.using_columns) {
    for (int side = 0; side < 2; ++side) {
      auto key = std::make_unique<Expr>();
      key->kind = ExprKind::kColumn;
      key->name = left_schema[l].name;
      key->bound.column = side == 0 ? l : r;
      key->bound.type = side == 0 ? left_schema[l].type : right_schema[r].type;
      (side == 0 ? spec->left_keys : spec->right_keys).push_back(key.get());
      owned->push_back(std::move(key));
    }
    key_text.push_back(StrCat(left_schema[l].qualifier, ".", left_schema[l].name, " = ",
                              right_schema[r].qualifier, ".", right_schema[r].name));
  }
  std::vector<ExprPtr> residual;
  for (ExprPtr& c : condition) {
    // Type-check the whole condition against the joined row first.
    ExprPtr checked = c->Clone();
    RETURN_IF_ERROR(BindWhere(*checked, node.schema));
    if (c->kind == ExprKind::kBinary && c->name == "=") {
      int a = SideOf(*c->args[0], left_schema, right_schema);
      int b = SideOf(*c->args[1], left_schema, right_schema);
      if ((a == kLeftSide && b == kRightSide) || (a == kRightSide && b == kLeftSide)) {
        ExprPtr lk = c->args[a == kLeftSide ? 0 : 1]->Clone();
        ExprPtr rk = c->args[a == kLeftSide ? 1 : 0]->Clone();
        RETURN_IF_ERROR(Bind(*lk, left_schema, sql_));
        RETURN_IF_ERROR(Bind(*rk, right_schema, sql_));
        key_text.push_back(StrCat(lk->ToString(), " = ", rk->ToString()));
        spec->left_keys.push_back(lk.get());
        spec->right_keys.push_back(rk.get());
        owned->push_back(std::move(lk));
        owned->push_back(std::move(rk));
        continue;
      }
    }
    residual.push_back(std::move(checked));
  }
  if (ExprPtr on = JoinConjuncts(std::move(residual))) {
    spec->residual = on.get();
    owned->push_back(std::move(on));
  }
  // Hold the side estimated smaller; for an outer join either side works
  // (the build side's unmatched rows are sent at the end).
  spec->build_left = left.node->estimated_rows() < right.node->estimated_rows();
  // The build side holds only the columns something after the join reads.
  if (!uses_star_) NarrowBuildSide(node, spec.get());
  // A dynamic filter: when the probe side is a table scan whose key is a
  // dimension (or measure_name), and probe rows without a match are dropped,
  // the scan reads only the series with the build side's key values.
  const bool probe_kept = kind == JoinKind::kFull ||
                          (kind == JoinKind::kLeft && !spec->build_left) ||
                          (kind == JoinKind::kRight && spec->build_left);
  const PlanNode& probe = *(spec->build_left ? right : left).node;
  const std::vector<const Expr*>& probe_keys = spec->build_left ? spec->right_keys : spec->left_keys;
  std::string dynamic_filter;
  for (size_t k = 0; k < probe_keys.size() && !probe_kept; ++k) {
    const Expr& key = *probe_keys[k];
    if (key.kind != ExprKind::kColumn || key.bound.type != DataType::kVarchar) continue;
    if (std::optional<ScanColumn> below = SeriesColumnBelow(probe, key.bound.column)) {
      spec->probe_restriction = below->scan->series_restriction();
      spec->probe_restriction->column = below->column;
      spec->restrict_key = static_cast<int>(k);
      dynamic_filter = StrCat(" dynamic-filter=", key.ToString());
      break;
    }
  }

  int64_t estimated_rows;
  const int64_t left_rows = left.node->estimated_rows(), right_rows = right.node->estimated_rows();
  switch (kind) {
    case JoinKind::kLeft: estimated_rows = left_rows; break;
    case JoinKind::kRight: estimated_rows = right_rows; break;
    case JoinKind::kFull: estimated_rows = left_rows + right_rows; break;
    default:
      estimated_rows = spec->left_keys.empty() ? SaturatingProduct(left_rows, right_rows)
                                               : std::max(left_rows, right_rows);
  }
  std::string keys;
  for (size_t i = 0; i < key_text.size(); ++i) keys += (i ? ", " : "") + key_text[i];
  std::string description = StrCat(
      spec->left_keys.empty() ? "NestedLoopJoin " : "HashJoin ", KindName(kind),
      keys.empty() ? "" : StrCat(" keys=[", keys, "]"),
      spec->residual ? StrCat(" condition=", spec->residual->ToString()) : "",
      " build=", spec->build_left ? "left" : "right", dynamic_filter);
  Source source;
  source.node = std::make_shared<JoinNode>(std::move(left.node), std::move(right.node),
                                           node.schema, estimated_rows, std::move(spec),
                                           std::move(owned), std::move(description));
  return FilterAbove(std::move(source), std::move(above));
}

absl::StatusOr<Planner::Source> Planner::FilterAbove(Source source, std::vector<ExprPtr> conjuncts) {
  if (conjuncts.empty()) return source;
  auto filter = std::make_shared<ExprPtr>(JoinConjuncts(std::move(conjuncts)));
  RETURN_IF_ERROR(BindWhere(**filter, source.schema()));
  const Expr* predicate = filter->get();
  source.node = std::make_shared<FilterNode>(std::move(source.node), predicate, std::move(filter));
  source.scan = nullptr;
  return source;
}

void CollectColumnNames(const Expr& e, std::vector<std::pair<std::string, std::string>>* out,
                        bool* star) {
  if (e.kind == ExprKind::kStar) *star = true;
  if (e.kind == ExprKind::kColumn) out->emplace_back(e.qualifier, e.name);
  for (const ExprPtr& a : e.args) {
    // count(*) counts rows: its * reads no column (SELECT * and t.* read them all).
    if (a->kind == ExprKind::kStar && e.kind == ExprKind::kCall) continue;
    CollectColumnNames(*a, out, star);
  }
  if (e.window) {
    for (const ExprPtr& p : e.window->partition_by) CollectColumnNames(*p, out, star);
    for (const OrderItem& o : e.window->order_by) CollectColumnNames(*o.expr, out, star);
  }
  if (e.ordered_by) {
    for (const OrderItem& o : e.ordered_by->order_by) CollectColumnNames(*o.expr, out, star);
  }
}

}  // namespace strata::query
