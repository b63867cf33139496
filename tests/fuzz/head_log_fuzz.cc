// Fuzz target: arbitrary bytes as a head_log entry (storage/head/head_log.h),
// replayed as Store::Open replays the log into the memory head. Decoding
// must refuse them or give changes the head applies without crashing; then
// the head holds exactly the last change to each key: a whole row byte for
// byte, a compact row as a well-formed encoded row of its shape's names and
// types (which scans read in place, RowReader), an erased key nothing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "storage/head/head_log.h"
#include "storage/head/memory_head.h"
#include "storage/rows/head_rows.h"
#include "storage/rows/row_codec.h"
#include "tests/fuzz/head_log_entry.h"

namespace {

using strata::MemoryHead;

// A compact row read in place with its shape, as a scan reads it.
bool ReadsInPlace(const strata::RowShape& shape, std::string_view compact) {
  strata::RowReader reader(compact, &shape);
  int64_t version = 0;
  if (!reader.Start(&version)) return false;
  strata::MeasureView m;
  size_t n = 0;
  while (reader.Next(&m)) ++n;
  return reader.ok() && n == shape.size();
}

// `stored` (what the head gives back) is an encoded row with the names and
// types of signature `shape`.
bool IsRowOfShape(std::string_view stored, std::string_view shape) {
  strata::RowParts parts;
  strata::StoredRow row;
  if (!strata::SplitSignature(shape, &parts) || !strata::DecodeRowInto(stored, &row).ok() ||
      row.measures.size() != parts.measures.size()) {
    return false;
  }
  const strata::RowShape made(parts);
  for (size_t i = 0; i < parts.measures.size(); ++i) {
    if (row.measures[i].name != made.name(i) || row.measures[i].value.type != made.type(i)) {
      return false;
    }
  }
  return true;
}

}  // namespace

// libFuzzer (scripts/fuzz.sh head_log): an empty corpus directory starts
// from the seeds, since a valid entry (a time inside the key's bucket) is
// hard to find from nothing.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i) {
    const std::filesystem::path dir((*argv)[i]);
    std::error_code error;
    if ((*argv)[i][0] == '-' || !std::filesystem::is_directory(dir, error) ||
        !std::filesystem::is_empty(dir, error)) {
      continue;
    }
    int n = 0;
    for (const std::string& seed : strata::fuzz::HeadLogSeeds()) {
      std::ofstream(dir / ("seed-" + std::to_string(n++)), std::ios::binary) << seed;
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view value(reinterpret_cast<const char*>(data), size);
  std::vector<MemoryHead::Change> changes;
  uint64_t sequence = 0;
  const std::string key =
      strata::head_log::Key(strata::fuzz::kEntryTable, strata::fuzz::kEntryBucket, 7);
  if (!strata::head_log::Decode(key, value, &changes, &sequence).ok()) return 0;
  if (sequence != 7) std::abort();
  MemoryHead head;
  head.Apply(changes);
  std::map<std::string, const MemoryHead::Change*> last;  // by point key
  for (const MemoryHead::Change& change : changes) {
    if (!change.shape.empty()) {
      strata::RowParts parts;
      // Decode checked the shape and the row against it.
      if (!strata::SplitSignature(change.shape, &parts) ||
          !ReadsInPlace(strata::RowShape(parts), *change.row)) {
        std::abort();
      }
    }
    last[strata::keys::EncodePointKey(change.key)] = &change;
  }
  size_t puts = 0;
  for (const auto& [point, change] : last) {
    const std::optional<std::string> stored = head.Find(change->key);
    if (!change->row) {
      if (stored) std::abort();
      continue;
    }
    ++puts;
    if (!stored) std::abort();
    if (change->shape.empty() ? *stored != *change->row : !IsRowOfShape(*stored, change->shape)) {
      std::abort();
    }
  }
  // A reader's walk sees each key held once, in order.
  auto it = MemoryHead::NewIterator(head.Capture(strata::fuzz::kEntryTable));
  std::string previous;
  size_t walked = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++walked) {
    const std::string at = it->key().ToString();
    if (walked > 0 && at <= previous) std::abort();
    previous = at;
  }
  if (walked != puts) std::abort();
  return 0;
}
