#include "query/operators.h"

#include <algorithm>
#include <queue>

#include "absl/container/node_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/strings.h"

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

absl::Status QueryContext::Reserve(int64_t bytes, std::string_view what) {
  memory_used_bytes += bytes;
  if (memory_used_bytes > memory_limit_bytes) {
    return absl::ResourceExhaustedError(StrCat(
        "the query needs more than ", memory_limit_bytes >> 20, " MiB for ", what,
        "; narrow the time range, group by fewer values, add a LIMIT, or raise the server's "
        "--query-memory-mb"));
  }
  return absl::OkStatus();
}

// The query's evaluation error, if an expression just failed.
absl::Status EvalStatus(const QueryContext& context) {
  if (context.eval.error.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(context.eval.error);
}

int64_t RowBytes(const Row& row) {
  int64_t bytes = static_cast<int64_t>(sizeof(Datum) * row.size());
  for (const Datum& d : row) bytes += static_cast<int64_t>(d.s.capacity());
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

class Aggregate : public RowSink {
 public:
  Aggregate(std::vector<const Expr*> keys, std::vector<AggregateSpec> aggregates,
            QueryContext* context, RowSink* next)
      : keys_(std::move(keys)), aggregates_(std::move(aggregates)), context_(context), next_(next) {}

  absl::Status Push(Row row) override {
    std::string key;
    Row key_values;
    key_values.reserve(keys_.size());
    for (const Expr* k : keys_) {
      key_values.push_back(Eval(*k, row, context_->eval));
      AppendKey(key_values.back(), &key);
    }
    auto it = groups_.find(key);
    if (it == groups_.end()) {
      absl::Status reserved = context_->Reserve(
          static_cast<int64_t>(key.size()) + RowBytes(key_values) + 64 * (1 + aggregates_.size()),
          "grouping");
      if (!reserved.ok()) return reserved;
      Group group{std::move(key_values), NewAccumulators()};
      it = groups_.emplace(std::move(key), std::move(group)).first;
      order_.push_back(&*it);
    }
    std::vector<Datum> args;
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      args.clear();
      for (const Expr* e : aggregates_[a].args) args.push_back(Eval(*e, row, context_->eval));
      it->second.accumulators[a]->Add(args);
    }
    return EvalStatus(*context_);
  }

  absl::Status Finish() override {
    if (groups_.empty() && keys_.empty()) {  // a global aggregate over no rows
      Group empty{{}, NewAccumulators()};
      absl::Status status = Emit(empty);
      if (!status.ok()) return status;
    }
    for (auto* entry : order_) {
      absl::Status status = Emit(entry->second);
      if (!status.ok()) return status;
      if (context_->enough.load()) break;
    }
    return next_->Finish();
  }

 private:
  struct Group {
    Row keys;
    std::vector<std::unique_ptr<Accumulator>> accumulators;
  };

  std::vector<std::unique_ptr<Accumulator>> NewAccumulators() {
    std::vector<std::unique_ptr<Accumulator>> out;
    for (const AggregateSpec& spec : aggregates_) {
      auto acc = spec.function->make(spec.arg_types);
      out.push_back(spec.distinct ? WithDistinctArguments(std::move(acc)) : std::move(acc));
    }
    return out;
  }

  absl::Status Emit(Group& group) {
    Row out = std::move(group.keys);
    for (auto& acc : group.accumulators) out.push_back(acc->Finish());
    return next_->Push(std::move(out));
  }

  std::vector<const Expr*> keys_;
  std::vector<AggregateSpec> aggregates_;
  QueryContext* context_;
  RowSink* next_;
  absl::node_hash_map<std::string, Group> groups_;  // stable addresses for order_
  std::vector<std::pair<const std::string, Group>*> order_;  // first-seen order
};

class Sort : public RowSink {
 public:
  Sort(std::vector<SortKey> keys, std::optional<int64_t> limit, QueryContext* context,
       RowSink* next)
      : keys_(std::move(keys)), limit_(limit), context_(context), next_(next),
        heap_(Less{this}) {}

  bool Before(const Row& a, const Row& b) const {
    for (const SortKey& k : keys_) {
      const Datum& x = a[k.column];
      const Datum& y = b[k.column];
      if (x.null != y.null) return x.null == k.nulls_first;
      if (x.null) continue;
      int c = Compare(x, y);
      if (c != 0) return k.descending ? c > 0 : c < 0;
    }
    return false;
  }

  absl::Status Push(Row row) override {
    if (limit_) {
      if (*limit_ == 0) return absl::OkStatus();
      if (static_cast<int64_t>(heap_.size()) < *limit_) {
        absl::Status reserved = context_->Reserve(RowBytes(row), "ORDER BY ... LIMIT");
        if (!reserved.ok()) return reserved;
        heap_.push(std::move(row));
      } else if (Before(row, heap_.top())) {
        heap_.pop();
        heap_.push(std::move(row));
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
        rows_.push_back(heap_.top());
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
  // The heap's top is the row that sorts last among those kept.
  struct Less {
    const Sort* sort;
    bool operator()(const Row& a, const Row& b) const { return sort->Before(a, b); }
  };

  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  QueryContext* context_;
  RowSink* next_;
  std::vector<Row> rows_;
  std::priority_queue<Row, std::vector<Row>, Less> heap_;
};

class Distinct : public RowSink {
 public:
  Distinct(int width, QueryContext* context, RowSink* next)
      : width_(width), context_(context), next_(next) {}
  absl::Status Push(Row row) override {
    std::string key;
    for (int i = 0; i < width_; ++i) AppendKey(row[i], &key);
    if (seen_.contains(key)) return absl::OkStatus();
    absl::Status reserved = context_->Reserve(static_cast<int64_t>(key.size()) + 32, "DISTINCT");
    if (!reserved.ok()) return reserved;
    seen_.insert(std::move(key));
    return next_->Push(std::move(row));
  }
  absl::Status Finish() override { return next_->Finish(); }

 private:
  int width_;
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

std::unique_ptr<RowSink> MakeFilter(const Expr* predicate, QueryContext* context, RowSink* next) {
  return std::make_unique<Filter>(predicate, context, next);
}
std::unique_ptr<RowSink> MakeProject(std::vector<const Expr*> exprs, QueryContext* context,
                                     RowSink* next) {
  return std::make_unique<Project>(std::move(exprs), context, next);
}
std::unique_ptr<RowSink> MakeAggregate(std::vector<const Expr*> keys,
                                       std::vector<AggregateSpec> aggregates,
                                       QueryContext* context, RowSink* next) {
  return std::make_unique<Aggregate>(std::move(keys), std::move(aggregates), context, next);
}
std::unique_ptr<RowSink> MakeSort(std::vector<SortKey> keys, std::optional<int64_t> limit,
                                  QueryContext* context, RowSink* next) {
  return std::make_unique<Sort>(std::move(keys), limit, context, next);
}
std::unique_ptr<RowSink> MakeDistinct(int width, QueryContext* context, RowSink* next) {
  return std::make_unique<Distinct>(width, context, next);
}
std::unique_ptr<RowSink> MakeLimit(int64_t limit, QueryContext* context, RowSink* next) {
  return std::make_unique<Limit>(limit, context, next);
}
std::unique_ptr<RowSink> MakeTruncate(int width, RowSink* next) {
  return std::make_unique<Truncate>(width, next);
}

}  // namespace strata::query
