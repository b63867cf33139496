#include "server/grpc/unary.h"

#include <string_view>
#include <vector>

namespace strata {

absl::StatusOr<std::shared_ptr<const Principal>> AuthenticateCall(
    Authenticator& auth, const grpc::ServerContextBase& context) {
  if (!auth.enabled()) return auth.Authenticate({}, "");
  std::vector<std::string_view> authorization;
  const auto range = context.client_metadata().equal_range("authorization");
  for (auto it = range.first; it != range.second; ++it) {
    authorization.emplace_back(it->second.data(), it->second.size());
  }
  return auth.Authenticate(authorization, context.peer());
}

}  // namespace strata
