#include "server/http/body.h"

#include <cstdlib>

#include "common/strings.h"
#include "httplib.h"
#include "server/http/auth.h"
#include "server/http/connections.h"

namespace strata {

bool HasBody(const httplib::Request& request) {
  if (request.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) {
    return true;
  }
  return request.has_header("Content-Length") &&
         std::strtoull(request.get_header_value("Content-Length").c_str(), nullptr, 10) > 0;
}

std::string BodyTooLargeMessage(size_t limit) {
  return StrCat("the body is larger than ", limit >> 20, " MB (inflated); send it in several requests");
}

absl::Status CheckDeclaredSize(const httplib::Request& request, size_t limit) {
  if (request.has_header("Content-Length") &&
      std::strtoull(request.get_header_value("Content-Length").c_str(), nullptr, 10) > limit) {
    return absl::ResourceExhaustedError(BodyTooLargeMessage(limit));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadBody(const httplib::Request& request,
                                     const httplib::ContentReader& content, size_t limit) {
  if (absl::Status declared = CheckDeclaredSize(request, limit); !declared.ok()) return declared;
  std::string body;
  bool oversized = false;
  const bool read = content([&](const char* data, size_t length) {
    if (body.size() + length > limit) {
      oversized = true;
      return false;
    }
    body.append(data, length);
    return true;
  });
  if (oversized) return absl::ResourceExhaustedError(BodyTooLargeMessage(limit));
  if (!read) {
    return absl::InvalidArgumentError(
        "the body could not be read: the connection failed, timed out, or its "
        "Content-Encoding did not decode");
  }
  return body;
}

void ReplyBodyError(const absl::Status& status, httplib::Response& response) {
  GuardedHttpServer::CloseConnectionAfterAnswer();
  ReplyError(status, response);
  if (status.code() == absl::StatusCode::kResourceExhausted) response.status = 413;
}

}  // namespace strata
