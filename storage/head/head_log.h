// The `head_log` family: the write-ahead record of the memory head
// (storage/head/memory_head.h, docs/storage.md "Memory head").
//
//   key   [table u32][bucket u32][sequence u64]   (big-endian)
//   value format byte · item*, where an item is a change:
//           kind (1 put, 2 erase, 4 compact put) · partition hash u64 · series u64 ·
//           time (ordered i64) ·
//           [put: row length (varint) · row (storage/rows/row_codec.h)]
//           [compact put: shape index (varint) · length (varint) · compact row]
//         or (kind 3) a shape: signature length (varint) · signature, which
//         the compact puts after it name by index (0 for the entry's first).
//   Format 1 has puts and erases only; format 2 (the writer's) adds shapes
//   and compact puts: a row is its version and values, and the names and
//   types its rows share are written once per entry (storage/rows/head_rows.h),
//   which halves the bytes logged per row of ten doubles.
//
// One entry per table, bucket and write group, so a group of thousands of
// rows is a handful of RocksDB entries. Entries of a bucket replay in
// sequence order; converting, expiring or dropping a bucket deletes its
// key range (the 8-byte bucket prefix, as every data family's).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "common/coding.h"
#include "storage/head/memory_head.h"
#include "storage/kv/keys.h"

namespace strata::head_log {

std::string Key(uint32_t table_id, uint32_t bucket, uint64_t sequence);

// Builds one entry's value.
class EntryBuilder {
 public:
  EntryBuilder();
  void Put(const keys::PointKey& key, std::string_view row);
  // A row in two parts (row_codec.h, EncodeRowSignature and
  // EncodeCompactRow). The shape is written once per entry: the builder
  // knows a signature by its address, so the same bytes must be passed for
  // every row of the shape (the writer's one string per shape and group).
  void PutCompact(const keys::PointKey& key, std::string_view signature,
                  std::string_view compact);
  void Erase(const keys::PointKey& key);
  // Room for `rows` puts of `row_bytes` in all: a group's entry grows to
  // hundreds of kilobytes, and doubling copied it ~twice over.
  void Reserve(size_t rows, size_t row_bytes) {
    bytes_.reserve(bytes_.size() + rows * kCompactPutBytes + row_bytes);
  }
  // Starts the next entry in the same buffer (its room kept).
  void Clear();
  bool empty() const { return changes_ == 0; }
  const std::string& bytes() const { return bytes_; }

 private:
  // A change's kind and point (its partition hash, series and time), at p.
  static constexpr size_t kPointBytes = 1 + 3 * 8;
  // The most a compact put takes besides its row: its point, shape index and length.
  static constexpr size_t kCompactPutBytes = kPointBytes + 2 * kMaxVarint64Bytes;
  char* Point(char* p, char kind, const keys::PointKey& key);
  std::string bytes_;
  int changes_ = 0;
  absl::flat_hash_map<const char*, uint64_t> shapes_;  // signature's address -> index
};

// Appends an entry's changes to *out (rows are views of `value`; a compact
// put's shape is its signature, a view of `value` too); DATA_LOSS for a
// malformed key or value.
absl::Status Decode(std::string_view key, std::string_view value,
                    std::vector<MemoryHead::Change>* out, uint64_t* sequence);

}  // namespace strata::head_log
