#include "tests/support/query_helpers.h"

#include <algorithm>
#include <sstream>

#include "client/column_pages.h"
#include "grpcpp/client_context.h"
#include "strata/v1/query.grpc.pb.h"

namespace strata::testing {

QueryResult RunQuery(const std::shared_ptr<grpc::Channel>& channel, const std::string& sql,
                     int page_size, const std::string& token) {
  v1::QueryRequest request;
  request.set_query_string(sql);
  request.set_page_size(page_size);
  return RunQueryRequest(channel, request, token);
}

QueryResult RunQueryRequest(const std::shared_ptr<grpc::Channel>& channel,
                            const v1::QueryRequest& request, const std::string& token) {
  auto stub = v1::QueryService::NewStub(channel);
  QueryResult result;
  grpc::ClientContext context;
  if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
  auto reader = stub->Query(&context, request);
  v1::QueryResponse message;
  while (reader->Read(&message)) {
    if (message.has_metadata()) result.metadata = message.metadata();
    if (message.has_page()) {
      ++result.pages;
      result.largest_page = std::max(result.largest_page, message.page().rows_size());
      for (const auto& row : message.page().rows()) result.rows.push_back(row);
    }
    if (message.has_column_page()) {
      ++result.pages;
      result.largest_page = std::max(result.largest_page, message.column_page().row_count());
      absl::StatusOr<v1::RowPage> page =
          cli::RowsFromColumns(result.metadata, message.column_page());
      if (!page.ok()) {
        result.status =
            grpc::Status(grpc::StatusCode::INTERNAL, std::string(page.status().message()));
        context.TryCancel();
        while (reader->Read(&message)) {
        }
        reader->Finish();
        return result;
      }
      for (const auto& row : page->rows()) result.rows.push_back(row);
    }
    if (message.has_statistics()) result.statistics = message.statistics();
  }
  result.status = reader->Finish();
  return result;
}

std::string RowsText(const std::vector<v1::Row>& rows) {
  std::string out;
  for (const v1::Row& row : rows) {
    for (int i = 0; i < row.data_size(); ++i) {
      if (i > 0) out += "|";
      const v1::Datum& d = row.data(i);
      switch (d.value_case()) {
        case v1::Datum::kDoubleValue: {
          std::ostringstream number;
          number << d.double_value();
          out += number.str();
          break;
        }
        case v1::Datum::kBigintValue: out += std::to_string(d.bigint_value()); break;
        case v1::Datum::kVarcharValue: out += d.varchar_value(); break;
        case v1::Datum::kBooleanValue: out += d.boolean_value() ? "true" : "false"; break;
        case v1::Datum::kTimestampValue: out += std::to_string(d.timestamp_value()); break;
        case v1::Datum::kNullValue: out += "NULL"; break;
        default: out += d.ShortDebugString();
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace strata::testing
