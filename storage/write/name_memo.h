// NameMemo: what the normalizer (storage/write/record_normalizer.h) remembers of
// the last record a source normalized, to skip checking the same names again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "storage/rows/write_types.h"

namespace strata {

// The names of the last record a source normalized whole, and their order:
// the records of a request mostly share their names, and checking them again
// (each name valid, the dimensions' order, no name twice, none both a
// dimension and a measure) gives the same answer; those checks were ~20% of
// normalizing a record (docs/benchmarks.md). One per source (a request).
class NameMemo {
 public:
  bool valid() const { return valid_; }
  bool multi() const { return multi_; }
  size_t dimension_count() const { return dimension_count_; }
  size_t name_count() const { return ends_.size(); }
  // measure_name, then the dimension names as given (common_attributes'
  // first), then a MULTI record's measure names as given.
  std::string_view name(size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(names_).substr(begin, ends_[i] - begin);
  }
  const absl::InlinedVector<uint8_t, 32>& order() const { return order_; }
  // The shape of the last record's measures (names and types), which the
  // next record shares if its names are the same and its types too.
  const std::shared_ptr<const RowShape>& shape() const { return shape_; }
  void set_shape(std::shared_ptr<const RowShape> shape) { shape_ = std::move(shape); }

  // Remembers `record`'s names (its dimensions sorted by `order`, a
  // permutation of the given order) and its measures' shape.
  void Remember(const NormalizedRecord& record, const absl::InlinedVector<uint8_t, 32>& order) {
    names_.clear();  // the buffers keep their room: no allocation once warm
    ends_.clear();
    Add(record.measure_name);
    given_.assign(record.dimensions.size(), {});
    size_t k = 0;
    for (const auto& [name, value] : record.dimensions) given_[order[k++]] = name;
    for (std::string_view name : given_) Add(name);
    if (record.multi) {
      for (size_t i = 0; i < record.measures.size(); ++i) Add(record.measures.name(i));
    }
    multi_ = record.multi;
    shape_ = record.measures.shape();
    dimension_count_ = record.dimensions.size();
    order_ = order;
    valid_ = true;
  }

 private:
  void Add(std::string_view name) {
    names_.append(name);
    ends_.push_back(static_cast<uint32_t>(names_.size()));
  }

  bool valid_ = false;
  bool multi_ = false;
  size_t dimension_count_ = 0;
  std::string names_;
  std::vector<uint32_t> ends_;  // where each name of names_ ends
  absl::InlinedVector<uint8_t, 32> order_;
  std::vector<std::string_view> given_;  // Remember's scratch
  std::shared_ptr<const RowShape> shape_;
};

}  // namespace strata
