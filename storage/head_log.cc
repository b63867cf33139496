#include "storage/head_log.h"

#include "common/coding.h"

namespace strata::head_log {
namespace {

constexpr char kFormat = 1;
constexpr char kPut = 1;
constexpr char kErase = 2;
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

EntryBuilder::EntryBuilder() : bytes_(1, kFormat) {}

void EntryBuilder::Point(char kind, const keys::PointKey& key) {
  bytes_.push_back(kind);
  PutFixed64BE(&bytes_, key.pk_hash);
  PutFixed64BE(&bytes_, key.series);
  PutOrderedInt64BE(&bytes_, key.time_nanos);
  ++changes_;
}

void EntryBuilder::Put(const keys::PointKey& key, std::string_view row) {
  Point(kPut, key);
  PutLengthPrefixed(&bytes_, row);
}

void EntryBuilder::Erase(const keys::PointKey& key) { Point(kErase, key); }

absl::Status Decode(std::string_view key, std::string_view value,
                    std::vector<MemoryHead::Change>* out, uint64_t* sequence) {
  if (key.size() != kKeySize || value.empty() || value[0] != kFormat) return Malformed();
  const uint32_t table_id = DecodeFixed32BE(key.data());
  const uint32_t bucket = DecodeFixed32BE(key.data() + 4);
  *sequence = DecodeFixed64BE(key.data() + 8);
  Decoder in(value.substr(1));
  while (!in.done()) {
    uint8_t kind = 0;
    MemoryHead::Change change;
    change.sequence = *sequence;
    change.key.table_id = table_id;
    change.key.bucket = bucket;
    if (!in.GetByte(&kind) || !in.GetFixed64BE(&change.key.pk_hash) ||
        !in.GetFixed64BE(&change.key.series) || !in.GetOrderedInt64BE(&change.key.time_nanos)) {
      return Malformed();
    }
    if (keys::BucketOf(change.key.time_nanos) != bucket) return Malformed();
    if (kind == kPut) {
      std::string_view row;
      if (!in.GetLengthPrefixed(&row)) return Malformed();
      change.row = row;
    } else if (kind != kErase) {
      return Malformed();
    }
    out->push_back(change);
  }
  return absl::OkStatus();
}

}  // namespace strata::head_log
