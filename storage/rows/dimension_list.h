// DimensionList: a normalized record's dimensions in one string, laid out as
// the series key lays them out (storage/read/table_state.h, SeriesKey).
#pragma once

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "common/unaligned.h"

namespace strata {

// "name\0value\0" per dimension, in the order added (the normalizer adds
// them sorted by name). A record's twenty-odd names and values are one
// buffer (within the list when short) and one copy each instead of a string
// each (freed one by one on the committer's thread), and the series key is
// these bytes behind the measure name. Neither a name nor a value may hold a NUL byte: the
// normalizer refuses them, and the series key relies on it too.
class DimensionList {
 public:
  using Dimension = std::pair<std::string_view, std::string_view>;  // views of the list

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Dimension;
    using difference_type = std::ptrdiff_t;
    using pointer = const Dimension*;
    using reference = const Dimension&;

    const_iterator() = default;
    reference operator*() const { return current_; }
    pointer operator->() const { return &current_; }
    const_iterator& operator++() {
      at_ = next_;
      Read();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& other) const { return at_ == other.at_; }

   private:
    friend class DimensionList;
    const_iterator(const char* at, const char* end) : at_(at), end_(end) { Read(); }
    void Read() {
      if (at_ == end_) return;
      const char* name_end = Terminator(at_);
      const char* value = name_end + 1;
      const char* value_end = Terminator(value);
      current_ = {std::string_view(at_, name_end - at_),
                  std::string_view(value, value_end - value)};
      next_ = value_end + 1;
    }
    const char* Terminator(const char* from) const {
      return static_cast<const char*>(std::memchr(from, '\0', end_ - from));
    }

    const char* at_ = nullptr;
    const char* end_ = nullptr;
    const char* next_ = nullptr;
    Dimension current_;
  };

  DimensionList() = default;
  DimensionList(std::initializer_list<Dimension> dimensions) {
    for (const auto& [name, value] : dimensions) emplace_back(name, value);
  }

  void emplace_back(std::string_view name, std::string_view value) {
    bytes_.insert(bytes_.end(), name.begin(), name.end());
    bytes_.push_back('\0');
    bytes_.insert(bytes_.end(), value.begin(), value.end());
    bytes_.push_back('\0');
    ++count_;
  }
  // The list of `count` dimensions, the k-th `at(k)` (a Dimension), whose
  // names and values take `bytes` in all: written in place with one
  // allocation, as the normalizer builds every record's (four appends per
  // dimension were ~7 % of normalizing one).
  template <typename At>
  void Assign(size_t count, size_t bytes, At&& at) {
    bytes_.resize(bytes + 2 * count);
    char* p = bytes_.data();
    for (size_t k = 0; k < count; ++k) {
      const Dimension d = at(k);
      p = Put(p, d.first);
      p = Put(p, d.second);
    }
    count_ = count;
  }
  void clear() {
    bytes_.clear();
    count_ = 0;
  }

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const_iterator begin() const { return {bytes_.data(), bytes_.data() + bytes_.size()}; }
  const_iterator end() const {
    const char* end = bytes_.data() + bytes_.size();
    return {end, end};
  }
  // The i-th dimension (walks the list: for tests and error paths).
  Dimension operator[](size_t i) const { return *std::next(begin(), static_cast<ptrdiff_t>(i)); }
  Dimension front() const { return *begin(); }
  // The value of dimension `name`, if the list has it.
  std::optional<std::string_view> Find(std::string_view name) const {
    for (const auto& [n, value] : *this) {
      if (n == name) return value;
    }
    return std::nullopt;
  }
  // "name\0value\0..." (the series key's tail).
  std::string_view bytes() const { return {bytes_.data(), bytes_.size()}; }
  std::vector<std::pair<std::string, std::string>> ToVector() const {
    std::vector<std::pair<std::string, std::string>> out;
    out.reserve(count_);
    for (const auto& [name, value] : *this) out.emplace_back(name, value);
    return out;
  }

  bool operator==(const DimensionList&) const = default;

 private:
  // `s` and its terminator at p; returns the end.
  static char* Put(char* p, std::string_view s) {
    Copy(p, s.data(), s.size());
    p[s.size()] = '\0';
    return p + s.size() + 1;
  }
  // memcpy for names and values, nearly all under 16 bytes, as two loads
  // and stores that overlap when the string is shorter than both: a call
  // into memcpy per string was ~2 % of the server's instructions per row.
  static void Copy(char* to, const char* from, size_t n) {
    if (n > 16) {
      std::memcpy(to, from, n);
    } else if (n >= 8) {
      const auto head = LoadUnaligned<uint64_t>(from);
      const auto tail = LoadUnaligned<uint64_t>(from + n - 8);
      StoreUnaligned(to, head);
      StoreUnaligned(to + n - 8, tail);
    } else if (n >= 4) {
      const auto head = LoadUnaligned<uint32_t>(from);
      const auto tail = LoadUnaligned<uint32_t>(from + n - 4);
      StoreUnaligned(to, head);
      StoreUnaligned(to + n - 4, tail);
    } else if (n > 0) {  // an empty view's data may be null
      // Bytes 0, n/2 and n-1 are every byte of 1 to 3 (values such as "12").
      to[0] = from[0];
      to[n / 2] = from[n / 2];
      to[n - 1] = from[n - 1];
    }
  }

  // Within the list up to ~190 bytes (TSBS's ten dimensions take ~150): a
  // record's dimensions were an allocation of their own, freed on another
  // thread (the committer's).
  absl::InlinedVector<char, 192> bytes_;
  size_t count_ = 0;
};

}  // namespace strata
