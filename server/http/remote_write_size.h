// What a remote-write body takes in memory once protobuf parses it, found
// by walking its wire bytes (protobuf's CodedInputStream) without building
// any message. A parsed WriteRequest takes up to ~40 times its bytes (an
// empty series is 2 bytes on the wire and a TimeSeries object, with its
// slot in the repeated field, in memory), so a hostile body within the size
// limit could take gigabytes; the caller refuses a body whose parse would
// take more than it allows, before parsing it.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace strata {

// The bytes protobuf's parse of `body` as a prometheus.WriteRequest would
// hold (as Message::SpaceUsedLong counts them: objects, repeated fields'
// slots, strings past the short-string buffer, unknown fields' bytes), an
// upper estimate; nullopt when the bytes are not a protobuf message of that
// shape (the parse would fail too) or use groups, which remote write never
// sends. Strings are not checked for UTF-8: the parse after does that.
std::optional<size_t> ParsedWriteRequestBytes(std::string_view body);

}  // namespace strata
