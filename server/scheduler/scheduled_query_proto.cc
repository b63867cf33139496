#include "server/scheduler/scheduled_query_proto.h"

#include "common/status.h"
#include "common/strings.h"
#include "google/protobuf/util/time_util.h"
#include "server/scheduler/scheduled_query_codec.h"
#include "server/wire/datum_proto.h"
#include "server/wire/query_parameters.h"
#include "server/wire/write_convert.h"

namespace strata {
namespace {

using google::protobuf::util::TimeUtil;

google::protobuf::Timestamp Stamp(int64_t nanos) { return TimeUtil::NanosecondsToTimestamp(nanos); }
int64_t Nanos(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToNanoseconds(t); }

// UNSPECIFIED is "not given"; a number this server does not know is refused.
absl::StatusOr<std::optional<MeasureKind>> KindOf(v1::MeasureValueType type) {
  if (std::optional<std::string> unknown = UnknownMeasureValueType(type)) {
    return absl::InvalidArgumentError(StrCat("target_configuration: ", *unknown));
  }
  return KindFromProto(type);
}

v1::MeasureValueType KindToProto(const std::optional<MeasureKind>& kind) {
  return kind ? static_cast<v1::MeasureValueType>(*kind) : v1::MEASURE_VALUE_TYPE_UNSPECIFIED;
}

absl::StatusOr<std::vector<TargetSpec::AttributeMapping>> Attributes(
    const google::protobuf::RepeatedPtrField<v1::MultiMeasureAttributeMapping>& mappings) {
  std::vector<TargetSpec::AttributeMapping> out;
  for (const v1::MultiMeasureAttributeMapping& m : mappings) {
    ASSIGN_OR_RETURN(std::optional<MeasureKind> type, KindOf(m.measure_value_type()));
    out.push_back({.source_column = m.source_column(),
                   .target_name = m.target_multi_measure_attribute_name(),
                   .type = type});
  }
  return out;
}

void AttributesToProto(const std::vector<TargetSpec::AttributeMapping>& attributes,
                       google::protobuf::RepeatedPtrField<v1::MultiMeasureAttributeMapping>* out) {
  for (const TargetSpec::AttributeMapping& a : attributes) {
    v1::MultiMeasureAttributeMapping* m = out->Add();
    m->set_source_column(a.source_column);
    m->set_target_multi_measure_attribute_name(a.target_name);
    m->set_measure_value_type(KindToProto(a.type));
  }
}

void TargetSpecToProto(const TargetSpec& spec, v1::TargetConfiguration* out) {
  out->set_database_name(spec.database_name);
  out->set_table_name(spec.table_name);
  out->set_time_column(spec.time_column);
  out->set_measure_name_column(spec.measure_name_column);
  for (const std::string& d : spec.dimensions) out->add_dimension_mappings()->set_name(d);
  if (spec.multi) {
    v1::MultiMeasureMappings* m = out->mutable_multi_measure_mappings();
    m->set_target_multi_measure_name(spec.multi->target_measure_name);
    AttributesToProto(spec.multi->attributes, m->mutable_multi_measure_attribute_mappings());
  }
  for (const TargetSpec::MixedMeasure& mixed : spec.mixed) {
    v1::MixedMeasureMapping* m = out->add_mixed_measure_mappings();
    m->set_measure_name(mixed.measure_name);
    m->set_source_column(mixed.source_column);
    m->set_target_measure_name(mixed.target_measure_name);
    m->set_measure_value_type(KindToProto(mixed.type));
    AttributesToProto(mixed.attributes, m->mutable_multi_measure_attribute_mappings());
  }
}

v1::ScheduledQueryState StateToProto(ScheduledQueryState state) {
  switch (state) {
    case ScheduledQueryState::kEnabled:
      return v1::SCHEDULED_QUERY_STATE_ENABLED;
    case ScheduledQueryState::kDisabled:
      return v1::SCHEDULED_QUERY_STATE_DISABLED;
    case ScheduledQueryState::kUnspecified:
      break;
  }
  return v1::SCHEDULED_QUERY_STATE_UNSPECIFIED;
}

// The numbers are the API's, in the same order.
static_assert(static_cast<int>(RunStatus::kAutoTriggerSuccess) == v1::AUTO_TRIGGER_SUCCESS &&
              static_cast<int>(RunStatus::kAutoTriggerFailure) == v1::AUTO_TRIGGER_FAILURE &&
              static_cast<int>(RunStatus::kManualTriggerSuccess) == v1::MANUAL_TRIGGER_SUCCESS &&
              static_cast<int>(RunStatus::kManualTriggerFailure) == v1::MANUAL_TRIGGER_FAILURE &&
              static_cast<int>(RunStatus::kAutoTriggerSkipped) == v1::AUTO_TRIGGER_SKIPPED);

RunStatus StatusFromProto(v1::ScheduledQueryRunStatus status) {
  if (status < v1::AUTO_TRIGGER_SUCCESS || status > v1::AUTO_TRIGGER_SKIPPED) {
    return RunStatus::kUnspecified;
  }
  return static_cast<RunStatus>(status);
}

}  // namespace

absl::StatusOr<TargetSpec> TargetSpecFromProto(const v1::TargetConfiguration& target) {
  TargetSpec spec{.database_name = target.database_name(),
                  .table_name = target.table_name(),
                  .time_column = target.time_column(),
                  .measure_name_column = target.measure_name_column()};
  for (const v1::DimensionMapping& d : target.dimension_mappings()) {
    spec.dimensions.push_back(d.name());
  }
  if (target.has_multi_measure_mappings()) {
    const v1::MultiMeasureMappings& m = target.multi_measure_mappings();
    ASSIGN_OR_RETURN(auto attributes, Attributes(m.multi_measure_attribute_mappings()));
    spec.multi = TargetSpec::MultiMeasures{.target_measure_name = m.target_multi_measure_name(),
                                           .attributes = std::move(attributes)};
  }
  for (const v1::MixedMeasureMapping& m : target.mixed_measure_mappings()) {
    ASSIGN_OR_RETURN(std::optional<MeasureKind> type, KindOf(m.measure_value_type()));
    ASSIGN_OR_RETURN(auto attributes, Attributes(m.multi_measure_attribute_mappings()));
    spec.mixed.push_back({.measure_name = m.measure_name(),
                          .source_column = m.source_column(),
                          .target_measure_name = m.target_measure_name(),
                          .type = type,
                          .attributes = std::move(attributes)});
  }
  return spec;
}

ScheduledQueryState StateFromProto(v1::ScheduledQueryState state) {
  switch (state) {
    case v1::SCHEDULED_QUERY_STATE_ENABLED:
      return ScheduledQueryState::kEnabled;
    case v1::SCHEDULED_QUERY_STATE_DISABLED:
      return ScheduledQueryState::kDisabled;
    default:
      return ScheduledQueryState::kUnspecified;
  }
}

absl::StatusOr<ScheduledQueryDefinition> DefinitionFromProto(const v1::ScheduledQuery& query) {
  ScheduledQueryDefinition out{
      .name = query.name(),
      .query_string = query.query_string(),
      .schedule_expression = query.schedule_expression(),
      .state = StateFromProto(query.state()),
      .max_rejected_rows = query.error_report_configuration().max_rejected_rows(),
      .creation_nanos = query.has_creation_time() ? Nanos(query.creation_time()) : 0,
      .owner = query.owner()};
  for (int i = 0; i < query.parameters_size(); ++i) {
    ASSIGN_OR_RETURN(query::Datum value, ParameterValueFromProto(query.parameters(i), i));
    out.parameters.emplace_back(query.parameters(i).name(), std::move(value));
  }
  ASSIGN_OR_RETURN(out.target, TargetSpecFromProto(query.target_configuration()));
  return out;
}

ScheduledQueryRunSummary RunFromProto(const v1::ScheduledQueryRunSummary& run) {
  const v1::ExecutionStats& s = run.execution_stats();
  ScheduledQueryRunSummary out{.invocation_nanos = Nanos(run.invocation_time()),
                               .trigger_nanos = Nanos(run.trigger_time()),
                               .end_nanos = Nanos(run.end_time()),
                               .status = StatusFromProto(run.run_status()),
                               .stats = {.execution_millis = s.execution_time_in_millis(),
                                         .query_result_rows = s.query_result_rows(),
                                         .records_ingested = s.records_ingested(),
                                         .records_rejected = s.records_rejected(),
                                         .bytes_scanned = s.cumulative_bytes_scanned(),
                                         .rows_skipped = s.rows_skipped()},
                               .failure_reason = run.failure_reason(),
                               .attempt = run.attempt()};
  for (const v1::RejectedRow& r : run.rejected_rows()) {
    out.rejected_rows.push_back(
        {.row = r.row(),
         .reason = r.reason(),
         .existing_version = r.has_existing_version() ? std::optional<int64_t>(r.existing_version())
                                                      : std::nullopt});
  }
  return out;
}

void DefinitionToProto(const ScheduledQueryDefinition& definition, v1::ScheduledQuery* out) {
  out->set_name(definition.name);
  out->set_query_string(definition.query_string);
  for (const auto& [name, value] : definition.parameters) {
    v1::QueryParameter* p = out->add_parameters();
    p->set_name(name);
    DatumToProto(value, p->mutable_value());
  }
  out->set_schedule_expression(definition.schedule_expression);
  out->set_state(StateToProto(definition.state));
  TargetSpecToProto(definition.target, out->mutable_target_configuration());
  if (definition.max_rejected_rows != 0) {
    out->mutable_error_report_configuration()->set_max_rejected_rows(definition.max_rejected_rows);
  }
  if (definition.creation_nanos != 0)
    *out->mutable_creation_time() = Stamp(definition.creation_nanos);
  out->set_owner(definition.owner);
}

void DescriptionToProto(const ScheduledQueryDescription& description, v1::ScheduledQuery* out) {
  DefinitionToProto(description.definition, out);
  if (description.previous_invocation_nanos) {
    *out->mutable_previous_invocation_time() = Stamp(*description.previous_invocation_nanos);
  }
  if (description.next_invocation_nanos) {
    *out->mutable_next_invocation_time() = Stamp(*description.next_invocation_nanos);
  }
  if (description.last_run) RunToProto(*description.last_run, out->mutable_last_run_summary());
  for (const ScheduledQueryRunSummary& run : description.recently_failed_runs) {
    RunToProto(run, out->add_recently_failed_runs());
  }
}

void RunToProto(const ScheduledQueryRunSummary& run, v1::ScheduledQueryRunSummary* out) {
  *out->mutable_invocation_time() = Stamp(run.invocation_nanos);
  *out->mutable_trigger_time() = Stamp(run.trigger_nanos);
  *out->mutable_end_time() = Stamp(run.end_nanos);
  out->set_run_status(static_cast<v1::ScheduledQueryRunStatus>(run.status));
  v1::ExecutionStats* s = out->mutable_execution_stats();
  s->set_execution_time_in_millis(run.stats.execution_millis);
  s->set_query_result_rows(run.stats.query_result_rows);
  s->set_records_ingested(run.stats.records_ingested);
  s->set_records_rejected(run.stats.records_rejected);
  s->set_cumulative_bytes_scanned(run.stats.bytes_scanned);
  s->set_rows_skipped(run.stats.rows_skipped);
  out->set_failure_reason(run.failure_reason);
  out->set_attempt(run.attempt);
  for (const RejectedRow& r : run.rejected_rows) {
    v1::RejectedRow* rejected = out->add_rejected_rows();
    rejected->set_row(r.row);
    rejected->set_reason(r.reason);
    if (r.existing_version) rejected->set_existing_version(*r.existing_version);
  }
}

std::string EncodeDefinition(const ScheduledQueryDefinition& definition) {
  v1::ScheduledQuery message;
  DefinitionToProto(definition, &message);
  return message.SerializeAsString();
}

absl::StatusOr<ScheduledQueryDefinition> DecodeDefinition(std::string_view bytes) {
  v1::ScheduledQuery message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a scheduled query definition");
  }
  return DefinitionFromProto(message);
}

std::string EncodeRun(const ScheduledQueryRunSummary& run) {
  v1::ScheduledQueryRunSummary message;
  RunToProto(run, &message);
  return message.SerializeAsString();
}

absl::StatusOr<ScheduledQueryRunSummary> DecodeRun(std::string_view bytes) {
  v1::ScheduledQueryRunSummary message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a scheduled query run");
  }
  return RunFromProto(message);
}

}  // namespace strata
