#include "query/exec/hash_join.h"

#include "absl/container/flat_hash_map.h"
#include "common/status.h"
#include "query/base/compact_column.h"

namespace strata::query {
namespace {

// The key of a row: the encoded values of its key expressions, each value
// in *values; false when one is NULL or a NaN (neither ever matches: = does
// not hold for them).
bool RowKey(const std::vector<const Expr*>& keys, const Row& row, const EvalContext& eval,
            std::string* out, std::vector<Datum>* values = nullptr) {
  out->clear();
  if (values != nullptr) values->clear();
  bool complete = true;
  for (const Expr* k : keys) {
    Datum v = Eval(*k, row, eval);
    if (v.null || IsNaN(v)) complete = false;
    if (complete) AppendKey(v, out);
    if (values != nullptr) values->push_back(std::move(v));
  }
  return complete;
}

// Holds the build side: its rows as compact columns, and for each key the
// rows that have it, chained in arrival order (a key's first and last row,
// and each row's next), so a row costs 12 bytes per kept value and 5 more,
// and a key its bytes once.
class BuildSide : public RowSink {
 public:
  static constexpr uint32_t kEnd = UINT32_MAX;

  BuildSide(const std::vector<const Expr*>& keys, bool narrow, const std::vector<int>& keep,
            int restrict_key, QueryContext* context)
      : keys_(keys), narrow_(narrow), keep_(keep), restrict_key_(restrict_key),
        context_(context) {}

  absl::Status Push(Row row) override {
    if (rows_ == kEnd - 1) {
      return absl::ResourceExhaustedError("a join's build side holds at most 2^32 - 2 rows");
    }
    const auto index = static_cast<uint32_t>(rows_);
    int64_t bytes = static_cast<int64_t>(sizeof(uint32_t)) + 1;  // next_, matched_
    if (!keys_.empty()) {
      if (RowKey(keys_, row, context_->eval, &key_, &key_values_)) {
        auto [it, fresh] = by_key_.try_emplace(key_, index, index);
        if (fresh) {
          bytes += static_cast<int64_t>(key_.size() + 48);
        } else {
          next_[it->second.second] = index;
          it->second.second = index;
        }
      }
      RETURN_IF_ERROR(EvalStatus(*context_));
      if (restrict_key_ >= 0) {
        const Datum& v = key_values_[static_cast<size_t>(restrict_key_)];
        if (!v.null && v.type == DataType::kVarchar) key_set_->insert(v.s);
      }
    }
    const size_t width = narrow_ ? keep_.size() : row.size();
    if (columns_.size() < width) columns_.resize(width);
    for (size_t c = 0; c < width; ++c) {
      const Datum& value = row[narrow_ ? static_cast<size_t>(keep_[c]) : c];
      bytes += CompactColumn::BytesOf(value);
      columns_[c].Append(value);
    }
    RETURN_IF_ERROR(context_->Reserve(bytes, "a join's build side"));
    next_.push_back(kEnd);
    matched_.push_back(0);
    ++rows_;
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }

  size_t size() const { return rows_; }
  // The first row with `key`, or kEnd; Next(b) the row after b with b's key.
  uint32_t First(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? kEnd : it->second.first;
  }
  uint32_t Next(uint32_t b) const { return next_[b]; }
  // Kept column c of row b.
  Datum Value(size_t c, size_t b) const { return columns_[c].Get(b); }
  std::vector<uint8_t>& matched() { return matched_; }
  // The distinct VARCHAR values of key `restrict_key`.
  std::shared_ptr<absl::flat_hash_set<std::string>> key_set() const { return key_set_; }

 private:
  const std::vector<const Expr*>& keys_;
  const bool narrow_;
  const std::vector<int>& keep_;
  const int restrict_key_;
  QueryContext* context_;
  std::string key_;
  std::vector<Datum> key_values_;
  size_t rows_ = 0;
  std::vector<CompactColumn> columns_;  // the kept columns
  std::vector<uint32_t> next_;
  std::vector<uint8_t> matched_;
  absl::flat_hash_map<std::string, std::pair<uint32_t, uint32_t>> by_key_;  // first, last row
  std::shared_ptr<absl::flat_hash_set<std::string>> key_set_ =
      std::make_shared<absl::flat_hash_set<std::string>>();
};

// Streams the probe side against the build side.
class ProbeSide : public RowSink {
 public:
  ProbeSide(const JoinSpec& spec, BuildSide* build, QueryContext* context, RowSink* out)
      : spec_(spec), build_(build), context_(context), out_(out) {
    const JoinKind k = spec.kind;
    preserve_probe_ = k == JoinKind::kFull || (k == JoinKind::kLeft && !spec.build_left) ||
                      (k == JoinKind::kRight && spec.build_left);
    preserve_build_ = k == JoinKind::kFull || (k == JoinKind::kLeft && spec.build_left) ||
                      (k == JoinKind::kRight && !spec.build_left);
    probe_keys_ = spec.build_left ? &spec.right_keys : &spec.left_keys;
  }

  absl::Status Push(Row probe) override {
    bool any = false;
    auto try_pair = [&](size_t b) -> absl::Status {
      // Counted across probe rows: a cross join of small tables is many
      // short loops (300 rows each for 300^4 pairs).
      RETURN_IF_ERROR(context_->Tick());
      Row joined = Joined(&probe, b);
      if (spec_.residual != nullptr) {
        const Datum pass = Eval(*spec_.residual, joined, context_->eval);
        RETURN_IF_ERROR(EvalStatus(*context_));
        if (!pass.truthy()) return absl::OkStatus();
      }
      any = true;
      build_->matched()[b] = 1;
      return out_->Push(std::move(joined));
    };
    if (probe_keys_->empty()) {
      for (size_t b = 0; b < build_->size() && !context_->enough.load(); ++b) {
        RETURN_IF_ERROR(try_pair(b));
      }
    } else if (RowKey(*probe_keys_, probe, context_->eval, &key_)) {
      for (uint32_t b = build_->First(key_); b != BuildSide::kEnd; b = build_->Next(b)) {
        RETURN_IF_ERROR(try_pair(b));
        if (context_->enough.load()) break;
      }
    }
    RETURN_IF_ERROR(EvalStatus(*context_));
    if (!any && preserve_probe_) return out_->Push(Joined(&probe, kNoRow));
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    if (preserve_build_) {
      for (size_t b = 0; b < build_->size() && !context_->enough.load(); ++b) {
        if (build_->matched()[b] == 0) RETURN_IF_ERROR(out_->Push(Joined(nullptr, b)));
      }
    }
    return out_->Finish();
  }

 private:
  static constexpr size_t kNoRow = SIZE_MAX;

  // Left columns then right columns, from the probe row and build row `b`;
  // a missing side (null probe, kNoRow) is NULLs, and so are the build
  // side's columns it does not keep (JoinSpec::build_keep).
  Row Joined(const Row* probe, size_t b) const {
    Row joined;
    joined.reserve(spec_.output_types.size());
    auto append_probe = [&](int width, size_t offset) {
      for (int c = 0; c < width; ++c) {
        joined.push_back(probe != nullptr ? (*probe)[c]
                                          : Datum::Null(spec_.output_types[offset + c]));
      }
    };
    auto append_build = [&](int width, size_t offset) {
      const size_t first = joined.size();
      const bool narrowed = spec_.narrow_build;
      for (int c = 0; c < width; ++c) {
        joined.push_back(b != kNoRow && !narrowed ? build_->Value(static_cast<size_t>(c), b)
                                                  : Datum::Null(spec_.output_types[offset + c]));
      }
      if (b != kNoRow && narrowed) {
        for (size_t k = 0; k < spec_.build_keep.size(); ++k) {
          joined[first + spec_.build_keep[k]] = build_->Value(k, b);
        }
      }
    };
    if (spec_.build_left) {
      append_build(spec_.left_width, 0);
      append_probe(spec_.right_width, spec_.left_width);
    } else {
      append_probe(spec_.left_width, 0);
      append_build(spec_.right_width, spec_.left_width);
    }
    const bool left_missing = spec_.build_left ? b == kNoRow : probe == nullptr;
    if (left_missing) {
      for (auto [l, r] : spec_.using_columns) joined[l] = joined[spec_.left_width + r];
    }
    return joined;
  }

  const JoinSpec& spec_;
  BuildSide* build_;
  QueryContext* context_;
  RowSink* out_;
  const std::vector<const Expr*>* probe_keys_;
  bool preserve_probe_ = false, preserve_build_ = false;
  std::string key_;
};

}  // namespace

absl::Status RunJoin(const JoinSpec& spec, const SideRun& left, const SideRun& right,
                     QueryContext* context, BatchSink* out) {
  const std::vector<const Expr*>& build_keys = spec.build_left ? spec.left_keys : spec.right_keys;
  BuildSide build(build_keys, spec.narrow_build, spec.build_keep,
                  spec.probe_restriction ? spec.restrict_key : -1, context);
  const int build_width = spec.build_left ? spec.left_width : spec.right_width;
  const int probe_width = spec.build_left ? spec.right_width : spec.left_width;
  RETURN_IF_ERROR((spec.build_left ? left : right)(MakeBatchesToRows(build_width, context, &build).get()));
  if (spec.probe_restriction && spec.restrict_key >= 0) spec.probe_restriction->values = build.key_set();
  std::unique_ptr<RowSink> batches = MakeRowsToBatches(spec.output_types, context, out);
  ProbeSide probe(spec, &build, context, batches.get());
  return (spec.build_left ? right : left)(MakeBatchesToRows(probe_width, context, &probe).get());
}

}  // namespace strata::query
