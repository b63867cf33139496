// Translation between WriteService messages and the engine's write types.
// Presence is kept (unset proto3 optional fields stay unset) so the engine
// can merge common attributes; everything else is validated by the engine.
#pragma once

#include "storage/write_types.h"
#include "strata/v1/write.pb.h"

namespace strata {

// The engine's measure kind of a wire type; nullopt for UNSPECIFIED or unknown.
std::optional<MeasureKind> KindFromProto(v1::MeasureValueType type);

WriteRequest FromProto(const v1::WriteRecordsRequest& request);
void ToProto(const WriteResult& result, v1::WriteRecordsResponse* out);

}  // namespace strata
