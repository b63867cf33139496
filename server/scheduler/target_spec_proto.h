// A TargetConfiguration of the scheduled-query API (scheduled_query.proto)
// as the scheduler's TargetSpec. The scheduler keeps its definitions as the
// API's messages; the mapping itself (target_mapping.h) never sees them.
#pragma once

#include "server/scheduler/target_spec.h"
#include "strata/v1/scheduled_query.pb.h"

namespace strata {

TargetSpec TargetSpecFromProto(const v1::TargetConfiguration& target);

}  // namespace strata
