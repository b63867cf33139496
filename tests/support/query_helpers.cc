#include "tests/support/query_helpers.h"

#include "grpcpp/client_context.h"
#include "strata/v1/query.grpc.pb.h"

namespace strata::testing {

QueryResult RunQuery(const std::shared_ptr<grpc::Channel>& channel, const std::string& sql,
                     int page_size, const std::string& token) {
  auto stub = v1::QueryService::NewStub(channel);
  QueryResult result;
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  v1::QueryRequest request;
  request.set_query_string(sql);
  request.set_page_size(page_size);
  auto reader = stub->Query(&context, request);
  v1::QueryResponse message;
  while (reader->Read(&message)) {
    if (message.has_metadata()) result.metadata = message.metadata();
    if (message.has_page()) {
      ++result.pages;
      for (const auto& row : message.page().rows()) result.rows.push_back(row);
    }
    if (message.has_statistics()) result.statistics = message.statistics();
  }
  result.status = reader->Finish();
  return result;
}

}  // namespace strata::testing
