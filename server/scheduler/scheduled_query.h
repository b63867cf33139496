// A scheduled query as the scheduler knows it: its definition, its runs and
// how it describes itself. The scheduler's own types; the API's messages
// (scheduled_query.proto) are read and written by scheduled_query_proto.h
// for the gRPC service and for the stored records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "query/base/datum.h"
#include "server/scheduler/target_spec.h"

namespace strata {

enum class ScheduledQueryState { kUnspecified, kEnabled, kDisabled };

enum class RunStatus {
  kUnspecified,
  kAutoTriggerSuccess,
  kAutoTriggerFailure,
  kManualTriggerSuccess,
  kManualTriggerFailure,
  // Invocations missed during downtime beyond the catch-up limit.
  kAutoTriggerSkipped,
};

// AUTO_TRIGGER_SUCCESS, ... as the API and the system tables spell them.
std::string_view RunStatusName(RunStatus status);
inline bool Failed(RunStatus s) {
  return s == RunStatus::kAutoTriggerFailure || s == RunStatus::kManualTriggerFailure;
}
inline bool Manual(RunStatus s) {
  return s == RunStatus::kManualTriggerSuccess || s == RunStatus::kManualTriggerFailure;
}

struct RunStats {
  int64_t execution_millis = 0;
  int64_t query_result_rows = 0;
  int64_t records_ingested = 0;  // new, or upserted by a later invocation
  int64_t records_rejected = 0;
  int64_t bytes_scanned = 0;
  int64_t rows_skipped = 0;  // rows that made no record (every measure NULL)
};

struct RejectedRow {
  int64_t row = 0;  // 0-based position in the query's result
  std::string reason;
  std::optional<int64_t> existing_version;  // for a version conflict
};

struct ScheduledQueryRunSummary {
  int64_t invocation_nanos = 0;  // @scheduled_runtime of the run
  int64_t trigger_nanos = 0;     // when it started
  int64_t end_nanos = 0;
  RunStatus status = RunStatus::kUnspecified;
  RunStats stats;
  std::string failure_reason;
  int attempt = 0;  // 1 for the first attempt at an invocation
  std::vector<RejectedRow> rejected_rows;
};

struct ScheduledQueryDefinition {
  std::string name;
  std::string query_string;
  // Named values (an empty name is a `?`, which Create refuses), in the
  // order given.
  std::vector<std::pair<std::string, query::Datum>> parameters;
  std::string schedule_expression;
  ScheduledQueryState state = ScheduledQueryState::kUnspecified;
  TargetSpec target;
  int max_rejected_rows = 0;  // kept per run; 0: 100
  // Set by the server.
  int64_t creation_nanos = 0;
  std::string owner;  // the token that created it; empty with authentication off
};

// What Describe and List answer: the definition and where its schedule is.
struct ScheduledQueryDescription {
  ScheduledQueryDefinition definition;
  std::optional<int64_t> previous_invocation_nanos;
  std::optional<int64_t> next_invocation_nanos;  // none while disabled
  std::optional<ScheduledQueryRunSummary> last_run;
  std::vector<ScheduledQueryRunSummary> recently_failed_runs;  // newest first
};

struct ScheduledQueryPage {
  std::vector<ScheduledQueryDescription> queries;
  std::string next_token;  // empty: the last page
};

}  // namespace strata
