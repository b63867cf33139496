// How the benchmarks reach stratad: plaintext, or TLS trusting a CA file,
// with a bearer token on every call when one is given (docs/security.md).
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "CLI/CLI.hpp"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace strata::bench {

struct BenchConnection {
  std::string target = "127.0.0.1:7878";
  std::string tls_ca;  // PEM CA bundle: connect over TLS
  std::string token;

  void AddOptions(CLI::App& app) {
    app.add_option("--target", target, "stratad address")->capture_default_str();
    app.add_option("--tls-ca", tls_ca, "PEM CA bundle to trust: connect over TLS");
    app.add_option("--token", token, "Bearer token")->envname("STRATA_TOKEN");
  }

  std::shared_ptr<grpc::Channel> Channel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    if (tls_ca.empty()) {
      return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    }
    std::ifstream in(tls_ca);
    std::ostringstream pem;
    pem << in.rdbuf();
    return grpc::CreateCustomChannel(target, grpc::SslCredentials({.pem_root_certs = pem.str()}),
                                     args);
  }

  // Adds the token to a call's context.
  void Authorize(grpc::ClientContext& context) const {
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  }
};

}  // namespace strata::bench
