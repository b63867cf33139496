// SHOW QUERIES and KILL QUERY: the server's running queries as the caller
// may see them (QueryOptions::running).
#include "common/status.h"
#include "query/statements.h"

namespace strata::query {
namespace {

absl::Status NeedsTheServer(const StatementRun& run) {
  if (run.options.running != nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError("SHOW QUERIES and KILL QUERY need the server");
}

}  // namespace

absl::Status ShowQueries(const Statement& /*stmt*/, const StatementRun& run) {
  RETURN_IF_ERROR(NeedsTheServer(run));
  std::vector<Row> rows;
  for (const RunningQuery& q : run.options.running->List()) {
    rows.push_back({Datum::Varchar(q.id), Datum::Varchar(q.text), Datum::Varchar(q.token),
                    Datum::Varchar(q.peer), Datum::Timestamp(q.started_nanos),
                    Datum::Interval(q.elapsed_nanos), Datum::Bigint(q.rows_scanned),
                    Datum::Bigint(q.bytes_scanned)});
  }
  return run.Emit({{"query_id", DataType::kVarchar},
                   {"query", DataType::kVarchar},
                   {"token", DataType::kVarchar},
                   {"client", DataType::kVarchar},
                   {"started", DataType::kTimestamp},
                   {"elapsed", DataType::kInterval},
                   {"rows_scanned", DataType::kBigint},
                   {"bytes_scanned", DataType::kBigint}},
                  std::move(rows));
}

absl::Status KillQuery(const Statement& stmt, const StatementRun& run) {
  RETURN_IF_ERROR(NeedsTheServer(run));
  RETURN_IF_ERROR(run.options.running->Kill(stmt.query_id));
  return run.Emit({{"killed", DataType::kVarchar}}, {{Datum::Varchar(stmt.query_id)}});
}

}  // namespace strata::query
