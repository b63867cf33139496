// AuthService handlers: token management over server/auth/authenticator.h.
// Everything but WhoAmI needs an admin token.
#pragma once

#include "server/auth/authenticator.h"
#include "server/grpc/unary.h"
#include "strata/v1/auth.grpc.pb.h"

namespace strata {

using RawAuthService =
    v1::AuthService::WithRawMethod_CreateToken<v1::AuthService::WithRawMethod_ListTokens<
        v1::AuthService::WithRawMethod_RevokeToken<v1::AuthService::WithRawMethod_UpdateTokenGrants<
            v1::AuthService::WithRawMethod_WhoAmI<v1::AuthService::Service>>>>>;

class AuthService final : public RawAuthService {
 public:
  // `auth` must outlive the service.
  explicit AuthService(Authenticator* auth) : auth_(*auth) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(CreateToken, v1::CreateTokenRequest, v1::CreateTokenResponse);
  STRATA_SERVE_UNARY(ListTokens, v1::ListTokensRequest, v1::ListTokensResponse);
  STRATA_SERVE_UNARY(RevokeToken, v1::RevokeTokenRequest, v1::RevokeTokenResponse);
  STRATA_SERVE_UNARY(UpdateTokenGrants, v1::UpdateTokenGrantsRequest,
                     v1::UpdateTokenGrantsResponse);
  STRATA_SERVE_UNARY(WhoAmI, v1::WhoAmIRequest, v1::WhoAmIResponse);

 private:
  Authenticator& auth_;
};

}  // namespace strata
