// PlanSelect: a SELECT planned in named phases over its source's rows —
// the select list expanded, window calls taken out, then either the
// aggregation (GROUP BY keys, aggregate slots, a fast path, the select list
// rewritten over the groups) or the select list bound to the rows, then the
// output and ORDER BY, the newest-first scan, the columns read, and the tree
// of operator nodes over the source (query/exec/select_nodes.h).
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/select_nodes.h"
#include "query/exec/window.h"
#include "query/expr/vector_eval.h"
#include "query/parse/session_zone.h"
#include "query/plan/planner.h"
#include "query/plan/planner_internal.h"

namespace strata::query {

class Planner::SelectPhases {
 public:
  SelectPhases(Planner& planner, SelectStmt& select, Source source, Plan& plan)
      : planner_(planner),
        sql_(planner.sql_),
        context_(planner.context_),
        select_(select),
        source_(std::move(source)),
        plan_(plan) {}

  absl::Status Run() {
    RETURN_IF_ERROR(ExpandStar());
    RETURN_IF_ERROR(ExtractWindows());
    NameOutputColumns();
    DistinctAsGroups();
    if (!aggregating_) RETURN_IF_ERROR(RefuseGroupingCalls(select_, *windows_, sql_));
    RETURN_IF_ERROR(aggregating_ ? Aggregate() : BindRows());
    OutputColumns();
    RETURN_IF_ERROR(OrderBy());
    RETURN_IF_ERROR(DistinctOn());
    if (select_.having && select_.having->bound.type != DataType::kBoolean &&
        select_.having->bound.type != DataType::kUnknown) {
      return SqlError(sql_, select_.having->pos, "HAVING needs a boolean condition");
    }
    PlanNewestFirst();
    MarkColumnsRead();
    Build();
    return absl::OkStatus();
  }

 private:
  // Each window call's expressions: its arguments, PARTITION BY and ORDER BY.
  static std::vector<ExprPtr*> WindowExprs(Expr& call) {
    std::vector<ExprPtr*> out;
    for (ExprPtr& a : call.args) {
      if (a->kind != ExprKind::kStar) out.push_back(&a);
    }
    for (ExprPtr& p : call.window->partition_by) out.push_back(&p);
    for (OrderItem& o : call.window->order_by) out.push_back(&o.expr);
    return out;
  }
  const Schema& input() const { return source_.schema(); }

  absl::Status ExpandStar();
  absl::Status ExtractWindows();
  void NameOutputColumns();
  void DistinctAsGroups();
  // DISTINCT over the projected rows (DistinctNode): with aggregates or windows only.
  bool DistinctRows() const { return select_.distinct && !distinct_as_groups_; }
  // LIMIT n as the shortcuts that stop at n rows use it (a top-n sort, the newest-first scan,
  // groups cut in the fragments): none under WITH TIES, whose last rows are known only after.
  std::optional<int64_t> CutLimit() const {
    return select_.limit_with_ties ? std::nullopt : select_.limit;
  }
  absl::Status BindWindows(size_t width);
  absl::Status Aggregate();
  absl::Status BindGroupKeys(Schema* post);
  bool grouping_sets() const { return !select_.grouping_sets.empty(); }
  absl::Status CollectAggregates(Expr& e, Schema* post);
  void PickAggregateFastPath();
  void SplitAcrossFragments();
  std::optional<TopGroups> TopGroupsInFragments() const;
  absl::Status RewriteOverGroups(ExprPtr& e, const Schema& post);
  // The group key `e` is, by its text (the key's as written), or by the input columns it
  // reads (`cpu.host` is the key `host` of FROM cpu, date_trunc('hour', cpu.time) the key
  // date_trunc('hour', time)); nullopt when none.
  std::optional<size_t> GroupKeyOf(const Expr& e) const;
  // `e`'s text with each column it reads written as its input column's index, or nullopt
  // when it does not bind to the input.
  std::optional<std::string> InputText(const Expr& e) const;
  mutable std::vector<std::optional<std::string>> key_input_text_;  // InputText of each key
  mutable int key_height_ = 0;  // the tallest key's Expr::height, bound
  absl::Status BindRows();
  void OutputColumns();
  absl::Status OrderBy();
  // ORDER BY's or DISTINCT ON's key `e` as a column of the projection: a select item's (by
  // ordinal or output name) or a hidden one added for it.
  absl::StatusOr<int> KeyColumn(ExprPtr& e, std::string_view clause);
  absl::Status DistinctOn();
  absl::Status OrderKeyOverGroups(ExprPtr& e);
  void PlanNewestFirst();
  void MarkColumnsRead();
  void Build();
  std::vector<int> NarrowWindows();

  Planner& planner_;
  const std::string_view sql_;
  QueryContext* const context_;
  SelectStmt& select_;
  Source source_;
  Plan& plan_;

  // Window calls, taken out of the select list and ORDER BY; a placeholder
  // column stands in each place (the operators point into `windows_`).
  std::shared_ptr<std::vector<ExprPtr>> windows_ = std::make_shared<std::vector<ExprPtr>>();
  std::vector<Expr*> window_slots_;
  std::vector<WindowCall> window_calls_;

  bool aggregating_ = false;
  bool distinct_as_groups_ = false;  // DistinctAsGroups
  std::vector<const Expr*> group_keys_;
  std::vector<std::string> key_text_;
  // The aggregation's columns before its aggregates: the keys, and with grouping sets the
  // set's mask (GroupingSetsNode).
  size_t key_columns_ = 0;
  std::vector<AggregateSpec> aggregates_;
  // The mask columns standing in grouping() calls (GroupingCalls).
  absl::flat_hash_set<const Expr*> grouping_masks_;
  // The aggregation runs in the fragments, WHERE with it (SplitAcrossFragments).
  bool in_fragments_ = false;
  bool whole_in_fragments_ = false;  // and the aggregates computed there (whole groups)
  // Set when whole blocks add to the groups by their headers.
  std::shared_ptr<HeaderAggregation> block_headers_;
  // The schema the select list, HAVING and ORDER BY are bound against.
  Schema projected_input_;

  Schema output_;
  std::vector<std::string> output_names_;  // NameOutputColumns
  std::vector<const Expr*> projection_;  // the select list, then hidden ORDER BY columns
  std::vector<SortKey> sort_keys_;
  std::vector<int> distinct_on_columns_;  // DISTINCT ON's keys, columns of the projection
  std::vector<std::string> item_text_;    // each select item as written (NameOutputColumns)

  // ORDER BY time (or a time key) DESC LIMIT n: the scan reads newest first,
  // and stops when the operator holding the rows (the top n, or the
  // aggregation) says no older row can change the result.
  std::optional<NewestFirstStop> newest_first_;
  const Expr* newest_key_ = nullptr;  // aggregating: the group key ordered by
  size_t newest_key_index_ = 0;
};

absl::Status Planner::SelectPhases::ExpandStar() {
  // WHERE (a table source has bound it already, for pushdown).
  if (select_.where) RETURN_IF_ERROR(planner_.BindWhere(*select_.where, input()));
  std::vector<SelectItem> items;
  for (SelectItem& item : select_.items) {
    if (item.expr->kind != ExprKind::kStar) {
      items.push_back(std::move(item));
      continue;
    }
    // A table's columns are those of all its shards.
    if (LocalLeaderRead* local = context_->local_leader_read; local != nullptr) {
      local->ReadingEvery();
    }
    const std::string& table = item.expr->qualifier;  // t.*: t's columns alone
    const size_t before = items.size();
    for (const ColumnInfo& c : input()) {
      // The right copy of a USING column is left out of *, not of its own table's t.*; a
      // LATERAL subquery's keys out of both.
      if (table.empty() ? c.hidden : c.qualifier != table) continue;
      if (c.hidden && c.name.starts_with(kLateralKeyPrefix)) continue;
      auto column = std::make_unique<Expr>();
      column->kind = ExprKind::kColumn;
      column->pos = item.expr->pos;
      column->name = c.name;
      column->qualifier = c.qualifier;
      items.push_back({std::move(column), ""});
    }
    if (!table.empty() && items.size() == before) {
      std::vector<std::string> tables;  // FROM's, in order, each once
      for (const ColumnInfo& c : input()) {
        if (!c.qualifier.empty() &&
            std::find(tables.begin(), tables.end(), c.qualifier) == tables.end()) {
          tables.push_back(c.qualifier);
        }
      }
      std::string message = StrCat(table, ".* names no table of FROM");
      for (size_t i = 0; i < tables.size(); ++i)
        message += StrCat(i == 0 ? " (its tables: " : ", ", tables[i]);
      return SqlError(sql_, item.expr->pos, tables.empty() ? message : message + ")");
    }
  }
  select_.items = std::move(items);
  if (select_.items.empty()) return SqlError(sql_, {0}, "the select list is empty");
  return absl::OkStatus();
}

absl::Status Planner::SelectPhases::ExtractWindows() {
  plan_.keep_alive.push_back(windows_);
  std::vector<ExprPtr>& windows = *windows_;
  std::function<absl::Status(ExprPtr&)> extract = [&](ExprPtr& e) -> absl::Status {
    if (e->kind == ExprKind::kCall && e->window) {
      for (const ExprPtr& a : e->args) {
        if (ContainsWindow(*a)) return SqlError(sql_, a->pos, "window functions cannot be nested");
      }
      auto slot = std::make_unique<Expr>();
      slot->kind = ExprKind::kColumn;
      slot->pos = e->pos;
      slot->name = e->ToString();
      slot->bound.window = static_cast<int>(windows.size());
      window_slots_.push_back(slot.get());
      windows.push_back(std::move(e));
      e = std::move(slot);
      return absl::OkStatus();
    }
    for (ExprPtr& a : e->args) RETURN_IF_ERROR(extract(a));
    return absl::OkStatus();
  };
  for (SelectItem& item : select_.items) RETURN_IF_ERROR(extract(item.expr));
  for (OrderItem& o : select_.order_by) RETURN_IF_ERROR(extract(o.expr));

  aggregating_ = select_.grouped() || (select_.having != nullptr);
  for (const SelectItem& item : select_.items) aggregating_ |= ContainsAggregate(*item.expr);
  for (const OrderItem& o : select_.order_by) aggregating_ |= ContainsAggregate(*o.expr);
  for (ExprPtr& w : windows) {
    for (ExprPtr* e : WindowExprs(*w)) aggregating_ |= ContainsAggregate(**e);
  }
  return absl::OkStatus();
}

// SELECT DISTINCT without aggregates or windows is GROUP BY its select items (GROUP BY 1, ...,
// n): the groups are made on column batches, with the aggregation's fast paths and in a
// cluster's fragments, where a set of the projected rows took them one by one (SELECT DISTINCT
// host over 1 M rows: 300 ms against GROUP BY host's 20). NULLs make one group, as they make one
// distinct row.
void Planner::SelectPhases::DistinctAsGroups() {
  if (!select_.distinct || aggregating_ || !windows_->empty()) return;
  for (size_t i = 0; i < select_.items.size(); ++i) {
    auto ordinal = std::make_unique<Expr>();
    ordinal->kind = ExprKind::kLiteral;
    ordinal->pos = select_.items[i].expr->pos;
    ordinal->literal = Datum::Bigint(static_cast<int64_t>(i) + 1);
    select_.group_by.push_back(std::move(ordinal));
  }
  aggregating_ = true;
  distinct_as_groups_ = true;
}

// Binds the window calls (their expressions already bound to the rows the
// operator sees, `width` columns) and gives each slot its column.
absl::Status Planner::SelectPhases::BindWindows(size_t width) {
  std::vector<ExprPtr>& windows = *windows_;
  for (size_t k = 0; k < windows.size(); ++k) {
    WindowCall call;
    // An aggregate reads JSON as text unless it keeps JSON; lag, first_value, ... move values
    // as they are.
    const AggregateFunction* aggregate = FunctionRegistry::Get().FindAggregate(windows[k]->name);
    if (aggregate != nullptr && !aggregate->keeps_json) CastJsonToText(windows[k]->args);
    RETURN_IF_ERROR(BindWindowCall(*windows[k], sql_, &call));
    call.kept_ranks = windows[k]->kept_ranks;
    window_slots_[k]->bound.column = static_cast<int>(width + k);
    window_slots_[k]->bound.type = call.type;
    window_calls_.push_back(std::move(call));
  }
  return absl::OkStatus();
}

absl::Status Planner::SelectPhases::Aggregate() {
  Schema post;  // the aggregation's output: its keys, then its aggregates
  RETURN_IF_ERROR(BindGroupKeys(&post));
  GroupingCalls grouping{.key_text = key_text_,
                         .mask_column = grouping_sets() ? static_cast<int>(group_keys_.size()) : -1,
                         .masks = &grouping_masks_,
                         .sql = sql_};
  for (SelectItem& item : select_.items) RETURN_IF_ERROR(grouping.Answer(item.expr));
  if (select_.having) RETURN_IF_ERROR(grouping.Answer(select_.having));
  for (OrderItem& o : select_.order_by) RETURN_IF_ERROR(grouping.Answer(o.expr));
  for (ExprPtr& w : *windows_) {
    for (ExprPtr* e : WindowExprs(*w)) RETURN_IF_ERROR(grouping.Answer(*e));
  }
  // Take out every aggregate call and give it a slot after the keys.
  for (SelectItem& item : select_.items) RETURN_IF_ERROR(CollectAggregates(*item.expr, &post));
  if (select_.having) RETURN_IF_ERROR(CollectAggregates(*select_.having, &post));
  for (OrderItem& o : select_.order_by) RETURN_IF_ERROR(CollectAggregates(*o.expr, &post));
  for (ExprPtr& w : *windows_) {
    for (ExprPtr* e : WindowExprs(*w)) RETURN_IF_ERROR(CollectAggregates(**e, &post));
  }
  SplitAcrossFragments();
  PickAggregateFastPath();
  // The select list, HAVING and the windows over the aggregation's output.
  for (ExprPtr& w : *windows_) {
    for (ExprPtr* e : WindowExprs(*w)) RETURN_IF_ERROR(RewriteOverGroups(*e, post));
  }
  RETURN_IF_ERROR(BindWindows(post.size()));
  for (SelectItem& item : select_.items) {
    // An alias in ORDER BY may name this item: keep its text.
    RETURN_IF_ERROR(RewriteOverGroups(item.expr, post));
  }
  if (select_.having) RETURN_IF_ERROR(RewriteOverGroups(select_.having, post));
  projected_input_ = std::move(post);
  return absl::OkStatus();
}

absl::Status Planner::SelectPhases::BindGroupKeys(Schema* post) {
  for (ExprPtr& g : select_.group_by) {
    // GROUP BY 1 is the first select item; GROUP BY alias is that item.
    if (g->kind == ExprKind::kLiteral && g->literal.type == DataType::kBigint) {
      int64_t k = g->literal.i;
      if (k < 1 || k > static_cast<int64_t>(select_.items.size())) {
        return SqlError(sql_, g->pos, StrCat("GROUP BY ", k, " is not a select item (1..",
                                             select_.items.size(), ")"));
      }
      g = select_.items[k - 1].expr->Clone();
    } else if (g->kind == ExprKind::kColumn && g->qualifier.empty()) {
      const bool is_input = std::any_of(input().begin(), input().end(),
                                        [&](const ColumnInfo& c) { return c.name == g->name; });
      if (!is_input) {
        for (const SelectItem& item : select_.items) {
          if (item.alias == g->name) {
            g = item.expr->Clone();
            break;
          }
        }
      }
    }
    if (ContainsAggregate(*g)) return SqlError(sql_, g->pos, "GROUP BY cannot use an aggregate");
    // The key's text as written: the select items are matched with it before they are bound
    // (binding can rewrite a key: typeof(x) becomes its constant).
    std::string text = g->ToString();
    RETURN_IF_ERROR(Bind(*g, input(), sql_));
    group_keys_.push_back(g.get());
    key_text_.push_back(std::move(text));
  }
  if (grouping_sets()) {
    RETURN_IF_ERROR(MergeRepeatedKeys(select_, &group_keys_, &key_text_, sql_));
  }
  for (size_t i = 0; i < group_keys_.size(); ++i) {
    post->push_back({key_text_[i], group_keys_[i]->bound.type, ""});
    if (group_keys_[i]->kind == ExprKind::kColumn) post->back().name = group_keys_[i]->name;
  }
  if (grouping_sets()) post->push_back({"grouping set", DataType::kBigint, ""});
  key_columns_ = post->size();
  return absl::OkStatus();
}

absl::Status Planner::SelectPhases::CollectAggregates(Expr& e, Schema* post) {
  const AggregateFunction* f =
      e.kind == ExprKind::kCall ? FunctionRegistry::Get().FindAggregate(e.name) : nullptr;
  if (f == nullptr) {
    for (auto& a : e.args) RETURN_IF_ERROR(CollectAggregates(*a, post));
    return absl::OkStatus();
  }
  if (e.bound.aggregate >= 0) return absl::OkStatus();
  AggregateSpec spec;
  spec.function = f;
  spec.distinct = e.distinct;
  if (e.ordered_by) {
    for (OrderItem& o : e.ordered_by->order_by) {
      if (ContainsAggregate(*o.expr) || ContainsWindow(*o.expr)) {
        return SqlError(sql_, o.expr->pos,
                        StrCat("the ORDER BY of ", e.name,
                               "() orders its "
                               "rows; it cannot use an aggregate or window"));
      }
      RETURN_IF_ERROR(Bind(*o.expr, input(), sql_));
      spec.order_keys.push_back(o.expr.get());
      spec.descending.push_back(o.descending);
      spec.nulls_first.push_back(o.NullsFirst());
    }
  }
  for (auto& a : e.args) {
    if (a->kind == ExprKind::kStar) {
      if (e.name != "count") return SqlError(sql_, a->pos, "* is only allowed in count(*)");
      continue;
    }
    if (ContainsAggregate(*a)) return SqlError(sql_, a->pos, "aggregates cannot be nested");
    RETURN_IF_ERROR(Bind(*a, input(), sql_));
  }
  if (!f->keeps_json) CastJsonToText(e.args);
  const size_t values = e.args.size() - (e.filtered ? 1 : 0);
  for (size_t i = 0; i < values; ++i) {
    if (e.args[i]->kind == ExprKind::kStar) continue;
    spec.args.push_back(e.args[i].get());
    spec.arg_types.push_back(e.args[i]->bound.type);
  }
  if (e.filtered) {
    const Expr& condition = *e.args.back();
    if (condition.bound.type != DataType::kBoolean && condition.bound.type != DataType::kUnknown) {
      return SqlError(sql_, condition.pos,
                      StrCat("FILTER (WHERE ...) needs a boolean condition, not ",
                             TypeName(condition.bound.type)));
    }
    spec.filter = &condition;
  }
  auto type = f->bind(spec.arg_types);
  if (!type.ok()) return SqlError(sql_, e.pos, StrCat(e.name, "(): ", type.status().message()));
  e.bound.aggregate = static_cast<int>(aggregates_.size());
  e.bound.column = static_cast<int>(key_columns_ + aggregates_.size());
  e.bound.type = *type;
  post->push_back({e.ToString(), *type, ""});
  aggregates_.push_back(std::move(spec));
  return absl::OkStatus();
}

// The newest row of each series alone, or whole blocks by their headers.
void Planner::SelectPhases::PickAggregateFastPath() {
  TableScanNode* scan = source_.scan;
  if (scan == nullptr) return;
  if (grouping_sets()) {
    // Whole blocks add to each set's groups; a last point is no set's answer.
    if (!select_.where &&
        HeaderAggregationEligible(group_keys_, aggregates_, scan->series_columns(),
                                  scan->time_column(), context_->eval)) {
      block_headers_ = scan->AggregateBlocks(group_keys_, aggregates_);
    }
  } else if (LastPointEligible(group_keys_, aggregates_, select_.where.get(),
                               scan->series_columns(), scan->time_column(), context_->eval)) {
    scan->ReadLastPointsOnly();
  } else if (!select_.where &&
             HeaderAggregationEligible(group_keys_, aggregates_, scan->series_columns(),
                                       scan->time_column(), context_->eval)) {
    block_headers_ = scan->AggregateBlocks(group_keys_, aggregates_);
  }
}

// Over a table read as fragments: the keys and partial states come from the fragments, and
// the aggregation here merges them (planner_shards.cc). The keys' text stays, so the select
// list still finds them.
void Planner::SelectPhases::SplitAcrossFragments() {
  const FragmentedTable* table = source_.fragments.get();
  if (table == nullptr || table->rows != source_.node.get()) return;
  std::optional<FragmentAggregation> split =
      AggregateInFragments(*table, group_keys_, aggregates_, TopGroupsInFragments(),
                           /*whole_groups=*/!grouping_sets());
  if (!split) return;
  auto kept = std::make_shared<FragmentAggregation>(*std::move(split));
  plan_.keep_alive.push_back(kept);
  source_.node = kept->node;
  source_.fragments = nullptr;
  in_fragments_ = true;
  if (kept->whole) {
    whole_in_fragments_ = true;  // the fragments' rows are the groups: nothing merges them
    return;
  }
  for (size_t k = 0; k < group_keys_.size(); ++k) group_keys_[k] = kept->keys[k].get();
  aggregates_ = kept->merges;
}

// ORDER BY every group key (each by its text, its select item's ordinal or alias) and nothing
// else, with LIMIT, no HAVING, DISTINCT or window: each fragment sends its first groups only.
// An order naming an aggregate call, or some keys only, cuts whole groups only
// (TopGroups::whole_groups_only).
std::optional<TopGroups> Planner::SelectPhases::TopGroupsInFragments() const {
  if (!CutLimit().has_value() || select_.order_by.empty() || select_.having != nullptr ||
      DistinctRows() || !select_.distinct_on.empty() || !windows_->empty() || group_keys_.empty() ||
      grouping_sets()) {
    return std::nullopt;
  }
  TopGroups top;
  top.rows = *select_.limit + select_.offset.value_or(0);
  if (top.rows < *select_.limit) return std::nullopt;  // overflow
  std::vector<bool> ordered(group_keys_.size(), false);
  for (const OrderItem& o : select_.order_by) {
    const Expr* key = o.expr.get();
    if (key->kind == ExprKind::kLiteral && key->literal.type == DataType::kBigint) {
      const int64_t k = key->literal.i;
      if (k < 1 || k > static_cast<int64_t>(select_.items.size())) return std::nullopt;
      key = select_.items[k - 1].expr.get();
    } else if (key->kind == ExprKind::kColumn && key->qualifier.empty()) {
      for (const SelectItem& item : select_.items) {
        if (item.alias == key->name) key = item.expr.get();
      }
    }
    if (ContainsWindow(*key)) return std::nullopt;
    size_t column = 0;
    if (key->kind == ExprKind::kCall && key->bound.aggregate >= 0) {
      column = group_keys_.size() + static_cast<size_t>(key->bound.aggregate);
      top.whole_groups_only = true;
    } else {
      if (ContainsAggregate(*key)) return std::nullopt;
      const std::optional<size_t> at = GroupKeyOf(*key);
      if (!at) return std::nullopt;
      column = *at;
      ordered[column] = true;
    }
    top.order.push_back({.key = column, .descending = o.descending, .nulls_first = o.NullsFirst()});
  }
  if (std::find(ordered.begin(), ordered.end(), false) != ordered.end()) {
    top.whole_groups_only = true;
  }
  return top;
}

std::optional<std::string> Planner::SelectPhases::InputText(const Expr& e) const {
  ExprPtr probe = e.Clone();
  if (!Bind(*probe, input(), sql_).ok()) return std::nullopt;
  std::function<void(Expr&)> by_index = [&by_index](Expr& x) {
    if (x.kind == ExprKind::kLambda) return;  // its parameters are not the input's
    if (x.kind == ExprKind::kColumn && x.bound.column >= 0) {
      x.qualifier.clear();
      x.name = StrCat("#", x.bound.column);
    }
    for (ExprPtr& a : x.args) by_index(*a);
  };
  by_index(*probe);
  return probe->ToString();
}

std::optional<size_t> Planner::SelectPhases::GroupKeyOf(const Expr& e) const {
  const auto at = std::find(key_text_.begin(), key_text_.end(), e.ToString());
  if (at != key_text_.end()) return static_cast<size_t>(at - key_text_.begin());
  if (key_input_text_.size() != group_keys_.size()) {
    key_input_text_.clear();
    for (const Expr* key : group_keys_) {
      key_input_text_.push_back(InputText(*key));
      key_height_ = std::max(key_height_, key->height);
    }
  }
  // Only what is no taller than a key can be one (binding only adds casts above a node): a
  // select item's deep expression is not bound again at each of its nodes.
  if (e.height > key_height_) return std::nullopt;
  const std::optional<std::string> text = InputText(e);
  if (!text) return std::nullopt;
  for (size_t k = 0; k < group_keys_.size(); ++k) {
    if (key_input_text_[k] == text) return k;
  }
  return std::nullopt;
}

// A group key becomes its column of the aggregation's output; other plain
// columns are errors.
absl::Status Planner::SelectPhases::RewriteOverGroups(ExprPtr& e, const Schema& post) {
  if (e->bound.aggregate >= 0 || e->bound.window >= 0 || grouping_masks_.contains(e.get())) {
    return absl::OkStatus();
  }
  // A lambda's body reads its parameters: bound with the call around it.
  if (e->kind == ExprKind::kLambda) return absl::OkStatus();
  if (e->kind != ExprKind::kLiteral) {
    if (const std::optional<size_t> k = GroupKeyOf(*e)) {
      auto column = std::make_unique<Expr>();
      column->kind = ExprKind::kColumn;
      column->pos = e->pos;
      // A grouped column keeps its own name (SELECT m.host ... GROUP BY
      // m.host gives a column "host"), an expression its text.
      column->name = e->kind == ExprKind::kColumn ? e->name : e->ToString();
      column->bound.column = static_cast<int>(*k);
      column->bound.type = group_keys_[*k]->bound.type;
      e = std::move(column);
      return absl::OkStatus();
    }
  }
  if (e->kind == ExprKind::kColumn) {
    return SqlError(sql_, e->pos, StrCat("column \"", e->name, "\" must appear in GROUP BY "
                                         "or be used in an aggregate function"));
  }
  // A call of no function is that error, not its argument's "must appear in GROUP BY".
  if (e->kind == ExprKind::kCall) RETURN_IF_ERROR(NoSuchScalarFunction(*e, sql_));
  for (auto& a : e->args) RETURN_IF_ERROR(RewriteOverGroups(a, post));
  return Bind(*e, post, sql_);
}

absl::Status Planner::SelectPhases::BindRows() {
  for (ExprPtr& w : *windows_) {
    for (ExprPtr* e : WindowExprs(*w)) RETURN_IF_ERROR(Bind(**e, input(), sql_));
  }
  RETURN_IF_ERROR(BindWindows(input().size()));
  for (SelectItem& item : select_.items) RETURN_IF_ERROR(Bind(*item.expr, input(), sql_));
  projected_input_ = input();
  return absl::OkStatus();
}

namespace {

// PostgreSQL's name for a select item without an alias (its FigureColname): a column's name, a
// function's (a window call's too), through casts, else the cast's type; CASE and EXISTS by
// their words; anything else ?column?.
std::string PostgresColumnName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kColumn:
      // A window call taken out of the select list is a slot named by its text: f(...) OVER.
      return e.bound.window >= 0 ? absl::AsciiStrToLower(e.name.substr(0, e.name.find('(')))
                                 : e.name;
    case ExprKind::kCall:
      if (WrittenForSessionZone(e)) {  // date_trunc(...) under SET TIME ZONE is date_trunc
        std::string inner = PostgresColumnName(*e.args[0]);
        return inner == "?column?" && e.name == "timestamp_in_zone" ? "timestamptz" : inner;
      }
      return absl::AsciiStrToLower(e.name);
    case ExprKind::kCast: {
      std::string inner = PostgresColumnName(*e.args[0]);
      if (inner != "?column?") return inner;
      switch (e.cast_type) {
        case DataType::kBigint:
          return "int8";
        case DataType::kDouble:
          return "float8";
        case DataType::kBoolean:
          return "bool";
        case DataType::kTimestamp:
          return "timestamptz";
        case DataType::kTime:
          return "time";
        case DataType::kVarchar:
          return "text";
        default:
          return std::string(TypeName(e.cast_type));
      }
    }
    case ExprKind::kCase:
      return "case";
    case ExprKind::kExists:
      return "exists";
    default:
      return "?column?";
  }
}

}  // namespace

// An item's alias, the name of the column it is, or _col<i> (Presto's names; PostgreSQL's on
// its wire: QueryOptions::postgres_names): decided before the aggregation rewrites a group
// key's expression into a column of its output.
void Planner::SelectPhases::NameOutputColumns() {
  for (size_t i = 0; i < select_.items.size(); ++i) {
    const SelectItem& item = select_.items[i];
    item_text_.push_back(item.expr->ToString());
    std::string name = item.alias;
    if (name.empty() && context_->postgres_names) {
      name = PostgresColumnName(*item.expr);
    } else if (name.empty()) {
      name = item.expr->kind == ExprKind::kColumn && item.expr->bound.window < 0
                 ? item.expr->name
                 : StrCat("_col", i);
    }
    output_names_.push_back(std::move(name));
  }
}

void Planner::SelectPhases::OutputColumns() {
  for (size_t i = 0; i < select_.items.size(); ++i) {
    output_.push_back({output_names_[i], select_.items[i].expr->bound.type, ""});
    projection_.push_back(select_.items[i].expr.get());
  }
}

// ORDER BY: an ordinal or an output name refers to the output; anything else
// is computed as a hidden extra column.
absl::Status Planner::SelectPhases::OrderBy() {
  for (OrderItem& o : select_.order_by) {
    ASSIGN_OR_RETURN(const int column, KeyColumn(o.expr, "ORDER BY"));
    sort_keys_.push_back({column, o.descending, o.NullsFirst()});
  }
  return absl::OkStatus();
}

absl::StatusOr<int> Planner::SelectPhases::KeyColumn(ExprPtr& e, std::string_view clause) {
  int column = -1;
  if (e->kind == ExprKind::kLiteral && e->literal.type == DataType::kBigint) {
    const int64_t k = e->literal.i;
    if (k < 1 || k > static_cast<int64_t>(output_.size())) {
      return SqlError(sql_, e->pos,
                      StrCat(clause, " ", k, " is not a select item (1..", output_.size(), ")"));
    }
    return static_cast<int>(k - 1);
  }
  if (e->kind == ExprKind::kColumn && e->qualifier.empty()) {
    for (size_t i = 0; i < output_.size(); ++i) {
      if (output_[i].name == e->name && (!select_.items[i].alias.empty() || aggregating_ ||
                                         select_.items[i].expr->kind == ExprKind::kColumn)) {
        return static_cast<int>(i);
      }
    }
  }
  if (!select_.distinct_on.empty()) {
    // A select item written again (DISTINCT ON (bin(time, 1h)) beside that item): its
    // column, so that DISTINCT ON's keys and ORDER BY's are known to be the same.
    const auto item = std::find(item_text_.begin(), item_text_.end(), e->ToString());
    if (item != item_text_.end()) return static_cast<int>(item - item_text_.begin());
  }
  if (distinct_as_groups_) {
    // A select item's own expression (a group key) or an error, saying first if it names a
    // column that does not exist.
    ExprPtr probe = e->Clone();
    RETURN_IF_ERROR(Bind(*probe, input(), sql_));
    if (!GroupKeyOf(*e)) {
      return SqlError(
          sql_, e->pos,
          StrCat("with SELECT DISTINCT, ", clause, " must use columns of the select list"));
    }
  }
  RETURN_IF_ERROR(aggregating_ ? OrderKeyOverGroups(e) : Bind(*e, projected_input_, sql_));
  if (DistinctRows()) {
    return SqlError(
        sql_, e->pos,
        StrCat("with SELECT DISTINCT, ", clause, " must use columns of the select list"));
  }
  column = static_cast<int>(projection_.size());
  projection_.push_back(e.get());
  return column;
}

// SELECT DISTINCT ON (k, ...): its keys as columns, and PostgreSQL's rule that ORDER BY
// starts with them (in any order), so that "the first row of each" is the one the order
// puts first.
absl::Status Planner::SelectPhases::DistinctOn() {
  for (ExprPtr& k : select_.distinct_on) {
    ASSIGN_OR_RETURN(const int column, KeyColumn(k, "DISTINCT ON"));
    distinct_on_columns_.push_back(column);
  }
  const auto same = [this](int a, int b) {
    return a == b || projection_[a]->ToString() == projection_[b]->ToString();
  };
  const size_t leading = std::min(sort_keys_.size(), distinct_on_columns_.size());
  for (size_t i = 0; i < leading; ++i) {
    if (std::none_of(distinct_on_columns_.begin(), distinct_on_columns_.end(),
                     [&](int c) { return same(c, sort_keys_[i].column); })) {
      return SqlError(sql_, select_.order_by[i].expr->pos,
                      "SELECT DISTINCT ON's keys must come first in ORDER BY (in any order), "
                      "then what picks each key's row: DISTINCT ON (host) ... ORDER BY host, "
                      "time DESC");
    }
  }
  return absl::OkStatus();
}

// An ORDER BY expression of an aggregating query that is not in the select
// list: over the aggregation's output.
absl::Status Planner::SelectPhases::OrderKeyOverGroups(ExprPtr& e) {
  if (e->bound.aggregate >= 0 || e->bound.window >= 0 || grouping_masks_.contains(e.get())) {
    return absl::OkStatus();
  }
  if (const std::optional<size_t> k = GroupKeyOf(*e)) {
    e->bound.column = static_cast<int>(*k);
    e->kind = ExprKind::kColumn;
    e->args.clear();
    e->bound.type = group_keys_[*k]->bound.type;
    return absl::OkStatus();
  }
  if (e->kind == ExprKind::kColumn) {
    return SqlError(sql_, e->pos, StrCat("ORDER BY column \"", e->name,
                                         "\" must appear in GROUP BY or the select list"));
  }
  return Bind(*e, projected_input_, sql_);
}

// ORDER BY time DESC LIMIT n (or a time bin that is a group key): the newest
// rows decide the result, so the scan reads newest first and stops as soon as
// no older row can change it.
void Planner::SelectPhases::PlanNewestFirst() {
  TableScanNode* scan = source_.scan;
  if (scan == nullptr || !CutLimit() || sort_keys_.empty() || !sort_keys_[0].descending ||
      DistinctRows() || !select_.distinct_on.empty() || select_.having ||
      scan->last_points_only() || !windows_->empty() || grouping_sets()) {
    return;
  }
  const Expr* first = projection_[sort_keys_[0].column];
  bool newest_first = false;
  if (!aggregating_) {
    newest_first = IsColumn(first, scan->time_column());
  } else if (first->kind == ExprKind::kColumn && first->bound.aggregate < 0 &&
             first->bound.column >= 0 &&
             static_cast<size_t>(first->bound.column) < group_keys_.size() &&
             NeverDecreasesWithTime(*group_keys_[first->bound.column], scan->time_column(),
                                    context_->eval)) {
    newest_key_index_ = static_cast<size_t>(first->bound.column);
    newest_key_ = group_keys_[newest_key_index_];
    newest_first = true;
  }
  if (newest_first) newest_first_ = scan->ReadNewestFirst(*select_.limit);
}

// A table scan fills only the columns the query reads.
void Planner::SelectPhases::MarkColumnsRead() {
  if (source_.scan == nullptr) return;
  std::vector<bool>& read = source_.scan->columns_read();
  if (select_.where) MarkColumns(*select_.where, &read);
  if (aggregating_) {
    for (const Expr* k : group_keys_) MarkColumns(*k, &read);
    for (const AggregateSpec& a : aggregates_) {
      for (const Expr* e : a.args) MarkColumns(*e, &read);
      for (const Expr* e : a.order_keys) MarkColumns(*e, &read);
      if (a.filter != nullptr) MarkColumns(*a.filter, &read);
    }
  } else {
    for (const Expr* e : projection_) MarkColumns(*e, &read);
    for (ExprPtr& w : *windows_) {
      for (ExprPtr* e : WindowExprs(*w)) MarkColumns(**e, &read);
    }
  }
  source_.scan->ShowColumnsRead();
}

// The window operator holds every row: it keeps only the columns the select
// list, ORDER BY and the windows read (a 1M-row window over a wide table
// held 3 GB).
std::vector<int> Planner::SelectPhases::NarrowWindows() {
  std::vector<Expr*> after_window;
  for (const Expr* e : projection_) after_window.push_back(const_cast<Expr*>(e));
  for (ExprPtr& w : *windows_) {
    for (ExprPtr* e : WindowExprs(*w)) after_window.push_back(e->get());
  }
  return NarrowWindowInput(static_cast<int>(projected_input_.size()), after_window);
}

// The operator tree over the source, innermost first.
void Planner::SelectPhases::Build() {
  PlanNodePtr node = source_.node;
  // Fragments that applied the whole WHERE (with the aggregation, or under the rows they send)
  // leave nothing to filter here.
  const bool filtered_in_fragments =
      in_fragments_ || (source_.fragments != nullptr && source_.fragments->where_whole &&
                        source_.fragments->rows == source_.node.get());
  if (select_.where && !filtered_in_fragments) {
    node = std::make_shared<FilterNode>(node, select_.where.get());
  }
  if (grouping_sets()) {
    auto aggregate = std::make_shared<GroupingSetsNode>(node, projected_input_, group_keys_,
                                                        select_.grouping_sets, aggregates_);
    if (block_headers_) aggregate->TakeBlockHeaders(block_headers_);
    node = std::move(aggregate);
  } else if (aggregating_ && !whole_in_fragments_) {
    auto aggregate =
        std::make_shared<AggregateNode>(node, projected_input_, group_keys_, aggregates_);
    if (distinct_as_groups_ && select_.limit && select_.order_by.empty() && !select_.having) {
      aggregate->StopScanAtGroups(*select_.limit);
    }
    if (block_headers_) aggregate->TakeBlockHeaders(block_headers_);
    if (newest_first_) {
      aggregate->StopScanWhenSettled({.stop = *newest_first_,
                                      .key = newest_key_,
                                      .key_index = newest_key_index_,
                                      .time_column = source_.scan->time_column()});
    }
    node = std::move(aggregate);
  }
  if (select_.having) node = std::make_shared<HavingNode>(node, select_.having.get());
  if (!windows_->empty()) {
    std::vector<int> keep = NarrowWindows();
    std::vector<std::string> text;
    for (const ExprPtr& w : *windows_) text.push_back(w->ToString());
    node = std::make_shared<WindowNode>(node, window_calls_, std::move(keep), std::move(text));
  }
  Schema projected = output_;  // the select list, then hidden ORDER BY columns
  for (size_t i = output_.size(); i < projection_.size(); ++i) {
    projected.push_back({projection_[i]->ToString(), projection_[i]->bound.type, ""});
  }
  node = std::make_shared<ProjectNode>(node, std::move(projected), projection_);
  const int visible = static_cast<int>(output_.size());
  if (DistinctRows()) node = std::make_shared<DistinctNode>(node, visible);
  if (!distinct_on_columns_.empty()) {
    // The first row of each key by the rest of ORDER BY, ordered, then LIMIT.
    if (!sort_keys_.empty()) {
      std::vector<SortKey> picks;  // ORDER BY past the keys: what picks each key's row
      for (const SortKey& k : sort_keys_) {
        if (std::find(distinct_on_columns_.begin(), distinct_on_columns_.end(), k.column) ==
            distinct_on_columns_.end()) {
          picks.push_back(k);
        }
      }
      node = std::make_shared<FirstOfEachNode>(node, distinct_on_columns_, picks);
      node = std::make_shared<SortNode>(node, sort_keys_, std::nullopt);
    }
    node = std::make_shared<DistinctNode>(node, distinct_on_columns_);
    if (select_.limit) {
      node = std::make_shared<LimitNode>(
          node, *select_.limit, select_.limit_with_ties ? sort_keys_ : std::vector<SortKey>{});
    }
  } else if (!sort_keys_.empty()) {
    auto sort = std::make_shared<SortNode>(node, sort_keys_, CutLimit());
    if (newest_first_ && !aggregating_) sort->StopScanWhenSettled(*newest_first_);
    node = std::move(sort);
    if (select_.limit && select_.limit_with_ties) {
      node = std::make_shared<LimitNode>(node, *select_.limit, sort_keys_);
    }
  } else if (select_.limit) {
    node = std::make_shared<LimitNode>(node, *select_.limit);
  }
  if (static_cast<int>(projection_.size()) > visible) {
    node = std::make_shared<TruncateNode>(node, output_);
  }
  if (select_.offset) node = std::make_shared<OffsetNode>(node, *select_.offset);
  plan_.output = output_;
  plan_.root = std::move(node);
  // DISTINCT (ON) over groups or windows works on rows; every other node runs on batches.
  plan_.columnar = !DistinctRows() && distinct_on_columns_.empty();
}

absl::StatusOr<std::shared_ptr<Plan>> Planner::PlanSelect(std::unique_ptr<SelectStmt> owned) {
  // Planning counts against the query's timeout and cancellation too.
  RETURN_IF_ERROR(context_->CheckAlive());
  SelectStmt& select = *owned;
  auto plan = std::make_shared<Plan>();
  plan->keep_alive.push_back(std::shared_ptr<SelectStmt>(std::move(owned)));

  HiddenWithQueries hidden;
  absl::Cleanup restore = [this, &hidden] { RestoreWithQueries(hidden); };
  RETURN_IF_ERROR(PlanWithQueries(select, &hidden));
  if (select.set_operation != SetOperation::kNone) {
    if (select.order_by.empty() && !select.limit && !select.offset) return PlanSetOperation(select);
    // ORDER BY and LIMIT of a set operation: SELECT * FROM (it) ORDER BY ... LIMIT ...
    auto inner = std::make_unique<SelectStmt>();
    inner->set_operation = select.set_operation;
    inner->set_all = select.set_all;
    inner->set_left = std::move(select.set_left);
    inner->set_right = std::move(select.set_right);
    select.set_operation = SetOperation::kNone;
    SelectItem all;
    all.expr = std::make_unique<Expr>();
    all.expr->kind = ExprKind::kStar;
    select.items.push_back(std::move(all));
    select.from.emplace();
    select.from->subquery = std::move(inner);
  }
  // OFFSET m LIMIT n: the first n + m rows in order are found as LIMIT n + m
  // finds them (a top-n sort, a scan that stops), and an Offset sink drops
  // the first m.
  if (select.offset && select.limit &&
      __builtin_add_overflow(*select.limit, *select.offset, &*select.limit)) {
    select.limit.reset();
  }
  RETURN_IF_ERROR(ResolveSubqueries(select));
  for (const ExprPtr* clause : {&select.where, &select.having}) {
    if (*clause && ContainsWindow(**clause)) {
      return SqlError(sql_, (*clause)->pos, "window functions are not allowed in WHERE or HAVING; "
                                            "filter on them in an outer query");
    }
  }
  for (const ExprPtr& g : select.group_by) {
    if (ContainsWindow(*g)) return SqlError(sql_, g->pos, "GROUP BY cannot use a window function");
  }
  ASSIGN_OR_RETURN(Source source, PlanSource(select));
  SelectPhases phases(*this, select, std::move(source), *plan);
  RETURN_IF_ERROR(phases.Run());
  return plan;
}

}  // namespace strata::query
