// Request bodies on the HTTP port (docs/security.md, "Limits per door").
// Every endpoint that takes a body reads it through httplib's content
// reader, only after the caller, the endpoint and the declared size were
// checked, and never past a bound on its inflated size (httplib inflates
// gzip, deflate and br as it streams). A request that carries a body to an
// endpoint that takes none is refused before a byte of it is read.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace httplib {
struct Request;
struct Response;
class ContentReader;
}  // namespace httplib

namespace strata {

// The largest request body the HTTP port reads, inflated (line protocol,
// remote write and read).
inline constexpr size_t kMaxHttpBodyBytes = 64 << 20;

// Whether `request` carries a body (a Content-Length above 0, or chunked).
bool HasBody(const httplib::Request& request);

// RESOURCE_EXHAUSTED when `request` declares a body longer than `limit`
// (its Content-Length), so it is refused unread.
absl::Status CheckDeclaredSize(const httplib::Request& request, size_t limit);

// The whole body, inflated: RESOURCE_EXHAUSTED past `limit` bytes,
// INVALID_ARGUMENT when it cannot be read or inflated.
absl::StatusOr<std::string> ReadBody(const httplib::Request& request,
                                     const httplib::ContentReader& content, size_t limit);

// Answers a failure to take a body: 413 for RESOURCE_EXHAUSTED, else as
// ReplyError. The connection closes after the answer (the rest of the body
// is never read).
void ReplyBodyError(const absl::Status& status, httplib::Response& response);

// The message of a body past `limit`.
std::string BodyTooLargeMessage(size_t limit);

}  // namespace strata
