// The HTTP ingest protocols against the real stratad (docs/protocols.md):
// InfluxDB line protocol on /write and /api/v2/write (curl with gzip,
// InfluxDB's own Node client), Prometheus remote write on /api/v1/write (a
// real Prometheus, and hand-made bodies for the error cases), their errors,
// and the token rules.
#include <snappy.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "prometheus/remote.pb.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kSecond = 1'000'000'000;

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class IngestHttpE2ETest : public ::testing::Test {
 protected:
  void Start(const std::vector<std::string>& args = {}) {
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_.http_port());
    // A request creating a thousand tables took over httplib's default 5 s under a full
    // parallel test run on a slow machine.
    client_->set_read_timeout(60);
  }

  void CreateDatabase(const std::string& name) {
    ASSERT_TRUE(testing::CreateDatabase(server_.channel(), name).ok());
  }

  std::string Rows(const std::string& sql) {
    testing::QueryResult result = testing::RunQuery(server_.channel(), sql);
    EXPECT_TRUE(result.status.ok()) << sql << ": " << result.status.error_message();
    return testing::RowsText(result.rows);
  }

  httplib::Result Post(const std::string& path, const std::string& body,
                       const httplib::Headers& headers = {}) {
    httplib::Result res = client_->Post(path, headers, body, "text/plain; charset=utf-8");
    if (res) return res;
    // A failure, not a crash of the test reading the missing answer's status.
    ADD_FAILURE() << "POST " << path << ": no answer (" << httplib::to_string(res.error()) << ")";
    auto none = std::make_unique<httplib::Response>();
    none->status = -1;
    return httplib::Result(std::move(none), httplib::Error::Success);
  }

  testing::StratadProcess server_;
  std::unique_ptr<httplib::Client> client_;
  testing::TempDir dir_;
};

TEST_F(IngestHttpE2ETest, LineProtocolV1StoresGoodLinesAndNamesTheBadOnes) {
  Start();
  CreateDatabase("telegraf");
  const int64_t t = NowSeconds() - 60;
  const std::string body =
      "cpu,host=a,region=eu usage=1.5,procs=3i,ok=t,note=\"hi there\" " + std::to_string(t) + "\n" +
      "cpu,host=b,region=eu usage=2.5 " + std::to_string(t) + "\r\n" +
      "# a comment line\n" +
      "cpu,host=c usage=oops " + std::to_string(t) + "\n" +       // not a number
      "cpu,host=d usage=1i " + std::to_string(t) + "\n" +         // usage is DOUBLE already
      "mem,host=a used=10i,free=2u " + std::to_string(t);        // no final newline
  auto res = Post("/write?db=telegraf&precision=s", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr("partial write: 2 lines rejected, 3 points written"));
  EXPECT_THAT(res->body, HasSubstr("line 4 'cpu,host=c usage=oops "));
  EXPECT_THAT(res->body, HasSubstr("unable to parse: field \\\"usage\\\": \\\"oops\\\" is not a "
                                   "number, integer (1i), boolean (t/f) or quoted string "
                                   "(column 18)"));
  EXPECT_THAT(res->body, HasSubstr("line 5 'cpu,host=d usage=1i"));
  EXPECT_THAT(res->body, HasSubstr("dropped=2"));

  const std::string ns = std::to_string(t * kSecond);
  EXPECT_EQ(Rows("SELECT host, region, measure_name, time, usage, procs, ok, note "
                 "FROM telegraf.cpu ORDER BY host"),
            "a|eu|cpu|" + ns + "|1.5|3|true|hi there\n" + "b|eu|cpu|" + ns + "|2.5|NULL|NULL|NULL\n");
  EXPECT_EQ(Rows("SELECT host, used, free FROM telegraf.mem"), "a|10|2\n");
}

// Lines go to the writer in batches of 100, several in flight; a record
// the writer refuses is reported with its own line's number and text (a long
// one shortened) whichever batch it was in.
TEST_F(IngestHttpE2ETest, RejectionsInLaterBatchesNameTheirOwnLines) {
  Start();
  CreateDatabase("telegraf");
  const int64_t t = NowSeconds() - 600;
  const std::string long_host(300, 'h');
  std::string body;
  for (int i = 1; i <= 450; ++i) {
    const std::string host = i == 377 ? long_host : "h" + std::to_string(i);
    const std::string value = i == 150 || i == 377 ? "1i" : "1.5";  // usage is DOUBLE
    body += "cpu,host=" + host + " usage=" + value + " " + std::to_string(t + i) + "\n";
  }
  auto res = Post("/write?db=telegraf&precision=s", body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr("partial write: 2 lines rejected, 448 points written"));
  EXPECT_THAT(res->body, HasSubstr("line 150 'cpu,host=h150 usage=1i " + std::to_string(t + 150) +
                                   "'"));
  const std::string quoted = ("cpu,host=" + long_host).substr(0, 200);
  EXPECT_THAT(res->body, HasSubstr("line 377 '" + quoted + "...'"));
  EXPECT_EQ(Rows("SELECT count(*) FROM telegraf.cpu"), "448\n");
}

TEST_F(IngestHttpE2ETest, RewritingAPointReplacesItsValuesAsInfluxDbDoes) {
  Start();
  CreateDatabase("mydb");
  const std::string t = std::to_string(NowSeconds() - 10);
  ASSERT_EQ(Post("/write?db=mydb&precision=s", "mem,host=a v=1 " + t)->status, 204);
  ASSERT_EQ(Post("/write?db=mydb&precision=s", "mem,host=a v=1 " + t)->status, 204);  // a retry
  ASSERT_EQ(Post("/write?db=mydb&precision=s", "mem,host=a v=2 " + t)->status, 204);
  EXPECT_EQ(Rows("SELECT v FROM mydb.mem"), "2\n");
  // Within one request too, the later line wins.
  ASSERT_EQ(Post("/write?db=mydb&precision=s", "mem,host=a v=3 " + t + "\nmem,host=a v=4 " + t)->status, 204);
  EXPECT_EQ(Rows("SELECT v FROM mydb.mem"), "4\n");
}

TEST_F(IngestHttpE2ETest, OneRequestWritesAtMostAThousandMeasurements) {
  Start();
  CreateDatabase("mydb");
  const std::string t = std::to_string(NowSeconds());
  std::string body;
  for (int i = 0; i < 1002; ++i) body += "mea" + std::to_string(i) + " v=1 " + t + "\n";
  auto res = Post("/write?db=mydb&precision=s", body);
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr("partial write: 2 lines rejected, 1000 points written"));
  EXPECT_THAT(res->body, HasSubstr("line 1001 'mea1000 v=1 " + t + "': the request already wrote 1000 "
                                   "measurements (tables)"));
  // A measurement becomes a table, so it needs a table's name: 3..256 characters.
  auto short_name = Post("/write?db=mydb&precision=s", "io v=1 " + t);
  EXPECT_EQ(short_name->status, 400);
  EXPECT_THAT(short_name->body, HasSubstr("table name \\\"io\\\" is too short"));
}

TEST_F(IngestHttpE2ETest, BodiesAbove64MbAreRefused) {
  Start();
  CreateDatabase("mydb");
  const std::string big = dir_.Sub("big.lp");
  {
    std::ofstream out(big);
    const std::string comment(1 << 20, '#');
    for (int i = 0; i < 65; ++i) out << comment;
  }
  // curl reads the early answer while still sending (as HTTP clients should).
  const std::string url = "http://127.0.0.1:" + std::to_string(server_.http_port());
  for (const std::string path : {"/write?db=mydb", "/api/v1/write?db=mydb"}) {
    testing::ProcessResult r = testing::RunProcess(
        {testing::FindOnPath("curl"), "-s", "-o", "/dev/null", "-w", "%{http_code}", "-XPOST",
         url + path, "--data-binary", "@" + big});
    EXPECT_EQ(r.out, "413") << path << " " << r.err;
  }
  EXPECT_EQ(Post("/write?db=mydb", "mem v=1")->status, 204);  // and the server carries on
}

TEST_F(IngestHttpE2ETest, CurlSendsAGzipBodyToBothApis) {
  Start();
  CreateDatabase("mydb");
  const std::string curl = testing::FindOnPath("curl");
  ASSERT_FALSE(curl.empty()) << "curl is not installed (scripts/deps.sh installs it)";
  const int64_t t = NowSeconds() - 5;
  std::string lines;
  for (int i = 0; i < 250; ++i) {  // more than one 100-record batch
    lines += "disk,host=h" + std::to_string(i) + " used=" + std::to_string(i) + "i " +
             std::to_string(t * 1000) + "\n";
  }
  const std::string plain = dir_.Sub("body.lp");
  std::ofstream(plain) << lines;
  ASSERT_EQ(testing::RunProcess({"/usr/bin/gzip", "-k", plain}).exit_code, 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(server_.http_port());
  for (std::string path : {"/write?db=mydb&precision=ms", "/api/v2/write?bucket=mydb&org=any&precision=ms"}) {
    testing::ProcessResult r = testing::RunProcess(
        {curl, "-sS", "-w", "%{http_code}", "-XPOST", url + path, "-H", "Content-Encoding: gzip",
         "--data-binary", "@" + plain + ".gz"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "204") << path;
  }
  EXPECT_EQ(Rows("SELECT count(*), sum(used) FROM mydb.disk"), "250|31125\n");
}

TEST_F(IngestHttpE2ETest, RequestErrorsAreAnsweredLikeInfluxDb) {
  Start({"--http-auto-create", "false"});
  CreateDatabase("mydb");
  auto missing_db = Post("/write?db=nope", "mem v=1");
  EXPECT_EQ(missing_db->status, 404);
  EXPECT_THAT(missing_db->body, HasSubstr("database not found: \\\"nope\\\""));
  auto no_db = Post("/api/v2/write?org=x", "mem v=1");
  EXPECT_EQ(no_db->status, 400);
  EXPECT_THAT(no_db->body, HasSubstr(R"({"code":"invalid","message":"the request names no database: add ?bucket=DATABASE)"));
  auto precision = Post("/write?db=mydb&precision=weeks", "mem v=1");
  EXPECT_EQ(precision->status, 400);
  EXPECT_THAT(precision->body, HasSubstr("precision \\\"weeks\\\" is not one of ns, us, ms, s"));
  auto no_table = Post("/write?db=mydb", "newtable v=1\n");
  EXPECT_EQ(no_table->status, 400);
  EXPECT_THAT(no_table->body, HasSubstr("table \\\"mydb\\\".\\\"newtable\\\" does not exist and stratad "
                                        "runs with --http-auto-create=false"));
  auto ping = client_->Get("/ping");
  EXPECT_EQ(ping->status, 204);
  EXPECT_EQ(ping->get_header_value("X-Influxdb-Build"), "Strata");
}

TEST_F(IngestHttpE2ETest, TokensInEveryFormInfluxClientsSend) {
  // Tokens without TLS, on loopback: the rules are the same, the test simpler.
  Start({"--auth", "on", "--auth-failure-limit", "0"});
  const std::string admin = server_.AdminToken();
  auto create = [&](const std::string& name, const std::string& grant) {
    return testing::CreateToken(server_.channel(), admin, name, grant);
  };
  ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "mydb", admin).ok());
  const std::string writer = create("telegraf", "write:mydb");
  const std::string narrow = create("narrow", "write:mydb/cpu");
  const std::string t = std::to_string(NowSeconds());
  const std::string line = "cpu,host=a v=1 " + t;

  auto none = Post("/write?db=mydb&precision=s", line);
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->body, HasSubstr("this server requires a token"));
  EXPECT_EQ(Post("/write?db=mydb&precision=s", line, {{"Authorization", "Bearer wrong"}})->status, 401);
  EXPECT_EQ(Post("/api/v2/write?bucket=mydb&precision=s", line, {{"Authorization", "Token " + writer}})->status, 204);
  EXPECT_EQ(Post("/write?db=mydb&precision=s&u=telegraf&p=" + writer, line)->status, 204);
  httplib::Headers basic = {httplib::make_basic_authentication_header("telegraf", writer)};
  EXPECT_EQ(Post("/write?db=mydb&precision=s", line, basic)->status, 204);
  // write:mydb/cpu writes cpu but may not create tables.
  EXPECT_EQ(Post("/write?db=mydb&precision=s", line, {{"Authorization", "Token " + narrow}})->status, 204);
  // A token that may not write (or create) the table: 403, as InfluxDB
  // answers a token without write on the bucket.
  auto create_denied =
      Post("/write?db=mydb&precision=s", "mem v=1 " + t, {{"Authorization", "Token " + narrow}});
  EXPECT_EQ(create_denied->status, 403);
  EXPECT_THAT(create_denied->body, HasSubstr("narrow"));
  const std::string reader = create("reader", "read:mydb");
  auto read_only = Post("/write?db=mydb&precision=s", line, {{"Authorization", "Token " + reader}});
  EXPECT_EQ(read_only->status, 403);
  EXPECT_THAT(read_only->body, HasSubstr("reader"));
  auto read_only_v2 =
      Post("/api/v2/write?bucket=mydb&precision=s", line, {{"Authorization", "Token " + reader}});
  EXPECT_EQ(read_only_v2->status, 403);
  EXPECT_THAT(read_only_v2->body, HasSubstr("\"code\":\"forbidden\""));
  auto other_db = Post("/write?db=other&precision=s", line, {{"Authorization", "Token " + narrow}});
  EXPECT_EQ(other_db->status, 403);
  EXPECT_EQ(testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.cpu", 0, admin).rows.size(),
            1u);
  EXPECT_EQ(testing::RowsText(
                testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.cpu", 0, admin).rows),
            "1\n");
}

// ------------------------------------------------------------ remote write

std::string Snappy(const std::string& bytes) {
  std::string out;
  snappy::Compress(bytes.data(), bytes.size(), &out);
  return out;
}

TEST_F(IngestHttpE2ETest, RemoteWriteStoresSamplesAsScalarDoubles) {
  Start();
  CreateDatabase("prometheus");
  const int64_t now_ms = NowSeconds() * 1000;
  prometheus::WriteRequest request;
  auto* series = request.add_timeseries();
  for (auto [name, value] : {std::pair{"__name__", "http_requests_total"},
                             {"job", "api"}, {"instance", "host:9100"}, {"empty", ""}}) {
    auto* label = series->add_labels();
    label->set_name(name);
    label->set_value(value);
  }
  for (int i = 0; i < 150; ++i) {
    auto* sample = series->add_samples();
    sample->set_timestamp(now_ms - (150 - i) * 1000);
    sample->set_value(i);
  }
  auto* stale = series->add_samples();  // a staleness marker: not stored
  stale->set_timestamp(now_ms);
  stale->set_value(std::numeric_limits<double>::quiet_NaN());
  const httplib::Headers headers = {{"Content-Encoding", "snappy"},
                                    {"X-Prometheus-Remote-Write-Version", "0.1.0"}};
  auto res = client_->Post("/api/v1/write", headers, Snappy(request.SerializeAsString()),
                           "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 204) << res->body;
  EXPECT_EQ(Rows("SELECT measure_name, job, instance, count(*), sum(measure_value::double) "
                 "FROM prometheus.metrics GROUP BY 1, 2, 3"),
            "http_requests_total|api|host:9100|150|11175\n");

  auto not_snappy = client_->Post("/api/v1/write", headers, "plain text", "application/x-protobuf");
  EXPECT_EQ(not_snappy->status, 400);
  EXPECT_THAT(not_snappy->body, HasSubstr("not snappy-compressed"));
  auto not_proto = client_->Post("/api/v1/write", headers, Snappy("\xff\xff\xff garbage"),
                                 "application/x-protobuf");
  EXPECT_EQ(not_proto->status, 400);
  EXPECT_THAT(not_proto->body, HasSubstr("not a prometheus.WriteRequest"));
  prometheus::WriteRequest nameless;
  auto* label = nameless.add_timeseries()->add_labels();
  label->set_name("job");
  label->set_value("x");
  nameless.mutable_timeseries(0)->add_samples()->set_timestamp(now_ms);
  auto no_name = client_->Post("/api/v1/write", headers, Snappy(nameless.SerializeAsString()),
                               "application/x-protobuf");
  EXPECT_EQ(no_name->status, 400);
  EXPECT_THAT(no_name->body, HasSubstr(R"(series {job=\"x\"} has no __name__)"));
  auto missing = client_->Post("/api/v1/write?db=nope", headers, Snappy(request.SerializeAsString()),
                               "application/x-protobuf");
  EXPECT_EQ(missing->status, 404);
  // A body that uncompresses past 32 MB is refused before it is uncompressed.
  auto huge = client_->Post("/api/v1/write", headers, Snappy(std::string((32 << 20) + 1, '\0')),
                            "application/x-protobuf");
  EXPECT_EQ(huge->status, 400);
  EXPECT_THAT(huge->body, HasSubstr("the body uncompresses to 33554433 bytes; the limit is "
                                    "33554432 (lower queue_config.max_samples_per_send)"));
  // A body within that limit whose parse would take more than 256 MB (4 M
  // empty series, 8 MB; ~0.6 GB parsed) is refused before it is parsed, and
  // the server goes on serving.
  std::string empty_series;
  for (int i = 0; i < 4'000'000; ++i) empty_series += std::string("\x0a\x00", 2);
  auto hostile = client_->Post("/api/v1/write", headers, Snappy(empty_series),
                               "application/x-protobuf");
  EXPECT_EQ(hostile->status, 400) << hostile->body;
  EXPECT_THAT(hostile->body, HasSubstr("MB of memory parsed; the limit is 256 MB (send fewer "
                                       "series per request"));
  auto after = client_->Post("/api/v1/write", headers, Snappy(request.SerializeAsString()),
                             "application/x-protobuf");
  EXPECT_EQ(after->status, 204) << after->body;
}

prometheus::TimeSeries Series(std::vector<std::pair<std::string, std::string>> labels,
                              int64_t first_ms, int samples) {
  prometheus::TimeSeries series;
  for (auto& [name, value] : labels) {
    auto* label = series.add_labels();
    label->set_name(name);
    label->set_value(value);
  }
  for (int i = 0; i < samples; ++i) {
    auto* sample = series.add_samples();
    sample->set_timestamp(first_ms + i * 1000);
    sample->set_value(i);
  }
  return series;
}

// What Prometheus sends: many series with one sample each. They are written
// in batches that mix series (one write per series took a second per
// request of 2,000); a sample refused in a later batch is named with its
// own series and time, and the others are all stored.
TEST_F(IngestHttpE2ETest, RemoteWriteOfManySeriesWithOneSampleEach) {
  Start();
  CreateDatabase("prometheus");
  const int64_t now_ms = NowSeconds() * 1000;
  const int64_t future_ms = now_ms + 48 * 3'600'000;  // past the table's window: refused
  prometheus::WriteRequest request;
  for (int i = 0; i < 450; ++i) {
    *request.add_timeseries() =
        Series({{"__name__", "up"}, {"instance", "i" + std::to_string(i)}, {"job", "node"}},
               i == 333 ? future_ms : now_ms - 60'000, 1);
  }
  const httplib::Headers headers = {{"Content-Encoding", "snappy"},
                                    {"X-Prometheus-Remote-Write-Version", "0.1.0"}};
  auto res = client_->Post("/api/v1/write", headers, Snappy(request.SerializeAsString()),
                           "application/x-protobuf");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr(R"(series {__name__=\"up\",instance=\"i333\",job=\"node\"} at )" +
                                   std::to_string(future_ms) + " ms: "));
  EXPECT_EQ(Rows("SELECT count(*), count(DISTINCT instance) FROM prometheus.metrics"),
            "449|449\n");
}

// A remote read's series, as "name{labels} t=v,t=v" lines (times relative to `base_ms`).
std::string Describe(const prometheus::QueryResult& result, int64_t base_ms) {
  std::string out;
  for (const auto& series : result.timeseries()) {
    std::string labels;
    for (const auto& label : series.labels()) {
      labels += (labels.empty() ? "" : ",") + label.name() + "=" + label.value();
    }
    out += labels + " ";
    for (const auto& sample : series.samples()) {
      out += std::to_string((sample.timestamp() - base_ms) / 1000) + "=" +
             std::to_string(static_cast<int>(sample.value())) + ",";
    }
    out += "\n";
  }
  return out;
}

TEST_F(IngestHttpE2ETest, RemoteReadAnswersPrometheusMatchers) {
  Start();
  CreateDatabase("prometheus");
  const int64_t base = (NowSeconds() - 60) * 1000;
  prometheus::WriteRequest write;
  *write.add_timeseries() = Series({{"__name__", "up"}, {"job", "api"}, {"instance", "a"}}, base, 3);
  *write.add_timeseries() = Series({{"__name__", "up"}, {"job", "api"}, {"instance", "b"}}, base, 3);
  *write.add_timeseries() = Series({{"__name__", "http_total"}, {"job", "web"}}, base, 2);
  const httplib::Headers headers = {{"Content-Encoding", "snappy"}};
  ASSERT_EQ(client_->Post("/api/v1/write", headers, Snappy(write.SerializeAsString()),
                          "application/x-protobuf")->status, 204);

  using M = prometheus::LabelMatcher;
  auto read = [&](std::vector<std::tuple<M::Type, std::string, std::string>> matchers,
                  int64_t start = 0, int64_t end = INT64_MAX / 2) {
    prometheus::ReadRequest request;
    auto* q = request.add_queries();
    q->set_start_timestamp_ms(start == 0 ? base - 1000 : start);
    q->set_end_timestamp_ms(end);
    for (auto& [type, name, value] : matchers) {
      auto* m = q->add_matchers();
      m->set_type(type);
      m->set_name(name);
      m->set_value(value);
    }
    auto res = client_->Post("/api/v1/read", headers, Snappy(request.SerializeAsString()),
                             "application/x-protobuf");
    EXPECT_TRUE(res && res->status == 200) << (res ? res->body : "no answer");
    EXPECT_EQ(res->get_header_value("Content-Encoding"), "snappy");
    std::string body;
    EXPECT_TRUE(snappy::Uncompress(res->body.data(), res->body.size(), &body));
    prometheus::ReadResponse response;
    EXPECT_TRUE(response.ParseFromString(body));
    return response.results_size() == 1 ? Describe(response.results(0), base) : "?";
  };
  EXPECT_EQ(read({{M::EQ, "__name__", "up"}}),
            "__name__=up,instance=a,job=api 0=0,1=1,2=2,\n"
            "__name__=up,instance=b,job=api 0=0,1=1,2=2,\n");
  EXPECT_EQ(read({{M::RE, "__name__", "up|http_.*"}, {M::NEQ, "job", "api"}}),
            "__name__=http_total,job=web 0=0,1=1,\n");
  // An absent label is "": instance="" picks the series without one.
  EXPECT_EQ(read({{M::RE, "__name__", ".+"}, {M::EQ, "instance", ""}}),
            "__name__=http_total,job=web 0=0,1=1,\n");
  EXPECT_EQ(read({{M::EQ, "__name__", "up"}, {M::NRE, "instance", "a"}}),
            "__name__=up,instance=b,job=api 0=0,1=1,2=2,\n");
  // Regular expressions are anchored; a label no series has matches only "".
  EXPECT_EQ(read({{M::RE, "__name__", "u"}}), "");
  EXPECT_EQ(read({{M::EQ, "__name__", "up"}, {M::EQ, "zone", "eu"}}), "");
  EXPECT_EQ(read({{M::EQ, "__name__", "up"}, {M::EQ, "instance", "a"}}, base + 1000, base + 1000),
            "__name__=up,instance=a,job=api 1=1,\n");
  prometheus::ReadRequest bad;
  auto* m = bad.add_queries()->add_matchers();
  m->set_type(M::RE);
  m->set_name("job");
  m->set_value("(");
  auto res = client_->Post("/api/v1/read", headers, Snappy(bad.SerializeAsString()),
                           "application/x-protobuf");
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr("matcher job=~"));
}

// A real Prometheus scrapes stratad's own /metrics and remote-writes what it
// scrapes back into stratad; Strata then holds exactly Prometheus's samples.
TEST_F(IngestHttpE2ETest, ARealPrometheusRemoteWritesWhatItScrapes) {
  Start();
  CreateDatabase("prom");
  const int prometheus_port = testing::FreePort();
  const std::string http = "127.0.0.1:" + std::to_string(server_.http_port());
  std::ofstream(dir_.Sub("prometheus.yml"))
      << "global:\n  scrape_interval: 1s\n"
      << "scrape_configs:\n  - job_name: strata\n    static_configs:\n"
      << "      - targets: ['" << http << "']\n"
      << "remote_write:\n  - url: http://" << http << "/api/v1/write?db=prom\n"
      << "    queue_config:\n      batch_send_deadline: 1s\n"
      << "remote_read:\n  - url: http://" << http << "/api/v1/read?db=prom\n"
      << "    read_recent: true\n";
  // A series only Strata has: Prometheus's queries reach it through remote read.
  const int64_t now_ms = NowSeconds() * 1000;
  prometheus::WriteRequest only;
  *only.add_timeseries() = Series({{"__name__", "strata_only"}, {"job", "import"}}, now_ms - 30'000, 3);
  ASSERT_EQ(client_->Post("/api/v1/write?db=prom", {{"Content-Encoding", "snappy"}},
                          Snappy(only.SerializeAsString()), "application/x-protobuf")
                ->status,
            204);
  testing::PtyProcess prometheus({"/usr/bin/prometheus", "--config.file=" + dir_.Sub("prometheus.yml"),
                                  "--storage.tsdb.path=" + dir_.Sub("tsdb"),
                                  "--web.listen-address=127.0.0.1:" +
                                      std::to_string(prometheus_port)});
  // Scrape for a while: until Strata holds 15 samples of `up`.
  const std::string count_sql =
      "SELECT count(*), max(time) FROM prom.metrics WHERE measure_name = 'up' AND job = 'strata'";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  int64_t count = 0;
  int64_t last_ns = 0;
  while (std::chrono::steady_clock::now() < deadline && count < 15) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    testing::QueryResult r = testing::RunQuery(server_.channel(), count_sql);
    if (!r.status.ok() || r.rows.empty()) continue;  // the table appears on the first write
    count = r.rows[0].data(0).bigint_value();
    last_ns = r.rows[0].data(1).timestamp_value();
  }
  ASSERT_GE(count, 15) << prometheus.output() << server_.log();

  // Prometheus's raw samples of `up` up to Strata's newest one ...
  const int64_t last_ms = last_ns / 1'000'000;
  httplib::Client api("127.0.0.1", prometheus_port);
  auto res = api.Get("/api/v1/query",
                     httplib::Params{{"query", R"(up{job="strata"}[10m])"},
                                     {"time", std::to_string(last_ms / 1000) + "." +
                                                  std::to_string(1000 + last_ms % 1000).substr(1)}},
                     httplib::Headers{});
  ASSERT_TRUE(res && res->status == 200);
  std::string expected;
  static const std::regex kSample(R"re(\[([0-9]+)(?:\.([0-9]+))?,"([0-9.e+-]+)"\])re");
  for (auto it = std::sregex_iterator(res->body.begin(), res->body.end(), kSample);
       it != std::sregex_iterator(); ++it) {
    std::string fraction = (*it)[2].str();
    fraction.resize(3, '0');
    const int64_t ms = std::stoll((*it)[1]) * 1000 + std::stoll(fraction);
    expected += std::to_string(ms * 1'000'000) + "|" + (*it)[3].str() + "\n";
  }
  // ... are Strata's, time for time and value for value.
  EXPECT_EQ(Rows("SELECT time, measure_value::double FROM prom.metrics WHERE measure_name = 'up' "
                 "AND job = 'strata' AND instance = '" + http + "' ORDER BY time"),
            expected);

  // And Prometheus reads back through remote read what only Strata holds.
  auto remote = api.Get("/api/v1/query", httplib::Params{{"query", "strata_only[5m]"}},
                        httplib::Headers{});
  ASSERT_TRUE(remote && remote->status == 200);
  EXPECT_THAT(remote->body, HasSubstr(R"("__name__":"strata_only")"));
  EXPECT_THAT(remote->body, HasSubstr(R"("job":"import")"));
  EXPECT_THAT(remote->body, HasSubstr(R"(,"2"]]})")) << remote->body;
}

// InfluxDB's own JavaScript client (npm @influxdata/influxdb-client) writes
// through /api/v2/write with its batching, gzip and token header.
TEST_F(IngestHttpE2ETest, InfluxDbsNodeClientWrites) {
  Start({"--auth", "on"});
  const std::string admin = server_.AdminToken();
  ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "bucket1", admin).ok());
  const std::string node = testing::FindOnPath("node");
  const std::string dir = std::string(STRATA_SOURCE_DIR) + "/tests/protocols/node";
  ASSERT_FALSE(node.empty()) << "node is not installed (scripts/deps.sh installs it)";
  ASSERT_TRUE(std::filesystem::exists(dir + "/node_modules/@influxdata/influxdb-client"))
      << "run `npm ci` in tests/protocols/node (scripts/test.sh does)";
  testing::ProcessResult r = testing::RunProcess(
      {node, dir + "/influx_write.mjs",
       "http://127.0.0.1:" + std::to_string(server_.http_port()), admin, "bucket1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("wrote 500 points"));
  EXPECT_EQ(testing::RowsText(testing::RunQuery(server_.channel(),
                                                "SELECT count(*), count(DISTINCT host), sum(load), "
                                                "max(status) FROM bucket1.system",
                                                0, admin)
                                  .rows),
            "500|5|124750|ok\n");
  // A malformed point is refused with InfluxDB's error shape, which the client reports.
  testing::ProcessResult bad = testing::RunProcess(
      {node, dir + "/influx_write.mjs",
       "http://127.0.0.1:" + std::to_string(server_.http_port()), admin, "bucket1", "--bad"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr("partial write: 1 lines rejected"));
}

}  // namespace
}  // namespace strata
