#include "server/grpc/auth_service.h"

#include "common/status.h"
#include "google/protobuf/util/time_util.h"

namespace strata {
namespace {

using google::protobuf::util::TimeUtil;

void ToProto(const TokenRecord& record, v1::Token* out) {
  out->set_id(record.id);
  out->set_name(record.name);
  for (const std::string& grant : record.grants) out->add_grants(grant);
  *out->mutable_creation_time() = TimeUtil::NanosecondsToTimestamp(record.created_nanos);
  if (record.expires_nanos != 0) {
    *out->mutable_expiration_time() = TimeUtil::NanosecondsToTimestamp(record.expires_nanos);
  }
  if (record.last_used_nanos != 0) {
    *out->mutable_last_used_time() = TimeUtil::NanosecondsToTimestamp(record.last_used_nanos);
  }
  if (record.revoked_nanos != 0) {
    *out->mutable_revocation_time() = TimeUtil::NanosecondsToTimestamp(record.revoked_nanos);
  }
}

std::vector<std::string> Strings(const google::protobuf::RepeatedPtrField<std::string>& field) {
  return {field.begin(), field.end()};
}

}  // namespace

absl::Status AuthService::CreateToken(const Principal& caller,
                                      const v1::CreateTokenRequest* request,
                                      v1::CreateTokenResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("create tokens"));
  int64_t expires = 0;
  if (request->has_expiration_time()) {
    const google::protobuf::Timestamp& t = request->expiration_time();
    // Nanoseconds since 1970 in an int64 reach to 2262.
    constexpr int64_t kMaxSeconds = INT64_MAX / 1'000'000'000 - 1;
    if (t.seconds() < 0 || t.seconds() > kMaxSeconds || t.nanos() < 0 ||
        t.nanos() >= 1'000'000'000) {
      return absl::InvalidArgumentError(
          "expiration_time is not a time between 1970 and 2262; give a future time");
    }
    expires = TimeUtil::TimestampToNanoseconds(request->expiration_time());
  }
  ASSIGN_OR_RETURN(CreatedToken created, auth_.Create(request->name(), Strings(request->grants()),
                                                      expires, caller.name()));
  ToProto(created.record, response->mutable_token());
  response->set_secret(created.token);
  return absl::OkStatus();
}

absl::Status AuthService::ListTokens(const Principal& caller, const v1::ListTokensRequest*,
                                     v1::ListTokensResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("list tokens"));
  for (const TokenRecord& record : auth_.List()) ToProto(record, response->add_tokens());
  return absl::OkStatus();
}

absl::Status AuthService::RevokeToken(const Principal& caller,
                                      const v1::RevokeTokenRequest* request,
                                      v1::RevokeTokenResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("revoke tokens"));
  ASSIGN_OR_RETURN(TokenRecord record, auth_.Revoke(request->token(), caller.name()));
  ToProto(record, response->mutable_token());
  return absl::OkStatus();
}

absl::Status AuthService::UpdateTokenGrants(const Principal& caller,
                                            const v1::UpdateTokenGrantsRequest* request,
                                            v1::UpdateTokenGrantsResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("change grants"));
  ASSIGN_OR_RETURN(TokenRecord record,
                   auth_.ChangeGrants(request->token(), Strings(request->add()),
                                      Strings(request->remove()), caller.name()));
  ToProto(record, response->mutable_token());
  return absl::OkStatus();
}

absl::Status AuthService::WhoAmI(const Principal& caller, const v1::WhoAmIRequest*,
                                 v1::WhoAmIResponse* response) {
  response->set_authentication_enabled(auth_.enabled());
  response->set_name(caller.name());
  if (caller.admin() && auth_.enabled()) response->add_grants("admin");
  for (const std::string& grant : caller.grant_texts()) response->add_grants(grant);
  return absl::OkStatus();
}

void AuthService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &AuthService::RequestCreateToken, &AuthService::CreateToken);
  ServeUnary(queues, auth_, this, &AuthService::RequestListTokens, &AuthService::ListTokens);
  ServeUnary(queues, auth_, this, &AuthService::RequestRevokeToken, &AuthService::RevokeToken);
  ServeUnary(queues, auth_, this, &AuthService::RequestUpdateTokenGrants,
             &AuthService::UpdateTokenGrants);
  ServeUnary(queues, auth_, this, &AuthService::RequestWhoAmI, &AuthService::WhoAmI);
}

}  // namespace strata
