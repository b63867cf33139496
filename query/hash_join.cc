#include "query/hash_join.h"

#include "absl/container/flat_hash_map.h"
#include "common/status.h"

namespace strata::query {
namespace {

// The key of a row: the encoded values of its key expressions, each value
// in *values; false when one is NULL (a NULL key never matches).
bool RowKey(const std::vector<const Expr*>& keys, const Row& row, const EvalContext& eval,
            std::string* out, std::vector<Datum>* values = nullptr) {
  out->clear();
  if (values != nullptr) values->clear();
  bool complete = true;
  for (const Expr* k : keys) {
    Datum v = Eval(*k, row, eval);
    if (v.null) complete = false;
    if (complete) AppendKey(v, out);
    if (values != nullptr) values->push_back(std::move(v));
  }
  return complete;
}

// Holds the build side: its rows, and for each key the rows that have it.
class BuildSide : public RowSink {
 public:
  BuildSide(const std::vector<const Expr*>& keys, bool narrow, const std::vector<int>& keep,
            int restrict_key, QueryContext* context)
      : keys_(keys), narrow_(narrow), keep_(keep), restrict_key_(restrict_key),
        context_(context) {}

  absl::Status Push(Row row) override {
    int64_t bytes = static_cast<int64_t>(sizeof(Row)) + 1;
    if (!keys_.empty()) {
      if (RowKey(keys_, row, context_->eval, &key_, &key_values_)) {
        bytes += static_cast<int64_t>(key_.size() + 48);
        by_key_[key_].push_back(rows_.size());
      }
      RETURN_IF_ERROR(EvalStatus(*context_));
      if (restrict_key_ >= 0) {
        const Datum& v = key_values_[static_cast<size_t>(restrict_key_)];
        if (!v.null && v.type == DataType::kVarchar) key_set_->insert(v.s);
      }
    }
    if (narrow_) {
      Row kept;
      kept.reserve(keep_.size());
      for (int c : keep_) kept.push_back(std::move(row[c]));
      row = std::move(kept);
    }
    bytes += RowBytes(row);
    RETURN_IF_ERROR(context_->Reserve(bytes, "a join's build side"));
    rows_.push_back(std::move(row));
    matched_.push_back(0);
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }

  // The rows that may match `key` (all of them without equality keys).
  const std::vector<size_t>* Candidates(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : &it->second;
  }
  std::vector<Row>& rows() { return rows_; }
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
  std::vector<Row> rows_;
  std::vector<uint8_t> matched_;
  absl::flat_hash_map<std::string, std::vector<size_t>> by_key_;
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
      Row joined = Joined(&probe, &build_->rows()[b]);
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
      for (size_t b = 0; b < build_->rows().size() && !context_->enough.load(); ++b) {
        if ((b & 4095) == 4095) RETURN_IF_ERROR(context_->CheckAlive());
        RETURN_IF_ERROR(try_pair(b));
      }
    } else if (RowKey(*probe_keys_, probe, context_->eval, &key_)) {
      if (const std::vector<size_t>* candidates = build_->Candidates(key_)) {
        for (size_t b : *candidates) {
          RETURN_IF_ERROR(try_pair(b));
          if (context_->enough.load()) break;
        }
      }
    }
    RETURN_IF_ERROR(EvalStatus(*context_));
    if (!any && preserve_probe_) return out_->Push(Joined(&probe, nullptr));
    return absl::OkStatus();
  }

  absl::Status Finish() override {
    if (preserve_build_) {
      std::vector<Row>& rows = build_->rows();
      for (size_t b = 0; b < rows.size() && !context_->enough.load(); ++b) {
        if (build_->matched()[b] == 0) RETURN_IF_ERROR(out_->Push(Joined(nullptr, &rows[b])));
      }
    }
    return out_->Finish();
  }

 private:
  // Left columns then right columns; a missing side is NULLs, and so are
  // the build side's columns it does not keep (JoinSpec::build_keep).
  Row Joined(const Row* probe, const Row* build) const {
    const Row* left = spec_.build_left ? build : probe;
    const Row* right = spec_.build_left ? probe : build;
    Row joined;
    joined.reserve(spec_.output_types.size());
    auto append = [&](const Row* side, bool narrowed, int width, size_t offset) {
      const size_t first = joined.size();
      for (int c = 0; c < width; ++c) {
        if (side != nullptr && !narrowed) {
          joined.push_back((*side)[c]);
        } else {
          joined.push_back(Datum::Null(spec_.output_types[offset + c]));
        }
      }
      if (side != nullptr && narrowed) {
        for (size_t k = 0; k < spec_.build_keep.size(); ++k) {
          joined[first + spec_.build_keep[k]] = (*side)[k];
        }
      }
    };
    const bool narrowed = spec_.narrow_build;
    append(left, narrowed && spec_.build_left, spec_.left_width, 0);
    append(right, narrowed && !spec_.build_left, spec_.right_width, spec_.left_width);
    if (left == nullptr) {
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
