// The HTTP SQL API (docs/api.md, "HTTP SQL API") against the real stratad:
// curl and an HTTP client run statements in each format, errors carry their
// code and position, tokens and grants hold, large answers stream, and a
// client that leaves stops its query.
#include <chrono>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/e2e/http_write.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class SqlApiE2ETest : public ::testing::Test {
 protected:
  void Start(const std::vector<std::string>& args = {}) {
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", server_.http_port());
    http_->set_read_timeout(60, 0);
  }
  void WriteSample() {
    testing::CreateAndWriteLines(server_, "demo",
                                 "cpu,host=a usage=1.5 1700000000\n"
                                 "cpu,host=b usage=2.5 1700000010\n"
                                 "cpu,host=x\\,y usage=3 1700000020\n");
  }
  std::string Url(const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(server_.http_port()) + path;
  }
  testing::ProcessResult Curl(std::vector<std::string> args) {
    args.insert(args.begin(), {testing::FindOnPath("curl"), "-s"});
    return testing::RunProcess(args);
  }

  testing::StratadProcess server_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(SqlApiE2ETest, CurlGetsJsonNdjsonAndCsv) {
  Start();
  WriteSample();
  const std::string sql = "SELECT host, time, usage FROM demo.cpu ORDER BY time";
  testing::ProcessResult json = Curl({"-G", "--data-urlencode", "q=" + sql, Url("/api/v1/sql")});
  EXPECT_THAT(
      json.out,
      StartsWith("{\"columns\":[{\"name\":\"host\",\"type\":\"varchar\"},{\"name\":\"time\","
                 "\"type\":\"timestamp\"},{\"name\":\"usage\",\"type\":\"double\"}],"
                 "\"rows\":[\n[\"a\",\"2023-11-14 22:13:20.000000000\",1.5],\n"
                 "[\"b\",\"2023-11-14 22:13:30.000000000\",2.5],\n"
                 "[\"x,y\",\"2023-11-14 22:13:40.000000000\",3]\n],\"statistics\":"
                 "{\"rows_returned\":3,\"rows_scanned\":3,"))
      << json.out << json.err;
  testing::ProcessResult ndjson =
      Curl({"-H", "Content-Type: application/json", "--data",
            R"({"query": "SELECT host FROM cpu WHERE usage > ? ORDER BY host",
                                            "params": [2], "database": "demo"})",
            Url("/api/v1/sql?format=ndjson")});
  EXPECT_THAT(ndjson.out, StartsWith("{\"columns\":[{\"name\":\"host\",\"type\":\"varchar\"}]}\n"
                                     "{\"host\":\"b\"}\n{\"host\":\"x,y\"}\n{\"statistics\":"))
      << ndjson.out;
  auto unbound =
      http_->Post("/api/v1/sql", "SELECT host FROM demo.cpu WHERE host = @h", "text/plain");
  EXPECT_EQ(unbound->status, 400);
  EXPECT_THAT(unbound->body, HasSubstr("parameter @h has no value; send a parameter named"));
  EXPECT_THAT(unbound->body, HasSubstr("as an object"));
  testing::ProcessResult named = Curl(
      {"-H", "Content-Type: application/json", "-H", "Accept: text/csv", "--data",
       R"({"query": "SELECT host, usage FROM demo.cpu WHERE host = @h", "params": {"h": "x,y"}})",
       Url("/api/v1/sql")});
  EXPECT_EQ(named.out, "host,usage\r\n\"x,y\",3.0\r\n");
}

TEST_F(SqlApiE2ETest, ErrorsCarryTheirCodeMessageAndPosition) {
  Start();
  WriteSample();
  auto syntax = http_->Post("/api/v1/sql", "SELECT host\n  FROM demo.cpu WHERE", "text/plain");
  ASSERT_TRUE(syntax);
  EXPECT_EQ(syntax->status, 400);
  EXPECT_THAT(syntax->body, StartsWith("{\"error\":{\"code\":\"INVALID_ARGUMENT\",\"message\":"));
  EXPECT_THAT(syntax->body, HasSubstr("\"position\":{\"line\":2,\"column\":"));
  auto unknown = http_->Get("/api/v1/sql?q=SELECT%20*%20FROM%20demo.nope");
  EXPECT_EQ(unknown->status, 404);
  EXPECT_THAT(unknown->body, HasSubstr("\"code\":\"NOT_FOUND\""));
  struct Case {
    std::string body, content_type, path, want;
    int status;
  };
  const Case cases[] = {
      {"{\"query\": 1}", "application/json", "/api/v1/sql", "\\\"query\\\" is a string", 400},
      {"{\"query\": \"SELECT 1\", \"sql\": 1}", "application/json", "/api/v1/sql",
       "unknown field \\\"sql\\\"", 400},
      {"not json", "application/json", "/api/v1/sql", "not a JSON object", 400},
      {"{\"query\": \"SELECT ?\", \"params\": [[1]]}", "application/json", "/api/v1/sql",
       "parameter $1 is an array or object", 400},
      {"", "text/plain", "/api/v1/sql", "no statement", 400},
      {"SELECT 1", "text/plain", "/api/v1/sql?format=xml", "json, ndjson or csv", 400},
      {"SELECT 1", "text/plain", "/api/v1/sql?timeout_ms=soon", "timeout_ms=soon", 400},
      {"SELECT 1", "text/plain", "/api/v1/sql?read_consistency=eventual",
       "use leader, strong or follower", 400},
      {"SELECT 1", "text/plain", "/api/v1/sql?max_fragments=0",
       "max_fragments is a whole number from 1 to 64", 400},
      {"SELECT x FROM UNNEST(sequence(1, 20000)) AS t(x)", "text/plain", "/api/v1/sql",
       "more than 10,000", 400},
  };
  for (const Case& c : cases) {
    auto res = http_->Post(c.path, c.body, c.content_type);
    ASSERT_TRUE(res) << c.body;
    EXPECT_EQ(res->status, c.status) << c.body << " -> " << res->body;
    EXPECT_THAT(res->body, HasSubstr(c.want)) << c.body;
  }
  const std::string big((1 << 20) + 1, ' ');
  auto too_big = http_->Post("/api/v1/sql", big, "text/plain");
  ASSERT_TRUE(too_big);
  EXPECT_EQ(too_big->status, 413);
  EXPECT_EQ(http_->Get("/api/v1/sql?q=SELECT%201")->status, 200);  // and it carries on
  // A cluster's read choice is checked on a single node too, and then ignored there.
  EXPECT_EQ(http_->Get("/api/v1/sql?q=SELECT%201&read_consistency=follower&max_staleness_ms=50")
                ->status,
            200);
}

TEST_F(SqlApiE2ETest, TheRunnerAppliesTimeoutsAndGrants) {
  Start({"--auth", "on", "--auth-failure-limit", "0", "--testing-query-delay-ms", "3000"});
  const std::string admin = server_.AdminToken();
  ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "demo", admin).ok());
  ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "other", admin).ok());
  const std::string reader = testing::CreateToken(server_.channel(), admin, "reader", "read:demo");
  auto none = http_->Get("/api/v1/sql?q=SHOW%20TABLES%20FROM%20demo");
  EXPECT_EQ(none->status, 401);
  // The token is checked before the body is read: 401, not the 413 of a
  // body past 1 MiB.
  auto unread = http_->Post("/api/v1/sql", std::string(2 << 20, ' '), "text/plain");
  ASSERT_TRUE(unread);
  EXPECT_EQ(unread->status, 401);
  httplib::Headers as_reader = {{"Authorization", "Bearer " + reader}};
  // A database the token has no grant on is not shown to it, as over gRPC.
  auto other = http_->Get("/api/v1/sql?q=SHOW%20TABLES%20FROM%20other", as_reader);
  EXPECT_EQ(other->status, 404) << other->body;
  auto admins = http_->Get("/api/v1/sql?q=SHOW%20TABLES%20FROM%20other",
                           {{"Authorization", "Bearer " + admin}});
  EXPECT_EQ(admins->status, 200) << admins->body;
  auto late = http_->Get("/api/v1/sql?q=SHOW%20TABLES%20FROM%20demo&timeout_ms=200", as_reader);
  EXPECT_EQ(late->status, 500) << late->body;
  EXPECT_THAT(late->body, HasSubstr("\"code\":\"DEADLINE_EXCEEDED\""));
  auto ok = http_->Get("/api/v1/sql?q=SHOW%20TABLES%20FROM%20demo", as_reader);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

// A million rows: chunked, complete, and a client that leaves halfway stops
// its query (SHOW QUERIES through the same API lists none afterwards).
TEST_F(SqlApiE2ETest, LargeAnswersStreamAndALeavingClientStopsItsQuery) {
  Start();
  const std::string million =
      "SELECT a.x * 1000 + b.y AS n FROM UNNEST(sequence(0, 999)) AS a(x) "
      "CROSS JOIN UNNEST(sequence(0, 999)) AS b(y)";
  testing::ProcessResult csv = Curl({"-D", "/dev/stderr", "-G", "--data-urlencode", "q=" + million,
                                     Url("/api/v1/sql?format=csv")});
  EXPECT_THAT(csv.err, HasSubstr("Transfer-Encoding: chunked"));
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 1'000'001);
  EXPECT_THAT(csv.out, HasSubstr("\r\n999999\r\n"));

  size_t received = 0;
  auto cut =
      http_->Get("/api/v1/sql?format=ndjson&q=" + httplib::detail::encode_query_param(million),
                 [&](const char*, size_t n) {
                   received += n;
                   return received < (64 << 10);
                 });
  EXPECT_FALSE(cut);  // the client stopped reading
  std::string running;
  for (int i = 0; i < 100; ++i) {
    auto list = http_->Get("/api/v1/sql?q=SHOW%20QUERIES&format=csv");
    ASSERT_TRUE(list);
    running = list->body;
    if (running.find("sequence(0, 999)") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(running, Not(HasSubstr("sequence(0, 999)")));
}

// A page of another site cannot make a browser run SQL here (a DELETE sent
// as text/plain needs no CORS preflight), nor can a rebinding name reach a
// server that checks no tokens (server/http/origin.h).
TEST_F(SqlApiE2ETest, RequestsABrowserSendsForAnotherSiteAreRefused) {
  Start();
  WriteSample();
  auto post = [&](std::vector<std::string> headers) {
    std::vector<std::string> args = {"-o", "/dev/null", "-w", "%{http_code}"};
    for (const std::string& h : headers) args.insert(args.end(), {"-H", h});
    args.insert(args.end(), {"-H", "Content-Type: text/plain", "--data-binary",
                             "DELETE FROM demo.cpu WHERE host = 'a'", Url("/api/v1/sql")});
    return Curl(args).out;
  };
  EXPECT_EQ(post({"Origin: https://evil.example"}), "403");
  EXPECT_EQ(post({"Host: evil.example:" + std::to_string(server_.http_port()),
                  "Origin: http://evil.example:" + std::to_string(server_.http_port())}),
            "403");
  EXPECT_EQ(Curl({"-G", Url("/api/v1/sql"), "--data-urlencode",
                  "q=SELECT count(*) FROM demo.cpu", "-H", "Accept: text/csv"})
                .out,
            "_col0\r\n3\r\n");  // nothing was deleted
  // The console's own requests (same origin) and curl's (none) are served.
  EXPECT_EQ(post({"Origin: http://127.0.0.1:" + std::to_string(server_.http_port())}), "200");
}

// A client that leaves before the first rows (a browser's Cancel during a
// long aggregation) cancels the query at once, not when it would answer.
TEST_F(SqlApiE2ETest, AClientLeavingBeforeTheFirstRowsCancelsTheQuery) {
  Start({"--testing-query-delay-ms", "60000"});
  // curl gives up after a second; the query would wait a minute, then
  // answer OK.
  Curl({"--max-time", "1", "-G", Url("/api/v1/sql"), "--data-urlencode", "q=SELECT 1"});
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    auto scraped = http_->Get("/metrics");
    ASSERT_TRUE(scraped);
    metrics = scraped->body;
    if (metrics.find("strata_queries_total{code=\"CANCELLED\"} 1") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_THAT(metrics, HasSubstr("strata_queries_total{code=\"CANCELLED\"} 1"));
}

// The web console's files, served by stratad itself without a token (they
// hold no data), with a policy that lets the page load only its own files.
TEST_F(SqlApiE2ETest, TheWebConsoleIsServedAtTheRootAndUnderConsole) {
  Start({"--auth", "on"});
  for (const char* path : {"/", "/console/", "/console/index.html"}) {
    auto page = http_->Get(path);
    ASSERT_TRUE(page) << path;
    EXPECT_EQ(page->status, 200) << path;
    EXPECT_THAT(page->get_header_value("Content-Type"), StartsWith("text/html")) << path;
    EXPECT_THAT(page->body, HasSubstr("<title>Strata console</title>")) << path;
    EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'self'"));
    EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  }
  for (const char* path : {"/app.js", "/console/app.js"}) {
    auto script = http_->Get(path);
    ASSERT_TRUE(script) << path;
    EXPECT_EQ(script->status, 200) << path;
    EXPECT_THAT(script->get_header_value("Content-Type"), StartsWith("text/javascript"));
    EXPECT_GT(script->body.size(), 10000u);
  }
  // A reload revalidates: the same bytes answer 304, without a body.
  auto first = http_->Get("/app.js");
  ASSERT_TRUE(first);
  const std::string etag = first->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = http_->Get("/app.js", {{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  auto redirect = http_->Get("/console");
  ASSERT_TRUE(redirect);
  EXPECT_EQ(redirect->status, 302);
  EXPECT_EQ(redirect->get_header_value("Location"), "/console/");
  // What the page calls still needs the token.
  auto sql = http_->Get("/api/v1/sql?q=SHOW%20DATABASES");
  ASSERT_TRUE(sql);
  EXPECT_EQ(sql->status, 401);
  auto unknown = http_->Get("/console/nope.js");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  // A browser accepts brotli too: the answer is gzip (brotli at httplib's
  // quality took 1.3 s for the script; server/http/encoding.h).
  testing::ProcessResult head = Curl(
      {"-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip, deflate, br", Url("/app.js")});
  EXPECT_THAT(head.out, HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(head.out, Not(HasSubstr("Content-Encoding: br")));
}

}  // namespace
}  // namespace strata
