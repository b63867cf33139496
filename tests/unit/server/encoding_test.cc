// Answers are gzip-encoded, not brotli at its slowest (server/http/encoding.h).
#include "server/http/encoding.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(EncodingTest, BrotliLeavesTheAcceptedEncodings) {
  const struct {
    const char* given;
    const char* kept;
  } cases[] = {
      {"gzip, deflate, br", "gzip, deflate"},  // Chromium, Firefox
      {"br;q=1.0, gzip;q=0.8, *;q=0.1", "gzip;q=0.8, *;q=0.1"},
      {"BR", ""},
      {"br", ""},
      {"gzip", "gzip"},
      {"", ""},
      {"brotli, gzip", "brotli, gzip"},  // only the coding named "br"
  };
  for (const auto& c : cases) EXPECT_EQ(WithoutBrotli(c.given), c.kept) << c.given;
}

TEST(EncodingTest, TheRequestsHeaderIsRewritten) {
  httplib::Request req;
  req.headers.emplace("Accept-Encoding", "gzip, deflate, br");
  req.headers.emplace("Accept", "application/json");
  DropBrotli(req);
  EXPECT_EQ(req.get_header_value("Accept-Encoding"), "gzip, deflate");
  EXPECT_EQ(req.get_header_value("Accept"), "application/json");
}

}  // namespace
}  // namespace strata
