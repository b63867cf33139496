// The CLI against a server that sends what protobuf cannot parse (a string
// that is not UTF-8, as stratad once did): the CLI must say so and exit,
// never wait forever for the rest of the stream. The server here is a
// stand-in in the test process, since stratad no longer sends such bytes.
#include <chrono>
#include <thread>

#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "strata/v1/query.grpc.pb.h"
#include "tests/support/subprocess.h"

namespace strata {
namespace {

class BrokenQueryService final : public v1::QueryService::Service {
  grpc::Status Query(grpc::ServerContext*, const v1::QueryRequest*,
                     grpc::ServerWriter<v1::QueryResponse>* writer) override {
    v1::QueryResponse metadata;
    metadata.mutable_metadata()->set_query_id("q1");
    auto* column = metadata.mutable_metadata()->add_columns();
    column->set_name("s");
    column->mutable_type()->set_scalar_type(v1::SCALAR_TYPE_VARCHAR);
    writer->Write(metadata);
    v1::QueryResponse page;
    page.mutable_page()->add_rows()->add_data()->set_varchar_value("ok");
    writer->Write(page);
    v1::QueryResponse broken;
    broken.mutable_page()->add_rows()->add_data()->set_varchar_value("\xC3");  // half of 'é'
    writer->Write(broken);
    // More of the stream follows, as a long result would.
    for (int i = 0; i < 3; ++i) writer->Write(page);
    return grpc::Status::OK;
  }
};

TEST(CliUndecodableE2ETest, AResponseThatCannotBeDecodedEndsTheQueryWithAMessage) {
  BrokenQueryService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(port, 0);

  testing::ProcessResult r = testing::RunProcess(
      {STRATA_CLI_PATH, "--port", std::to_string(port), "query", "SELECT s FROM mydb.tbl"}, "", {},
      std::chrono::seconds(60));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 128 + 9) << "killed by the test's timeout: the CLI hung";
  EXPECT_NE(r.err.find("could not be decoded"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("ok"), std::string::npos) << "rows before the bad page are printed";
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

}  // namespace
}  // namespace strata
