#include "storage/rows/measure_list.h"

#include "common/coding.h"
#include "storage/rows/value_codec.h"

namespace strata {

std::shared_ptr<const RowShape> MakeRowShape(absl::Span<const std::string_view> names,
                                             absl::Span<const ValueType> types) {
  std::string signature;
  EncodeRowSignature(names, types, &signature);
  RowParts parts;
  if (!SplitSignature(signature, &parts)) return nullptr;
  return std::make_shared<const RowShape>(parts);
}

MeasureList MeasureList::Of(const std::vector<Measure>& measures) {
  std::vector<std::string_view> names;
  std::vector<ValueType> types;
  std::string values;
  for (const Measure& m : measures) {
    names.push_back(m.name);
    types.push_back(m.value.type);
    AppendValue(ValueView::Of(m.value), &values);
  }
  return MeasureList(MakeRowShape(names, types), Values(values.begin(), values.end()));
}

std::vector<Measure> MeasureList::ToVector() const {
  std::vector<Measure> out(size());
  Decoder in(values());
  MeasureView view;
  for (size_t i = 0; i < out.size(); ++i) {
    // The normalizer wrote the values: they are well formed.
    ReadValue(in, type(i), &view);
    out[i].name = name(i);
    out[i].value = {.type = view.type, .number = view.number, .real = view.real,
                    .text = std::string(view.text)};
  }
  return out;
}

bool MeasureList::operator==(const MeasureList& other) const {
  return SameShape(other) && values_ == other.values_;
}

}  // namespace strata
