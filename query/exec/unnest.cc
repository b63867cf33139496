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
    ValuesInFlight in_flight(context_->eval, batch.rows);
    for (const Expr* e : spec_.args) values_.push_back(EvalBatch(*e, batch, context_->eval));
    if (EvaluateInHalves(batch, *context_, in_flight)) {
      values_.clear();
      return PushHalves(batch, in_flight, this);
    }
    absl::Status pushed = PushElements(batch);
    values_.clear();
    return pushed;
  }

  absl::Status Finish() override { return next_->Finish(); }

 private:
  struct Element {
    uint32_t row;  // of the input batch
    uint32_t k;    // of its arrays
  };

  absl::Status PushElements(const Batch& batch) {
    RETURN_IF_ERROR(EvalStatus(*context_));
    for (size_t row = 0; row < batch.rows; ++row) {
      size_t n = 0;
      for (const Vector& v : values_) n = std::max(n, v.Get(row).items().size());
      for (size_t k = 0; k < n; ++k) {
        if (pending_.empty()) RETURN_IF_ERROR(context_->CheckAlive());
        pending_.push_back({static_cast<uint32_t>(row), static_cast<uint32_t>(k)});
        if (pending_.size() == kBatchRows) RETURN_IF_ERROR(Flush(batch));
      }
    }
    return Flush(batch);
  }

  // Stores, from column `column` on of row `i`, the `width` cells element `k` of `value` adds
  // (NULLs past its end). Texts are views of the value's, which `values_` holds while they are
  // pushed.
  static void SetCells(const Datum& value, size_t k, size_t i, size_t column, size_t width,
                       Batch* out) {
    const std::vector<Datum>& items = value.items();
    if (k >= items.size()) return;  // the cells stay NULL
    std::vector<Vector>& columns = out->columns;
    if (KindOf(value.type) == TypeKind::kTimeseries) {
      columns[column].Set(i, Datum::Timestamp(value.nested->times[k]));
      columns[column + 1].SetView(i, items[k]);
    } else if (KindOf(value.type) == TypeKind::kMap) {
      columns[column].SetView(i, value.nested->keys[k]);
      columns[column + 1].SetView(i, items[k]);
    } else if (KindOf(ElementType(value.type)) == TypeKind::kRow) {
      const std::vector<Datum>& fields = items[k].items();
      for (size_t f = 0; f < width && f < fields.size(); ++f) {
        columns[column + f].SetView(i, fields[f]);
      }
    } else {
      columns[column].SetView(i, items[k]);
    }
  }

  // Sends the rows gathered from `batch` on. The input's columns are shared, not copied: a
  // 1 MiB text unnested with 1,000 elements is still one text.
  absl::Status Flush(const Batch& batch) {
    if (pending_.empty()) return absl::OkStatus();
    std::vector<uint32_t> rows;
    rows.reserve(pending_.size());
    for (const Element& e : pending_) rows.push_back(e.row);
    Batch out = TakeRows(batch, rows);
    out.columns.resize(static_cast<size_t>(spec_.input_width));
    for (size_t c = out.columns.size(); c < spec_.output_types.size(); ++c) {
      out.columns.emplace_back(spec_.output_types[c]).ResetNull(out.rows);
    }
    // Where each argument's cells start, and how many it has.
    std::vector<size_t> first(values_.size()), width(values_.size());
    size_t column = static_cast<size_t>(spec_.input_width);
    for (size_t a = 0; a < values_.size(); ++a) {
      first[a] = column;
      width[a] = UnnestColumnTypes(values_[a].type).size();
      column += width[a];
    }
    // The arguments of the row whose elements are being stored: an array's items are shared,
    // not copied, and one row's elements are next to each other in `pending_`.
    std::vector<Datum> row_values(values_.size());
    uint32_t row = UINT32_MAX;
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (pending_[i].row != row) {
        row = pending_[i].row;
        for (size_t a = 0; a < values_.size(); ++a) row_values[a] = values_[a].Get(row);
      }
      for (size_t a = 0; a < values_.size(); ++a) {
        SetCells(row_values[a], pending_[i].k, i, first[a], width[a], &out);
      }
      if (spec_.with_ordinality) {
        out.columns[column].Set(i, Datum::Bigint(static_cast<int64_t>(pending_[i].k) + 1));
      }
    }
    pending_.clear();
    return next_->Push(out);
  }

  const UnnestSpec& spec_;
  QueryContext* context_;
  BatchSink* next_;
  std::vector<Vector> values_;    // the arguments, evaluated over the batch being pushed
  std::vector<Element> pending_;  // the output rows not yet sent
};

}  // namespace

std::unique_ptr<BatchSink> MakeUnnest(const UnnestSpec* spec, QueryContext* context,
                                      BatchSink* next) {
  return std::make_unique<Unnest>(spec, context, next);
}

}  // namespace strata::query
