// Who sends an HTTP request. HTTP clients carry a token in the forms their
// ecosystem uses, all accepted here and checked like gRPC's bearer token:
//   Authorization: Bearer <token>     (curl, Grafana, Prometheus's authorization)
//   Authorization: Token <token>      (InfluxDB 2 clients, Telegraf's token)
//   Authorization: Basic <user:token> (InfluxDB 1 username/password, Prometheus's
//                                      basic_auth; the user name is ignored)
//   ?p=<token>                        (InfluxDB 1's query-string password, only
//                                      where InfluxDB 1 clients send it: a
//                                      token in a URL ends up in access logs)
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "server/auth/authenticator.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace strata {

enum class QueryPassword { kAccepted, kRefused };

absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateHttp(Authenticator& auth,
                                                                  const httplib::Request& request,
                                                                  QueryPassword query_password);

// The HTTP status that answers a failed call with `status`.
int HttpStatusOf(const absl::Status& status);

// {"error": "..."} with the message escaped for JSON (and made valid UTF-8).
std::string JsonError(std::string_view message);

// Answers `response` with HttpStatusOf(status) and JsonError(message).
void ReplyError(const absl::Status& status, httplib::Response& response);

}  // namespace strata
