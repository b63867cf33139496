// The key under which head_log_fuzz decodes its inputs, and the seed entries
// its ctest driver mutates: both formats, whole and compact rows, erases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/value.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "storage/rows/row_codec.h"

namespace strata::fuzz {

inline constexpr uint32_t kEntryTable = 3;
inline constexpr uint32_t kEntryBucket = 4;

inline std::vector<std::string> HeadLogSeeds() {
  auto point = [](uint64_t series, int64_t offset) {
    return keys::PointKey{.table_id = kEntryTable, .bucket = kEntryBucket,
                          .pk_hash = series * 7, .series = series,
                          .time_nanos = kEntryBucket * keys::kBucketNanos + offset};
  };
  const std::vector<StoredRow> rows = {
      {.version = 1,
       .measures = {{"usage_user", Value::Double(1.5)}, {"note", Value::Varchar("x")}}},
      {.version = 300,
       .measures = {{"usage_user", Value::Double(-2)}, {"note", Value::Varchar("")}}},
      {.version = 2, .measures = {{"n", Value::Bigint(-5)}, {"up", Value::Boolean(true)},
                                  {"seen", Value::Timestamp(1'700'000'000'000'000'000)}}},
  };
  std::vector<std::string> seeds;
  head_log::EntryBuilder whole;  // format 1
  head_log::EntryBuilder compact;  // format 2
  head_log::EntryBuilder mixed;
  std::vector<std::string> signatures(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string encoded, packed;
    EncodeRow(rows[i], &encoded);
    EncodeRowSignature(rows[i].measures, &signatures[i]);
    EncodeCompactRow(rows[i], &packed);
    whole.Put(point(i, 10), encoded);
    compact.PutCompact(point(i, 10), signatures[i], packed);
    compact.PutCompact(point(i, 20), signatures[i], packed);
    mixed.PutCompact(point(1, static_cast<int64_t>(i)), signatures[i], packed);
    mixed.Put(point(2, static_cast<int64_t>(i)), encoded);
  }
  whole.Erase(point(0, 10));
  mixed.Erase(point(1, 0));
  mixed.Put(point(3, 1), "not an encoded row");
  // An empty row first in its bucket: the head had no arena for it yet (a
  // null memcpy, found under UBSan).
  head_log::EntryBuilder empty_first;
  empty_first.Put(point(5, 1), "");
  empty_first.Put(point(5, 2), "x");
  for (const auto* entry : {&whole, &compact, &mixed, &empty_first}) {
    seeds.push_back(entry->bytes());
  }
  return seeds;
}

}  // namespace strata::fuzz
