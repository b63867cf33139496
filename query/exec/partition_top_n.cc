#include "query/exec/partition_top_n.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/node_hash_map.h"
#include "common/status.h"
#include "query/expr/vector_eval.h"

namespace strata::query {
namespace {

// Past this many ranks a partition, the window's own sort costs no more than keeping them.
constexpr int64_t kMostRanks = 10'000;

bool IsRanking(const std::string& f) {
  return f == "row_number" || f == "rank" || f == "dense_rank";
}

void ColumnsRead(const Expr& e, std::vector<int>* out) {
  if (e.kind == ExprKind::kColumn) out->push_back(e.bound.column);
  for (const ExprPtr& a : e.args) ColumnsRead(*a, out);
}

// The same expressions over the same columns: the same text, and columns read in the same
// places (two columns of a join may print alike).
bool SameExprs(const std::vector<const Expr*>& a, const std::vector<const Expr*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->ToString() != b[i]->ToString()) return false;
    std::vector<int> read_a, read_b;
    ColumnsRead(*a[i], &read_a);
    ColumnsRead(*b[i], &read_b);
    if (read_a != read_b) return false;
  }
  return true;
}

bool SameWindow(const WindowCall& a, const WindowCall& b) {
  return SameExprs(a.partition_by, b.partition_by) && SameExprs(a.order_by, b.order_by) &&
         a.descending == b.descending && a.nulls_first == b.nulls_first;
}

// Whether the call's value for a row reads no row after the row's peers in window order.
bool ReadsNoLaterRow(const WindowCall& call) {
  const std::string& f = call.name;
  if (IsRanking(f) || f == "lag") return true;
  if (f == "lead" || f == "ntile" || f == "percent_rank" || f == "cume_dist") return false;
  // first_value, last_value, nth_value and aggregates: by their frame's end.
  const FrameBound::Kind end = call.frame.end.kind;
  return end == FrameBound::Kind::kCurrentRow || end == FrameBound::Kind::kPreceding;
}

// Whether the call's value for a row reads its peers: ranks and RANGE or GROUPS frames do;
// row_number, lag and ROWS frames read rows by position alone (peers by arrival).
bool ReadsPeers(const WindowCall& call) {
  const std::string& f = call.name;
  if (f == "row_number" || f == "lag") return false;
  if (f == "rank" || f == "dense_rank") return true;
  return call.frame.unit != WindowFrame::Unit::kRows;
}

class PartitionTopN final : public BatchSink {
 public:
  PartitionTopN(const WindowCall& call, RankLimit limit, std::vector<int> keep,
                std::vector<DataType> types, QueryContext* context, BatchSink* next)
      : call_(call),
        limit_(limit),
        keep_(std::move(keep)),
        types_(std::move(types)),
        context_(context),
        next_(next) {
    for (size_t k = 0; k < call_.order_by.size(); ++k) {
      order_.push_back({.column = static_cast<int>(k),
                        .descending = call_.descending[k],
                        .nulls_first = call_.nulls_first[k]});
    }
    read_.assign(keep_.size(), false);
    for (const Expr* e : call_.partition_by) MarkColumns(*e, &read_);
    for (const Expr* e : call_.order_by) MarkColumns(*e, &read_);
  }

  ~PartitionTopN() override { context_->Release(bytes_); }

  absl::Status Push(const Batch& batch) override {
    RETURN_IF_ERROR(context_->CheckAlive());
    if (passing_) return next_->Push(Narrowed(batch, nullptr));
    // The columns the keys read, where the call's expressions find them.
    const Batch narrowed = Narrowed(batch, &read_);
    std::vector<Vector> scratch(call_.partition_by.size() + call_.order_by.size());
    std::vector<const Vector*> partition, order;
    for (size_t k = 0; k < call_.partition_by.size(); ++k) {
      partition.push_back(
          &EvalBatchRef(*call_.partition_by[k], narrowed, context_->eval, &scratch[k]));
    }
    for (size_t k = 0; k < call_.order_by.size(); ++k) {
      order.push_back(&EvalBatchRef(*call_.order_by[k], narrowed, context_->eval,
                                    &scratch[partition.size() + k]));
    }
    RETURN_IF_ERROR(EvalStatus(*context_));
    // Each row to its partition (a scan's rows come a series at a time: the last key is
    // checked before the map).
    std::vector<Partition*> touched;
    std::string key, last_key;
    Partition* last = nullptr;
    for (size_t r = 0; r < batch.rows; ++r) {
      key.clear();
      for (const Vector* v : partition) AppendKey(*v, r, &key);
      Partition* p = last;
      if (p == nullptr || key != last_key) {
        const auto [it, added] = partitions_.try_emplace(key);
        if (added) {
          // A partition's key and entry stay to the end (a million keys of a kilobyte each
          // are a gigabyte however few rows each keeps).
          const auto entry = static_cast<int64_t>(key.size() + sizeof(Partition) + 64);
          RETURN_IF_ERROR(context_->Reserve(entry, "a window's top rows of each partition"));
          bytes_ += entry;
        }
        p = &it->second;
      }
      if (p->pending.empty()) touched.push_back(p);
      p->pending.push_back(static_cast<uint32_t>(r));
      last = p;
      std::swap(key, last_key);
    }
    for (Partition* p : touched) {
      RETURN_IF_ERROR(Take(*p, batch, order));
      p->pending = {};  // not kept for the next batch: a few bytes a row in every partition
    }
    seen_ += batch.rows;
    // Rows that come against the window's order, many partitions to a batch, or a large n keep
    // most rows as candidates, each made into values: slower than the window's own columns.
    // Past a quarter of the rows so far, the candidates go on and every later row with them
    // (correct at any point: a row dropped had n rows before it then, so it ranks past n).
    if (seen_ >= kRowsBeforeGivingUp && 4 * made_ > seen_) {
      RETURN_IF_ERROR(HandOnCandidates());
      passing_ = true;
      partitions_.clear();  // the consumer copied what it keeps of each batch
      context_->Release(bytes_);
      bytes_ = 0;
    }
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    if (!passing_) RETURN_IF_ERROR(HandOnCandidates());
    return next_->Finish();
  }

 private:
  static constexpr uint64_t kRowsBeforeGivingUp = 16 * kBatchRows;

  // The kept columns of `batch` (with `only`, those it marks; the others left empty).
  Batch Narrowed(const Batch& batch, const std::vector<bool>* only) const {
    Batch out;
    out.rows = batch.rows;
    out.columns.resize(keep_.size());
    for (size_t k = 0; k < keep_.size(); ++k) {
      if (only == nullptr || (*only)[k]) out.columns[k] = batch.columns[keep_[k]];
    }
    return out;
  }

  // Every partition's candidates, cut, handed on in arrival order as batches whose texts are
  // views of the candidates' values (which live as long as this operator).
  absl::Status HandOnCandidates() {
    std::vector<Candidate*> kept;
    for (auto& [key, p] : partitions_) {
      Cut(p);
      for (Candidate& c : p.kept) kept.push_back(&c);
    }
    std::sort(kept.begin(), kept.end(),
              [](const Candidate* a, const Candidate* b) { return a->arrival < b->arrival; });
    for (size_t at = 0; at < kept.size(); at += kBatchRows) {
      const size_t rows = std::min(kBatchRows, kept.size() - at);
      Batch batch = NewBatch(types_, rows);
      for (size_t r = 0; r < rows; ++r) {
        const Row& values = kept[at + r]->values;
        for (size_t k = 0; k < values.size(); ++k) batch.columns[k].SetView(r, values[k]);
      }
      RETURN_IF_ERROR(next_->Push(batch));
    }
    return absl::OkStatus();
  }

  // A row that may be among its partition's kept ones.
  struct Candidate {
    Row keys;    // the call's ORDER BY values
    Row values;  // the kept columns
    uint64_t arrival = 0;
    int64_t bytes = 0;  // reserved for it
  };
  struct Partition {
    std::vector<Candidate> kept;
    // Once the partition has its n ranks: the ORDER BY values of the last rank kept. A row
    // after it in window order is never kept.
    std::optional<Row> bound;
    size_t cut_at = 0;              // how many candidates are cut down again
    std::vector<uint32_t> pending;  // the batch's rows of this partition
  };

  // Adds the batch's pending rows of `p` that may be kept: those after its bound dropped, and
  // of the rest, the batch's own top n (only those rows are made into values).
  absl::Status Take(Partition& p, const Batch& batch, const std::vector<const Vector*>& order) {
    std::vector<uint32_t>& rows = p.pending;
    if (p.bound) {
      // Past the bound; at it too without ties (a row at it came after the one kept).
      const int least = limit_.ties ? 1 : 0;
      std::erase_if(rows, [&](uint32_t r) { return CompareToKeys(order, r, *p.bound) >= least; });
    }
    const auto ranks = static_cast<size_t>(limit_.ranks);
    auto before = [&](uint32_t a, uint32_t b) {
      const int c = CompareRows(order, a, b);
      return c < 0 || (c == 0 && a < b);
    };
    if (rows.size() > ranks && !limit_.peer_groups) {
      std::nth_element(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(ranks - 1),
                       rows.end(), before);
      const uint32_t nth = rows[ranks - 1];
      if (limit_.ties) {
        std::erase_if(rows, [&](uint32_t r) { return CompareRows(order, r, nth) > 0; });
      } else {
        rows.resize(ranks);
      }
    } else if (rows.size() > ranks) {
      std::sort(rows.begin(), rows.end(), before);
      size_t groups = 0, keep = rows.size();
      for (size_t i = 0; i < rows.size() && keep == rows.size(); ++i) {
        if ((i == 0 || CompareRows(order, rows[i], rows[i - 1]) != 0) && ++groups > ranks) keep = i;
      }
      rows.resize(keep);
    }
    std::sort(rows.begin(), rows.end());
    for (uint32_t r : rows) {
      Candidate c{.keys = Row(order.size()), .values = Row(keep_.size()), .arrival = seen_ + r};
      for (size_t k = 0; k < order.size(); ++k) c.keys[k] = order[k]->Get(r);
      for (size_t k = 0; k < keep_.size(); ++k) {
        const Vector& column = batch.columns[keep_[k]];
        c.values[k] = column.size() == 0 ? Datum::Null(types_[k]) : column.Get(r);
      }
      ++made_;
      c.bytes = RowBytes(c.keys) + RowBytes(c.values);
      RETURN_IF_ERROR(context_->Reserve(c.bytes, "a window's top rows of each partition"));
      bytes_ += c.bytes;
      p.kept.push_back(std::move(c));
    }
    if (p.kept.size() >= p.cut_at) {
      Cut(p);
      p.cut_at = 2 * p.kept.size() + 64;  // cut again when twice as many: each row cut O(1) times
    }
    return absl::OkStatus();
  }

  // Puts `p`'s candidates in window order (peers by arrival) and drops those past the limit;
  // once there are n ranks, the last kept's ORDER BY values are its bound.
  void Cut(Partition& p) {
    std::vector<Candidate>& rows = p.kept;
    std::sort(rows.begin(), rows.end(), [&](const Candidate& a, const Candidate& b) {
      if (SortsBefore(a.keys, b.keys, order_)) return true;
      return !SortsBefore(b.keys, a.keys, order_) && a.arrival < b.arrival;
    });
    const auto ranks = static_cast<size_t>(limit_.ranks);
    size_t keep = rows.size();
    if (!limit_.peer_groups) {
      if (rows.size() < ranks) return;
      keep = ranks;
      while (limit_.ties && keep < rows.size() &&
             SameSortKeys(rows[keep].keys, rows[ranks - 1].keys, order_)) {
        ++keep;
      }
    } else {
      size_t groups = 0;
      for (size_t i = 0; i < rows.size() && keep == rows.size(); ++i) {
        if ((i == 0 || !SameSortKeys(rows[i].keys, rows[i - 1].keys, order_)) && ++groups > ranks) {
          keep = i;
        }
      }
      if (groups < ranks) return;
    }
    p.bound = rows[keep - 1].keys;
    for (size_t i = keep; i < rows.size(); ++i) {
      context_->Release(rows[i].bytes);
      bytes_ -= rows[i].bytes;
    }
    rows.resize(keep);
  }

  // Row a against row b of the batch's ORDER BY values, in window order (negative: a first).
  // Integers and doubles are compared where they are, without a Datum made for each.
  int CompareRows(const std::vector<const Vector*>& order, size_t a, size_t b) const {
    for (size_t k = 0; k < order.size(); ++k) {
      const Vector& v = *order[k];
      const bool null_a = v.null(a), null_b = v.null(b);
      if (null_a != null_b) return null_a == order_[k].nulls_first ? -1 : 1;
      if (null_a) continue;
      int c = 0;
      if (UsesInts(v.type)) {
        c = v.ints[a] < v.ints[b] ? -1 : v.ints[a] > v.ints[b] ? 1 : 0;
      } else if (v.type == DataType::kDouble) {
        c = DoublesOrder(v.doubles[a], v.doubles[b]);
      } else {
        c = Compare(v.Get(a), v.Get(b));
      }
      if (c != 0) return order_[k].descending ? -c : c;
    }
    return 0;
  }

  // Row a of the batch's ORDER BY values against a candidate's, as CompareRows.
  int CompareToKeys(const std::vector<const Vector*>& order, size_t a, const Row& keys) const {
    for (size_t k = 0; k < order.size(); ++k) {
      const Vector& v = *order[k];
      const Datum& b = keys[k];
      const bool null_a = v.null(a);
      if (null_a != b.null) return null_a == order_[k].nulls_first ? -1 : 1;
      if (null_a) continue;
      int c = 0;
      if (UsesInts(v.type) && b.type == v.type) {
        c = v.ints[a] < b.i ? -1 : v.ints[a] > b.i ? 1 : 0;
      } else if (v.type == DataType::kDouble && b.type == v.type) {
        c = DoublesOrder(v.doubles[a], b.d);
      } else {
        c = Compare(v.Get(a), b);
      }
      if (c != 0) return order_[k].descending ? -c : c;
    }
    return 0;
  }

  const WindowCall& call_;
  RankLimit limit_;
  std::vector<int> keep_;
  std::vector<DataType> types_;  // of the kept columns
  QueryContext* context_;
  BatchSink* next_;
  std::vector<SortKey> order_;                              // over a candidate's keys
  std::vector<bool> read_;                                  // the kept columns the keys read
  absl::node_hash_map<std::string, Partition> partitions_;  // by AppendKey of the partition keys
  uint64_t seen_ = 0;                                       // rows before the current batch
  uint64_t made_ = 0;                                       // rows made into candidates' values
  bool passing_ = false;                                    // given up choosing: every row goes on
  int64_t bytes_ = 0;                                       // reserved for the candidates
};

}  // namespace

std::optional<RankLimit> RankLimitOf(const std::vector<WindowCall>& calls) {
  std::optional<RankLimit> best;
  for (size_t c = 0; c < calls.size(); ++c) {
    const WindowCall& call = calls[c];
    if (call.kept_ranks <= 0 || call.kept_ranks > kMostRanks || call.order_by.empty() ||
        !IsRanking(call.name)) {
      continue;
    }
    if (!best || call.kept_ranks < best->ranks) {
      best =
          RankLimit{.call = c, .ranks = call.kept_ranks, .peer_groups = call.name == "dense_rank"};
    }
  }
  if (!best) return std::nullopt;
  for (const WindowCall& call : calls) {
    if (!SameWindow(call, calls[best->call]) || !ReadsNoLaterRow(call)) return std::nullopt;
    best->ties |= ReadsPeers(call);
  }
  return best;
}

std::unique_ptr<BatchSink> MakePartitionTopN(const WindowCall& call, RankLimit limit,
                                             std::vector<int> keep, std::vector<DataType> types,
                                             QueryContext* context, BatchSink* next) {
  return std::make_unique<PartitionTopN>(call, limit, std::move(keep), std::move(types), context,
                                         next);
}

}  // namespace strata::query
