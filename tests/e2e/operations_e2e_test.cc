// Watching stratad: GET /metrics read by a real Prometheus and checked by
// promtool, the metrics' values, the HTTP port's TLS and token rules, and the
// log lines for failed requests and slow queries (docs/operations.md).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/pg_raw_client.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The value of the sample `series` (name and labels exactly as exposed).
std::optional<double> Sample(const std::string& metrics, const std::string& series) {
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

// Writes `n` records (100 a request) to mydb.cpu; one more, far in the past,
// is rejected (time window).
void WriteRecords(const std::shared_ptr<grpc::Channel>& channel, int n,
                  const std::string& token = "") {
  auto stub = v1::WriteService::NewStub(channel);
  const int64_t now = testing::NowMillis();
  for (int i = 0; i < n; i += 100) {
    std::vector<v1::Record> records;
    for (int j = i; j < std::min(n, i + 100); ++j) {
      records.push_back(testing::CpuRecord("host-" + std::to_string(j % 10), now - j, j));
    }
    grpc::ClientContext context;
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    v1::WriteRecordsResponse response;
    ASSERT_TRUE(stub->WriteRecords(&context, testing::WriteRequest("mydb", "cpu", records), &response)
                    .ok());
  }
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(stub->WriteRecords(&context,
                                 testing::WriteRequest(
                                     "mydb", "cpu", {testing::CpuRecord("old", 1'000'000, 1)}),
                                 &response)
                  .ok());
  ASSERT_EQ(response.rejected_records_size(), 1);
}

class MetricsE2ETest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> args = {}) {
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    ASSERT_GT(server_.http_port(), 0) << server_.log();
  }

  std::string Scrape() {
    httplib::Client client("127.0.0.1", server_.http_port());
    auto result = client.Get("/metrics");
    EXPECT_TRUE(result) << "GET /metrics failed";
    if (!result) return "";
    EXPECT_EQ(result->status, 200) << result->body;
    return result->body;
  }

  // A scrape once no query is running: a worker counts its query until the
  // task that sent the answer returns, a moment after the client has it.
  std::string ScrapeOnceQueriesEnd() {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::string metrics = Scrape();
    while (Sample(metrics, "strata_queries_running") != 0 &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      metrics = Scrape();
    }
    return metrics;
  }

  testing::StratadProcess server_;
  testing::TempDir dir_;
};

TEST_F(MetricsE2ETest, CountersWithKnownLabelsStartAtZero) {
  Start({});
  const std::string metrics = Scrape();
  for (const char* reason : {"invalid", "time_window", "schema", "version_conflict"}) {
    EXPECT_EQ(Sample(metrics, std::string("strata_records_rejected_total{reason=\"") + reason + "\"}"), 0)
        << reason;
  }
  EXPECT_EQ(Sample(metrics, R"(strata_queries_total{code="OK"})"), 0);
  EXPECT_EQ(Sample(metrics, R"(strata_records_ingested_total{tier="memory"})"), 0);
}

TEST_F(MetricsE2ETest, RequestsWritesQueriesAndTablesAreCounted) {
  Start({"--slow-query-ms", "0"});  // every query
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "cpu").ok());
  WriteRecords(server_.channel(), 250);
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.cpu").status.ok());
  EXPECT_FALSE(testing::RunQuery(server_.channel(), "SELECT nope FROM mydb.cpu").status.ok());
  {
    auto catalog = v1::CatalogService::NewStub(server_.channel());
    grpc::ClientContext context;
    v1::DescribeTableRequest request;
    request.set_database_name("mydb");
    request.set_table_name("missing");
    v1::DescribeTableResponse response;
    EXPECT_EQ(catalog->DescribeTable(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }

  const std::string metrics = ScrapeOnceQueriesEnd();
  EXPECT_EQ(Sample(metrics, R"(strata_records_ingested_total{tier="memory"})"), 250);
  EXPECT_EQ(Sample(metrics, R"(strata_records_rejected_total{reason="time_window"})"), 1);
  EXPECT_EQ(Sample(metrics, R"(strata_grpc_requests_total{code="OK",method="/strata.v1.WriteService/WriteRecords"})"),
            4);
  EXPECT_EQ(Sample(metrics, R"(strata_grpc_requests_total{code="NOT_FOUND",method="/strata.v1.CatalogService/DescribeTable"})"),
            1);
  EXPECT_EQ(Sample(metrics, R"(strata_queries_total{code="OK"})"), 1);
  EXPECT_EQ(Sample(metrics, R"(strata_queries_total{code="INVALID_ARGUMENT"})"), 1);
  EXPECT_EQ(Sample(metrics, "strata_query_rows_scanned_total"), 250);
  EXPECT_GT(Sample(metrics, R"(strata_table_bytes{database="mydb",table="cpu",tier="memory"})")
                .value_or(0),
            0);
  EXPECT_EQ(Sample(metrics, "strata_queries_running"), 0);
  EXPECT_EQ(Sample(metrics, "strata_writes_queued"), 0);
  EXPECT_GT(Sample(metrics, "process_resident_memory_bytes").value_or(0), 1e6);
  EXPECT_GT(Sample(metrics, "strata_rocksdb_memtable_bytes").value_or(0), 0);
  EXPECT_GT(Sample(metrics, "strata_memory_store_bytes").value_or(0), 0);
  EXPECT_EQ(Sample(metrics, "strata_memory_store_budget_bytes"), 256 << 20);
  EXPECT_EQ(Sample(metrics, "strata_memory_store_early_seals_total"), 0);
  EXPECT_TRUE(Sample(metrics, "strata_rocksdb_block_cache_misses_total"));
  EXPECT_TRUE(Sample(metrics, "strata_rocksdb_stall_seconds_total"));
  EXPECT_TRUE(Sample(metrics, R"(strata_build_info{version="0.1.0"})"));

  // The exposition is what Prometheus' own checker accepts.
  const std::string file = dir_.Sub("metrics.txt");
  std::ofstream(file) << metrics;
  testing::ProcessResult checked = testing::RunProcess({"/bin/sh", "-c", "promtool check metrics < " + file});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;

  // One line per failed request; slow queries are logged with their text.
  const std::string log = server_.log();
  EXPECT_THAT(log, HasSubstr("request failed: method=/strata.v1.CatalogService/DescribeTable "
                             "code=NOT_FOUND peer=ipv4:127.0.0.1:"));
  EXPECT_THAT(log, HasSubstr("request failed: method=/strata.v1.QueryService/Query "
                             "code=INVALID_ARGUMENT"));
  EXPECT_THAT(log, HasSubstr("slow query: id="));
  EXPECT_THAT(log, HasSubstr("text=\"SELECT count(*) FROM mydb.cpu\""));
}

// HTTP and PostgreSQL failures are logged once each, like gRPC's, and the
// two doors are counted: HTTP requests by endpoint and code, connections
// open by door. No query string (it may carry a token) reaches the log.
TEST_F(MetricsE2ETest, HttpAndPostgresFailuresAreLoggedAndTheirDoorsCounted) {
  Start();
  httplib::Client http("127.0.0.1", server_.http_port());
  EXPECT_EQ(http.Post("/write?db=nope&p=secret-in-url", "cpu v=1 1", "text/plain")->status, 404);
  EXPECT_EQ(http.Get("/nowhere")->status, 404);
  testing::PgRawClient pg(server_.pg_port());
  ASSERT_EQ(pg.Start().back(), 'Z');
  pg.Send('Q', testing::PgRawClient::Str("SELECT nope FROM mydb.cpu"));
  EXPECT_THAT(pg.ReadUntilReady(), HasSubstr("does not exist"));

  const std::string metrics = Scrape();
  EXPECT_EQ(Sample(metrics, R"(strata_http_requests_total{code="404",endpoint="/write"})"), 1);
  EXPECT_EQ(Sample(metrics, R"(strata_http_requests_total{code="404",endpoint="other"})"), 1);
  EXPECT_EQ(Sample(metrics, R"(strata_connections_open{door="postgres"})"), 1);
  EXPECT_GE(Sample(metrics, R"(strata_connections_open{door="http"})").value_or(0), 1);
  const std::string log = server_.log();
  EXPECT_THAT(log, HasSubstr("http request failed: method=POST path=/write code=404"));
  EXPECT_THAT(log, HasSubstr("database not found"));
  EXPECT_THAT(log, Not(HasSubstr("secret-in-url")));
  EXPECT_THAT(log, HasSubstr("postgres statement failed: statement=select sqlstate=3D000 token=-"));
}

TEST_F(MetricsE2ETest, ARealPrometheusScrapesTheCounters) {
  Start();
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "cpu").ok());
  WriteRecords(server_.channel(), 300);

  const int prometheus_port = testing::FreePort();
  const std::string config = dir_.Sub("prometheus.yml");
  std::ofstream(config) << "global:\n  scrape_interval: 1s\nscrape_configs:\n"
                        << "  - job_name: strata\n    static_configs:\n"
                        << "      - targets: ['127.0.0.1:" << server_.http_port() << "']\n";
  testing::PtyProcess prometheus({"/usr/bin/prometheus", "--config.file=" + config,
                                  "--storage.tsdb.path=" + dir_.Sub("tsdb"),
                                  "--web.listen-address=127.0.0.1:" +
                                      std::to_string(prometheus_port)});
  httplib::Client client("127.0.0.1", prometheus_port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string body;
  static const std::regex kValue(R"re("value":\[[0-9.]+,"([0-9.]+)"\])re");
  std::smatch value;
  while (std::chrono::steady_clock::now() < deadline) {
    auto result = client.Get(
        "/api/v1/query",
        httplib::Params{{"query", R"(strata_records_ingested_total{job="strata",tier="memory"})"}},
        httplib::Headers{});
    if (result && result->status == 200) {
      body = result->body;
      if (std::regex_search(body, value, kValue)) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(std::regex_search(body, value, kValue)) << body << "\n" << prometheus.output();
  EXPECT_EQ(value[1], "300");
}

TEST(MetricsSecurityE2ETest, MetricsFollowTheTlsAndTokenRules) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  testing::StratadProcess server;
  ASSERT_TRUE(server.StartWithTls(certs, {"--auth-failure-limit", "0"})) << server.error();
  const std::string admin = server.AdminToken();
  auto create = [&](const std::string& name, const std::string& grant) {
    return testing::CreateToken(server.channel(), admin, name, grant);
  };
  const std::string scraper = create("prometheus", "metrics");
  const std::string reader = create("reader", "read:*");

  httplib::SSLClient client("127.0.0.1", server.http_port());
  client.set_ca_cert_path(certs.ca_cert().c_str());
  client.enable_server_certificate_verification(true);
  auto get = [&](const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return client.Get("/metrics", headers);
  };
  auto none = get("");
  ASSERT_TRUE(none) << "HTTPS request failed: " << httplib::to_string(none.error());
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->body, HasSubstr("this server requires a token"));
  auto forbidden = get(reader);
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->status, 403);
  EXPECT_THAT(forbidden->body, HasSubstr("needs the grant metrics"));
  auto allowed = get(scraper);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_THAT(allowed->body, HasSubstr("strata_build_info"));
  // /health stays open; plaintext HTTP gets no answer from the TLS port.
  EXPECT_EQ(client.Get("/health")->status, 200);
  httplib::Client plaintext("127.0.0.1", server.http_port());
  auto refused = plaintext.Get("/metrics");
  EXPECT_TRUE(!refused || refused->status != 200);
}

// The fingerprint of the certificate a new HTTPS connection is served (by
// openssl s_client), or of a certificate file.
std::string Fingerprint(const std::string& source) {
  testing::ProcessResult r = testing::RunProcess(
      {"/bin/sh", "-c", source + " | openssl x509 -noout -fingerprint -sha256"});
  return r.out;
}

TEST(HttpsE2ETest, ARenewedCertificateIsServedWithoutARestart) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  const std::string cert = certs.dir().Sub("live.pem");
  const std::string key = certs.dir().Sub("live.key");
  std::filesystem::copy_file(certs.server_cert(), cert);
  std::filesystem::copy_file(certs.server_key(), key);
  testing::StratadProcess server;
  server.UseCredentials(certs.Credentials(certs.ca_cert()));
  ASSERT_TRUE(server.Start({"--tls-cert", cert, "--tls-key", key, "--tls-reload-seconds", "1",
                            "--auth", "off"}))
      << server.error();
  const std::string served =
      "openssl s_client -connect 127.0.0.1:" + std::to_string(server.http_port()) +
      " </dev/null 2>/dev/null";
  EXPECT_EQ(Fingerprint(served), Fingerprint("cat " + certs.server_cert()));
  std::filesystem::copy_file(certs.renewed_key(), key,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(certs.renewed_cert(), cert,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string renewed = Fingerprint("cat " + certs.renewed_cert());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string now_served;
  while (std::chrono::steady_clock::now() < deadline) {
    now_served = Fingerprint(served);
    if (now_served == renewed) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_EQ(now_served, renewed);
  // Still a working HTTPS port.
  httplib::SSLClient client("127.0.0.1", server.http_port());
  client.set_ca_cert_path(certs.ca_cert().c_str());
  client.enable_server_certificate_verification(true);
  auto health = client.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// gRPC's own error lines (a failed TLS handshake) go through spdlog: with
// --log-format json, every line stays a JSON object.
TEST(LogFormatE2ETest, JsonLogsStayJsonWhenGrpcComplains) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  testing::StratadProcess server;
  ASSERT_TRUE(server.StartWithTls(certs, {"--log-format", "json"})) << server.error();
  // A plaintext client: the handshake fails on the server.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel = grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(),
                                           args);
  auto stub = v1::CatalogService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  v1::ListDatabasesResponse response;
  EXPECT_FALSE(stub->ListDatabases(&context, {}, &response).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(server.Stop(), 0);
  std::istringstream lines(server.log());
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_TRUE(line.size() > 2 && line.front() == '{' && line.back() == '}') << line;
  }
  EXPECT_GT(count, 3);
}

}  // namespace
}  // namespace strata
