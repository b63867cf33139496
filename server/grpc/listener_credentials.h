// The gRPC listener's credentials (docs/security.md): gRPC's own TLS
// (OpenSSL underneath) with a file-watching certificate provider, so a
// renewed certificate is served without a restart.
#pragma once

#include <memory>

#include "grpcpp/security/server_credentials.h"
#include "server/auth/tls.h"

namespace strata {

// TLS credentials that re-read the files every reload_seconds (keeping the
// last good pair when a new one does not load), or plaintext without TLS.
std::shared_ptr<grpc::ServerCredentials> ListenerCredentials(const TlsConfig& tls);

}  // namespace strata
