#include "storage/rows/value_codec.h"

namespace strata {

void PutNameAndType(std::string_view name, ValueType type, std::string* out) {
  PutLengthPrefixed(out, name);
  out->push_back(static_cast<char>(type));
}

void AppendValue(const ValueView& value, std::string* out) {
  AppendBounded(out, MaxValueBytes(value), [&](char* p) { return EncodeValue(p, value); });
}

bool ReadValue(Decoder& in, ValueType type, MeasureView* m) {
  m->type = type;
  m->real = 0;
  m->number = 0;
  m->text = {};
  uint8_t flag = 0;
  switch (type) {
    case ValueType::kDouble: return in.GetDouble(&m->real);
    case ValueType::kVarchar: return in.GetLengthPrefixed(&m->text);
    case ValueType::kBoolean:
      if (!in.GetByte(&flag)) return false;
      m->number = flag != 0;
      return true;
    case ValueType::kBigint:
    case ValueType::kTimestamp: return in.GetVarsint64(&m->number);
  }
  return false;
}

void EncodeRowSignature(absl::Span<const std::string_view> names,
                        absl::Span<const ValueType> types, std::string* out) {
  PutVarint64(out, names.size());
  for (size_t i = 0; i < names.size(); ++i) PutNameAndType(names[i], types[i], out);
}

}  // namespace strata
