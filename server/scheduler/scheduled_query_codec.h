// A scheduled query's stored definition and runs (storage/catalog/
// scheduled_query_store.h keeps them as opaque bytes): the API's messages,
// serialized, so data directories written before these types read as before.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/scheduler/scheduled_query.h"

namespace strata {

std::string EncodeDefinition(const ScheduledQueryDefinition& definition);
// DATA_LOSS when the bytes are not a definition.
absl::StatusOr<ScheduledQueryDefinition> DecodeDefinition(std::string_view bytes);
std::string EncodeRun(const ScheduledQueryRunSummary& run);
absl::StatusOr<ScheduledQueryRunSummary> DecodeRun(std::string_view bytes);

}  // namespace strata
