#include "storage/rows/head_rows.h"

#include <atomic>
#include <cstring>

#include "common/coding.h"
#include "storage/rows/value_codec.h"

namespace strata {
namespace {

std::atomic<uint64_t> next_shape_serial{1};

// The length of the varint at the start of `bytes`; 0 if it has none.
size_t VarintLength(std::string_view bytes) {
  for (size_t n = 0; n < bytes.size() && n < 10; ++n) {
    if ((static_cast<unsigned char>(bytes[n]) & 0x80) == 0) return n + 1;
  }
  return 0;
}

// The size of every value of `type` (DOUBLE, BOOLEAN); 0 for a type whose
// values vary in size.
size_t FixedValueBytes(ValueType type) {
  switch (type) {
    case ValueType::kDouble: return sizeof(double);
    case ValueType::kBoolean: return 1;
    default: return 0;
  }
}

// The length of a value of `type` at the start of `bytes`; 0 if it has none.
size_t ValueLength(ValueType type, std::string_view bytes) {
  switch (type) {
    case ValueType::kDouble:
    case ValueType::kBoolean: {
      const size_t size = FixedValueBytes(type);
      return bytes.size() >= size ? size : 0;
    }
    case ValueType::kBigint:
    case ValueType::kTimestamp: return VarintLength(bytes);
    case ValueType::kVarchar: {
      Decoder in(bytes);
      std::string_view text;
      return in.GetLengthPrefixed(&text) ? bytes.size() - in.rest().size() : 0;
    }
  }
  return 0;
}

// Reads a measure's name part (length prefix, name, type byte) into m->name
// and m->type; false if it is not one.
bool ReadNamePart(Decoder& in, RowParts::Measure* m) {
  const std::string_view at = in.rest();
  std::string_view name;
  uint8_t type;
  if (!in.GetLengthPrefixed(&name) || !in.GetByte(&type) || !IsValidValueType(type)) return false;
  m->name = at.substr(0, at.size() - in.rest().size());
  m->type = static_cast<ValueType>(type);
  return true;
}

}  // namespace

bool SplitEncodedRow(std::string_view row, RowParts* parts) {
  parts->measures.clear();
  Decoder in(row);
  auto taken_since = [&](std::string_view before) {
    return before.substr(0, before.size() - in.rest().size());
  };
  uint64_t version, count;
  std::string_view at = in.rest();
  if (!in.GetVarint64(&version)) return false;
  parts->version = taken_since(at);
  at = in.rest();
  if (!in.GetVarint64(&count) || count > row.size()) return false;
  parts->count = taken_since(at);
  for (uint64_t i = 0; i < count; ++i) {
    RowParts::Measure m;
    if (!ReadNamePart(in, &m)) return false;
    at = in.rest();
    const size_t length = ValueLength(m.type, at);
    if (length == 0) return false;
    m.value = at.substr(0, length);
    in = Decoder(at.substr(length));
    parts->measures.push_back(m);
  }
  return in.done();
}

bool SplitSignature(std::string_view signature, RowParts* parts) {
  parts->measures.clear();
  parts->version = {};
  Decoder in(signature);
  uint64_t count;
  if (!in.GetVarint64(&count) || count == 0 || count > signature.size()) return false;
  parts->count = signature.substr(0, signature.size() - in.rest().size());
  for (uint64_t i = 0; i < count; ++i) {
    if (!ReadNamePart(in, &parts->measures.emplace_back())) return false;
  }
  return in.done();
}

bool IsCompactRowOf(const RowParts& parts, std::string_view compact) {
  size_t at = VarintLength(compact);
  if (at == 0) return false;
  for (const RowParts::Measure& m : parts.measures) {
    const size_t length = ValueLength(m.type, compact.substr(at));
    if (length == 0) return false;
    at += length;
  }
  return at == compact.size();
}

RowShape::RowShape(const RowParts& parts)
    : serial_(next_shape_serial.fetch_add(1, std::memory_order_relaxed)),
      signature_(Signature(parts)),
      count_size_(parts.count.size()) {
  ends_.reserve(parts.measures.size());
  types_.reserve(parts.measures.size());
  names_view_.reserve(parts.measures.size());
  // A part is the name's length prefix, the name and the type byte.
  const std::string_view names = this->names();
  uint32_t end = 0;
  for (const RowParts::Measure& m : parts.measures) {
    const std::string_view part = names.substr(end, m.name.size());
    const size_t prefix = VarintLength(part);
    names_view_.push_back(part.substr(prefix, part.size() - prefix - 1));
    end += static_cast<uint32_t>(m.name.size());
    ends_.push_back(end);
    types_.push_back(m.type);
  }
  for (ValueType type : types_) {
    const size_t size = FixedValueBytes(type);
    if (size == 0) {
      fixed_offsets_.clear();
      fixed_size_ = 0;
      return;
    }
    fixed_offsets_.push_back(static_cast<uint32_t>(fixed_size_));
    fixed_size_ += size;
  }
}

bool FixedValues(std::string_view compact, const RowShape& shape, std::string_view* values) {
  const size_t version = VarintLength(compact);
  if (version == 0 || compact.size() - version != shape.fixed_size()) return false;
  *values = compact.substr(version);
  return true;
}

MeasureView FixedValueAt(std::string_view values, const RowShape& shape, size_t i) {
  // FixedValues checked the length: every value is within `values`.
  Decoder in(values.substr(shape.fixed_offsets()[i]));
  MeasureView m;
  ReadValue(in, shape.type(i), &m);
  return m;
}

std::string RowShape::Signature(const RowParts& parts) {
  std::string out(parts.count);
  for (const RowParts::Measure& m : parts.measures) out.append(m.name);
  return out;
}

size_t RowShape::CompactSize(const RowParts& parts) {
  size_t size = parts.version.size();
  for (const RowParts::Measure& m : parts.measures) size += m.value.size();
  return size;
}

void RowShape::WriteCompact(const RowParts& parts, char* out) {
  std::memcpy(out, parts.version.data(), parts.version.size());
  out += parts.version.size();
  for (const RowParts::Measure& m : parts.measures) {
    std::memcpy(out, m.value.data(), m.value.size());
    out += m.value.size();
  }
}

bool RowShape::SplitIfMatches(std::string_view row, RowParts* parts) const {
  const size_t version = VarintLength(row);
  const std::string_view count = this->count(), names = this->names();
  if (version == 0 || row.size() < version + signature_.size() ||
      row.substr(version, count.size()) != count) {
    return false;
  }
  parts->version = row.substr(0, version);
  parts->count = row.substr(version, count.size());
  parts->measures.resize(types_.size());
  size_t at = version + count.size();
  uint32_t begin = 0;
  for (size_t i = 0; i < types_.size(); ++i) {
    const size_t length = ends_[i] - begin;
    if (row.size() - at < length || std::memcmp(row.data() + at, names.data() + begin, length)) {
      return false;
    }
    RowParts::Measure& m = parts->measures[i];
    m.name = row.substr(at, length);
    m.type = types_[i];
    at += length;
    begin = ends_[i];
    const size_t value = ValueLength(m.type, row.substr(at));
    if (value == 0) return false;
    m.value = row.substr(at, value);
    at += value;
  }
  return at == row.size();
}

void RowShape::AppendEncodedRow(std::string_view compact, std::string* out) const {
  // The encoded row is exactly the compact bytes, the count and the names,
  // interleaved: sized once, then copied piece by piece.
  const size_t at = out->size();
  out->resize(at + compact.size() + signature_.size());
  char* p = out->data() + at;
  auto put = [&p](std::string_view bytes) {
    std::memcpy(p, bytes.data(), bytes.size());
    p += bytes.size();
  };
  const size_t version = VarintLength(compact);
  put(compact.substr(0, version));
  put(count());
  compact.remove_prefix(version);
  const std::string_view names = this->names();
  uint32_t begin = 0;
  for (size_t i = 0; i < ends_.size(); ++i) {
    put(names.substr(begin, ends_[i] - begin));
    begin = ends_[i];
    const size_t length = types_[i] == ValueType::kDouble ? 8 : ValueLength(types_[i], compact);
    put(compact.substr(0, length));
    compact.remove_prefix(length);
  }
  out->resize(p - out->data());  // shorter only if `compact` was not of this shape
}

}  // namespace strata
