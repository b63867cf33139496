// A WriteRecordsRequest's wire bytes in one pass. Protobuf's serializer walks a
// message twice (ByteSizeLong for every nested length, then the bytes) and checks
// every string's UTF-8 on the way: a quarter of `strata import`'s CPU per row on
// line protocol (docs/benchmarks.md, "Ingest paths"). Here each nested message is
// written once, its length filled in after it; the bytes are the ones protobuf
// writes, byte for byte (tests/unit/client/request_encoder_test.cc), so the
// server reads them the same way. (A string that is not UTF-8 goes as it is,
// where protobuf logs it and sends it too; the server refuses the request.)
#pragma once

#include <string>

#include "strata/v1/write.pb.h"

namespace strata::cli {

// Writes `request` serialized at the start of `buffer` and returns its length.
// The buffer grows as needed and keeps its size past that: a sender reusing one
// buffer pays for zeroing its bytes only when it grows.
size_t EncodeWriteRecordsRequest(const v1::WriteRecordsRequest& request, std::string* buffer);

}  // namespace strata::cli
