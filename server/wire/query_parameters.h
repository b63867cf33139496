// A statement's placeholder values as the wire sends them (QueryRequest's
// and a scheduled query's `parameters`), as the engine's typed literals.
#pragma once

#include "absl/status/statusor.h"
#include "query/engine.h"
#include "strata/v1/query.pb.h"

namespace strata {

// The value of parameter `p`, the `index`th (0-based, for the message);
// INVALID_ARGUMENT for a value of no usable type.
absl::StatusOr<query::Datum> ParameterValueFromProto(const v1::QueryParameter& p, int index);

// INVALID_ARGUMENT for a value of no usable type or a name sent twice.
absl::StatusOr<query::QueryParameters> ParametersFromProto(
    const google::protobuf::RepeatedPtrField<v1::QueryParameter>& parameters);

}  // namespace strata
