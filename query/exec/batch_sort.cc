// ORDER BY over column batches: the rows are appended into columns of the
// operator's own (strings copied into one arena, since a batch's views live
// only as long as its Push), an index permutation is sorted with comparisons
// on the typed arrays, and the rows leave in batches gathered by it. Same
// order as the row operator (Sort in operators.cc): a stable sort, NULLs
// placed by each key's nulls_first, values by Compare's rules. With a LIMIT
// n, the kept rows are cut back to the first n whenever they pass 2n, so
// memory stays O(n); ties keep the rows that came first, in that order.
#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "query/exec/operators.h"

namespace strata::query {
namespace {

// Strings kept for the whole sort: appended into large chunks whose bytes
// never move (a chunk is never grown past the capacity it was made with).
class StringArena {
 public:
  StringArena() : chunks_(std::make_shared<std::deque<std::string>>()) {}
  std::string_view Keep(std::string_view s) {
    if (chunks_->empty() || chunks_->back().capacity() - chunks_->back().size() < s.size()) {
      chunks_->emplace_back().reserve(std::max<size_t>(kChunkBytes, s.size()));
    }
    std::string& chunk = chunks_->back();
    const size_t at = chunk.size();
    chunk.append(s);
    return std::string_view(chunk).substr(at, s.size());
  }
  const std::shared_ptr<std::deque<std::string>>& chunks() const { return chunks_; }

 private:
  static constexpr size_t kChunkBytes = 64 << 10;
  std::shared_ptr<std::deque<std::string>> chunks_;
};

// Grows the typed arrays `v` uses to its null map's size.
void SizeTyped(Vector& v) {
  const size_t n = v.nulls.size();
  if (UsesInts(v.type)) v.ints.resize(n);
  if (v.type == DataType::kDouble) v.doubles.resize(n);
  if (IsText(v.type)) v.strings.resize(n);
  if (IsComposite(v.type)) v.nested.resize(n);
}

// Appends rows [0, rows) of `in` (empty: a column nothing read, all NULL)
// to `out`, copying strings into `arena`.
void AppendColumn(const Vector& in, size_t rows, StringArena& arena, Vector* out) {
  const size_t base = out->nulls.size();
  if (out->type == DataType::kUnknown && in.type != DataType::kUnknown) {
    out->type = in.type;  // a NULL-typed column whose values turned out typed
    SizeTyped(*out);
  }
  out->nulls.resize(base + rows, 1);
  SizeTyped(*out);
  if (in.size() != rows) return;
  if (in.type != out->type) {  // not expected of one plan's column; Set converts
    for (size_t i = 0; i < rows; ++i) out->Set(base + i, in.Get(i));
    return;
  }
  std::copy(in.nulls.begin(), in.nulls.end(), out->nulls.begin() + static_cast<ptrdiff_t>(base));
  if (UsesInts(in.type)) std::copy(in.ints.begin(), in.ints.end(), out->ints.begin() + base);
  if (in.type == DataType::kDouble) {
    std::copy(in.doubles.begin(), in.doubles.end(), out->doubles.begin() + base);
  }
  if (IsComposite(in.type))
    std::copy(in.nested.begin(), in.nested.end(), out->nested.begin() + base);
  if (IsText(in.type)) {
    for (size_t i = 0; i < rows; ++i) {
      if (!in.nulls[i]) out->strings[base + i] = arena.Keep(in.strings[i]);
    }
  }
}

// Values at rows i and j of `v`, neither NULL, by Compare's rules.
int CompareValues(const Vector& v, size_t i, size_t j) {
  switch (v.type) {
    case DataType::kDouble:
      return DoublesOrder(v.doubles[i], v.doubles[j]);
    case DataType::kVarchar:
    case DataType::kJson: {
      const int c = v.strings[i].compare(v.strings[j]);
      return c < 0 ? -1 : c > 0;
    }
    default:
      if (IsComposite(v.type) || v.type == DataType::kUnknown) return Compare(v.Get(i), v.Get(j));
      return v.ints[i] < v.ints[j] ? -1 : v.ints[i] > v.ints[j];
  }
}

class BatchSort : public BatchSink {
 public:
  BatchSort(std::vector<SortKey> keys, std::optional<int64_t> limit, QueryContext* context,
            BatchSink* next)
      : keys_(std::move(keys)), limit_(limit), context_(context), next_(next) {}

  absl::Status Push(const Batch& batch) override {
    if (batch.rows == 0 || (limit_ && *limit_ == 0)) return absl::OkStatus();
    if (kept_.columns.empty()) {
      for (const Vector& c : batch.columns) kept_.columns.emplace_back(c.type);
    }
    int64_t bytes = static_cast<int64_t>(batch.rows * (1 + sizeof(int64_t)) * batch.columns.size());
    for (size_t c = 0; c < batch.columns.size(); ++c) {
      const Vector& in = batch.columns[c];
      if (IsText(in.type) && in.size() == batch.rows) {
        for (size_t i = 0; i < batch.rows; ++i) bytes += static_cast<int64_t>(in.strings[i].size());
      }
      AppendColumn(in, batch.rows, arena_, &kept_.columns[c]);
    }
    kept_.rows += batch.rows;
    RETURN_IF_ERROR(context_->Reserve(bytes, limit_ ? "ORDER BY ... LIMIT" : "ORDER BY"));
    reserved_ += bytes;
    if (kept_.rows > std::numeric_limits<uint32_t>::max()) {  // the rows' numbers are 32-bit
      return absl::ResourceExhaustedError(
          "ORDER BY holds more than 4,294,967,295 rows: add a LIMIT or narrow the WHERE");
    }
    // Past 2n rows (and a batch), back to n: each row is sorted a bounded number of times.
    // (Written so that LIMIT 9223372036854775807 does not overflow into a cut every batch.)
    if (limit_ && kept_.rows > kBatchRows &&
        (kept_.rows - kBatchRows) / 2 > static_cast<uint64_t>(*limit_)) {
      CutToLimit();
    }
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    std::vector<uint32_t> order = SortedOrder();
    if (limit_ && order.size() > static_cast<uint64_t>(*limit_)) order.resize(*limit_);
    for (Vector& c : kept_.columns) {
      if (IsText(c.type)) c.arena = arena_.chunks();
    }
    for (size_t start = 0; start < order.size() && !context_->enough.load(); start += kBatchRows) {
      const size_t end = std::min(order.size(), start + kBatchRows);
      RETURN_IF_ERROR(next_->Push(
          TakeRows(kept_, std::vector<uint32_t>(order.begin() + static_cast<ptrdiff_t>(start),
                                                order.begin() + static_cast<ptrdiff_t>(end)))));
    }
    return next_->Finish();
  }

 private:
  bool Before(uint32_t a, uint32_t b) const {
    for (const SortKey& k : keys_) {
      const Vector& v = kept_.columns[k.column];
      const bool na = v.nulls[a] != 0, nb = v.nulls[b] != 0;
      if (na != nb) return na == k.nulls_first;
      if (na) continue;
      const int c = CompareValues(v, a, b);
      if (c != 0) return k.descending ? c > 0 : c < 0;
    }
    return false;
  }

  std::vector<uint32_t> SortedOrder() const {
    std::vector<uint32_t> order(kept_.rows);
    std::iota(order.begin(), order.end(), 0);
    auto before = [this](uint32_t a, uint32_t b) { return Before(a, b); };
    if (limit_ && order.size() > static_cast<uint64_t>(*limit_)) {
      // Ties broken by arrival: the first n are those a stable sort puts first.
      auto first = [&](uint32_t a, uint32_t b) { return before(a, b) || (!before(b, a) && a < b); };
      std::partial_sort(order.begin(), order.begin() + *limit_, order.end(), first);
      order.resize(*limit_);
    } else {
      std::stable_sort(order.begin(), order.end(), before);
    }
    return order;
  }

  // Keeps only the first `limit` rows in order (their arrival order kept,
  // so ties among later rows still resolve as a stable sort would).
  void CutToLimit() {
    std::vector<uint32_t> keep = SortedOrder();
    std::sort(keep.begin(), keep.end());
    const Batch taken = TakeRows(kept_, keep);  // views into arena_, copied next
    StringArena fresh;
    Batch cut;
    cut.rows = keep.size();
    for (const Vector& c : taken.columns) {
      AppendColumn(c, keep.size(), fresh, &cut.columns.emplace_back(c.type));
    }
    // About what the rows cut away took.
    const int64_t bytes = reserved_ - reserved_ * static_cast<int64_t>(keep.size()) /
                                          static_cast<int64_t>(kept_.rows);
    kept_ = std::move(cut);
    arena_ = std::move(fresh);
    context_->Release(bytes);
    reserved_ -= bytes;
  }

  std::vector<SortKey> keys_;
  std::optional<int64_t> limit_;
  QueryContext* context_;
  BatchSink* next_;
  Batch kept_;
  StringArena arena_;
  int64_t reserved_ = 0;
};

}  // namespace

std::unique_ptr<BatchSink> MakeBatchSort(std::vector<SortKey> keys, std::optional<int64_t> limit,
                                         QueryContext* context, BatchSink* next) {
  return std::make_unique<BatchSort>(std::move(keys), limit, context, next);
}

}  // namespace strata::query
