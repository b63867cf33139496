// The limits of the HTTP and PostgreSQL doors (docs/security.md, "Limits per
// door"), tried as an attacker without a token would: bodies checked before
// they are read and bounded as they inflate, idle and slow sockets that
// cannot block the port, a connection limit answered at once, exclusive
// listeners and a start that fails fast, small pre-login messages and a
// login deadline on the PostgreSQL port, and queries that stop at their
// timeout however they loop.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "tests/support/loopback_socket.h"
#include "tests/support/pg_raw_client.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/test_certs.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using std::chrono::steady_clock;

using Socket = testing::LoopbackSocket;
using Pg = testing::PgRawClient;

// `size` zero bytes, gzip-compressed (about a thousandth of that).
std::string GzipOfZeros(size_t size) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  const std::string zeros(1 << 20, '\0');
  std::string out;
  char buffer[1 << 16];
  for (size_t done = 0; done < size; done += zeros.size()) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    z.avail_in = static_cast<uInt>(zeros.size());
    const int flush = done + zeros.size() >= size ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      deflate(&z, flush);
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

class FrontDoorLimitsE2ETest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> args = {}) {
    // The server closes connections mid-body here: a client's next write
    // must fail, not kill the test with SIGPIPE (httplib sends without
    // MSG_NOSIGNAL).
    signal(SIGPIPE, SIG_IGN);
    args.insert(args.end(), {"--auth", "on"});
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    admin_ = server_.AdminToken();
    ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "mydb", admin_).ok());
  }
  // mydb.ttt: 300 rows, one per host, for queries that loop over them.
  void WriteSmallTable() {
    const std::string now = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
    std::string lines;
    for (int i = 0; i < 300; ++i) lines += "ttt,host=h" + std::to_string(i) + " v=1 " + now + "\n";
    auto written = Http().Post("/write?db=mydb&precision=s",
                               {{"Authorization", "Bearer " + admin_}}, lines, "text/plain");
    ASSERT_TRUE(written);
    ASSERT_EQ(written->status, 204) << written->body;
  }
  httplib::Client Http() {
    httplib::Client client("127.0.0.1", server_.http_port());
    client.set_read_timeout(10, 0);
    return client;
  }

  testing::StratadProcess server_;
  std::string admin_;
};

TEST_F(FrontDoorLimitsE2ETest, AGzipBombIsRefusedUnreadWithoutATokenAndBoundedWithOne) {
  Start();
  const std::string bomb = GzipOfZeros(size_t{1} << 30);  // 1 GiB inflated, ~1 MB sent
  httplib::Headers gzip = {{"Content-Encoding", "gzip"}};
  for (const char* path : {"/api/v1/write", "/api/v1/read", "/write?db=mydb"}) {
    auto refused = Http().Post(path, gzip, bomb, "application/x-protobuf");
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 401) << path;
  }
  httplib::Headers with_token = {{"Content-Encoding", "gzip"},
                                 {"Authorization", "Bearer " + admin_}};
  for (const char* path : {"/api/v1/write?db=mydb", "/api/v1/read?db=mydb", "/write?db=mydb"}) {
    auto bounded = Http().Post(path, with_token, bomb, "application/x-protobuf");
    ASSERT_TRUE(bounded) << path;
    // Line protocol reads the zeros as one line until the limit.
    EXPECT_EQ(bounded->status, 413) << path << ": " << bounded->body;
    EXPECT_THAT(bounded->body, HasSubstr("larger than 64 MB")) << path;
  }
  // Before, the bomb alone took the server past 1 GB.
  EXPECT_LT(server_.PeakRssBytes(), int64_t{400} << 20);
  EXPECT_EQ(Http().Get("/health")->status, 200);
}

TEST_F(FrontDoorLimitsE2ETest, ChunkedAndDeclaredBodiesAreBoundedAndBodiesGoOnlyWhereTaken) {
  Start();
  // A chunked body is counted as it arrives: 100 MB of it is cut off.
  httplib::Headers token = {{"Authorization", "Bearer " + admin_}};
  size_t sent = 0;
  auto chunked = Http().Post(
      "/api/v1/write?db=mydb", token,
      [&](size_t, httplib::DataSink& sink) {
        const std::string chunk(1 << 20, 'x');
        if (sent >= (size_t{100} << 20) || !sink.write(chunk.data(), chunk.size())) {
          sink.done();
          return true;
        }
        sent += chunk.size();
        return true;
      },
      "application/x-protobuf");
  if (chunked) {
    EXPECT_EQ(chunked->status, 413);  // or the connection was closed mid-body
  }
  EXPECT_LT(server_.PeakRssBytes(), int64_t{400} << 20);

  // A declared length past the limit is refused before a byte is read.
  Socket declared(server_.http_port());
  ASSERT_TRUE(declared.Send("POST /api/v1/write?db=mydb HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                            admin_ + "\r\nContent-Length: 10000000000\r\n\r\n"));
  bool closed = false;
  EXPECT_THAT(declared.ReadAll(10, &closed), HasSubstr("413"));
  EXPECT_TRUE(closed);

  // A body sent where none is taken (or to no endpoint) is refused unread,
  // and the connection closes: the body is never read as the next request.
  for (const char* head : {"GET /health", "GET /metrics", "POST /nowhere"}) {
    Socket client(server_.http_port());
    ASSERT_TRUE(client.Send(std::string(head) +
                            " HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nGET /health "
                            "HTTP/1.1\r\nHost: x\r\n\r\n"));
    const std::string answer = client.ReadAll(10, &closed);
    EXPECT_THAT(answer, HasSubstr("HTTP/1.1 400")) << head;
    EXPECT_THAT(answer, HasSubstr("takes no request body")) << head;
    EXPECT_THAT(answer, Not(HasSubstr("SERVING"))) << head;
    EXPECT_TRUE(closed) << head;
  }
}

TEST_F(FrontDoorLimitsE2ETest, IdleAndSlowSocketsNeitherBlockThePortNorStayForever) {
  Start({"--http-header-timeout-seconds", "2"});
  std::vector<std::unique_ptr<Socket>> idle;
  for (int i = 0; i < 100; ++i) idle.push_back(std::make_unique<Socket>(server_.http_port()));
  // Slowloris: a header byte every half second, never the end of the head.
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<Socket>> slow;
  for (int i = 0; i < 16; ++i) slow.push_back(std::make_unique<Socket>(server_.http_port()));
  std::thread dripper([&] {
    const std::string head = "GET /health HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    for (size_t i = 0; i < head.size() && !stop.load(); ++i) {
      for (auto& s : slow) s->Send(head.substr(i, 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < 3; ++i) {
    auto health = Http().Get("/health");  // within the client's read timeout
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
  }
  auto metrics = Http().Get("/metrics", {{"Authorization", "Bearer " + admin_}});
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  // The head's deadline runs from its first byte: the slow sockets and the
  // idle ones are closed by the server after about two seconds.
  bool closed = false;
  slow.front()->ReadAll(10, &closed);
  EXPECT_TRUE(closed) << "a slowloris socket stayed open";
  idle.front()->ReadAll(10, &closed);
  EXPECT_TRUE(closed) << "an idle socket stayed open";
  stop = true;
  dripper.join();
}

// With TLS the handshake runs under the head's deadline: a client that
// never finishes it (here: never starts it) loses the connection.
TEST(FrontDoorTlsE2ETest, AStalledTlsHandshakeIsCutAtTheHeadDeadline) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  testing::StratadProcess server;
  ASSERT_TRUE(server.StartWithTls(certs, {"--http-header-timeout-seconds", "1"})) << server.error();
  Socket silent(server.http_port());
  Socket partial(server.http_port());
  ASSERT_TRUE(partial.Send(std::string("\x16\x03\x01\x02\x00\x01", 6)));  // a ClientHello begun
  for (Socket* s : {&silent, &partial}) {
    bool closed = false;
    s->ReadAll(10, &closed);
    EXPECT_TRUE(closed);
  }
  httplib::SSLClient client("127.0.0.1", server.http_port());
  client.set_ca_cert_path(certs.ca_cert().c_str());
  client.enable_server_certificate_verification(true);
  auto health = client.Get("/health");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
}

TEST_F(FrontDoorLimitsE2ETest, PastTheConnectionLimitTheAnswerIs503AtOnce) {
  Start({"--http-max-connections", "8", "--http-header-timeout-seconds", "30"});
  std::vector<std::unique_ptr<Socket>> held;
  for (int i = 0; i < 8; ++i) held.push_back(std::make_unique<Socket>(server_.http_port()));
  // Once the server has taken the eight (on a loaded machine that may take
  // a moment), the next connection is answered 503.
  std::string answer;
  for (int attempt = 0; attempt < 50 && answer.find("HTTP/1.1 503") == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Socket extra(server_.http_port());
    ASSERT_TRUE(extra.Send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    bool closed = false;
    answer = extra.ReadAll(10, &closed);
  }
  EXPECT_THAT(answer, HasSubstr("HTTP/1.1 503"));
  EXPECT_THAT(answer, HasSubstr("--http-max-connections"));
  held.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(Http().Get("/health")->status, 200);
}

// A body without a length (HTTP/1.0, no chunks) ends where the client
// closes its side; the answer still goes out.
TEST_F(FrontDoorLimitsE2ETest, ABodyToTheEndOfTheStreamIsReadAndAnswered) {
  Start();
  Socket client(server_.http_port());
  ASSERT_TRUE(client.Send("POST /write?db=mydb&precision=s HTTP/1.0\r\nAuthorization: Bearer " +
                          admin_ + "\r\n\r\ncpu,host=a v=1 1700000000\n"));
  shutdown(client.fd(), SHUT_WR);
  bool closed = false;
  EXPECT_THAT(client.ReadAll(10, &closed), HasSubstr("HTTP/1.1 204"));
  EXPECT_TRUE(closed);
}

TEST_F(FrontDoorLimitsE2ETest, AQueryPasswordIsTakenOnlyWhereInfluxClientsSendIt) {
  Start();
  EXPECT_EQ(Http().Get(("/metrics?p=" + admin_).c_str())->status, 401);
  EXPECT_EQ(Http().Post(("/api/v1/read?p=" + admin_).c_str(), "", "application/x-protobuf")->status,
            401);
  EXPECT_EQ(Http().Post(("/write?db=mydb&p=" + admin_).c_str(), "cpu v=1 1", "text/plain")->status,
            204);
}

TEST_F(FrontDoorLimitsE2ETest, ErrorBodiesAreJsonEvenForInvalidUtf8) {
  Start();
  auto refused = Http().Post("/write?db=mydb&precision=s", {{"Authorization", "Bearer " + admin_}},
                             "c\xff\xfe v=1 1\n", "text/plain");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_THAT(refused->body, HasSubstr("\xef\xbf\xbd"));  // the bad bytes as U+FFFD
  EXPECT_THAT(refused->body, Not(HasSubstr("\xff")));
}

// Every listener refuses a taken port and the start exits 1 at once,
// whichever listener fails, after others started (the HTTP listener's
// accept thread was once left running, and the exit hung).
TEST_F(FrontDoorLimitsE2ETest, ATakenPortFailsTheStartPromptlyWhicheverListener) {
  Start();
  const std::string http = "127.0.0.1:" + std::to_string(server_.http_port());
  const std::string pg = "127.0.0.1:" + std::to_string(server_.pg_port());
  for (int attempt = 0; attempt < 4; ++attempt) {
    testing::StratadProcess second;
    EXPECT_EQ(second.RunToExit({"--data-dir", second.data_dir(), "--listen", "127.0.0.1:0",
                                "--http-listen", http, "--pg-listen", "127.0.0.1:0"}),
              1);
    EXPECT_THAT(second.log(), HasSubstr("cannot listen for HTTP"));
    testing::StratadProcess third;
    EXPECT_EQ(third.RunToExit({"--data-dir", third.data_dir(), "--listen", "127.0.0.1:0",
                               "--http-listen", "127.0.0.1:0", "--pg-listen", pg}),
              1);
    EXPECT_THAT(third.log(), HasSubstr("cannot listen for PostgreSQL"));
  }
  // The first server still has its port to itself.
  EXPECT_EQ(Http().Post("/write?db=mydb", {{"Authorization", "Bearer " + admin_}}, "cpu v=1 1",
                        "text/plain")
                ->status,
            204);
}

// ------------------------------------------------------------ PostgreSQL

std::string Startup() { return Pg::Startup(); }

TEST_F(FrontDoorLimitsE2ETest, BeforeLoginAPostgresClientMaySendOnlySmallMessages) {
  Start();
  const int64_t before = server_.PeakRssBytes();
  std::vector<std::unique_ptr<Socket>> clients;
  for (int i = 0; i < 50; ++i) {
    auto c = std::make_unique<Socket>(server_.pg_port());
    // Announces a 16 MB password message and sends none of it.
    ASSERT_TRUE(c->Send(Startup() + "p" + Pg::Int32(16 << 20)));
    clients.push_back(std::move(c));
  }
  for (auto& c : clients) {
    bool closed = false;
    EXPECT_THAT(c->ReadAll(10, &closed), HasSubstr("not acceptable here"));
    EXPECT_TRUE(closed);
  }
  // 50 × 16 MB were allocated at once before.
  EXPECT_LT(server_.PeakRssBytes() - before, int64_t{100} << 20);
}

TEST_F(FrontDoorLimitsE2ETest, PostgresClientsThatNeverLogInLoseTheirSlots) {
  Start({"--pg-max-connections", "5", "--pg-auth-timeout-seconds", "1"});
  std::vector<std::unique_ptr<Socket>> silent;
  for (int i = 0; i < 5; ++i) silent.push_back(std::make_unique<Socket>(server_.pg_port()));
  bool closed = false;
  silent.front()->ReadAll(10, &closed);
  EXPECT_TRUE(closed) << "a client that sent nothing kept its slot";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // A real client gets in (it was refused with 53300 for good before).
  Socket client(server_.pg_port());
  ASSERT_TRUE(client.Send(Startup()));
  std::string answer = client.ReadAll(2, &closed);
  EXPECT_EQ(answer.substr(0, 1), "R") << answer;  // the password request
}

// The password message carrying `token`.
std::string Password(const std::string& token) { return Pg::Message('p', Pg::Str(token)); }
std::string Query(const std::string& sql) { return Pg::Message('Q', Pg::Str(sql)); }

// docs/security.md says a revocation is effective on the next call: on the
// PostgreSQL port that is the session's next statement.
TEST_F(FrontDoorLimitsE2ETest, ARevokedTokenEndsItsPostgresSessionAtTheNextStatement) {
  Start();
  const std::string reader = testing::CreateToken(server_.channel(), admin_, "reader", "read:mydb");
  ASSERT_FALSE(reader.empty());
  Socket session(server_.pg_port());
  ASSERT_TRUE(session.Send(Startup() + Password(reader) + Query("SELECT 41 + 1")));
  bool closed = false;
  EXPECT_THAT(session.ReadAll(2, &closed), HasSubstr("42"));

  auto auth = v1::AuthService::NewStub(server_.channel());
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + admin_);
  v1::RevokeTokenRequest revoke;
  revoke.set_token("reader");
  v1::RevokeTokenResponse revoked;
  ASSERT_TRUE(auth->RevokeToken(&context, revoke, &revoked).ok());

  ASSERT_TRUE(session.Send(Query("SELECT 1")));
  const std::string answer = session.ReadAll(10, &closed);
  EXPECT_THAT(answer, HasSubstr("no longer authenticates"));
  EXPECT_THAT(answer, HasSubstr("FATAL"));
  EXPECT_TRUE(closed);
}

// ParameterDescription counts parameters in an Int16: $32768 is refused.
TEST_F(FrontDoorLimitsE2ETest, APostgresStatementMayUseAtMost32767Parameters) {
  Start();
  Socket session(server_.pg_port());
  const std::string no_types = std::string(2, '\0');
  ASSERT_TRUE(session.Send(Startup() + Password(admin_) +
                           Pg::Message('P', std::string("\0SELECT $32768\0", 16) + no_types) +
                           Pg::Message('S', "") +
                           Pg::Message('P', std::string("\0SELECT $32767\0", 16) + no_types) +
                           Pg::Message('S', "")));
  bool closed = false;
  const std::string answer = session.ReadAll(3, &closed);
  EXPECT_THAT(answer, HasSubstr("at most 32767 parameters"));
  EXPECT_EQ(answer.find("at most 32767 parameters"), answer.rfind("at most 32767 parameters"))
      << "$32767 itself is allowed";
  EXPECT_FALSE(closed);
}

// A database the token may not see answers as one that does not exist,
// through every door that names one.
TEST_F(FrontDoorLimitsE2ETest, AHiddenDatabaseAnswersAsAMissingOne) {
  Start();
  ASSERT_TRUE(testing::CreateDatabase(server_.channel(), "secret", admin_).ok());
  const std::string reader = testing::CreateToken(server_.channel(), admin_, "reader", "read:mydb");
  for (const char* database : {"secret", "nothere"}) {
    auto shown = testing::RunQuery(server_.channel(), std::string("SHOW TABLES FROM ") + database,
                                   0, reader);
    EXPECT_EQ(shown.status.error_code(), grpc::StatusCode::NOT_FOUND) << database;
    EXPECT_THAT(shown.status.error_message(),
                HasSubstr(std::string("database \"") + database + "\" does not exist"));
    auto catalog = v1::CatalogService::NewStub(server_.channel());
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + reader);
    v1::ListTablesRequest request;
    request.set_database_name(database);
    v1::ListTablesResponse response;
    EXPECT_EQ(catalog->ListTables(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND)
        << database;
  }
}

// The data directory and its files are the owner's alone, whatever the
// umask stratad was started with (PostgreSQL insists on the same).
TEST_F(FrontDoorLimitsE2ETest, TheDataDirectoryAndItsFilesAreTheOwnersAlone) {
  const mode_t old = umask(0);
  Start();
  umask(old);
  struct stat info;
  ASSERT_EQ(stat(server_.data_dir().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(server_.data_dir())) {
    if (!entry.is_regular_file()) continue;
    // The live server may delete an obsolete file between the listing and here.
    if (stat(entry.path().c_str(), &info) != 0) {
      ASSERT_EQ(errno, ENOENT) << entry.path();
      continue;
    }
    EXPECT_EQ(info.st_mode & 077, 0u) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 3);
}

// ---------------------------------------------------------------- queries

TEST_F(FrontDoorLimitsE2ETest, ACrossJoinOfSmallTablesStopsAtItsTimeout) {
  Start({"--query-timeout-seconds", "2"});
  ASSERT_NO_FATAL_FAILURE(WriteSmallTable());
  testing::QueryResult result = testing::RunQuery(
      server_.channel(),
      "SELECT count(*) FROM mydb.ttt a CROSS JOIN mydb.ttt b CROSS JOIN mydb.ttt c CROSS JOIN mydb.ttt d", 0,
      admin_);
  EXPECT_EQ(result.status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << result.status.error_message();
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT 1", 0, admin_).status.ok());
}

// One token's storm of heavy queries holds every worker and fills the
// queue; another token's small queries still answer at once (the reserved
// lane, and admission past a full queue for an owner with nothing in
// flight), while the storm's own next query is refused.
TEST_F(FrontDoorLimitsE2ETest, AnotherTokensSmallQueriesAnswerDuringAStormOfHeavyOnes) {
  Start({"--query-workers", "2", "--query-queue", "3", "--query-timeout-seconds", "8"});
  ASSERT_NO_FATAL_FAILURE(WriteSmallTable());
  const std::string storm = testing::CreateToken(server_.channel(), admin_, "storm", "read:mydb");
  const std::string small = testing::CreateToken(server_.channel(), admin_, "small", "read:mydb");
  const std::string heavy =
      "SELECT count(*) FROM mydb.ttt a CROSS JOIN mydb.ttt b CROSS JOIN mydb.ttt c CROSS JOIN mydb.ttt d";
  std::vector<std::thread> storming;
  std::atomic<int> refused{0};
  std::atomic<int> storm_ended{0};  // queries of the storm that ran and ended
  for (int i = 0; i < 6; ++i) {
    storming.emplace_back([&] {
      auto r = testing::RunQuery(server_.channel(), heavy, 0, storm);
      if (r.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++refused;
      } else {
        ++storm_ended;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (const char* sql : {"SELECT 1", "SHOW TABLES FROM mydb", "SELECT count(*) FROM mydb.ttt"}) {
    EXPECT_TRUE(testing::RunQuery(server_.channel(), sql, 0, small).status.ok()) << sql;
    // Answered while the storm still held both workers and the queue (its
    // queries only end at their 8 s timeout): not after waiting for it. An
    // order of events, not a time bound, so a slow machine cannot fail it.
    EXPECT_EQ(storm_ended.load(), 0) << sql << " waited for the storm";
  }
  for (std::thread& t : storming) t.join();
  // 2 running and 3 queued: the storm's sixth was refused.
  EXPECT_EQ(refused.load(), 1);
}

}  // namespace
}  // namespace strata
