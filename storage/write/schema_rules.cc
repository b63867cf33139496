#include "storage/write/schema_rules.h"

#include "common/strings.h"

namespace strata {

std::string MeasureKindConflict(std::string_view measure, MeasureKind held, MeasureKind written) {
  return StrCat("measure \"", measure, "\" holds ", MeasureKindName(held),
                " values in this table; this record writes ", MeasureKindName(written),
                ". Use another measure name for other types");
}

std::string AttributeTypeConflict(std::string_view attribute, ValueType held, ValueType written) {
  return StrCat("attribute \"", attribute, "\" holds ", TypeName(held),
                " values in this table; this record writes ", TypeName(written),
                ". An attribute has one type across all measure names: write it as ",
                TypeName(held), " or use another attribute name");
}

std::string AttributeIsDimension(std::string_view name) {
  return StrCat("\"", name,
                "\" is a dimension in this table, so it cannot also be a MULTI measure "
                "attribute: a name is one column. Rename the attribute");
}

std::string DimensionIsAttribute(std::string_view name, ValueType attribute_type) {
  return StrCat("\"", name, "\" is a MULTI measure attribute (", TypeName(attribute_type),
                ") in this table, so it cannot also be a dimension: a name is one column. "
                "Rename the dimension");
}

std::string TooManyMeasureNames() {
  return StrCat("the table already has ", kMaxMeasureNamesPerTable,
                " measure names, the limit; write to an existing measure name or another table");
}

std::string TooManyAttributes() {
  return StrCat("the table already has ", kMaxMultiAttributesPerTable,
                " MULTI attribute names, the limit");
}

}  // namespace strata
