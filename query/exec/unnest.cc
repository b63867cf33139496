#include "query/exec/unnest.h"

#include <algorithm>

#include "common/status.h"
#include "query/expr/vector_eval.h"

namespace strata::query {

std::vector<DataType> UnnestColumnTypes(DataType type) {
  switch (KindOf(type)) {
    case TypeKind::kTimeseries: return {DataType::kTimestamp, ElementType(type)};
    case TypeKind::kMap: return {MapKeyType(type), ElementType(type)};
    case TypeKind::kArray: {
      const DataType element = ElementType(type);
      if (KindOf(element) != TypeKind::kRow) return {element};
      std::vector<DataType> fields;
      for (const RowField& f : RowFields(element)) fields.push_back(f.type);
      return fields;
    }
    default: return type == DataType::kUnknown ? std::vector<DataType>{DataType::kUnknown}
                                               : std::vector<DataType>{};
  }
}

namespace {

class Unnest : public BatchSink {
 public:
  Unnest(const UnnestSpec* spec, QueryContext* context, BatchSink* next)
      : spec_(*spec), context_(context), next_(next) {}

  absl::Status Push(const Batch& batch) override {
    std::vector<Vector> values;
    for (const Expr* e : spec_.args) values.push_back(EvalBatch(*e, batch, context_->eval));
    RETURN_IF_ERROR(EvalStatus(*context_));
    for (size_t row = 0; row < batch.rows; ++row) {
      size_t n = 0;
      std::vector<Datum> args;
      for (const Vector& v : values) {
        args.push_back(v.Get(row));
        n = std::max(n, args.back().items().size());
      }
      for (size_t k = 0; k < n; ++k) {
        if (out_rows_.empty()) RETURN_IF_ERROR(context_->CheckAlive());
        out_rows_.push_back(static_cast<uint32_t>(row));
        std::vector<Datum> cells;
        for (const Datum& a : args) AppendCells(a, k, &cells);
        if (spec_.with_ordinality) cells.push_back(Datum::Bigint(static_cast<int64_t>(k) + 1));
        elements_.push_back(std::move(cells));
        if (out_rows_.size() == kBatchRows) RETURN_IF_ERROR(Flush(batch));
      }
    }
    return Flush(batch);
  }

  absl::Status Finish() override { return next_->Finish(); }

 private:
  // The cells element `k` of `value` adds (NULLs past its end).
  void AppendCells(const Datum& value, size_t k, std::vector<Datum>* cells) const {
    const std::vector<DataType> types = UnnestColumnTypes(value.type);
    const std::vector<Datum>& items = value.items();
    if (k >= items.size()) {
      for (DataType t : types) cells->push_back(Datum::Null(t));
      return;
    }
    if (KindOf(value.type) == TypeKind::kTimeseries) {
      cells->push_back(Datum::Timestamp(value.nested->times[k]));
      cells->push_back(items[k]);
    } else if (KindOf(value.type) == TypeKind::kMap) {
      cells->push_back(value.nested->keys[k]);
      cells->push_back(items[k]);
    } else if (KindOf(ElementType(value.type)) == TypeKind::kRow) {
      const std::vector<Datum>& fields = items[k].items();
      for (size_t f = 0; f < types.size(); ++f) {
        cells->push_back(f < fields.size() ? fields[f] : Datum::Null(types[f]));
      }
    } else {
      cells->push_back(items[k]);
    }
  }

  // Sends the rows gathered from `batch` on.
  absl::Status Flush(const Batch& batch) {
    if (out_rows_.empty()) return absl::OkStatus();
    Batch out = NewBatch(spec_.output_types, out_rows_.size());
    for (size_t c = 0; c < static_cast<size_t>(spec_.input_width); ++c) {
      const Vector& in = batch.columns[c];
      if (in.size() != batch.rows) continue;  // a column nothing reads
      for (size_t i = 0; i < out_rows_.size(); ++i) out.columns[c].Set(i, in.Get(out_rows_[i]));
    }
    for (size_t i = 0; i < elements_.size(); ++i) {
      for (size_t k = 0; k < elements_[i].size(); ++k) {
        out.columns[spec_.input_width + k].Set(i, elements_[i][k]);
      }
    }
    out_rows_.clear();
    elements_.clear();
    return next_->Push(out);
  }

  const UnnestSpec& spec_;
  QueryContext* context_;
  BatchSink* next_;
  std::vector<uint32_t> out_rows_;  // the input row of each pending output row
  std::vector<std::vector<Datum>> elements_;  // its unnested cells
};

}  // namespace

std::unique_ptr<BatchSink> MakeUnnest(const UnnestSpec* spec, QueryContext* context,
                                      BatchSink* next) {
  return std::make_unique<Unnest>(spec, context, next);
}

}  // namespace strata::query
