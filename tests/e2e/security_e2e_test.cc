// TLS, bearer tokens and grants over real gRPC against the real stratad, with
// certificates made at test time by the openssl command line
// (docs/security.md).
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/test_certs.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ReadFile;

std::shared_ptr<grpc::Channel> Channel(int port,
                                       std::shared_ptr<grpc::ChannelCredentials> credentials) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port), credentials, args);
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  return context;
}

grpc::Status ListDatabases(const std::shared_ptr<grpc::Channel>& channel,
                           const std::string& token = "", v1::ListDatabasesResponse* out = nullptr) {
  v1::ListDatabasesResponse response;
  grpc::Status status = v1::CatalogService::NewStub(channel)->ListDatabases(
      Context(token).get(), v1::ListDatabasesRequest(), &response);
  if (out != nullptr) *out = response;
  return status;
}

bool Serving(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::health::v1::HealthCheckResponse response;
  return grpc::health::v1::Health::NewStub(channel)
             ->Check(Context("").get(), grpc::health::v1::HealthCheckRequest(), &response)
             .ok() &&
         response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

// ---------------------------------------------------------------- TLS

class TlsE2ETest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(certs_.ok()) << certs_.error(); }

  testing::TestCerts certs_;
  testing::StratadProcess server_;
};

TEST_F(TlsE2ETest, ServesTlsAndRefusesPlaintextAndUntrustedClients) {
  ASSERT_TRUE(server_.StartWithTls(certs_, {"--auth", "off"})) << server_.error();
  EXPECT_THAT(server_.log(), HasSubstr("tls=on"));
  EXPECT_TRUE(ListDatabases(Channel(server_.port(), certs_.Credentials(certs_.ca_cert()))).ok());
  // A plaintext client, and one that trusts another CA, get no answer.
  EXPECT_EQ(ListDatabases(Channel(server_.port(), grpc::InsecureChannelCredentials())).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListDatabases(Channel(server_.port(), certs_.Credentials(certs_.other_ca_cert())))
                .error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(Serving(server_.channel()));
}

TEST_F(TlsE2ETest, MutualTlsNeedsAClientCertificateFromTheClientCa) {
  server_.UseCredentials(certs_.Credentials(certs_.ca_cert(), /*with_client_cert=*/true));
  ASSERT_TRUE(server_.Start({"--tls-cert", certs_.server_cert(), "--tls-key",
                             certs_.server_key(), "--tls-client-ca", certs_.ca_cert(), "--auth",
                             "off"}))
      << server_.error();
  EXPECT_TRUE(
      ListDatabases(Channel(server_.port(), certs_.Credentials(certs_.ca_cert(), true))).ok());
  EXPECT_FALSE(
      ListDatabases(Channel(server_.port(), certs_.Credentials(certs_.ca_cert(), false))).ok());
}

TEST_F(TlsE2ETest, StartUpErrorsNameTheFile) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
  };
  const std::string missing = certs_.dir().Sub("missing.pem");
  const std::vector<Case> cases = {
      {{"--tls-cert", missing, "--tls-key", certs_.server_key()}, 1,
       "--tls-cert " + missing + ": cannot be read"},
      {{"--tls-cert", certs_.server_cert(), "--tls-key", certs_.other_key()}, 1,
       "is not the key of the certificate in " + certs_.server_cert()},
      {{"--tls-cert", certs_.server_key(), "--tls-key", certs_.server_key()}, 1,
       "holds no PEM certificate"},
      {{"--tls-cert", certs_.server_cert(), "--tls-key", certs_.server_cert()}, 1,
       "holds no unencrypted PEM private key"},
      {{"--tls-cert", certs_.server_cert()}, 2, "--tls-cert and --tls-key go together"},
      {{"--tls-client-ca", certs_.ca_cert()}, 2, "--tls-client-ca needs TLS"},
      {{"--listen", "0.0.0.0:0"}, 2, "refusing to listen on 0.0.0.0:0 without TLS"},
  };
  for (const Case& c : cases) {
    testing::StratadProcess server;
    std::vector<std::string> args = {"--data-dir", server.data_dir()};
    if (std::find(c.args.begin(), c.args.end(), "--listen") == c.args.end()) {
      args.insert(args.end(), {"--listen", "127.0.0.1:0"});
    }
    args.insert(args.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(server.RunToExit(args), c.exit_code) << c.message << "\n" << server.log();
    EXPECT_THAT(server.log(), HasSubstr(c.message));
  }
}

// The certificate a new connection is served, as PEM.
std::string ServedCertificate(int port, const testing::TestCerts& certs) {
  auto channel = Channel(port, certs.Credentials(certs.ca_cert()));
  auto context = Context("");
  v1::ListDatabasesResponse response;
  if (!v1::CatalogService::NewStub(channel)
           ->ListDatabases(context.get(), v1::ListDatabasesRequest(), &response)
           .ok()) {
    return "";
  }
  auto values = context->auth_context()->FindPropertyValues("x509_pem_cert");
  return values.empty() ? "" : std::string(values[0].data(), values[0].size());
}

TEST_F(TlsE2ETest, ARenewedCertificateIsServedWithoutARestart) {
  const std::string cert = certs_.dir().Sub("live.pem");
  const std::string key = certs_.dir().Sub("live.key");
  std::filesystem::copy_file(certs_.server_cert(), cert);
  std::filesystem::copy_file(certs_.server_key(), key);
  server_.UseCredentials(certs_.Credentials(certs_.ca_cert()));
  ASSERT_TRUE(server_.Start({"--tls-cert", cert, "--tls-key", key, "--tls-reload-seconds", "1",
                             "--auth", "off"}))
      << server_.error();
  EXPECT_EQ(ServedCertificate(server_.port(), certs_), ReadFile(certs_.server_cert()));

  // Key first, then certificate: a reload in between keeps the old pair.
  std::filesystem::copy_file(certs_.renewed_key(), key,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(certs_.renewed_cert(), cert,
                             std::filesystem::copy_options::overwrite_existing);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string served;
  while (std::chrono::steady_clock::now() < deadline) {
    served = ServedCertificate(server_.port(), certs_);
    if (served == ReadFile(certs_.renewed_cert())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(served, ReadFile(certs_.renewed_cert()));
  // SIGHUP checks the files and says so.
  kill(server_.pid(), SIGHUP);
  const auto logged = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (server_.log().find("SIGHUP: the TLS files are valid") == std::string::npos &&
         std::chrono::steady_clock::now() < logged) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_THAT(server_.log(), HasSubstr("SIGHUP: the TLS files are valid"));
}

// ---------------------------------------------------------------- tokens

class AuthE2ETest : public ::testing::Test {
 protected:
  // Tests that count failures set their own limit.
  void SetUp() override { Start({"--auth-failure-limit", "0"}); }

  void Start(std::vector<std::string> extra) {
    std::vector<std::string> args = {"--auth", "on"};
    args.insert(args.end(), extra.begin(), extra.end());
    ASSERT_TRUE(server_.Start(args)) << server_.error();
    admin_ = std::string(StripNewline(ReadFile(server_.data_dir() + "/admin.token")));
    ASSERT_FALSE(admin_.empty());
    auth_ = v1::AuthService::NewStub(server_.channel());
    catalog_ = v1::CatalogService::NewStub(server_.channel());
    write_ = v1::WriteService::NewStub(server_.channel());
  }

  static std::string_view StripNewline(std::string_view s) {
    while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
    return s;
  }

  // Creates a token; returns its secret.
  std::string CreateToken(const std::string& name, const std::vector<std::string>& grants,
                          int64_t expires_seconds = 0) {
    v1::CreateTokenRequest request;
    request.set_name(name);
    for (const auto& g : grants) request.add_grants(g);
    if (expires_seconds != 0) request.mutable_expiration_time()->set_seconds(expires_seconds);
    v1::CreateTokenResponse response;
    grpc::Status status = auth_->CreateToken(Context(admin_).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.secret();
  }

  grpc::Status CreateDatabase(const std::string& token, const std::string& name) {
    v1::CreateDatabaseRequest request;
    request.set_database_name(name);
    v1::CreateDatabaseResponse response;
    return catalog_->CreateDatabase(Context(token).get(), request, &response);
  }

  grpc::Status CreateTable(const std::string& token, const std::string& db,
                           const std::string& table) {
    v1::CreateTableRequest request;
    request.set_database_name(db);
    request.set_table_name(table);
    v1::CreateTableResponse response;
    return catalog_->CreateTable(Context(token).get(), request, &response);
  }

  grpc::Status Write(const std::string& token, const std::string& db, const std::string& table,
                     v1::WriteRecordsResponse* out = nullptr) {
    v1::WriteRecordsRequest request = testing::WriteRequest(
        db, table, {testing::CpuRecord("h1", testing::NowMillis(), 1.5)});
    v1::WriteRecordsResponse response;
    grpc::Status status = write_->WriteRecords(Context(token).get(), request, &response);
    if (out != nullptr) *out = response;
    return status;
  }

  int64_t CountRows(const std::string& db, const std::string& table) {
    testing::QueryResult r =
        testing::RunQuery(server_.channel(), "SELECT count(*) FROM " + db + "." + table, 0, admin_);
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
    return r.rows.empty() ? -1 : r.rows[0].data(0).bigint_value();
  }

  // mydb.alpha and mydb.beta, and other.gamma, each with one row.
  void CreateData() {
    ASSERT_TRUE(CreateDatabase(admin_, "mydb").ok());
    ASSERT_TRUE(CreateDatabase(admin_, "other").ok());
    for (const auto& [db, table] : std::vector<std::pair<std::string, std::string>>{
             {"mydb", "alpha"}, {"mydb", "beta"}, {"other", "gamma"}}) {
      ASSERT_TRUE(CreateTable(admin_, db, table).ok());
      v1::WriteRecordsResponse response;
      ASSERT_TRUE(Write(admin_, db, table, &response).ok());
      ASSERT_EQ(response.records_ingested().total(), 1);
    }
  }

  testing::StratadProcess server_;
  std::string admin_;
  std::unique_ptr<v1::AuthService::Stub> auth_;
  std::unique_ptr<v1::CatalogService::Stub> catalog_;
  std::unique_ptr<v1::WriteService::Stub> write_;
};

TEST_F(AuthE2ETest, TheFirstAdminTokenIsWrittenToAPrivateFileAndNeverLogged) {
  struct stat info;
  ASSERT_EQ(stat((server_.data_dir() + "/admin.token").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_THAT(server_.log(), HasSubstr("wrote it to " + server_.data_dir() + "/admin.token"));
  EXPECT_THAT(server_.log(), Not(HasSubstr(admin_.substr(24))));
  v1::WhoAmIResponse me;
  ASSERT_TRUE(auth_->WhoAmI(Context(admin_).get(), v1::WhoAmIRequest(), &me).ok());
  EXPECT_EQ(me.name(), "admin");
  EXPECT_THAT(me.grants(), ::testing::ElementsAre("admin"));
  // A restart keeps the tokens and writes no new one.
  ASSERT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_TRUE(ListDatabases(server_.channel(), admin_).ok());
}

TEST_F(AuthE2ETest, EveryCallNeedsAValidTokenAndTheHealthServiceStaysOpen) {
  CreateData();
  const std::string expiring = CreateToken(
      "short", {"read:*"},
      std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::system_clock::now().time_since_epoch())
              .count() +
          2);
  const std::string revoked = CreateToken("gone", {"read:*"});
  {
    v1::RevokeTokenRequest request;
    request.set_token("gone");
    v1::RevokeTokenResponse response;
    ASSERT_TRUE(auth_->RevokeToken(Context(admin_).get(), request, &response).ok());
    EXPECT_TRUE(response.token().has_revocation_time());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // `short` expires

  // A well-formed token the server never made, and malformed ones.
  std::string unknown = admin_;
  unknown.back() = unknown.back() == '0' ? '1' : '0';
  struct Token {
    std::string what;
    std::string value;
    std::string message;
  };
  const std::vector<Token> bad = {
      {"none", "", "this server requires a token"},
      {"unknown", unknown, "the token is not valid"},
      {"malformed", "hello", "the token is not valid"},
      {"expired", expiring, "the token \"short\" expired at"},
      {"revoked", revoked, "the token \"gone\" was revoked at"},
  };
  auto query = v1::QueryService::NewStub(server_.channel());
  for (const Token& t : bad) {
    std::vector<std::pair<std::string, grpc::Status>> calls;
    v1::ListDatabasesResponse databases;
    calls.emplace_back("ListDatabases",
                       catalog_->ListDatabases(Context(t.value).get(), {}, &databases));
    v1::DescribeDatabaseRequest describe_db;
    describe_db.set_database_name("mydb");
    v1::DescribeDatabaseResponse described_db;
    calls.emplace_back("DescribeDatabase",
                       catalog_->DescribeDatabase(Context(t.value).get(), describe_db,
                                                  &described_db));
    calls.emplace_back("CreateDatabase", CreateDatabase(t.value, "x"));
    v1::UpdateDatabaseRequest update_db;
    update_db.set_database_name("mydb");
    v1::UpdateDatabaseResponse updated_db;
    calls.emplace_back("UpdateDatabase",
                       catalog_->UpdateDatabase(Context(t.value).get(), update_db, &updated_db));
    v1::DeleteDatabaseRequest delete_db;
    delete_db.set_database_name("other");
    v1::DeleteDatabaseResponse deleted_db;
    calls.emplace_back("DeleteDatabase",
                       catalog_->DeleteDatabase(Context(t.value).get(), delete_db, &deleted_db));
    calls.emplace_back("CreateTable", CreateTable(t.value, "mydb", "x"));
    v1::DescribeTableRequest describe;
    describe.set_database_name("mydb");
    describe.set_table_name("alpha");
    v1::DescribeTableResponse described;
    calls.emplace_back("DescribeTable",
                       catalog_->DescribeTable(Context(t.value).get(), describe, &described));
    v1::ListTablesResponse tables;
    calls.emplace_back("ListTables", catalog_->ListTables(Context(t.value).get(), {}, &tables));
    v1::UpdateTableRequest update;
    update.set_database_name("mydb");
    update.set_table_name("alpha");
    v1::UpdateTableResponse updated;
    calls.emplace_back("UpdateTable",
                       catalog_->UpdateTable(Context(t.value).get(), update, &updated));
    v1::DeleteTableRequest drop;
    drop.set_database_name("mydb");
    drop.set_table_name("beta");
    v1::DeleteTableResponse dropped;
    calls.emplace_back("DeleteTable", catalog_->DeleteTable(Context(t.value).get(), drop, &dropped));
    calls.emplace_back("WriteRecords", Write(t.value, "mydb", "alpha"));
    calls.emplace_back("Query",
                       testing::RunQuery(server_.channel(), "SELECT 1", 0, t.value).status);
    v1::CancelQueryRequest cancel;
    cancel.set_query_id("x");
    v1::CancelQueryResponse cancelled;
    calls.emplace_back("CancelQuery", query->CancelQuery(Context(t.value).get(), cancel, &cancelled));
    v1::WhoAmIResponse me;
    calls.emplace_back("WhoAmI", auth_->WhoAmI(Context(t.value).get(), {}, &me));
    v1::ListTokensResponse tokens;
    calls.emplace_back("ListTokens", auth_->ListTokens(Context(t.value).get(), {}, &tokens));
    for (const auto& [method, status] : calls) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << t.what << " " << method;
      EXPECT_THAT(status.error_message(), HasSubstr(t.message)) << t.what << " " << method;
    }
  }
  EXPECT_TRUE(Serving(server_.channel()));
  // Nothing a refused call asked for happened.
  EXPECT_EQ(CountRows("mydb", "alpha"), 1);
  EXPECT_EQ(CountRows("mydb", "beta"), 1);
  EXPECT_EQ(CountRows("other", "gamma"), 1);
  v1::ListDatabasesResponse all;
  ASSERT_TRUE(ListDatabases(server_.channel(), admin_, &all).ok());
  EXPECT_EQ(all.databases_size(), 2);
  // Failures are logged with the token's name (or "unknown") and the peer.
  EXPECT_THAT(server_.log(), HasSubstr("refused a call from 127.0.0.1 (token \"gone\")"));
  EXPECT_THAT(server_.log(), HasSubstr("refused a call from 127.0.0.1 (token \"unknown\")"));
  EXPECT_THAT(server_.log(), Not(HasSubstr(revoked.substr(24))));
}

TEST_F(AuthE2ETest, GrantsDecideTableByTable) {
  CreateData();
  const std::string reader = CreateToken("reader", {"read:mydb/alpha"});
  const std::string writer = CreateToken("writer", {"write:mydb/alpha"});
  const std::string db_admin = CreateToken("db-admin", {"write:mydb", "read:mydb"});

  // Reads: only mydb.alpha, however the statement reaches the others (every table
  // a statement names is planned through one place, which checks).
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.alpha", 0, reader)
                  .status.ok());
  for (const std::string sql :
       {"SELECT * FROM mydb.beta", "SELECT * FROM other.gamma",
        "SELECT * FROM (SELECT * FROM mydb.beta) AS sub",
        "WITH x AS (SELECT * FROM mydb.beta) SELECT * FROM x",
        "DESCRIBE mydb.beta", "SHOW MEASURES FROM mydb.beta", "SELECT * FROM mydb.missing"}) {
    testing::QueryResult r = testing::RunQuery(server_.channel(), sql, 0, reader);
    EXPECT_EQ(r.status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << sql;
    EXPECT_THAT(r.status.error_message(), HasSubstr("token \"reader\" may not read")) << sql;
  }
  testing::QueryResult denied = testing::RunQuery(server_.channel(), "SELECT * FROM mydb.beta", 0, reader);
  EXPECT_THAT(denied.status.error_message(), HasSubstr("it needs the grant read:mydb/beta"));
  // Listings show only what the token may see.
  testing::QueryResult tables = testing::RunQuery(server_.channel(), "SHOW TABLES", 0, reader);
  ASSERT_TRUE(tables.status.ok());
  ASSERT_EQ(tables.rows.size(), 1u);
  EXPECT_EQ(tables.rows[0].data(1).varchar_value(), "alpha");
  testing::QueryResult databases = testing::RunQuery(server_.channel(), "SHOW DATABASES", 0, reader);
  ASSERT_EQ(databases.rows.size(), 1u);
  EXPECT_EQ(databases.rows[0].data(0).varchar_value(), "mydb");
  v1::ListTablesResponse listed;
  ASSERT_TRUE(catalog_->ListTables(Context(reader).get(), {}, &listed).ok());
  ASSERT_EQ(listed.tables_size(), 1);
  EXPECT_EQ(listed.tables(0).table_name(), "alpha");

  // Writes: write does not imply read, read does not imply write; DELETE
  // needs both.
  EXPECT_EQ(Write(reader, "mydb", "alpha").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  testing::QueryResult deleted = testing::RunQuery(server_.channel(), "DELETE FROM mydb.alpha", 0, reader);
  EXPECT_EQ(deleted.status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(deleted.status.error_message(), HasSubstr("may not write \"mydb\".\"alpha\""));
  EXPECT_TRUE(Write(writer, "mydb", "alpha").ok());
  grpc::Status other = Write(writer, "mydb", "beta");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(other.error_message(), HasSubstr("may not write \"mydb\".\"beta\""));
  EXPECT_EQ(testing::RunQuery(server_.channel(), "SELECT * FROM mydb.alpha", 0, writer).status.error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(CountRows("mydb", "alpha"), 2);  // the writer's row, not the reader's
  EXPECT_EQ(CountRows("mydb", "beta"), 1);

  // The catalog: databases need admin, tables admin or write on the database.
  EXPECT_EQ(CreateDatabase(db_admin, "new").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(CreateTable(db_admin, "mydb", "gamma").ok());
  EXPECT_EQ(CreateTable(db_admin, "other", "d").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(CreateTable(writer, "mydb", "d").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // Tokens need admin.
  v1::CreateTokenRequest escalate;
  escalate.set_name("mine");
  escalate.add_grants("admin");
  v1::CreateTokenResponse created;
  EXPECT_EQ(auth_->CreateToken(Context(db_admin).get(), escalate, &created).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // A grant takes effect at once, and so does its removal.
  v1::UpdateTokenGrantsRequest grant;
  grant.set_token("reader");
  grant.add_add("read:mydb/beta");
  v1::UpdateTokenGrantsResponse granted;
  ASSERT_TRUE(auth_->UpdateTokenGrants(Context(admin_).get(), grant, &granted).ok());
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT * FROM mydb.beta", 0, reader).status.ok());
  grant.clear_add();
  grant.add_remove("read:mydb/beta");
  ASSERT_TRUE(auth_->UpdateTokenGrants(Context(admin_).get(), grant, &granted).ok());
  EXPECT_EQ(testing::RunQuery(server_.channel(), "SELECT * FROM mydb.beta", 0, reader).status.error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // Bad grants and names are refused with what a grant looks like.
  v1::CreateTokenRequest bad;
  bad.set_name("bad");
  bad.add_grants("read:mydb.alpha/");
  grpc::Status refused = auth_->CreateToken(Context(admin_).get(), bad, &created);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("a grant is admin, read:*, read:DB"));
  // Listing shows every token, never a secret.
  v1::ListTokensResponse tokens;
  ASSERT_TRUE(auth_->ListTokens(Context(admin_).get(), {}, &tokens).ok());
  EXPECT_EQ(tokens.tokens_size(), 4);
  EXPECT_THAT(tokens.DebugString(), Not(HasSubstr(reader.substr(24))));
}

// CREATE, ALTER and DROP in SQL need what the CatalogService's calls need: databases an admin
// token, tables admin or write on their database.
TEST_F(AuthE2ETest, CatalogChangesInSqlNeedTheCatalogServicesGrants) {
  CreateData();
  const std::string reader = CreateToken("reader", {"read:mydb"});
  const std::string db_admin = CreateToken("db-admin", {"write:mydb", "read:mydb"});
  auto run = [&](const std::string& sql, const std::string& token) {
    return testing::RunQuery(server_.channel(), sql, 0, token).status;
  };
  for (const std::string sql :
       {"CREATE DATABASE newdb", "ALTER DATABASE mydb SET (description = 'x')",
        "DROP DATABASE other"}) {
    grpc::Status refused = run(sql, db_admin);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << sql;
    EXPECT_THAT(refused.error_message(), HasSubstr("db-admin")) << sql;
  }
  for (const std::string sql :
       {"CREATE TABLE mydb.delta", "ALTER TABLE mydb.alpha SET (memory_store_retention_hours = 9)",
        "DROP TABLE mydb.alpha"}) {
    EXPECT_EQ(run(sql, reader).error_code(), grpc::StatusCode::PERMISSION_DENIED) << sql;
  }
  EXPECT_EQ(run("CREATE TABLE other.delta", db_admin).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  // Nothing refused changed anything.
  EXPECT_EQ(CountRows("mydb", "alpha"), 1);
  v1::ListDatabasesResponse databases;
  ASSERT_TRUE(ListDatabases(server_.channel(), admin_, &databases).ok());
  EXPECT_EQ(databases.databases_size(), 2);

  // INSERT needs write on the table, as WriteRecords does.
  const std::string insert = "INSERT INTO mydb.alpha (time, host, v) VALUES (now(), 'h', 1.5)";
  grpc::Status refused = run(insert, reader);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("may not write \"mydb\".\"alpha\""));
  EXPECT_EQ(CountRows("mydb", "alpha"), 1);
  EXPECT_TRUE(run(insert, db_admin).ok());
  EXPECT_EQ(CountRows("mydb", "alpha"), 2);

  EXPECT_TRUE(run("CREATE TABLE mydb.delta", db_admin).ok());
  EXPECT_TRUE(run("ALTER TABLE mydb.delta SET (memory_store_retention_hours = 9)", db_admin).ok());
  EXPECT_TRUE(run("DROP TABLE mydb.delta", db_admin).ok());
  EXPECT_TRUE(run("CREATE DATABASE newdb", admin_).ok());
  EXPECT_TRUE(run("DROP DATABASE newdb", admin_).ok());
}

TEST_F(AuthE2ETest, RepeatedFailuresFromOnePeerAreRefusedForAMinuteButNotAValidToken) {
  server_.Stop();
  Start({"--auth-failure-limit", "3"});
  std::string wrong = admin_;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ListDatabases(server_.channel(), wrong).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  grpc::Status limited = ListDatabases(server_.channel(), wrong);
  EXPECT_EQ(limited.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(limited.error_message(), HasSubstr("too many failed authentication attempts"));
  EXPECT_THAT(server_.log(), HasSubstr("127.0.0.1 failed 3 times within a minute"));
  // The valid token from the same address is not locked out.
  EXPECT_TRUE(ListDatabases(server_.channel(), admin_).ok());
  EXPECT_TRUE(Serving(server_.channel()));
}

TEST_F(AuthE2ETest, HostileMetadataNeverCrashesTheServer) {
  std::mt19937 random(7);
  auto bytes = [&](size_t n, bool printable) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(printable ? 0x21 + random() % 94 : random() % 256);
    return s;
  };
  auto catalog = v1::CatalogService::NewStub(server_.channel());
  for (int i = 0; i < 200; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const int headers = 1 + random() % 5;
    for (int h = 0; h < headers; ++h) {
      const size_t size = random() % 4 == 0 ? 4000 + random() % 6000 : random() % 200;
      switch (random() % 4) {
        case 0: context.AddMetadata("authorization", "Bearer " + bytes(size, true)); break;
        case 1: context.AddMetadata("authorization", bytes(size, true)); break;
        case 2: context.AddMetadata("authorization-bin", bytes(size, false)); break;
        default: context.AddMetadata("x-" + std::to_string(h), bytes(size, true)); break;
      }
    }
    v1::ListDatabasesResponse response;
    grpc::Status status = catalog->ListDatabases(&context, {}, &response);
    EXPECT_NE(status.error_code(), grpc::StatusCode::OK);
  }
  EXPECT_TRUE(Serving(server_.channel()));
  EXPECT_TRUE(ListDatabases(server_.channel(), admin_).ok());
}

TEST_F(AuthE2ETest, ABootstrapTokenGivenInAFileBecomesTheAdminToken) {
  testing::StratadProcess server;
  const std::string file = server.data_dir() + ".token";
  const std::string given = "strata_0123456789abcdef_" + std::string(64, 'a');
  {
    std::ofstream(file) << given << "\n";
  }
  ASSERT_TRUE(server.Start({"--auth", "on", "--bootstrap-token-file", file})) << server.error();
  EXPECT_TRUE(ListDatabases(server.channel(), given).ok());
  EXPECT_THAT(server.log(), HasSubstr("is the one in " + file));

  testing::StratadProcess bad;
  const std::string bad_file = bad.data_dir() + ".token";
  std::ofstream(bad_file) << "not-a-token\n";
  EXPECT_EQ(bad.RunToExit({"--data-dir", bad.data_dir(), "--listen", "127.0.0.1:0", "--auth", "on",
                           "--bootstrap-token-file", bad_file}),
            1);
  EXPECT_THAT(bad.log(), HasSubstr("does not hold a Strata token"));
}

// TLS and tokens together, as a remote deployment runs them.
TEST(SecureRemoteE2ETest, TlsWithAuthByDefault) {
  testing::TestCerts certs;
  ASSERT_TRUE(certs.ok()) << certs.error();
  testing::StratadProcess server;
  ASSERT_TRUE(server.StartWithTls(certs)) << server.error();
  EXPECT_THAT(server.log(), HasSubstr("tls=on auth=on"));
  const std::string admin = std::string(ReadFile(server.data_dir() + "/admin.token"), 0, 88);
  EXPECT_EQ(ListDatabases(server.channel()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(ListDatabases(server.channel(), admin).ok());
}

}  // namespace
}  // namespace strata
