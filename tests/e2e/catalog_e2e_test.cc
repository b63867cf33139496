// CatalogService over real gRPC against the real stratad binary.
#include <memory>

#include "gtest/gtest.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "tests/support/stratad_process.h"

namespace strata {
namespace {

using v1::CatalogService;

class CatalogE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    Connect();
  }
  void Connect() { stub_ = CatalogService::NewStub(server_.channel()); }

  grpc::Status CreateDatabase(const std::string& name, const std::string& description = "") {
    grpc::ClientContext context;
    v1::CreateDatabaseRequest request;
    request.set_database_name(name);
    request.set_description(description);
    v1::CreateDatabaseResponse response;
    return stub_->CreateDatabase(&context, request, &response);
  }

  grpc::Status CreateTable(const v1::CreateTableRequest& request, v1::Table* table = nullptr) {
    grpc::ClientContext context;
    v1::CreateTableResponse response;
    grpc::Status status = stub_->CreateTable(&context, request, &response);
    if (table != nullptr) *table = response.table();
    return status;
  }

  grpc::Status CreateTable(const std::string& db, const std::string& table) {
    v1::CreateTableRequest request;
    request.set_database_name(db);
    request.set_table_name(table);
    return CreateTable(request);
  }

  grpc::Status DescribeTable(const std::string& db, const std::string& table, v1::Table* out) {
    grpc::ClientContext context;
    v1::DescribeTableRequest request;
    request.set_database_name(db);
    request.set_table_name(table);
    v1::DescribeTableResponse response;
    grpc::Status status = stub_->DescribeTable(&context, request, &response);
    *out = response.table();
    return status;
  }

  grpc::Status DescribeDatabase(const std::string& db, v1::Database* out) {
    grpc::ClientContext context;
    v1::DescribeDatabaseRequest request;
    request.set_database_name(db);
    v1::DescribeDatabaseResponse response;
    grpc::Status status = stub_->DescribeDatabase(&context, request, &response);
    *out = response.database();
    return status;
  }

  testing::StratadProcess server_;
  std::unique_ptr<CatalogService::Stub> stub_;
};

TEST_F(CatalogE2ETest, DatabaseLifecycle) {
  ASSERT_TRUE(CreateDatabase("metrics", "ops").ok());
  EXPECT_EQ(CreateDatabase("metrics").error_code(), grpc::StatusCode::ALREADY_EXISTS);

  v1::Database db;
  ASSERT_TRUE(DescribeDatabase("metrics", &db).ok());
  EXPECT_EQ(db.description(), "ops");
  EXPECT_GT(db.creation_time().seconds(), 1'600'000'000);

  {
    grpc::ClientContext context;
    v1::UpdateDatabaseRequest request;
    request.set_database_name("metrics");
    request.set_description("changed");
    v1::UpdateDatabaseResponse response;
    ASSERT_TRUE(stub_->UpdateDatabase(&context, request, &response).ok());
    EXPECT_EQ(response.database().description(), "changed");
  }
  {
    grpc::ClientContext context;
    v1::DeleteDatabaseRequest request;
    request.set_database_name("metrics");
    v1::DeleteDatabaseResponse response;
    ASSERT_TRUE(stub_->DeleteDatabase(&context, request, &response).ok());
  }
  grpc::Status gone = DescribeDatabase("metrics", &db);
  EXPECT_EQ(gone.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(gone.error_message().find("database \"metrics\" does not exist"), std::string::npos);
}

TEST_F(CatalogE2ETest, InvalidNamesAreInvalidArgument) {
  for (const std::string& name :
       std::vector<std::string>{"", "bad name", "x/y", "db", std::string(257, 'n')}) {
    grpc::Status status = CreateDatabase(name);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << name;
    EXPECT_FALSE(status.error_message().empty());
  }
  ASSERT_TRUE(CreateDatabase("mydb").ok());
  EXPECT_EQ(CreateTable("mydb", "bad$").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Timestream's 3..256 for new names.
  grpc::Status short_name = CreateTable("mydb", "t");
  EXPECT_EQ(short_name.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(short_name.error_message(),
            "table name \"t\" is too short: a new table's name needs 3..256 characters");
  EXPECT_TRUE(CreateDatabase("abc").ok());
  EXPECT_TRUE(CreateTable("abc", "xyz").ok());
}

TEST_F(CatalogE2ETest, ListDatabasesPaginatesAndRejectsBadArguments) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(CreateDatabase("db" + std::to_string(i)).ok());
  std::vector<std::string> names;
  std::string token;
  do {
    grpc::ClientContext context;
    v1::ListDatabasesRequest request;
    request.set_max_results(2);
    request.set_next_token(token);
    v1::ListDatabasesResponse response;
    ASSERT_TRUE(stub_->ListDatabases(&context, request, &response).ok());
    for (const auto& db : response.databases()) names.push_back(db.database_name());
    token = response.next_token();
  } while (!token.empty());
  EXPECT_EQ(names, (std::vector<std::string>{"db0", "db1", "db2", "db3", "db4"}));

  grpc::ClientContext context;
  v1::ListDatabasesRequest request;
  request.set_max_results(5000);
  v1::ListDatabasesResponse response;
  EXPECT_EQ(stub_->ListDatabases(&context, request, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(CatalogE2ETest, TableLifecycleWithAllProperties) {
  ASSERT_TRUE(CreateDatabase("videostreaming").ok());
  v1::CreateTableRequest request;
  request.set_database_name("videostreaming");
  request.set_table_name("test");
  request.mutable_retention_properties()->set_memory_store_retention_hours(12);
  request.mutable_retention_properties()->set_magnetic_store_retention_days(365);
  request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(true);
  auto* key = request.mutable_schema()->add_composite_partition_key();
  key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
  key->set_name("viewer_id");
  key->set_enforcement_in_record(v1::PARTITION_KEY_ENFORCEMENT_REQUIRED);
  v1::Table created;
  ASSERT_TRUE(CreateTable(request, &created).ok());
  EXPECT_EQ(created.table_status(), v1::TABLE_STATUS_ACTIVE);

  v1::Table table;
  ASSERT_TRUE(DescribeTable("videostreaming", "test", &table).ok());
  EXPECT_EQ(table.retention_properties().memory_store_retention_hours(), 12);
  EXPECT_EQ(table.retention_properties().magnetic_store_retention_days(), 365);
  EXPECT_TRUE(table.magnetic_store_write_properties().enable_magnetic_store_writes());
  ASSERT_EQ(table.schema().composite_partition_key_size(), 1);
  EXPECT_EQ(table.schema().composite_partition_key(0).name(), "viewer_id");
  EXPECT_EQ(table.schema().composite_partition_key(0).enforcement_in_record(),
            v1::PARTITION_KEY_ENFORCEMENT_REQUIRED);

  v1::Database db;
  ASSERT_TRUE(DescribeDatabase("videostreaming", &db).ok());
  EXPECT_EQ(db.table_count(), 1);

  {  // Only enforcement may change; retention changes are accepted.
    grpc::ClientContext context;
    v1::UpdateTableRequest update;
    update.set_database_name("videostreaming");
    update.set_table_name("test");
    update.mutable_retention_properties()->set_memory_store_retention_hours(24);
    update.mutable_retention_properties()->set_magnetic_store_retention_days(365);
    auto* new_key = update.mutable_schema()->add_composite_partition_key();
    *new_key = table.schema().composite_partition_key(0);
    new_key->set_enforcement_in_record(v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL);
    v1::UpdateTableResponse response;
    ASSERT_TRUE(stub_->UpdateTable(&context, update, &response).ok());
    EXPECT_EQ(response.table().retention_properties().memory_store_retention_hours(), 24);
    EXPECT_EQ(response.table().schema().composite_partition_key(0).enforcement_in_record(),
              v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL);
    // Untouched settings stay.
    EXPECT_TRUE(response.table().magnetic_store_write_properties().enable_magnetic_store_writes());
  }
  {
    grpc::ClientContext context;
    v1::UpdateTableRequest update;
    update.set_database_name("videostreaming");
    update.set_table_name("test");
    auto* new_key = update.mutable_schema()->add_composite_partition_key();
    new_key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
    new_key->set_name("region");
    v1::UpdateTableResponse response;
    grpc::Status status = stub_->UpdateTable(&context, update, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("fixed when the table is created"), std::string::npos);
  }

  {  // A database with tables cannot be deleted.
    grpc::ClientContext context;
    v1::DeleteDatabaseRequest del;
    del.set_database_name("videostreaming");
    v1::DeleteDatabaseResponse response;
    grpc::Status status = stub_->DeleteDatabase(&context, del, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(status.error_message().find("still has 1 table"), std::string::npos);
  }
  {
    grpc::ClientContext context;
    v1::DeleteTableRequest del;
    del.set_database_name("videostreaming");
    del.set_table_name("test");
    v1::DeleteTableResponse response;
    ASSERT_TRUE(stub_->DeleteTable(&context, del, &response).ok());
  }
  EXPECT_EQ(DescribeTable("videostreaming", "test", &table).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(CatalogE2ETest, TableErrors) {
  EXPECT_EQ(CreateTable("nodb", "tbl").error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(CreateDatabase("mydb").ok());
  ASSERT_TRUE(CreateTable("mydb", "tbl").ok());
  EXPECT_EQ(CreateTable("mydb", "tbl").error_code(), grpc::StatusCode::ALREADY_EXISTS);

  struct Case {
    std::string what;
    int64_t memory_hours;
    int64_t magnetic_days;
  };
  for (const Case& c : std::vector<Case>{{"memory 0", 0, 1},
                                         {"memory 8767", 8767, 1},
                                         {"magnetic 0", 1, 0},
                                         {"magnetic 73001", 1, 73001}}) {
    v1::CreateTableRequest request;
    request.set_database_name("mydb");
    request.set_table_name("retention");
    request.mutable_retention_properties()->set_memory_store_retention_hours(c.memory_hours);
    request.mutable_retention_properties()->set_magnetic_store_retention_days(c.magnetic_days);
    EXPECT_EQ(CreateTable(request).error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.what;
  }

  v1::CreateTableRequest two_keys;
  two_keys.set_database_name("mydb");
  two_keys.set_table_name("keys");
  for (const char* name : {"a", "b"}) {
    auto* key = two_keys.mutable_schema()->add_composite_partition_key();
    key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
    key->set_name(name);
  }
  grpc::Status status = CreateTable(two_keys);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("exactly one"), std::string::npos);

  v1::CreateTableRequest no_type;
  no_type.set_database_name("mydb");
  no_type.set_table_name("keys");
  no_type.mutable_schema()->add_composite_partition_key()->set_name("host");
  EXPECT_EQ(CreateTable(no_type).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  v1::Table table;
  grpc::Status typo = DescribeTable("mydb", "tbll", &table);
  EXPECT_EQ(typo.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(typo.error_message().find("did you mean \"tbl\""), std::string::npos);

  grpc::ClientContext context;
  v1::DeleteTableRequest del;
  del.set_database_name("mydb");
  del.set_table_name("nope");
  v1::DeleteTableResponse response;
  EXPECT_EQ(stub_->DeleteTable(&context, del, &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(CatalogE2ETest, ListTablesAcrossDatabasesPaginates) {
  ASSERT_TRUE(CreateDatabase("dba").ok());
  ASSERT_TRUE(CreateDatabase("dbb").ok());
  ASSERT_TRUE(CreateTable("dba", "t1a").ok());
  ASSERT_TRUE(CreateTable("dba", "t2a").ok());
  ASSERT_TRUE(CreateTable("dbb", "t3a").ok());
  std::vector<std::string> seen;
  std::string token;
  do {
    grpc::ClientContext context;
    v1::ListTablesRequest request;
    request.set_max_results(2);
    request.set_next_token(token);
    v1::ListTablesResponse response;
    ASSERT_TRUE(stub_->ListTables(&context, request, &response).ok());
    for (const auto& t : response.tables()) seen.push_back(t.database_name() + "." + t.table_name());
    token = response.next_token();
  } while (!token.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"dba.t1a", "dba.t2a", "dbb.t3a"}));

  grpc::ClientContext context;
  v1::ListTablesRequest request;
  request.set_database_name("dbb");
  v1::ListTablesResponse response;
  ASSERT_TRUE(stub_->ListTables(&context, request, &response).ok());
  ASSERT_EQ(response.tables_size(), 1);
  EXPECT_EQ(response.tables(0).table_name(), "t3a");
}

TEST_F(CatalogE2ETest, CatalogSurvivesGracefulRestartAndKill9) {
  ASSERT_TRUE(CreateDatabase("kept", "before restart").ok());
  ASSERT_TRUE(CreateTable("kept", "tb1").ok());
  EXPECT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  Connect();
  v1::Table table;
  ASSERT_TRUE(DescribeTable("kept", "tb1", &table).ok());

  // Acknowledged catalog changes are synced: a kill -9 right after keeps them.
  ASSERT_TRUE(CreateTable("kept", "tb2").ok());
  server_.Kill9();
  ASSERT_TRUE(server_.Restart()) << server_.error();
  Connect();
  ASSERT_TRUE(DescribeTable("kept", "tb2", &table).ok());
  v1::Database db;
  ASSERT_TRUE(DescribeDatabase("kept", &db).ok());
  EXPECT_EQ(db.description(), "before restart");
  EXPECT_EQ(db.table_count(), 2);
}

}  // namespace
}  // namespace strata
