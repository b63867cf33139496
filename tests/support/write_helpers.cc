#include "tests/support/write_helpers.h"

#include <chrono>

#include "grpcpp/client_context.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"

namespace strata::testing {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

v1::Record CpuRecord(const std::string& host, int64_t time_millis, double value,
                     int64_t version) {
  v1::Record r;
  auto* d = r.add_dimensions();
  d->set_name("host");
  d->set_value(host);
  r.set_measure_name("cpu");
  r.mutable_measure_value()->set_double_value(value);
  r.set_time(time_millis);
  if (version > 0) r.set_version(version);
  return r;
}

v1::WriteRecordsRequest WriteRequest(const std::string& database, const std::string& table,
                                     std::vector<v1::Record> records) {
  v1::WriteRecordsRequest request;
  request.set_database_name(database);
  request.set_table_name(table);
  for (auto& r : records) *request.add_records() = std::move(r);
  return request;
}

grpc::Status CreateDatabase(const std::shared_ptr<grpc::Channel>& channel,
                            const std::string& database, const std::string& token) {
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  v1::CreateDatabaseRequest request;
  request.set_database_name(database);
  v1::CreateDatabaseResponse response;
  return v1::CatalogService::NewStub(channel)->CreateDatabase(&context, request, &response);
}

std::string CreateToken(const std::shared_ptr<grpc::Channel>& channel, const std::string& admin,
                        const std::string& name, const std::string& grant) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + admin);
  v1::CreateTokenRequest request;
  request.set_name(name);
  request.add_grants(grant);
  v1::CreateTokenResponse response;
  if (!v1::AuthService::NewStub(channel)->CreateToken(&context, request, &response).ok()) return "";
  return response.secret();
}

grpc::Status CreateDatabaseAndTable(const std::shared_ptr<grpc::Channel>& channel,
                                    const std::string& database, const std::string& table) {
  auto catalog = v1::CatalogService::NewStub(channel);
  grpc::Status status = CreateDatabase(channel, database);
  if (!status.ok()) return status;
  grpc::ClientContext table_context;
  v1::CreateTableRequest t;
  t.set_database_name(database);
  t.set_table_name(table);
  v1::CreateTableResponse table_response;
  return catalog->CreateTable(&table_context, t, &table_response);
}

}  // namespace strata::testing
