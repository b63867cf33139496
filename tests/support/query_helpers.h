// Running a Query over gRPC in tests and collecting what it streams.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grpcpp/channel.h"
#include "grpcpp/support/status.h"
#include "strata/v1/query.pb.h"

namespace strata::testing {

struct QueryResult {
  grpc::Status status;
  v1::QueryMetadata metadata;
  std::vector<v1::Row> rows;
  int pages = 0;
  int largest_page = 0;  // the rows of the largest page
  v1::QueryStatistics statistics;
};

// Runs `sql` to the end (page_size 0: the server's default), with `token`
// as the bearer token when set.
QueryResult RunQuery(const std::shared_ptr<grpc::Channel>& channel, const std::string& sql,
                     int page_size = 0, const std::string& token = "");

// Runs `request` to the end, with `token` as the bearer token when set. Columnar pages
// (QueryRequest.columnar) are read back into rows (a page that does not match its columns
// ends the call with INTERNAL).
QueryResult RunQueryRequest(const std::shared_ptr<grpc::Channel>& channel,
                            const v1::QueryRequest& request, const std::string& token = "");

// The rows as text, one line per row, cells separated by "|": NULL,
// numbers, text, true/false; timestamps as nanoseconds.
std::string RowsText(const std::vector<v1::Row>& rows);

}  // namespace strata::testing
