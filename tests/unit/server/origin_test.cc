// Requests a browser sends for another site are refused
// (server/http/origin.h).
#include "server/http/origin.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(OriginTest, LoopbackNamesAreWrittenSo) {
  for (const char* name :
       {"localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.1.2.3", "::1"}) {
    EXPECT_TRUE(IsLoopbackName(name)) << name;
  }
  for (const char* name : {"evil.example", "127.0.0.1.evil.example", "localhost.evil", "10.0.0.1",
                           "0.0.0.0", "", "::"}) {
    EXPECT_FALSE(IsLoopbackName(name)) << name;
  }
}

httplib::Request Request(std::string host, std::string origin = "") {
  httplib::Request req;
  req.headers.emplace("Host", std::move(host));
  if (!origin.empty()) req.headers.emplace("Origin", std::move(origin));
  return req;
}

TEST(OriginTest, AnotherSitesPageIsRefusedAndTheSameOriginServed) {
  const struct {
    std::string host, origin;
    bool guard_host, refused;
  } cases[] = {
      {"127.0.0.1:7879", "", true, false},                       // curl, scripts
      {"127.0.0.1:7879", "http://127.0.0.1:7879", true, false},  // the console itself
      {"localhost:7879", "http://LOCALHOST:7879", true, false},
      {"[::1]:7879", "http://[::1]:7879", true, false},
      {"127.0.0.1:7879", "https://evil.example", true, true},   // another site's page
      {"127.0.0.1:7879", "http://127.0.0.1:8080", true, true},  // another port is another site
      {"127.0.0.1:7879", "null", true, true},                   // a sandboxed page
      {"evil.example:7879", "http://evil.example:7879", true, true},  // DNS rebinding
      {"evil.example:7879", "", true, true},
      {"db.example:7879", "", false, false},  // tokens on: any name
      {"db.example:7879", "https://other.example", false, true},
  };
  for (const auto& c : cases) {
    const std::optional<std::string> refusal =
        CrossSiteRefusal(Request(c.host, c.origin), c.guard_host);
    EXPECT_EQ(refusal.has_value(), c.refused) << c.host << " " << c.origin;
  }
}

}  // namespace
}  // namespace strata
