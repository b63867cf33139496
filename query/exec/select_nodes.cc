#include "query/exec/select_nodes.h"

#include <algorithm>

#include "common/status.h"
#include "common/strings.h"

namespace strata::query {
namespace {

std::string ExprList(const std::vector<const Expr*>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) out += (i ? ", " : "") + exprs[i]->ToString();
  return out;
}

std::string AggregateList(const std::vector<AggregateSpec>& aggregates) {
  std::string out;
  for (size_t i = 0; i < aggregates.size(); ++i) {
    const AggregateSpec& a = aggregates[i];
    out += StrCat(i ? ", " : "", a.function->name, "(", a.distinct ? "DISTINCT " : "",
                  a.args.empty() ? "*" : ExprList(a.args));
    for (size_t k = 0; k < a.order_keys.size(); ++k) {
      out += StrCat(k ? ", " : " ORDER BY ", a.order_keys[k]->ToString(),
                    a.descending[k] ? " DESC" : "");
    }
    out += ")";
    if (a.filter != nullptr) out += StrCat(" FILTER (WHERE ", a.filter->ToString(), ")");
  }
  return out;
}

// Counts the rows passing into `next` (a top n reading newest first).
class CountingSink : public RowSink {
 public:
  explicit CountingSink(RowSink* next) : next_(next) {}
  absl::Status Push(Row row) override {
    ++rows_;
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }
  int64_t rows() const { return rows_; }

 private:
  RowSink* next_;
  int64_t rows_ = 0;
};

// Sets the scan's question for the length of a run, then takes it back: it
// refers to this run's operators.
class StopWhileRunning {
 public:
  StopWhileRunning(const NewestFirstStop& stop, std::function<bool(int64_t)> enough) : stop_(stop) {
    *stop_.enough_before = std::move(enough);
  }
  ~StopWhileRunning() { *stop_.enough_before = nullptr; }
  StopWhileRunning(const StopWhileRunning&) = delete;
  StopWhileRunning& operator=(const StopWhileRunning&) = delete;

 private:
  const NewestFirstStop& stop_;
};

Schema WindowOutput(const Schema& input, const std::vector<WindowCall>& calls,
                    const std::vector<int>& keep, const std::vector<std::string>& call_text) {
  Schema out;
  for (int c : keep) out.push_back(input[c]);
  for (size_t k = 0; k < calls.size(); ++k) out.push_back({call_text[k], calls[k].type, ""});
  return out;
}

}  // namespace

std::string FilterNode::Describe() const { return StrCat("Filter ", predicate_->ToString()); }

absl::Status FilterNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return input().RunBatches(context, MakeBatchFilter(predicate_, context, sink).get());
}

AggregateNode::AggregateNode(PlanNodePtr input, Schema output, std::vector<const Expr*> keys,
                             std::vector<AggregateSpec> aggregates)
    : PlanNode(std::move(output),
               keys.empty() ? 1 : std::max<int64_t>(1, input->estimated_rows() / 10), {input}),
      keys_(std::move(keys)),
      aggregates_(std::move(aggregates)) {}

std::string AggregateNode::Describe() const {
  return StrCat("HashAggregate keys=[", ExprList(keys_), "] aggregates=[",
                AggregateList(aggregates_), "]");
}

absl::Status AggregateNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return Run(context, MakeAggregate(keys_, aggregates_, Types(), context, sink).get());
}

absl::Status AggregateNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return Run(context, MakeAggregate(keys_, aggregates_, context, sink).get());
}

namespace {

// Stops the scan (the pipeline's "enough") once the aggregation holds `groups` groups. Nothing
// below the aggregation reads the flag after the scan, and nothing above it has had a row yet:
// the flag is cleared for the groups to leave.
class GroupsFound : public BatchSink {
 public:
  GroupsFound(AggregateSink* aggregate, int64_t groups, QueryContext* context)
      : aggregate_(aggregate), groups_(groups), context_(context) {}
  absl::Status Push(const Batch& batch) override {
    RETURN_IF_ERROR(aggregate_->Push(batch));
    if (aggregate_->Groups() >= groups_) context_->enough = true;
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    context_->enough = false;
    return aggregate_->Finish();
  }

 private:
  AggregateSink* aggregate_;
  int64_t groups_;
  QueryContext* context_;
};

}  // namespace

absl::Status AggregateNode::Run(QueryContext* context, AggregateSink* aggregate) const {
  std::optional<StopWhileRunning> stop;
  if (newest_first_) {
    // After a bucket starting at `start`, unread rows are older than it:
    // groups whose key is above every unread row's come first in the order,
    // and `limit` of them settle the result.
    const NewestFirst& n = *newest_first_;
    stop.emplace(n.stop, [&, width = input().schema().size()](int64_t start) {
      Row row(width);
      row[n.time_column] = Datum::Timestamp(start - 1);
      return aggregate->GroupsAbove(n.key_index, Eval(*n.key, row, context->eval)) >= n.stop.limit;
    });
  }
  if (headers_) headers_->sink = aggregate;
  absl::Status ran;
  if (stop_at_groups_ > 0) {
    GroupsFound found(aggregate, stop_at_groups_, context);
    ran = input().RunBatches(context, &found);
  } else {
    ran = input().RunBatches(context, aggregate);
  }
  if (headers_) headers_->sink = nullptr;
  return ran;
}

namespace {

// One grouping set's groups, [its keys..., aggregates...], widened into the node's rows: the
// keys outside the set NULL and the set's mask after the keys. Its Finish ends the set only.
class WidenedSet : public BatchSink {
 public:
  WidenedSet(const std::vector<DataType>& types, size_t keys, const std::vector<uint32_t>& set,
             BatchSink* next)
      : types_(types), keys_(keys), set_(set), next_(next) {
    for (size_t k = 0; k < keys; ++k) {
      if (std::find(set.begin(), set.end(), k) == set.end()) mask_ |= int64_t{1} << k;
    }
  }
  absl::Status Push(const Batch& batch) override {
    Batch out;
    out.rows = batch.rows;
    out.columns.reserve(types_.size());
    for (size_t k = 0; k < keys_; ++k) {
      auto at = std::find(set_.begin(), set_.end(), k);
      if (at != set_.end()) {
        out.columns.push_back(batch.columns[at - set_.begin()]);
      } else {
        out.columns.emplace_back(types_[k]).ResetNull(batch.rows);
      }
    }
    Vector& mask = out.columns.emplace_back(DataType::kBigint);
    mask.nulls.assign(batch.rows, 0);
    mask.ints.assign(batch.rows, mask_);
    for (size_t c = set_.size(); c < batch.columns.size(); ++c) {
      out.columns.push_back(batch.columns[c]);
    }
    return next_->Push(out);
  }
  absl::Status Finish() override { return absl::OkStatus(); }

 private:
  const std::vector<DataType>& types_;
  size_t keys_;
  const std::vector<uint32_t>& set_;
  BatchSink* next_;
  int64_t mask_ = 0;
};

// Each batch (or block header) into every set's aggregation; at the end each set's groups, set
// by set, then the end.
class EverySet : public AggregateSink {
 public:
  EverySet(const std::vector<std::vector<uint32_t>>& sets, BatchSink* next)
      : sets_(sets), next_(next) {}
  void Add(std::unique_ptr<BatchSink> widened, std::unique_ptr<AggregateSink> aggregate) {
    widened_.push_back(std::move(widened));
    aggregates_.push_back(std::move(aggregate));
  }
  absl::Status Push(const Batch& batch) override {
    for (const auto& a : aggregates_) RETURN_IF_ERROR(a->Push(batch));
    return absl::OkStatus();
  }
  absl::Status AddStats(Row keys, const std::vector<ColumnStats>& stats) override {
    for (size_t s = 0; s < sets_.size(); ++s) {
      Row set_keys;
      for (uint32_t k : sets_[s]) set_keys.push_back(keys[k]);
      RETURN_IF_ERROR(aggregates_[s]->AddStats(std::move(set_keys), stats));
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    for (const auto& a : aggregates_) RETURN_IF_ERROR(a->Finish());
    return next_->Finish();
  }
  // The node never stops its scan early by the groups it holds.
  int64_t GroupsAbove(size_t, const Datum&) const override { return 0; }
  int64_t Groups() const override {
    int64_t groups = 0;
    for (const auto& a : aggregates_) groups += a->Groups();
    return groups;
  }

 private:
  const std::vector<std::vector<uint32_t>>& sets_;
  BatchSink* next_;
  std::vector<std::unique_ptr<BatchSink>> widened_;
  std::vector<std::unique_ptr<AggregateSink>> aggregates_;
};

}  // namespace

GroupingSetsNode::GroupingSetsNode(PlanNodePtr input, Schema output, std::vector<const Expr*> keys,
                                   std::vector<std::vector<uint32_t>> sets,
                                   std::vector<AggregateSpec> aggregates)
    : PlanNode(
          std::move(output),
          static_cast<int64_t>(sets.size()) * std::max<int64_t>(1, input->estimated_rows() / 10),
          {input}),
      keys_(std::move(keys)),
      sets_(std::move(sets)),
      aggregates_(std::move(aggregates)) {}

int AggregateNode::ColumnBelow(int column) const {
  // A key that is an input column: keeping some of its values keeps those groups whole.
  if (column >= static_cast<int>(keys_.size())) return -1;
  const Expr& key = *keys_[column];
  return key.kind == ExprKind::kColumn ? key.bound.column : -1;
}

std::string GroupingSetsNode::Describe() const {
  std::string sets;
  for (size_t s = 0; s < sets_.size(); ++s) {
    std::vector<const Expr*> keys;
    for (uint32_t k : sets_[s]) keys.push_back(keys_[k]);
    sets += StrCat(s ? ", " : "", "(", ExprList(keys), ")");
  }
  return StrCat("HashAggregate grouping sets=[", sets, "] aggregates=[", AggregateList(aggregates_),
                "]");
}

absl::Status GroupingSetsNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  const std::vector<DataType> types = Types();
  EverySet every(sets_, sink);
  for (const std::vector<uint32_t>& set : sets_) {
    std::vector<const Expr*> keys;
    std::vector<DataType> set_types;
    for (uint32_t k : set) {
      keys.push_back(keys_[k]);
      set_types.push_back(types[k]);
    }
    set_types.insert(set_types.end(), types.begin() + static_cast<int64_t>(keys_.size()) + 1,
                     types.end());
    auto widened = std::make_unique<WidenedSet>(types, keys_.size(), set, sink);
    auto aggregate =
        MakeAggregate(std::move(keys), aggregates_, std::move(set_types), context, widened.get());
    every.Add(std::move(widened), std::move(aggregate));
  }
  if (headers_) headers_->sink = &every;
  absl::Status ran = input().RunBatches(context, &every);
  if (headers_) headers_->sink = nullptr;
  return ran;
}

std::string HavingNode::Describe() const {
  return StrCat("Filter (HAVING) ", predicate_->ToString());
}

absl::Status HavingNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return input().RunBatches(context, MakeBatchFilter(predicate_, context, sink).get());
}

absl::Status HavingNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return input().RunRows(context, MakeFilter(predicate_, context, sink).get());
}

WindowNode::WindowNode(PlanNodePtr input, std::vector<WindowCall> calls, std::vector<int> keep,
                       std::vector<std::string> call_text)
    : PlanNode(WindowOutput(input->schema(), calls, keep, call_text), input->estimated_rows(),
               {input}),
      calls_(std::move(calls)),
      keep_(std::move(keep)),
      call_text_(std::move(call_text)),
      rank_limit_(RankLimitOf(calls_)) {}

// One operator computes every call: one line lists them.
std::string WindowNode::Describe() const {
  std::string out;
  for (size_t k = 0; k < call_text_.size(); ++k) {
    out += StrCat(k ? ", " : "", call_text_[k]);
  }
  if (rank_limit_) {
    out += StrCat(" (keeps ", rank_limit_->peer_groups ? "dense ranks" : "ranks",
                  " <= ", rank_limit_->ranks, " of each partition)");
  }
  return StrCat("Window ", out);
}

absl::Status WindowNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  if (!rank_limit_) {
    return input().RunBatches(context, MakeWindow(calls_, keep_, Types(), context, sink).get());
  }
  // The top rows of each partition, already narrowed to the kept columns, into the window.
  std::vector<int> kept(keep_.size());
  std::vector<DataType> kept_types;
  for (size_t k = 0; k < keep_.size(); ++k) {
    kept[k] = static_cast<int>(k);
    kept_types.push_back(input().schema()[keep_[k]].type);
  }
  std::unique_ptr<BatchSink> window = MakeWindow(calls_, std::move(kept), Types(), context, sink);
  std::unique_ptr<BatchSink> top = MakePartitionTopN(calls_[rank_limit_->call], *rank_limit_, keep_,
                                                     std::move(kept_types), context, window.get());
  return input().RunBatches(context, top.get());
}

int WindowNode::ColumnBelow(int column) const {
  // A kept column every call partitions by: keeping some of its values keeps those
  // partitions whole, and each window's values within them as they were.
  if (column >= static_cast<int>(keep_.size())) return -1;
  for (const WindowCall& call : calls_) {
    const bool partitioned = std::any_of(
        call.partition_by.begin(), call.partition_by.end(),
        [&](const Expr* p) { return p->kind == ExprKind::kColumn && p->bound.column == column; });
    if (!partitioned) return -1;
  }
  return keep_[column];
}

int ProjectNode::ColumnBelow(int column) const {
  if (column >= static_cast<int>(exprs_.size())) return -1;
  const Expr& e = *exprs_[column];
  return e.kind == ExprKind::kColumn ? e.bound.column : -1;
}

std::string ProjectNode::Describe() const { return StrCat("Project [", ExprList(exprs_), "]"); }

absl::Status ProjectNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return input().RunBatches(context, MakeBatchProject(exprs_, context, sink).get());
}

absl::Status ProjectNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return input().RunRows(context, MakeProject(exprs_, context, sink).get());
}

DistinctNode::DistinctNode(PlanNodePtr input, int width)
    : PlanNode(input->schema(), input->estimated_rows(), {input}) {
  for (int i = 0; i < width; ++i) columns_.push_back(i);
}

int DistinctNode::ColumnBelow(int column) const {
  // DISTINCT ON keeps one row of each value of its columns: whole only when they include it.
  if (!on_ || std::find(columns_.begin(), columns_.end(), column) != columns_.end()) return column;
  return -1;
}

std::string DistinctNode::Describe() const {
  if (!on_) return "Distinct";
  std::string keys;
  for (int c : columns_) keys += StrCat(keys.empty() ? "" : ", ", schema()[c].name);
  return StrCat("Distinct on [", keys, "] (the first row of each)");
}

absl::Status DistinctNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return input().RunRows(context, MakeDistinct(columns_, context, sink).get());
}

FirstOfEachNode::FirstOfEachNode(PlanNodePtr input, const std::vector<int>& keys,
                                 const std::vector<SortKey>& order)
    : PlanNode(input->schema(), input->estimated_rows(), {input}) {
  auto column = [&](int c) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kColumn;
    e->name = schema()[c].name;
    e->bound.column = c;
    e->bound.type = schema()[c].type;
    columns_.push_back(std::move(e));
    return columns_.back().get();
  };
  for (int k : keys) spec_.partition_by.push_back(column(k));
  for (const SortKey& o : order) {
    spec_.order_by.push_back(column(o.column));
    spec_.descending.push_back(o.descending);
    spec_.nulls_first.push_back(o.nulls_first);
  }
}

std::string FirstOfEachNode::Describe() const {
  std::string keys, order;
  for (const Expr* k : spec_.partition_by) keys += StrCat(keys.empty() ? "" : ", ", k->name);
  for (size_t i = 0; i < spec_.order_by.size(); ++i) {
    order += StrCat(i ? ", " : "", spec_.order_by[i]->name, spec_.descending[i] ? " DESC" : "");
  }
  return StrCat("First of each [", keys, "]",
                order.empty() ? " (as they come)" : " by [" + order + "]");
}

int FirstOfEachNode::ColumnBelow(int column) const {
  // Keeping some keys' rows keeps those keys whole, and each one's first row as it was.
  for (const Expr* k : spec_.partition_by) {
    if (k->bound.column == column) return column;
  }
  return -1;
}

absl::Status FirstOfEachNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  std::vector<int> keep(schema().size());
  std::vector<DataType> types;
  for (size_t c = 0; c < keep.size(); ++c) {
    keep[c] = static_cast<int>(c);
    types.push_back(schema()[c].type);
  }
  const RankLimit first{.ranks = 1};
  return input().RunBatches(
      context,
      MakePartitionTopN(spec_, first, std::move(keep), std::move(types), context, sink).get());
}

SortNode::SortNode(PlanNodePtr input, std::vector<SortKey> keys, std::optional<int64_t> limit)
    : PlanNode(input->schema(),
               limit ? std::min(input->estimated_rows(), *limit) : input->estimated_rows(),
               {input}),
      keys_(std::move(keys)),
      limit_(limit) {}

int SortNode::ColumnBelow(int column) const {
  // A top n would take other rows in the place of those left out.
  return limit_ || stop_ ? -1 : column;
}

std::string SortNode::Describe() const {
  return limit_ ? StrCat("TopN ", *limit_, " by ", keys_.size(), " keys")
                : StrCat("Sort by ", keys_.size(), " keys");
}

absl::Status SortNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  // Reading newest first counts rows as they pass: the row path does.
  if (stop_) return PlanNode::ProduceBatches(context, sink);
  return input().RunBatches(context, MakeBatchSort(keys_, limit_, context, sink).get());
}

absl::Status SortNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  std::unique_ptr<RowSink> sort = MakeSort(keys_, limit_, context, sink);
  if (!stop_) return input().RunRows(context, sort.get());
  // Below the sort only the projection, one row out per row in: the rows
  // counted here are the rows past WHERE, newest buckets first.
  CountingSink counted(sort.get());
  StopWhileRunning stop(*stop_, [&](int64_t) { return counted.rows() >= stop_->limit; });
  return input().RunRows(context, &counted);
}

std::string LimitNode::Describe() const {
  return StrCat("Limit ", limit_, ties_.empty() ? "" : " with ties");
}

absl::Status LimitNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  // Ties are found row by row (rare, and past a sort that already holds every row).
  if (!ties_.empty()) return PlanNode::ProduceBatches(context, sink);
  return input().RunBatches(context, MakeBatchLimit(limit_, context, sink).get());
}

absl::Status LimitNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  if (!ties_.empty()) {
    return input().RunRows(context, MakeLimitWithTies(limit_, ties_, sink).get());
  }
  return input().RunRows(context, MakeLimit(limit_, context, sink).get());
}

absl::Status TruncateNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  return input().RunBatches(context,
                            MakeBatchTruncate(static_cast<int>(schema().size()), sink).get());
}

absl::Status TruncateNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  return input().RunRows(context, MakeTruncate(static_cast<int>(schema().size()), sink).get());
}

std::string OffsetNode::Describe() const { return StrCat("Offset ", skip_); }

absl::Status OffsetNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  if (skip_ <= 0) return input().RunBatches(context, sink);
  return input().RunBatches(context, MakeBatchOffset(skip_, sink).get());
}

absl::Status OffsetNode::ProduceRows(QueryContext* context, RowSink* sink) const {
  if (skip_ <= 0) return input().RunRows(context, sink);
  return input().RunRows(context, MakeOffset(skip_, sink).get());
}

}  // namespace strata::query
