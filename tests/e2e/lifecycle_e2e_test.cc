// stratad as a process: health, reflection, shutdown and start-up failures.
#include <algorithm>
#include <fstream>
#include <future>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"

namespace strata {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

TEST(LifecycleE2ETest, HealthReportsEveryService) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start()) << server.error();
  auto health = grpc::health::v1::Health::NewStub(server.channel());
  for (const char* service : {"", "strata.v1.CatalogService", "strata.v1.WriteService",
                              "strata.v1.QueryService"}) {
    grpc::ClientContext context;
    HealthCheckRequest request;
    request.set_service(service);
    HealthCheckResponse response;
    ASSERT_TRUE(health->Check(&context, request, &response).ok()) << service;
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING) << service;
  }
  grpc::ClientContext context;
  HealthCheckRequest request;
  request.set_service("strata.v1.NoSuchService");
  HealthCheckResponse response;
  EXPECT_EQ(health->Check(&context, request, &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

// Watch streams a service's status and each change; the stop tells every
// watcher NOT_SERVING and ends its stream, so a watching load balancer neither
// misses the stop nor holds it for the grace period (the stream would then be
// cut with CANCELLED and no NOT_SERVING).
TEST(LifecycleE2ETest, HealthWatchStreamsTheStatusAndEndsAtTheStop) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--shutdown-grace-seconds", "30"})) << server.error();
  auto health = grpc::health::v1::Health::NewStub(server.channel());
  grpc::ClientContext known_context;
  grpc::ClientContext unknown_context;
  HealthCheckRequest known;
  known.set_service("strata.v1.QueryService");
  HealthCheckRequest unknown;
  unknown.set_service("strata.v1.NoSuchService");
  auto known_stream = health->Watch(&known_context, known);
  auto unknown_stream = health->Watch(&unknown_context, unknown);
  HealthCheckResponse response;
  ASSERT_TRUE(known_stream->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  ASSERT_TRUE(unknown_stream->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVICE_UNKNOWN);

  std::future<int> stopped = std::async(std::launch::async, [&server] { return server.Stop(); });
  for (auto* stream : {known_stream.get(), unknown_stream.get()}) {
    ASSERT_TRUE(stream->Read(&response));
    EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
    EXPECT_FALSE(stream->Read(&response));
    grpc::Status end = stream->Finish();
    EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE) << end.error_message();
  }
  EXPECT_EQ(stopped.get(), 0);
  EXPECT_NE(server.log().find("stopped cleanly"), std::string::npos) << server.log();
}

TEST(LifecycleE2ETest, ReflectionListsTheThreeServices) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start()) << server.error();
  auto reflection = grpc::reflection::v1alpha::ServerReflection::NewStub(server.channel());
  grpc::ClientContext context;
  auto stream = reflection->ServerReflectionInfo(&context);
  grpc::reflection::v1alpha::ServerReflectionRequest request;
  request.set_list_services("");
  ASSERT_TRUE(stream->Write(request));
  grpc::reflection::v1alpha::ServerReflectionResponse response;
  ASSERT_TRUE(stream->Read(&response));
  std::vector<std::string> services;
  for (const auto& s : response.list_services_response().service()) services.push_back(s.name());
  for (const char* want : {"strata.v1.CatalogService", "strata.v1.WriteService",
                           "strata.v1.QueryService", "grpc.health.v1.Health"}) {
    EXPECT_NE(std::find(services.begin(), services.end(), want), services.end()) << want;
  }

  // The descriptors are served too, so grpcurl can build requests.
  grpc::reflection::v1alpha::ServerReflectionRequest symbol;
  symbol.set_file_containing_symbol("strata.v1.CatalogService");
  ASSERT_TRUE(stream->Write(symbol));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_GT(response.file_descriptor_response().file_descriptor_proto_size(), 0);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST(LifecycleE2ETest, SigtermStopsCleanly) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--log-format", "json"})) << server.error();
  EXPECT_EQ(server.Stop(), 0);
  std::string log = server.log();
  EXPECT_NE(log.find(R"("msg":"stratad stopped cleanly")"), std::string::npos) << log;
}

TEST(LifecycleE2ETest, PortInUseIsAClearError) {
  testing::StratadProcess first;
  ASSERT_TRUE(first.Start()) << first.error();
  testing::StratadProcess second;
  int code = second.RunToExit({"--data-dir", second.data_dir(), "--listen", first.address()});
  EXPECT_EQ(code, 1);
  EXPECT_NE(second.log().find("cannot listen on " + first.address()), std::string::npos)
      << second.log();
}

TEST(LifecycleE2ETest, LockedDataDirIsAClearError) {
  testing::StratadProcess first;
  ASSERT_TRUE(first.Start()) << first.error();
  testing::StratadProcess second;
  int code = second.RunToExit({"--data-dir", first.data_dir(), "--listen", "127.0.0.1:0"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(second.log().find("is locked by another process"), std::string::npos)
      << second.log();
}

TEST(LifecycleE2ETest, UncreatableDataDirIsAClearError) {
  // Nobody, not even root, can make a directory under /proc.
  testing::StratadProcess server;
  int code = server.RunToExit({"--data-dir", "/proc/strata-data", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(server.log().find("cannot create data directory \"/proc/strata-data\""),
            std::string::npos)
      << server.log();
}

TEST(LifecycleE2ETest, DataDirThatIsAFileIsAClearError) {
  testing::StratadProcess server;
  std::string file = server.data_dir() + "-file";
  std::ofstream(file) << "not a directory";
  int code = server.RunToExit({"--data-dir", file, "--listen", "127.0.0.1:0"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(server.log().find("cannot create data directory"), std::string::npos) << server.log();
}

TEST(LifecycleE2ETest, BadFlagsExitWithTwo) {
  testing::StratadProcess server;
  EXPECT_EQ(server.RunToExit({"--no-such-flag"}), 2);
  EXPECT_EQ(server.RunToExit({"--listen", "nonsense"}), 2);
  EXPECT_NE(server.log().find("is not HOST:PORT"), std::string::npos) << server.log();
  EXPECT_EQ(server.RunToExit({"--listen", "0.0.0.0:0"}), 2);
  EXPECT_NE(server.log().find("--allow-unauthenticated-remote"), std::string::npos);
  EXPECT_EQ(server.RunToExit({"--help"}), 0);
}

}  // namespace
}  // namespace strata
