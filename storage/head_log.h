// The `head_log` family: the write-ahead record of the memory head
// (storage/memory_head.h, docs/architecture.md "Memory head").
//
//   key   [table u32][bucket u32][sequence u64]   (big-endian)
//   value format byte (1) · change* where a change is
//         kind (1 put, 2 erase) · partition hash u64 · series u64 · time (ordered i64)
//         [put: row length (varint) · row (storage/row_codec.h)]
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

#include "absl/status/status.h"
#include "storage/keys.h"
#include "storage/memory_head.h"

namespace strata::head_log {

std::string Key(uint32_t table_id, uint32_t bucket, uint64_t sequence);

// Builds one entry's value.
class EntryBuilder {
 public:
  EntryBuilder();
  void Put(const keys::PointKey& key, std::string_view row);
  void Erase(const keys::PointKey& key);
  bool empty() const { return changes_ == 0; }
  const std::string& bytes() const { return bytes_; }

 private:
  void Point(char kind, const keys::PointKey& key);
  std::string bytes_;
  int changes_ = 0;
};

// Appends an entry's changes to *out (rows are views of `value`); DATA_LOSS
// for a malformed key or value.
absl::Status Decode(std::string_view key, std::string_view value,
                    std::vector<MemoryHead::Change>* out, uint64_t* sequence);

}  // namespace strata::head_log
