#include "server/scheduler/target_mapping.h"

#include <set>

#include "common/strings.h"
#include "fmt/ranges.h"
#include "query/exec/table_layout.h"
#include "storage/catalog/names.h"

namespace strata {
namespace {

using query::DataType;

// A measure's kind when it is one of a single value (not MULTI).
std::optional<MeasureKind> ScalarKind(std::optional<MeasureKind> kind) {
  if (kind == MeasureKind::kMulti) return std::nullopt;
  return kind;
}

// The column types a measure of `kind` may be written from.
bool Writable(DataType column, MeasureKind kind) {
  if (column == DataType::kUnknown) return true;  // NULL: never written
  switch (kind) {
    case MeasureKind::kDouble: return column == DataType::kDouble || column == DataType::kBigint;
    case MeasureKind::kBigint: return column == DataType::kBigint;
    case MeasureKind::kVarchar: return column == DataType::kVarchar;
    case MeasureKind::kBoolean: return column == DataType::kBoolean;
    case MeasureKind::kTimestamp: return column == DataType::kTimestamp;
    case MeasureKind::kMulti: return false;
  }
  return false;
}

// A scalar measure kind is its value type.
Value ToValue(const query::Datum& d, MeasureKind kind) {
  return query::ToStoredValue(d, static_cast<ValueType>(kind));
}

// Finds result columns by name and remembers which were used.
class Columns {
 public:
  explicit Columns(const std::vector<query::ResultColumn>& columns) : columns_(columns) {}

  absl::StatusOr<int> Find(std::string_view name, std::string_view role) {
    if (name.empty()) {
      return absl::InvalidArgumentError(StrCat("target configuration: ", role, " names no column"));
    }
    int found = -1;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].name != name) continue;
      if (found >= 0) {
        return absl::InvalidArgumentError(
            StrCat("the query's result has two columns named \"", name, "\" (", role,
                   "); give them distinct names with AS"));
      }
      found = static_cast<int>(i);
    }
    if (found < 0) {
      std::vector<std::string> names;
      for (const auto& c : columns_) names.push_back(StrCat("\"", c.name, "\""));
      return absl::InvalidArgumentError(StrCat("the ", role, " \"", name,
                                               "\" is not a column of the query's result (",
                                               fmt::format("{}", fmt::join(names, ", ")), ")"));
    }
    used_.insert(found);
    return found;
  }

  absl::StatusOr<int> FindTyped(std::string_view name, std::string_view role, DataType type) {
    ASSIGN_OR_RETURN(int column, Find(name, role));
    const DataType actual = columns_[column].type;
    if (actual != type && actual != DataType::kUnknown) {
      return absl::InvalidArgumentError(StrCat("the ", role, " \"", name, "\" is ",
                                               query::TypeName(actual), "; it must be ",
                                               query::TypeName(type)));
    }
    return column;
  }

  DataType type(int column) const { return columns_[column].type; }

  absl::Status CheckAllUsed() const {
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (used_.contains(static_cast<int>(i))) continue;
      return absl::InvalidArgumentError(StrCat(
          "the result column \"", columns_[i].name,
          "\" is not mapped: add it to dimension_mappings or a measure mapping, or leave it out "
          "of the SELECT"));
    }
    return absl::OkStatus();
  }

 private:
  const std::vector<query::ResultColumn>& columns_;
  std::set<int> used_;
};

absl::StatusOr<std::vector<TargetMapping::Attribute>> CompileAttributes(
    const std::vector<TargetSpec::AttributeMapping>& mappings,
    Columns& columns, std::string_view where) {
  std::vector<TargetMapping::Attribute> out;
  std::set<std::string> names;
  if (mappings.empty()) {
    return absl::InvalidArgumentError(
        StrCat(where, " needs at least one multi_measure_attribute_mapping"));
  }
  for (const TargetSpec::AttributeMapping& m : mappings) {
    TargetMapping::Attribute a;
    ASSIGN_OR_RETURN(a.column, columns.Find(m.source_column, "measure attribute's source column"));
    a.name = m.target_name.empty() ? m.source_column : m.target_name;
    RETURN_IF_ERROR(ValidateMeasureName("measure attribute", a.name));
    auto kind = ScalarKind(m.type);
    if (!kind) {
      return absl::InvalidArgumentError(
          StrCat("the measure attribute \"", a.name,
                 "\" needs a measure_value_type: DOUBLE, BIGINT, VARCHAR, BOOLEAN or TIMESTAMP"));
    }
    a.kind = *kind;
    if (!Writable(columns.type(a.column), a.kind)) {
      return absl::InvalidArgumentError(
          StrCat("the column \"", m.source_column, "\" is ",
                 query::TypeName(columns.type(a.column)), " and cannot be written as ",
                 MeasureKindName(a.kind), " (measure attribute \"", a.name, "\")"));
    }
    if (!names.insert(a.name).second) {
      return absl::InvalidArgumentError(
          StrCat("the measure attribute \"", a.name, "\" is mapped twice in ", where));
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

absl::StatusOr<TargetMapping> TargetMapping::Compile(
    const TargetSpec& target, const std::vector<query::ResultColumn>& result) {
  TargetMapping mapping;
  Columns columns(result);
  ASSIGN_OR_RETURN(mapping.time_column_,
                   columns.FindTyped(target.time_column, "time column", DataType::kTimestamp));
  for (const std::string& d : target.dimensions) {
    RETURN_IF_ERROR(ValidateDimensionName(d));
    ASSIGN_OR_RETURN(int column, columns.FindTyped(d, "dimension", DataType::kVarchar));
    mapping.dimensions_.emplace_back(column, d);
  }
  if (!target.measure_name_column.empty()) {
    ASSIGN_OR_RETURN(mapping.measure_name_column_,
                     columns.FindTyped(target.measure_name_column, "measure name column",
                                       DataType::kVarchar));
  }
  const bool multi = target.multi.has_value();
  const bool mixed = !target.mixed.empty();
  if (multi == mixed) {
    return absl::InvalidArgumentError(
        "the target configuration needs exactly one of multi_measure_mappings and "
        "mixed_measure_mappings");
  }
  if (multi) {
    const TargetSpec::MultiMeasures& m = *target.multi;
    Measure measure{.measure_name = m.target_measure_name, .multi = true};
    if (measure.measure_name.empty() && mapping.measure_name_column_ < 0) {
      return absl::InvalidArgumentError(
          "multi_measure_mappings needs a target_multi_measure_name (or set "
          "measure_name_column)");
    }
    if (!measure.measure_name.empty()) {
      RETURN_IF_ERROR(ValidateMeasureName("measure", measure.measure_name));
    }
    ASSIGN_OR_RETURN(measure.attributes,
                     CompileAttributes(m.attributes, columns, "multi_measure_mappings"));
    mapping.measures_.push_back(std::move(measure));
  } else {
    mapping.select_by_name_ = mapping.measure_name_column_ >= 0;
    for (const TargetSpec::MixedMeasure& m : target.mixed) {
      Measure measure;
      measure.match = m.measure_name;
      if (mapping.select_by_name_ && measure.match.empty()) {
        return absl::InvalidArgumentError(
            "with a measure_name_column, every mixed measure mapping needs the measure_name it "
            "applies to");
      }
      measure.measure_name = !m.target_measure_name.empty() ? m.target_measure_name
                             : !m.measure_name.empty()      ? m.measure_name
                                                            : m.source_column;
      RETURN_IF_ERROR(ValidateMeasureName("measure", measure.measure_name));
      const std::string where = StrCat("the mixed measure mapping of \"", measure.measure_name, "\"");
      if (m.type == MeasureKind::kMulti) {
        measure.multi = true;
        ASSIGN_OR_RETURN(measure.attributes, CompileAttributes(m.attributes, columns, where));
      } else {
        auto kind = ScalarKind(m.type);
        if (!kind) {
          return absl::InvalidArgumentError(
              StrCat(where, " needs a measure_value_type (DOUBLE, BIGINT, VARCHAR, BOOLEAN, "
                            "TIMESTAMP or MULTI)"));
        }
        Attribute a{.name = measure.measure_name, .kind = *kind};
        ASSIGN_OR_RETURN(a.column, columns.Find(m.source_column, StrCat(where, "'s source column")));
        if (!Writable(columns.type(a.column), a.kind)) {
          return absl::InvalidArgumentError(StrCat(
              "the column \"", m.source_column, "\" is ", query::TypeName(columns.type(a.column)),
              " and cannot be written as ", MeasureKindName(a.kind), " (", where, ")"));
        }
        measure.attributes.push_back(std::move(a));
      }
      mapping.measures_.push_back(std::move(measure));
    }
  }
  RETURN_IF_ERROR(columns.CheckAllUsed());
  return mapping;
}

absl::Status TargetMapping::Map(const query::Row& row, int64_t version,
                                std::vector<InputRecord>* out) const {
  const query::Datum& time = row[time_column_];
  if (time.null) return absl::InvalidArgumentError("the time column is NULL");
  std::string row_measure_name;
  if (measure_name_column_ >= 0) {
    const query::Datum& name = row[measure_name_column_];
    if (name.null) return absl::InvalidArgumentError("the measure name column is NULL");
    row_measure_name = name.s;
  }
  InputRecord base;
  for (const auto& [column, name] : dimensions_) {
    if (!row[column].null) base.dimensions.push_back({name, row[column].s});
  }
  base.time = time.i;
  base.time_unit = TimeUnit::kNanoseconds;
  base.version = version;
  bool matched = false;
  for (const Measure& measure : measures_) {
    if (select_by_name_ && measure.match != row_measure_name) continue;
    matched = true;
    InputRecord record = base;
    record.measure_name = measure.measure_name.empty() ? row_measure_name : measure.measure_name;
    if (measure.multi) {
      record.measure_value_type = MeasureKind::kMulti;
      for (const Attribute& a : measure.attributes) {
        if (row[a.column].null) continue;
        record.measure_values.push_back({a.name, a.kind, ToValue(row[a.column], a.kind)});
      }
      if (record.measure_values.empty()) continue;
    } else {
      const Attribute& a = measure.attributes.front();
      if (row[a.column].null) continue;
      record.measure_value_type = a.kind;
      record.measure_value = ToValue(row[a.column], a.kind);
    }
    out->push_back(std::move(record));
  }
  if (select_by_name_ && !matched) {
    return absl::InvalidArgumentError(StrCat("no mixed measure mapping applies to the measure name \"",
                                             row_measure_name, "\""));
  }
  return absl::OkStatus();
}

}  // namespace strata
