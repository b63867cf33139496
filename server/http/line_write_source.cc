#include "server/http/line_write_source.h"

namespace strata {

std::optional<MeasureKind> LineAccess::MeasureValueKind(R& r, size_t i) {
  switch (r.point->fields[i].second.type) {
    case ValueType::kDouble: return MeasureKind::kDouble;
    case ValueType::kBigint: return MeasureKind::kBigint;
    case ValueType::kVarchar: return MeasureKind::kVarchar;
    case ValueType::kBoolean: return MeasureKind::kBoolean;
    case ValueType::kTimestamp: return MeasureKind::kTimestamp;
  }
  return MeasureKind::kDouble;
}

}  // namespace strata
