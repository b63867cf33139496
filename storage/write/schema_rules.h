// The rejection texts of a table's schema rules — a measure name holds one kind of value, a
// MULTI attribute one type across the table, a name is a dimension or an attribute, never
// both, and the table's name limits — shared by the writer (which checks them against what
// the table holds) and a cluster's schema claims (which check them across shards first).
#pragma once

#include <string>
#include <string_view>

#include "common/value.h"
#include "storage/rows/write_types.h"

namespace strata {

std::string MeasureKindConflict(std::string_view measure, MeasureKind held, MeasureKind written);
std::string AttributeTypeConflict(std::string_view attribute, ValueType held, ValueType written);
// A MULTI attribute named like one of the table's dimensions.
std::string AttributeIsDimension(std::string_view name);
// A new series' dimension named like one of the table's MULTI attributes.
std::string DimensionIsAttribute(std::string_view name, ValueType attribute_type);
std::string TooManyMeasureNames();
std::string TooManyAttributes();

}  // namespace strata
