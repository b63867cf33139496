// Moves what every record of a WriteRecords request shares (measure name,
// measure value type, time unit, dimensions with the same value) into the
// request's common_attributes, as Timestream recommends: smaller requests,
// less to encode here and to decode on the server. The records mean the same
// afterwards (the server merges common attributes back into each record).
#pragma once

#include "strata/v1/write.pb.h"

namespace strata::cli {

void FactorCommonAttributes(v1::WriteRecordsRequest* request);

}  // namespace strata::cli
