// Requests that are not what they claim to be, sent as raw bytes over real
// gRPC: every Strata method answers INVALID_ARGUMENT "could not parse
// request" (as the health service does), never an empty UNIMPLEMENTED, and
// the server goes on serving. Also records with enum values the server does
// not know: rejected one by one, the others written; and requests with
// unknown fields or parts protobuf merges, whether the server's wire reader
// takes them or leaves them to protobuf: written as protobuf reads them.
#include <future>

#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

class MalformedRequestE2ETest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start()) << server_.error(); }

  grpc::Status CallRaw(const std::string& method, const std::string& bytes) {
    grpc::GenericStub stub(server_.channel());
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1), response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status s) { done.set_value(std::move(s)); });
    return done.get_future().get();
  }

  testing::StratadProcess server_;
};

TEST_F(MalformedRequestE2ETest, UnparseableRequestsAnswerInvalidArgument) {
  // Random bytes, and a string field holding invalid UTF-8 (field 1 = "\xC3(").
  for (const std::string& bytes :
       {std::string("\xff\xff\xff", 3), std::string("\x0a\x02\xc3\x28", 4)}) {
    for (const char* method :
         {"/strata.v1.WriteService/WriteRecords", "/strata.v1.CatalogService/CreateDatabase",
          "/strata.v1.CatalogService/ListTables", "/strata.v1.QueryService/Query",
          "/strata.v1.QueryService/CancelQuery",
          "/strata.v1.ScheduledQueryService/CreateScheduledQuery",
          "/strata.v1.ScheduledQueryService/ExecuteScheduledQuery",
          "/strata.v1.TestingService/SetClock", "/grpc.health.v1.Health/Check"}) {
      grpc::Status status = CallRaw(method, bytes);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << method;
      EXPECT_NE(status.error_message().find("could not parse request"), std::string::npos)
          << method << ": " << status.error_message();
    }
  }
  // Still serving, and well-formed requests work.
  EXPECT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  EXPECT_TRUE(testing::RunQuery(server_.channel(), "SELECT 1").status.ok());
}

TEST_F(MalformedRequestE2ETest, RequestsWithUnknownFieldsOrMergedPartsAreWritten) {
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  const int64_t now = testing::NowMillis();
  // A field this server does not know (a newer client's: number 15, varint
  // 1), which the wire reader skips, and a group, which it leaves to protobuf.
  const std::string unknown_field =
      testing::WriteRequest("mydb", "tbl", {testing::CpuRecord("a", now, 1.0)})
          .SerializeAsString() +
      std::string("\x78\x01", 2);
  const std::string unknown_group =
      testing::WriteRequest("mydb", "tbl", {testing::CpuRecord("c", now, 3.0)})
          .SerializeAsString() +
      std::string("\x7b\x08\x01\x7c", 4);
  // common_attributes given in two parts, which protobuf merges.
  auto common_part = [](const std::string& name, const std::string& value) {
    v1::Record part;
    v1::Dimension* d = part.add_dimensions();
    d->set_name(name);
    d->set_value(value);
    const std::string bytes = part.SerializeAsString();
    return "\x1a" + std::string(1, static_cast<char>(bytes.size())) + bytes;
  };
  const std::string split_common =
      testing::WriteRequest("mydb", "tbl", {testing::CpuRecord("b", now, 2.0)})
          .SerializeAsString() +
      common_part("region", "eu") + common_part("rack", "r1");
  for (const std::string& bytes : {unknown_field, split_common, unknown_group}) {
    grpc::Status status = CallRaw("/strata.v1.WriteService/WriteRecords", bytes);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  testing::QueryResult result = testing::RunQuery(
      server_.channel(),
      "SELECT host, region, rack, measure_value::double FROM mydb.tbl ORDER BY host");
  ASSERT_TRUE(result.status.ok()) << result.status.error_message();
  EXPECT_EQ(testing::RowsText(result.rows), "a|NULL|NULL|1\nb|eu|r1|2\nc|NULL|NULL|3\n");
}

TEST_F(MalformedRequestE2ETest, UnknownEnumValuesRejectTheirRecordOnly) {
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  const int64_t now = testing::NowMillis();
  std::vector<v1::Record> records = {testing::CpuRecord("a", now, 1.0),
                                     testing::CpuRecord("b", now, 2.0),
                                     testing::CpuRecord("c", now, 3.0)};
  records[1].set_time_unit(static_cast<v1::TimeUnit>(99));
  records[2].set_measure_value_type(static_cast<v1::MeasureValueType>(77));
  auto writer = v1::WriteService::NewStub(server_.channel());
  grpc::ClientContext context;
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(
      writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", records), &response).ok());
  EXPECT_EQ(response.records_ingested().total(), 1);
  ASSERT_EQ(response.rejected_records_size(), 2);
  EXPECT_EQ(response.rejected_records(0).record_index(), 1);
  EXPECT_NE(response.rejected_records(0).reason().find("time_unit 99"), std::string::npos)
      << response.rejected_records(0).reason();
  EXPECT_EQ(response.rejected_records(1).record_index(), 2);
  EXPECT_NE(response.rejected_records(1).reason().find("measure_value_type 77"), std::string::npos)
      << response.rejected_records(1).reason();
}

TEST_F(MalformedRequestE2ETest, ARejectionReasonCutInsideACharacterStaysReadable) {
  // 86 x '€' (258 bytes) is past the 256-byte limit; the reason quotes the
  // name cut short. Cut inside a character, the whole response would fail to
  // parse on the client and it could not tell what was written.
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  v1::Record record = testing::CpuRecord("a", testing::NowMillis(), 1.0);
  std::string euros;
  for (int i = 0; i < 86; ++i) euros += "\xe2\x82\xac";
  record.set_measure_name(euros);
  auto writer = v1::WriteService::NewStub(server_.channel());
  grpc::ClientContext context;
  v1::WriteRecordsResponse response;
  grpc::Status status =
      writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", {record}), &response);
  ASSERT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  ASSERT_EQ(response.rejected_records_size(), 1);
  EXPECT_NE(response.rejected_records(0).reason().find("\xe2\x82\xac\xe2\x82\xac"),
            std::string::npos);
  EXPECT_NE(response.rejected_records(0).reason().find("258 bytes"), std::string::npos)
      << response.rejected_records(0).reason();
}

TEST_F(MalformedRequestE2ETest, ErrorMessagesDoNotEchoHugeInputs) {
  // A 1 MB table name: the error is short enough to be received, and says what is wrong.
  auto writer = v1::WriteService::NewStub(server_.channel());
  grpc::ClientContext context;
  v1::WriteRecordsResponse response;
  std::vector<v1::Record> records = {testing::CpuRecord("a", testing::NowMillis(), 1.0)};
  grpc::Status status = writer->WriteRecords(
      &context, testing::WriteRequest("mydb", std::string(1 << 20, 't'), records), &response);
  EXPECT_NE(status.error_code(), grpc::StatusCode::OK);
  EXPECT_NE(status.error_code(), grpc::StatusCode::UNKNOWN) << status.error_message();
  EXPECT_LT(status.error_message().size(), 4200u);
}

}  // namespace
}  // namespace strata
