#include "server/http/auth.h"

#include <sodium.h>

#include "common/json_text.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "httplib.h"

namespace strata {
namespace {

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return a == std::tolower(static_cast<unsigned char>(b));
         });
}

// The password of `user:password` in base64; empty when it is not that.
std::string BasicPassword(std::string_view encoded) {
  encoded = StripWhitespace(encoded);
  std::string decoded(encoded.size(), '\0');
  size_t length = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(decoded.data()), decoded.size(),
                        encoded.data(), encoded.size(), nullptr, &length, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0) {
    return {};
  }
  decoded.resize(length);
  const size_t colon = decoded.find(':');
  return colon == std::string::npos ? std::string() : decoded.substr(colon + 1);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateHttp(Authenticator& auth,
                                                                  const httplib::Request& request,
                                                                  QueryPassword query_password) {
  std::string bearer;
  if (request.has_header("Authorization")) {
    const std::string& value = request.get_header_value("Authorization");
    if (StartsWithNoCase(value, "token ")) {
      bearer = "Bearer " + value.substr(6);
    } else if (StartsWithNoCase(value, "basic ")) {
      bearer = "Bearer " + BasicPassword(std::string_view(value).substr(6));
    } else {
      bearer = value;
    }
  } else if (query_password == QueryPassword::kAccepted && request.has_param("p")) {
    bearer = "Bearer " + request.get_param_value("p");
  }
  std::vector<std::string_view> authorization;
  if (!bearer.empty()) authorization.push_back(bearer);
  return auth.Authenticate(authorization, "ipv4:" + request.remote_addr + ":0");
}

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kAlreadyExists: return 409;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

std::string JsonError(std::string_view message) {
  std::string out = R"({"error":)";
  AppendJsonString(message, &out);
  return out + "}\n";
}

void ReplyError(const absl::Status& status, httplib::Response& response) {
  response.status = HttpStatusOf(status);
  response.set_content(JsonError(std::string_view(status.message().data(), status.message().size())),
                       "application/json");
}

}  // namespace strata
