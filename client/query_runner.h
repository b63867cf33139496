// Runs one SQL statement and streams its pages into a ResultWriter as they
// arrive. Ctrl-C (see interrupt.h) cancels the query on the server with
// CancelQuery and ends the call; the caller decides whether that ends the
// process (`strata query`) or only the statement (`strata shell`).
#pragma once

#include <string>

#include "client/connection.h"
#include "client/result_format.h"

namespace strata::cli {

struct QueryOutcome {
  grpc::Status status;
  bool interrupted = false;
  bool has_statistics = false;
  v1::QueryStatistics statistics;
};

// REQUIRES: an InterruptScope is alive if Ctrl-C should cancel the query.
// `timeout_seconds` 0: the server's default. `database`: the database of
// unqualified table names (QueryRequest.database). `read`: a cluster's read choice
// (unset parts: the node's).
QueryOutcome RunQuery(Connection& connection, const std::string& sql, ResultWriter& writer,
                      int page_size = 0, double timeout_seconds = 0,
                      const std::string& database = "", const v1::ReadOptions& read = {});

// "12 rows in 3.2 ms; scanned 1000 rows (96 KB), 4 series (12 pruned), ..."
std::string StatisticsText(const v1::QueryStatistics& statistics);

}  // namespace strata::cli
