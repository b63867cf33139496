#include "server/scheduler/target_spec_proto.h"

#include "server/wire/write_convert.h"

namespace strata {
namespace {

std::vector<TargetSpec::AttributeMapping> Attributes(
    const google::protobuf::RepeatedPtrField<v1::MultiMeasureAttributeMapping>& mappings) {
  std::vector<TargetSpec::AttributeMapping> out;
  for (const v1::MultiMeasureAttributeMapping& m : mappings) {
    out.push_back({.source_column = m.source_column(),
                   .target_name = m.target_multi_measure_attribute_name(),
                   .type = KindFromProto(m.measure_value_type())});
  }
  return out;
}

}  // namespace

TargetSpec TargetSpecFromProto(const v1::TargetConfiguration& target) {
  TargetSpec spec{.database_name = target.database_name(),
                  .table_name = target.table_name(),
                  .time_column = target.time_column(),
                  .measure_name_column = target.measure_name_column()};
  for (const v1::DimensionMapping& d : target.dimension_mappings()) {
    spec.dimensions.push_back(d.name());
  }
  if (target.has_multi_measure_mappings()) {
    const v1::MultiMeasureMappings& m = target.multi_measure_mappings();
    spec.multi = TargetSpec::MultiMeasures{
        .target_measure_name = m.target_multi_measure_name(),
        .attributes = Attributes(m.multi_measure_attribute_mappings())};
  }
  for (const v1::MixedMeasureMapping& m : target.mixed_measure_mappings()) {
    spec.mixed.push_back({.measure_name = m.measure_name(),
                          .source_column = m.source_column(),
                          .target_measure_name = m.target_measure_name(),
                          .type = KindFromProto(m.measure_value_type()),
                          .attributes = Attributes(m.multi_measure_attribute_mappings())});
  }
  return spec;
}

}  // namespace strata
