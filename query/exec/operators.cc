#include "query/exec/operators.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/expr/vector_eval.h"

namespace strata::query {

absl::Status QueryContext::CheckAlive() const {
  if (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
    return absl::CancelledError("the query was cancelled");
  }
  if (std::chrono::steady_clock::now() > deadline) {
    return absl::DeadlineExceededError(
        "the query ran past its timeout; narrow the time range or raise timeout_millis");
  }
  return absl::OkStatus();
}

namespace {
constexpr int64_t kBudgetStep = 1 << 20;
}  // namespace

QueryContext::~QueryContext() {
  if (shared_budget != nullptr) shared_budget->Release(shared_bytes);
}

absl::Status QueryContext::Reserve(int64_t bytes, std::string_view what) {
  memory_used_bytes += bytes;
  if (memory_used_bytes > memory_limit_bytes) {
    return absl::ResourceExhaustedError(StrCat(
        "the query needs more than ", memory_limit_bytes >> 20, " MiB for ", what,
        "; narrow the time range, group by fewer values, add a LIMIT, or raise the server's "
        "--query-memory-mb"));
  }
  if (shared_budget != nullptr && memory_used_bytes > shared_bytes) {
    const int64_t step = (memory_used_bytes - shared_bytes + kBudgetStep - 1) / kBudgetStep * kBudgetStep;
    RETURN_IF_ERROR(shared_budget->Reserve(step, what));
    shared_bytes += step;
  }
  return absl::OkStatus();
}

void QueryContext::Release(int64_t bytes) {
  memory_used_bytes -= bytes;
  // Keep at most one step beyond what is in use.
  if (shared_budget != nullptr && shared_bytes - memory_used_bytes > 2 * kBudgetStep) {
    const int64_t give = (shared_bytes - memory_used_bytes - kBudgetStep) / kBudgetStep * kBudgetStep;
    shared_budget->Release(give);
    shared_bytes -= give;
  }
}

absl::Status EvalStatus(const QueryContext& context) {
  if (context.eval.error.empty()) return absl::OkStatus();
  // Evaluation stopped for the deadline or a cancellation: CheckAlive's status and message.
  if (context.eval.stopped) RETURN_IF_ERROR(context.CheckAlive());
  return absl::InvalidArgumentError(context.eval.error);
}

bool EvaluateInHalves(const Batch& batch, const QueryContext& context,
                      const ValuesInFlight& in_flight) {
  in_flight.EndEvaluation();
  if (!context.eval.too_many_value_bytes || batch.rows < 2) return false;
  context.eval.ForgetTooManyValueBytes();
  return true;
}

absl::Status PushHalves(const Batch& batch, const ValuesInFlight& in_flight, BatchSink* sink) {
  in_flight.GiveBack();
  const size_t half = batch.rows / 2;
  RETURN_IF_ERROR(sink->Push(SliceRows(batch, 0, half)));
  return sink->Push(SliceRows(batch, half, batch.rows));
}

int64_t RowBytes(const Row& row) {
  int64_t bytes = static_cast<int64_t>(sizeof(Datum) * row.size());
  for (const Datum& d : row) bytes += d.HeapBytes();
  return bytes;
}

namespace {

class Filter : public RowSink {
 public:
  Filter(const Expr* predicate, QueryContext* context, RowSink* next)
      : predicate_(predicate), context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    bool keep = Eval(*predicate_, row, context_->eval).truthy();
    absl::Status evaluated = EvalStatus(*context_);
    if (!evaluated.ok()) return evaluated;
    if (!keep) return absl::OkStatus();
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  const Expr* predicate_;
  QueryContext* context_;
  RowSink* next_;
};

class Project : public RowSink {
 public:
  Project(std::vector<const Expr*> exprs, QueryContext* context, RowSink* next)
      : exprs_(std::move(exprs)), context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    Row out;
    out.reserve(exprs_.size());
    for (const Expr* e : exprs_) out.push_back(Eval(*e, row, context_->eval));
    absl::Status evaluated = EvalStatus(*context_);
    if (!evaluated.ok()) return evaluated;
    return next_->Push(std::move(out));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  std::vector<const Expr*> exprs_;
  QueryContext* context_;
  RowSink* next_;
};

class Aggregate : public AggregateSink {
 public:
  Aggregate(std::vector<const Expr*> keys, std::vector<AggregateSpec> aggregates,
            QueryContext* context, RowSink* next)
      : keys_(std::move(keys)), aggregates_(std::move(aggregates)), context_(context), next_(next) {}
  // Emitting batches of `types` (the keys', then the aggregates') instead of rows.
  Aggregate(std::vector<const Expr*> keys, std::vector<AggregateSpec> aggregates,
            std::vector<DataType> types, QueryContext* context, BatchSink* next)
      : keys_(std::move(keys)),
        aggregates_(std::move(aggregates)),
        context_(context),
        batch_types_(std::move(types)),
        batch_next_(next) {}

  absl::Status Push(const Batch& batch) override {
    if (batch.rows == 0) return absl::OkStatus();
    ValuesInFlight in_flight(context_->eval, batch.rows);
    // Computed vectors live in `scratch`; a plain column is used in place.
    std::deque<Vector> scratch;
    auto eval = [&](const Expr* e) {
      return &EvalBatchRef(*e, batch, context_->eval, &scratch.emplace_back());
    };
    std::vector<const Vector*> keys;
    for (const Expr* k : keys_) keys.push_back(eval(k));
    std::vector<std::vector<const Vector*>> arg_views(aggregates_.size());
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      for (const Expr* e : aggregates_[a].args) arg_views[a].push_back(eval(e));
      for (const Expr* e : aggregates_[a].order_keys) arg_views[a].push_back(eval(e));
      if (aggregates_[a].filter != nullptr) arg_views[a].push_back(eval(aggregates_[a].filter));
    }
    if (EvaluateInHalves(batch, *context_, in_flight)) {
      scratch.clear();
      return PushHalves(batch, in_flight, this);
    }
    RETURN_IF_ERROR(EvalStatus(*context_));

    size_t begin = 0;
    while (begin < batch.rows) {
      size_t end = begin + 1;
      while (end < batch.rows && SameKeys(keys, end, end - 1)) ++end;
      ASSIGN_OR_RETURN(Group * group, FindOrAdd(keys, begin));
      for (size_t a = 0; a < aggregates_.size(); ++a) {
        group->accumulators[a]->AddRun(arg_views[a], begin, end);
      }
      begin = end;
    }
    return ChargeKeptValues();
  }

  absl::Status Finish() override {
    if (groups_.empty() && keys_.empty()) {  // a global aggregate over no rows
      groups_.push_back({{}, NewAccumulators()});
    }
    if (batch_next_ != nullptr) return EmitBatches();
    for (Group& group : groups_) {
      RETURN_IF_ERROR(Emit(group));
      if (context_->enough.load()) break;
    }
    return next_->Finish();
  }

  absl::Status AddStats(Row keys, const std::vector<ColumnStats>& stats) override {
    ASSIGN_OR_RETURN(Group * group, FindOrAdd(std::move(keys)));
    for (size_t a = 0; a < aggregates_.size(); ++a) group->accumulators[a]->AddStats(stats[a]);
    return ChargeKeptValues();
  }

  int64_t Groups() const override { return static_cast<int64_t>(groups_.size()); }

  int64_t GroupsAbove(size_t key, const Datum& bound) const override {
    return std::count_if(groups_.begin(), groups_.end(), [&](const Group& g) {
      return !g.keys[key].null && Compare(g.keys[key], bound) > 0;
    });
  }

 private:
  struct Group {
    Row keys;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
  };

  static bool SameKeys(const std::vector<const Vector*>& keys, size_t i, size_t j) {
    for (const Vector* k : keys) {
      if (!k->SameValue(i, *k, j)) return false;
    }
    return true;
  }

  // The group of row `row` of `keys`: its values become Datums only when
  // the group is new.
  absl::StatusOr<Group*> FindOrAdd(const std::vector<const Vector*>& keys, size_t row) {
    key_.clear();
    for (const Vector* k : keys) AppendKey(*k, row, &key_);
    if (auto it = index_.find(key_); it != index_.end()) return &groups_[it->second];
    Row key_values;
    key_values.reserve(keys.size());
    for (const Vector* k : keys) key_values.push_back(k->Get(row));
    return Add(std::move(key_values));
  }

  absl::StatusOr<Group*> FindOrAdd(Row key_values) {
    key_.clear();
    for (const Datum& k : key_values) AppendKey(k, &key_);
    if (auto it = index_.find(key_); it != index_.end()) return &groups_[it->second];
    return Add(std::move(key_values));
  }

  // A new group of `key_values`, whose key bytes are in `key_`.
  absl::StatusOr<Group*> Add(Row key_values) {
    RETURN_IF_ERROR(context_->Reserve(
        static_cast<int64_t>(key_.size()) + RowBytes(key_values) + 64 * (1 + aggregates_.size()),
        "grouping"));
    index_.emplace(key_, groups_.size());
    groups_.push_back({std::move(key_values), NewAccumulators()});
    return &groups_.back();
  }

  std::vector<std::unique_ptr<Accumulator>> NewAccumulators() {
    std::vector<std::unique_ptr<Accumulator>> out;
    out.reserve(aggregates_.size());
    for (const AggregateSpec& spec : aggregates_) {
      const auto make = [&spec]() {
        auto acc = spec.function->make(spec.arg_types);
        return spec.distinct ? WithDistinctArguments(std::move(acc)) : std::move(acc);
      };
      out.push_back(spec.order_keys.empty() ? make()
                                            : OrderedArguments(make, spec.args.size(),
                                                               spec.descending, spec.nulls_first));
      if (spec.filter != nullptr) out.back() = WithFilterArgument(std::move(out.back()));
      out.back()->MeterInto(&kept_bytes_);
    }
    return out;
  }

  // What the accumulators came to keep since the last call, charged.
  absl::Status ChargeKeptValues() {
    if (kept_bytes_ == charged_bytes_) return absl::OkStatus();
    const int64_t grown = kept_bytes_ - charged_bytes_;
    charged_bytes_ = kept_bytes_;
    return context_->Reserve(grown, "the values aggregates keep (array_agg, map_agg, histogram, "
                                    "create_time_series, approx_percentile, DISTINCT)");
  }

  absl::Status Emit(Group& group) {
    Row out = std::move(group.keys);
    out.reserve(out.size() + group.accumulators.size());
    for (auto& acc : group.accumulators) {
      ASSIGN_OR_RETURN(Datum value, acc->Finish());
      out.push_back(std::move(value));
    }
    return next_->Push(std::move(out));
  }

  // The groups a batch of kBatchRows at a time; a key string is a view of
  // the group's, which outlives the batch.
  absl::Status EmitBatches() {
    for (size_t start = 0; start < groups_.size() && !context_->enough.load();
         start += kBatchRows) {
      const size_t n = std::min(kBatchRows, groups_.size() - start);
      Batch batch = NewBatch(batch_types_, n);
      for (size_t i = 0; i < n; ++i) {
        Group& group = groups_[start + i];
        for (size_t k = 0; k < group.keys.size(); ++k) batch.columns[k].SetView(i, group.keys[k]);
        for (size_t a = 0; a < group.accumulators.size(); ++a) {
          ASSIGN_OR_RETURN(Datum value, group.accumulators[a]->Finish());
          batch.columns[group.keys.size() + a].Set(i, value);
        }
      }
      RETURN_IF_ERROR(batch_next_->Push(batch));
    }
    return batch_next_->Finish();
  }

  std::vector<const Expr*> keys_;
  std::vector<AggregateSpec> aggregates_;
  QueryContext* context_;
  RowSink* next_ = nullptr;
  std::vector<DataType> batch_types_;
  BatchSink* batch_next_ = nullptr;
  absl::flat_hash_map<std::string, size_t> index_;  // group key bytes -> groups_ index
  std::string key_;  // the key bytes of the row being looked up
  std::vector<Group> groups_;                        // in first-seen order
  int64_t kept_bytes_ = 0;     // what the accumulators keep (MeterInto)
  int64_t charged_bytes_ = 0;  // of which charged to the budget
};

class BatchFilter : public BatchSink {
 public:
  BatchFilter(const Expr* predicate, QueryContext* context, BatchSink* next)
      : predicate_(predicate), context_(context), next_(next) {}
  absl::Status Push(const Batch& batch) override {
    std::vector<uint8_t> keep(batch.rows, 0);
    size_t kept = 0;
    {
      ValuesInFlight in_flight(context_->eval, batch.rows);
      Vector scratch;
      const Vector& verdict = EvalBatchRef(*predicate_, batch, context_->eval, &scratch);
      if (EvaluateInHalves(batch, *context_, in_flight)) {
        scratch = Vector();
        return PushHalves(batch, in_flight, this);
      }
      RETURN_IF_ERROR(EvalStatus(*context_));
      if (verdict.type == DataType::kBoolean) {
        for (size_t i = 0; i < batch.rows; ++i) {
          keep[i] = verdict.nulls[i] == 0 && verdict.ints[i] != 0;
          kept += keep[i];
        }
      }
    }
    if (kept == 0) return absl::OkStatus();
    if (kept == batch.rows) return next_->Push(batch);
    return next_->Push(SelectRows(batch, keep));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  const Expr* predicate_;
  QueryContext* context_;
  BatchSink* next_;
};

class BatchProject : public BatchSink {
 public:
  BatchProject(std::vector<const Expr*> exprs, QueryContext* context, BatchSink* next)
      : exprs_(std::move(exprs)), context_(context), next_(next) {}
  absl::Status Push(const Batch& batch) override {
    if (batch.rows == 0) return absl::OkStatus();
    ValuesInFlight in_flight(context_->eval, batch.rows);
    Batch out;
    out.rows = batch.rows;
    out.columns.reserve(exprs_.size());
    for (const Expr* e : exprs_) {
      Vector scratch;
      const Vector& v = EvalBatchRef(*e, batch, context_->eval, &scratch);
      if (!context_->eval.error.empty()) break;
      out.columns.push_back(&v == &scratch ? std::move(scratch) : v);
    }
    if (EvaluateInHalves(batch, *context_, in_flight)) {
      out = Batch();
      return PushHalves(batch, in_flight, this);
    }
    RETURN_IF_ERROR(EvalStatus(*context_));
    return next_->Push(out);
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  std::vector<const Expr*> exprs_;
  QueryContext* context_;
  BatchSink* next_;
};

class BatchesToRows : public BatchSink {
 public:
  BatchesToRows(int width, QueryContext* context, RowSink* next)
      : width_(width), context_(context), next_(next) {}
  absl::Status Push(const Batch& batch) override {
    for (size_t i = 0; i < batch.rows && !context_->enough.load(); ++i) {
      Row row(width_);
      for (int c = 0; c < width_; ++c) {
        const Vector& column = batch.columns[c];
        row[c] = column.size() == batch.rows ? column.Get(i) : Datum::Null(column.type);
      }
      RETURN_IF_ERROR(next_->Push(std::move(row)));
    }
    return absl::OkStatus();
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int width_;
  QueryContext* context_;
  RowSink* next_;
};

class RowsToBatches : public RowSink {
 public:
  RowsToBatches(std::vector<DataType> types, QueryContext* context, BatchSink* next)
      : types_(std::move(types)), context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    bytes_ += RowBytes(row);
    rows_.push_back(std::move(row));
    if (rows_.size() == kBatchRows || bytes_ >= kBatchBytes) return Flush();
    return absl::OkStatus();
  }
  absl::Status Finish() override {
    RETURN_IF_ERROR(Flush());
    return next_->Finish();
  }

 private:
  absl::Status Flush() {
    if (rows_.empty() || context_->enough.load()) return absl::OkStatus();
    // Materialized rows (a WITH query, a subquery) read again and again by a
    // join meet no scan that would check.
    RETURN_IF_ERROR(context_->CheckAlive());
    Batch batch = NewBatch(types_, rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i) {
      for (size_t c = 0; c < types_.size(); ++c) batch.columns[c].SetView(i, rows_[i][c]);
    }
    absl::Status pushed = next_->Push(batch);  // its texts are views of rows_
    rows_.clear();
    bytes_ = 0;
    return pushed;
  }

  std::vector<DataType> types_;
  QueryContext* context_;
  BatchSink* next_;
  std::vector<Row> rows_;
  int64_t bytes_ = 0;  // RowBytes of rows_
};

}  // namespace

bool SortsBefore(const Row& a, const Row& b, const std::vector<SortKey>& keys) {
  for (const SortKey& k : keys) {
    const Datum& x = a[k.column];
    const Datum& y = b[k.column];
    if (x.null != y.null) return x.null == k.nulls_first;
    if (x.null) continue;
    const int c = Compare(x, y);
    if (c != 0) return k.descending ? c > 0 : c < 0;
  }
  return false;
}

bool SameSortKeys(const Row& a, const Row& b, const std::vector<SortKey>& keys) {
  for (const SortKey& k : keys) {
    const Datum& x = a[k.column];
    const Datum& y = b[k.column];
    if (x.null != y.null || (!x.null && Compare(x, y) != 0)) return false;
  }
  return true;
}

namespace {

class Sort : public RowSink {
 public:
  Sort(std::vector<SortKey> keys, std::optional<int64_t> limit, QueryContext* context,
       RowSink* next)
      : keys_(std::move(keys)), limit_(limit), context_(context), next_(next),
        heap_(Less{this}) {}

  bool Before(const Row& a, const Row& b) const { return SortsBefore(a, b, keys_); }

  absl::Status Push(Row row) override {
    if (limit_) {
      if (*limit_ == 0) return absl::OkStatus();
      if (static_cast<int64_t>(heap_.size()) < *limit_) {
        absl::Status reserved = context_->Reserve(RowBytes(row), "ORDER BY ... LIMIT");
        if (!reserved.ok()) return reserved;
        heap_.push({std::move(row), arrived_++});
      } else if (Before(row, heap_.top().row)) {
        heap_.pop();
        heap_.push({std::move(row), arrived_++});
      }
      return absl::OkStatus();
    }
    absl::Status reserved = context_->Reserve(RowBytes(row), "ORDER BY");
    if (!reserved.ok()) return reserved;
    rows_.push_back(std::move(row));
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    if (limit_) {
      while (!heap_.empty()) {
        rows_.push_back(heap_.top().row);
        heap_.pop();
      }
      std::reverse(rows_.begin(), rows_.end());
    } else {
      std::stable_sort(rows_.begin(), rows_.end(),
                       [this](const Row& a, const Row& b) { return Before(a, b); });
    }
    for (Row& row : rows_) {
      absl::Status status = next_->Push(std::move(row));
      if (!status.ok()) return status;
      if (context_->enough.load()) break;
    }
    return next_->Finish();
  }

 private:
  // The heap's top is the row that sorts last among those kept; rows that
  // tie keep their arrival order, as the full sort (a stable one) does.
  struct Kept {
    Row row;
    uint64_t arrived = 0;
  };
  struct Less {
    const Sort* sort;
    bool operator()(const Kept& a, const Kept& b) const {
      if (sort->Before(a.row, b.row)) return true;
      return !sort->Before(b.row, a.row) && a.arrived < b.arrived;
    }
  };

  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  QueryContext* context_;
  RowSink* next_;
  std::vector<Row> rows_;
  std::priority_queue<Kept, std::vector<Kept>, Less> heap_;
  uint64_t arrived_ = 0;
};

class Distinct : public RowSink {
 public:
  Distinct(std::vector<int> columns, QueryContext* context, RowSink* next)
      : columns_(std::move(columns)), context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    std::string key;
    for (int c : columns_) AppendKey(row[c], &key);
    if (seen_.contains(key)) return absl::OkStatus();
    absl::Status reserved = context_->Reserve(static_cast<int64_t>(key.size()) + 32, "DISTINCT");
    if (!reserved.ok()) return reserved;
    seen_.insert(std::move(key));
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  std::vector<int> columns_;
  QueryContext* context_;
  RowSink* next_;
  absl::flat_hash_set<std::string> seen_;
};

class Limit : public RowSink {
 public:
  Limit(int64_t limit, QueryContext* context, RowSink* next)
      : remaining_(limit), context_(context), next_(next) {
    if (remaining_ <= 0) context_->enough = true;
  }
  absl::Status Push(Row row) override {
    if (remaining_ <= 0) return absl::OkStatus();
    if (--remaining_ == 0) context_->enough = true;
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int64_t remaining_;
  QueryContext* context_;
  RowSink* next_;
};

class LimitWithTies : public RowSink {
 public:
  // Rows past the ties are dropped here, not stopped at their source with QueryContext::enough:
  // the sort before it has every row already, and a sink after it (rows made into batches)
  // would take the flag for its own consumer's and drop what it holds.
  LimitWithTies(int64_t limit, std::vector<SortKey> keys, RowSink* next)
      : remaining_(limit), keys_(std::move(keys)), next_(next) {}
  absl::Status Push(Row row) override {
    if (remaining_ > 0) {
      if (--remaining_ == 0) last_ = row;
      return next_->Push(std::move(row));
    }
    if (!last_ || !SameSortKeys(*last_, row, keys_)) {
      last_.reset();  // no later row ties: they come in order
      return absl::OkStatus();
    }
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int64_t remaining_;
  std::vector<SortKey> keys_;
  RowSink* next_;
  std::optional<Row> last_;  // the limit-th row, once it passed
};

class Offset : public RowSink {
 public:
  Offset(int64_t skip, RowSink* next) : skip_(skip), next_(next) {}
  absl::Status Push(Row row) override {
    if (skip_ > 0) {
      --skip_;
      return absl::OkStatus();
    }
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int64_t skip_;
  RowSink* next_;
};

class Truncate : public RowSink {
 public:
  Truncate(int width, RowSink* next) : width_(width), next_(next) {}
  absl::Status Push(Row row) override {
    row.resize(width_);
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int width_;
  RowSink* next_;
};

}  // namespace

absl::Status CollectSink::Push(Row row) {
  absl::Status reserved = context_->Reserve(RowBytes(row), "a subquery's rows");
  if (!reserved.ok()) return reserved;
  rows_.push_back(std::move(row));
  return absl::OkStatus();
}

namespace {

// Where a pipeline's rows (Sink: RowSink, or BatchSink for batches) enter the one around it
// (RunPipeline, RunBatchPipeline).
template <typename Sink, typename Rows>
class PipelineBoundary : public Sink {
 public:
  PipelineBoundary(QueryContext* context, Sink* next, bool outer_enough)
      : context_(context), next_(next), outer_enough_(outer_enough) {}
  // Once the pipeline around has enough, the inner one has too: its sources may stop (an
  // endless recursive WITH query under a LIMIT ends so).
  absl::Status Push(Rows rows) override {
    const bool inner = context_->enough.exchange(outer_enough_);
    absl::Status pushed = next_->Push(std::forward<Rows>(rows));
    outer_enough_ = context_->enough.exchange(inner || outer_enough_);
    return pushed;
  }
  absl::Status Finish() override {
    const bool inner = context_->enough.exchange(outer_enough_);
    absl::Status finished = next_->Finish();
    outer_enough_ = context_->enough.exchange(inner || outer_enough_);
    return finished;
  }
  bool outer_enough() const { return outer_enough_; }

 private:
  QueryContext* context_;
  Sink* next_;
  bool outer_enough_;
};

template <typename Sink, typename Rows>
absl::Status RunBoundedPipeline(QueryContext* context, Sink* out,
                                const std::function<absl::Status(Sink*)>& body) {
  PipelineBoundary<Sink, Rows> boundary(context, out, context->enough.exchange(false));
  absl::Status ran = body(&boundary);
  context->enough = boundary.outer_enough();
  return ran;
}

}  // namespace

absl::Status RunPipeline(QueryContext* context, RowSink* out,
                         const std::function<absl::Status(RowSink*)>& body) {
  return RunBoundedPipeline<RowSink, Row>(context, out, body);
}

absl::Status RunBatchPipeline(QueryContext* context, BatchSink* out,
                              const std::function<absl::Status(BatchSink*)>& body) {
  return RunBoundedPipeline<BatchSink, const Batch&>(context, out, body);
}

std::unique_ptr<RowSink> MakeFilter(const Expr* predicate, QueryContext* context, RowSink* next) {
  return std::make_unique<Filter>(predicate, context, next);
}
std::unique_ptr<RowSink> MakeProject(std::vector<const Expr*> exprs, QueryContext* context,
                                     RowSink* next) {
  return std::make_unique<Project>(std::move(exprs), context, next);
}
std::unique_ptr<AggregateSink> MakeAggregate(std::vector<const Expr*> keys,
                                             std::vector<AggregateSpec> aggregates,
                                             QueryContext* context, RowSink* next) {
  return std::make_unique<Aggregate>(std::move(keys), std::move(aggregates), context, next);
}
std::unique_ptr<AggregateSink> MakeAggregate(std::vector<const Expr*> keys,
                                             std::vector<AggregateSpec> aggregates,
                                             std::vector<DataType> types, QueryContext* context,
                                             BatchSink* next) {
  return std::make_unique<Aggregate>(std::move(keys), std::move(aggregates), std::move(types),
                                     context, next);
}
std::unique_ptr<BatchSink> MakeBatchFilter(const Expr* predicate, QueryContext* context,
                                           BatchSink* next) {
  return std::make_unique<BatchFilter>(predicate, context, next);
}
std::unique_ptr<BatchSink> MakeBatchProject(std::vector<const Expr*> exprs, QueryContext* context,
                                            BatchSink* next) {
  return std::make_unique<BatchProject>(std::move(exprs), context, next);
}
std::unique_ptr<BatchSink> MakeBatchesToRows(int width, QueryContext* context, RowSink* next) {
  return std::make_unique<BatchesToRows>(width, context, next);
}
std::unique_ptr<RowSink> MakeRowsToBatches(std::vector<DataType> types, QueryContext* context,
                                           BatchSink* next) {
  return std::make_unique<RowsToBatches>(std::move(types), context, next);
}
std::unique_ptr<RowSink> MakeSort(std::vector<SortKey> keys, std::optional<int64_t> limit,
                                  QueryContext* context, RowSink* next) {
  return std::make_unique<Sort>(std::move(keys), limit, context, next);
}
std::unique_ptr<RowSink> MakeDistinct(int width, QueryContext* context, RowSink* next) {
  std::vector<int> columns(static_cast<size_t>(width));
  for (int i = 0; i < width; ++i) columns[i] = i;
  return MakeDistinct(std::move(columns), context, next);
}

std::unique_ptr<RowSink> MakeDistinct(std::vector<int> columns, QueryContext* context,
                                      RowSink* next) {
  return std::make_unique<Distinct>(std::move(columns), context, next);
}
std::unique_ptr<RowSink> MakeLimitWithTies(int64_t limit, std::vector<SortKey> keys,
                                           RowSink* next) {
  return std::make_unique<LimitWithTies>(limit, std::move(keys), next);
}
std::unique_ptr<RowSink> MakeLimit(int64_t limit, QueryContext* context, RowSink* next) {
  return std::make_unique<Limit>(limit, context, next);
}
std::unique_ptr<RowSink> MakeOffset(int64_t skip, RowSink* next) {
  return std::make_unique<Offset>(skip, next);
}
std::unique_ptr<RowSink> MakeTruncate(int width, RowSink* next) {
  return std::make_unique<Truncate>(width, next);
}

}  // namespace strata::query
