// A series key looked up from its two parts, without joining them: the
// measure name and the dimension list's bytes, which the stored key
// (`SeriesKey`, storage/read/table_state.h: <measure name> \0 <dimensions>) puts
// one after the other. Joining them into a string for every record written
// cost an allocation and a copy of ~150 bytes per row (~2 % of the server's
// instructions under ingest); a map of keys with these hash and equality
// functions finds a stored key by its parts. Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "storage/rows/write_types.h"

namespace strata {

struct SeriesKeyView {
  std::string_view measure_name;  // never holds a NUL (names.h)
  std::string_view dimensions;    // DimensionList::bytes()

  static SeriesKeyView Of(const NormalizedRecord& record) {
    return {record.measure_name, record.dimensions.bytes()};
  }
  // A joined key's parts: split at its first NUL (the measure name's end).
  static SeriesKeyView Split(std::string_view key) {
    const size_t end = key.find('\0');
    if (end == std::string_view::npos) return {key, {}};
    return {key.substr(0, end), key.substr(end + 1)};
  }
  // Whether `key` is this key joined.
  bool Joins(std::string_view key) const {
    const size_t n = measure_name.size();
    return key.size() == n + 1 + dimensions.size() && key[n] == '\0' &&
           key.substr(0, n) == measure_name && key.substr(n + 1) == dimensions;
  }
};

// Hashes a joined key and its parts alike.
struct SeriesKeyHash {
  using is_transparent = void;
  size_t operator()(const SeriesKeyView& key) const {
    return absl::HashOf(absl::string_view(key.measure_name.data(), key.measure_name.size()),
                        absl::string_view(key.dimensions.data(), key.dimensions.size()));
  }
  size_t operator()(std::string_view key) const { return (*this)(SeriesKeyView::Split(key)); }
};

struct SeriesKeyEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  bool operator()(std::string_view a, const SeriesKeyView& b) const { return b.Joins(a); }
  bool operator()(const SeriesKeyView& a, std::string_view b) const { return a.Joins(b); }
};

// Joined series keys to V, found by a joined key or by its parts.
template <typename V>
using SeriesKeyMap = absl::flat_hash_map<std::string, V, SeriesKeyHash, SeriesKeyEq>;

}  // namespace strata
