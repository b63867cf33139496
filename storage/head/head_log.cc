#include "storage/head/head_log.h"

#include "common/coding.h"
#include "storage/rows/head_rows.h"

namespace strata::head_log {
namespace {

constexpr char kFormat = 1;
constexpr char kFormatWithShapes = 2;
constexpr char kPut = 1;
constexpr char kErase = 2;
constexpr char kShape = 3;
constexpr char kCompactPut = 4;
constexpr size_t kKeySize = 16;

absl::Status Malformed() {
  return absl::DataLossError(
      "a memory-store log entry (head_log) is malformed; restore from a backup");
}

}  // namespace

std::string Key(uint32_t table_id, uint32_t bucket, uint64_t sequence) {
  std::string key = keys::BucketPrefix(table_id, bucket);
  PutFixed64BE(&key, sequence);
  return key;
}

EntryBuilder::EntryBuilder() { Clear(); }

void EntryBuilder::Clear() {
  bytes_.assign(1, kFormat);
  changes_ = 0;
  shapes_.clear();
}

char* EntryBuilder::Point(char* p, char kind, const keys::PointKey& key) {
  *p++ = kind;
  p = EncodeFixed64BE(p, key.pk_hash);
  p = EncodeFixed64BE(p, key.series);
  ++changes_;
  return EncodeOrderedInt64BE(p, key.time_nanos);
}

void EntryBuilder::Put(const keys::PointKey& key, std::string_view row) {
  AppendBounded(&bytes_, kPointBytes + kMaxVarint64Bytes + row.size(), [&](char* p) {
    return EncodeLengthPrefixed(Point(p, kPut, key), row);
  });
}

void EntryBuilder::PutCompact(const keys::PointKey& key, std::string_view signature,
                              std::string_view compact) {
  auto [it, added] = shapes_.try_emplace(signature.data(), shapes_.size());
  if (added) {
    bytes_[0] = kFormatWithShapes;
    bytes_.push_back(kShape);
    PutLengthPrefixed(&bytes_, signature);
  }
  const uint64_t shape = it->second;
  AppendBounded(&bytes_, kCompactPutBytes + compact.size(), [&](char* p) {
    return EncodeLengthPrefixed(EncodeVarint64(Point(p, kCompactPut, key), shape), compact);
  });
}

void EntryBuilder::Erase(const keys::PointKey& key) {
  AppendBounded(&bytes_, kPointBytes, [&](char* p) { return Point(p, kErase, key); });
}

absl::Status Decode(std::string_view key, std::string_view value,
                    std::vector<MemoryHead::Change>* out, uint64_t* sequence) {
  if (key.size() != kKeySize || value.empty() ||
      (value[0] != kFormat && value[0] != kFormatWithShapes)) {
    return Malformed();
  }
  const bool with_shapes = value[0] == kFormatWithShapes;
  const uint32_t table_id = DecodeFixed32BE(key.data());
  const uint32_t bucket = DecodeFixed32BE(key.data() + 4);
  *sequence = DecodeFixed64BE(key.data() + 8);
  struct Shape {
    std::string_view signature;
    RowParts parts;  // to check each compact row against
  };
  std::vector<Shape> shapes;
  Decoder in(value.substr(1));
  while (!in.done()) {
    uint8_t kind = 0;
    if (!in.GetByte(&kind)) return Malformed();
    if (kind == kShape && with_shapes) {
      Shape& shape = shapes.emplace_back();
      if (!in.GetLengthPrefixed(&shape.signature) ||
          !SplitSignature(shape.signature, &shape.parts)) {
        return Malformed();
      }
      continue;
    }
    MemoryHead::Change change;
    change.sequence = *sequence;
    change.key.table_id = table_id;
    change.key.bucket = bucket;
    if (!in.GetFixed64BE(&change.key.pk_hash) || !in.GetFixed64BE(&change.key.series) ||
        !in.GetOrderedInt64BE(&change.key.time_nanos)) {
      return Malformed();
    }
    if (keys::BucketOf(change.key.time_nanos) != bucket) return Malformed();
    if (kind == kPut) {
      std::string_view row;
      if (!in.GetLengthPrefixed(&row)) return Malformed();
      change.row = row;
    } else if (kind == kCompactPut && with_shapes) {
      uint64_t index = 0;
      std::string_view compact;
      if (!in.GetVarint64(&index) || index >= shapes.size() || !in.GetLengthPrefixed(&compact) ||
          !IsCompactRowOf(shapes[index].parts, compact)) {
        return Malformed();
      }
      change.row = compact;
      change.shape = shapes[index].signature;
    } else if (kind != kErase) {
      return Malformed();
    }
    out->push_back(change);
  }
  return absl::OkStatus();
}

}  // namespace strata::head_log
