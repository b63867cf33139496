// MeasureList: a normalized record's measures in the form the memory head
// stores a row in (storage/rows/head_rows.h): their names and types as a
// RowShape, which the records of a request with the same names share, and
// their values back to back (row_codec.h, AppendValue). A record of ten
// doubles was a vector of ten named Values (~900 bytes, a name copied, moved,
// compared and freed per measure); it is now ~80 bytes of values and a
// shared shape, and its compact row is those bytes behind the version.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "common/value.h"
#include "storage/rows/head_rows.h"

namespace strata {

struct Measure {
  std::string name;
  Value value;
  bool operator==(const Measure&) const = default;
};

// The shape of measures named `names`, of `types` (as many); null if there
// are none.
std::shared_ptr<const RowShape> MakeRowShape(absl::Span<const std::string_view> names,
                                             absl::Span<const ValueType> types);

class MeasureList {
 public:
  // The packed values, within the list for up to twelve numbers (the
  // normalizer sizes it for a varint each, ten bytes): a
  // record's values were an allocation of their own, freed on another
  // thread (the committer's), ~120 instructions of the allocator's a record.
  using Values = absl::InlinedVector<char, 128>;

  MeasureList() = default;
  // `values` holds one value of each of `shape`'s types, in order.
  MeasureList(std::shared_ptr<const RowShape> shape, Values values)
      : shape_(std::move(shape)), values_(std::move(values)) {}
  // The list of `measures` (tests, and rows the version rules merge).
  static MeasureList Of(const std::vector<Measure>& measures);

  size_t size() const { return shape_ == nullptr ? 0 : shape_->size(); }
  std::string_view name(size_t i) const { return shape_->name(i); }
  ValueType type(size_t i) const { return shape_->type(i); }
  const std::shared_ptr<const RowShape>& shape() const { return shape_; }
  // The values' bytes: a compact row of the shape without its version.
  std::string_view values() const { return {values_.data(), values_.size()}; }
  // Each measure decoded (a name and a value each: for the rare paths).
  std::vector<Measure> ToVector() const;

  // Same names, types and values (the values compared byte for byte).
  bool operator==(const MeasureList& other) const;
  // Same names and types.
  bool SameShape(const MeasureList& other) const {
    return shape_ == other.shape_ ||
           (shape_ != nullptr && other.shape_ != nullptr &&
            shape_->signature() == other.shape_->signature());
  }

 private:
  std::shared_ptr<const RowShape> shape_;
  Values values_;
};

}  // namespace strata
