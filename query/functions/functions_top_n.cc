// max(x, n), min(x, n), max_by(x, y, n) and min_by(x, y, n): the n best rows of a group as an
// array, best first (Presto's forms of the aggregates, Timestream's reference lists them).
#include <algorithm>

#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

// Presto's limit on n.
constexpr int64_t kMaxTopN = 10'000;

class TopNAcc : public Accumulator {
 public:
  TopNAcc(std::string_view name, bool max, bool by, DataType type)
      : name_(name), max_(max), by_(by), type_(type) {}

  void Add(const std::vector<Datum>& a) override {
    const Datum& key = a[by_ ? 1 : 0];
    const Datum& n = a[by_ ? 2 : 1];
    if (key.null || !error_.empty()) return;
    if (n_ < 0) {
      if (n.null || n.i <= 0 || n.i > kMaxTopN) {
        error_ = StrCat(name_, "(): n must be from 1 to ", kMaxTopN, ", not ",
                        n.null ? "NULL" : StrCat(n.i));
        return;
      }
      n_ = n.i;
    } else if (n.null || n.i != n_) {
      error_ = StrCat(name_, "(): n must be the same for every row of a group");
      return;
    }
    Entry entry{.key = key, .value = by_ ? a[0] : Datum(), .order = added_++};
    if (static_cast<int64_t>(kept_.size()) < n_) {
      Charge(entry);
      kept_.push_back(std::move(entry));
      std::push_heap(kept_.begin(), kept_.end(), Better());
      return;
    }
    // The heap's front is the worst kept row: a row better than it takes its place.
    if (!Better()(entry, kept_.front())) return;
    std::pop_heap(kept_.begin(), kept_.end(), Better());
    Charge(entry);
    kept_.back() = std::move(entry);
    std::push_heap(kept_.begin(), kept_.end(), Better());
  }

  absl::StatusOr<Datum> Finish() override {
    if (!error_.empty()) return absl::InvalidArgumentError(error_);
    if (kept_.empty()) return Datum::Null(type_);
    std::vector<Entry> best = kept_;  // a copy: a window's growing frame asks again
    std::sort(best.begin(), best.end(), Better());
    std::vector<Datum> values;
    values.reserve(best.size());
    for (Entry& k : best) values.push_back(by_ ? std::move(k.value) : std::move(k.key));
    return Datum::Composite(type_, std::move(values));
  }

 private:
  struct Entry {
    Datum key;    // x of max and min, y of max_by and min_by
    Datum value;  // x of max_by and min_by
    uint64_t order;
  };
  // "Comes before": the larger key for max (the smaller for min), of equal keys the row that
  // came first. As a heap's comparison it keeps the worst row at the front.
  struct BetterThan {
    bool max;
    bool operator()(const Entry& a, const Entry& b) const {
      const int c = Compare(a.key, b.key);
      if (c != 0) return max ? c > 0 : c < 0;
      return a.order < b.order;
    }
  };
  BetterThan Better() const { return BetterThan{max_}; }
  void Charge(const Entry& e) {
    Kept(static_cast<int64_t>(sizeof(Entry)) + e.key.HeapBytes() + e.value.HeapBytes());
  }

  std::string_view name_;
  bool max_;
  bool by_;
  DataType type_;  // array of x
  int64_t n_ = -1;
  uint64_t added_ = 0;
  std::vector<Entry> kept_;
  std::string error_;
};

}  // namespace

std::unique_ptr<Accumulator> MakeTopN(std::string_view name, bool max, bool by,
                                      DataType array_type) {
  return std::make_unique<TopNAcc>(name, max, by, array_type);
}

}  // namespace strata::query
