#include "server/scheduler/scheduled_query.h"

namespace strata {

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kAutoTriggerSuccess:
      return "AUTO_TRIGGER_SUCCESS";
    case RunStatus::kAutoTriggerFailure:
      return "AUTO_TRIGGER_FAILURE";
    case RunStatus::kManualTriggerSuccess:
      return "MANUAL_TRIGGER_SUCCESS";
    case RunStatus::kManualTriggerFailure:
      return "MANUAL_TRIGGER_FAILURE";
    case RunStatus::kAutoTriggerSkipped:
      return "AUTO_TRIGGER_SKIPPED";
    case RunStatus::kUnspecified:
      break;
  }
  return "SCHEDULED_QUERY_RUN_STATUS_UNSPECIFIED";
}

}  // namespace strata
