#include "storage/row_codec.h"

#include "common/coding.h"

namespace strata {

void EncodeRow(const StoredRow& row, std::string* out) {
  PutVarint64(out, static_cast<uint64_t>(row.version));
  PutVarint64(out, row.measures.size());
  for (const Measure& m : row.measures) {
    PutLengthPrefixed(out, m.name);
    out->push_back(static_cast<char>(m.value.type));
    switch (m.value.type) {
      case ValueType::kDouble: PutDouble(out, m.value.real); break;
      case ValueType::kVarchar: PutLengthPrefixed(out, m.value.text); break;
      case ValueType::kBoolean: out->push_back(m.value.number != 0 ? 1 : 0); break;
      case ValueType::kBigint:
      case ValueType::kTimestamp: PutVarsint64(out, m.value.number); break;
    }
  }
}

absl::StatusOr<StoredRow> DecodeRow(std::string_view bytes) {
  StoredRow row;
  absl::Status decoded = DecodeRowInto(bytes, &row);
  if (!decoded.ok()) return decoded;
  return row;
}

absl::Status DecodeRowInto(std::string_view bytes, StoredRow* out) {
  StoredRow& row = *out;
  Decoder in(bytes);
  uint64_t version, count;
  if (!in.GetVarint64(&version) || !in.GetVarint64(&count) || count > bytes.size()) {
    return CorruptionError("row");
  }
  row.version = static_cast<int64_t>(version);
  row.measures.resize(count);
  for (Measure& m : row.measures) {
    std::string_view name, text;
    uint8_t type, flag;
    if (!in.GetLengthPrefixed(&name) || !in.GetByte(&type) || !IsValidValueType(type)) {
      return CorruptionError("row");
    }
    m.name = name;
    m.value.type = static_cast<ValueType>(type);
    bool ok = true;
    switch (m.value.type) {
      case ValueType::kDouble: ok = in.GetDouble(&m.value.real); break;
      case ValueType::kVarchar:
        ok = in.GetLengthPrefixed(&text);
        m.value.text = text;
        break;
      case ValueType::kBoolean:
        ok = in.GetByte(&flag);
        m.value.number = flag != 0;
        break;
      case ValueType::kBigint:
      case ValueType::kTimestamp: ok = in.GetVarsint64(&m.value.number); break;
    }
    if (!ok) return CorruptionError("row");
  }
  if (!in.done()) return CorruptionError("row");
  return absl::OkStatus();
}

}  // namespace strata
