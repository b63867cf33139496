// What checking that a caller of the internal service is a member costs (cluster/membership.h):
// a node's certificate checked against the cluster's CA, as every internal call is, in-process.
//
//   membership_bench --ca CA.pem --cert NODE.pem --key NODE.key [--checks 20000]
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "cluster/membership.h"

int main(int argc, char** argv) {
  CLI::App app("The cost of a member's certificate check");
  std::string ca, cert, key;
  int checks = 20000;
  app.add_option("--ca", ca, "the cluster's CA (PEM)")->required();
  app.add_option("--cert", cert, "a node's certificate signed by it (PEM)")->required();
  app.add_option("--key", key, "the node's key (PEM)")->required();
  app.add_option("--checks", checks, "checks to time");
  CLI11_PARSE(app, argc, argv);

  auto membership = strata::cluster::Membership::Create({cert, key, ca}, "");
  if (!membership.ok()) {
    std::fprintf(stderr, "%s\n", membership.status().ToString().c_str());
    return 1;
  }
  std::stringstream text;
  text << std::ifstream(cert).rdbuf();
  const std::string leaf = text.str();
  // The first check verifies the certificate; the others find it checked lately.
  const auto first = std::chrono::steady_clock::now();
  int members = (*membership)->SignedByClusterCa(leaf, "");
  const double first_micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - first).count();
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < checks; ++i) members += (*membership)->SignedByClusterCa(leaf, "");
  const double micros =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  std::printf("the first check %.1f us; %d more, %d of all found a member's: %.2f us a check\n",
              first_micros, checks, members, micros / checks);
  return members == checks + 1 ? 0 : 1;
}
