// The scheduler's types (scheduled_query.h) as the API's messages
// (scheduled_query.proto) and back: for the gRPC service, and for the stored
// records, which are these messages' bytes (scheduled_query_codec.h). The one
// place in scheduler/ that knows the generated types.
#pragma once

#include "absl/status/statusor.h"
#include "server/scheduler/scheduled_query.h"
#include "strata/v1/scheduled_query.pb.h"

namespace strata {

// INVALID_ARGUMENT for a parameter value of no usable type or a measure
// value type this server does not know.
absl::StatusOr<ScheduledQueryDefinition> DefinitionFromProto(const v1::ScheduledQuery& query);
absl::StatusOr<TargetSpec> TargetSpecFromProto(const v1::TargetConfiguration& target);
ScheduledQueryState StateFromProto(v1::ScheduledQueryState state);
ScheduledQueryRunSummary RunFromProto(const v1::ScheduledQueryRunSummary& run);

// The definition's fields only (no invocation times, no runs).
void DefinitionToProto(const ScheduledQueryDefinition& definition, v1::ScheduledQuery* out);
void DescriptionToProto(const ScheduledQueryDescription& description, v1::ScheduledQuery* out);
void RunToProto(const ScheduledQueryRunSummary& run, v1::ScheduledQueryRunSummary* out);

}  // namespace strata
