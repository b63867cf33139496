// QueryService handlers: admit a query to the worker pool (or refuse it when
// the queue is full), run it there and stream the result (metadata, row
// pages, statistics) with backpressure; CancelQuery, client cancellation and
// the timeout (also while the client is not reading) stop the query. Every
// query's memory, its pages waiting for the client included, comes from one
// server-wide budget.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <vector>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "query/engine.h"
#include "query/memory_budget.h"
#include "query/system_tables.h"
#include "server/metrics.h"
#include "server/query_workers.h"
#include "server/unary.h"
#include "strata/v1/query.grpc.pb.h"

namespace strata {

// Placeholder values sent with a query (QueryRequest.parameters) as typed
// literals; INVALID_ARGUMENT for a value of no usable type or a name sent twice.
absl::StatusOr<query::QueryParameters> ParametersFromProto(
    const google::protobuf::RepeatedPtrField<v1::QueryParameter>& parameters);

struct QueryLimits {
  int64_t default_timeout_millis = 300'000;
  int64_t memory_limit_bytes = 256 << 20;         // one query
  int64_t total_memory_bytes = int64_t{2} << 30;  // all queries together
  int workers = 4;                                // queries running at once
  int queue = 64;                                 // queries waiting for a worker
  int64_t slow_query_millis = 1000;               // slower queries are logged; -1: none
  int64_t testing_delay_millis = 0;               // --testing-query-delay-ms
};

// Both methods served from raw bytes (server/unary.h): a request that does
// not parse gets INVALID_ARGUMENT.
using RawQueryService = v1::QueryService::WithRawCallbackMethod_Query<
    v1::QueryService::WithRawCallbackMethod_CancelQuery<v1::QueryService::Service>>;

class QueryService final : public RawQueryService {
 public:
  // The arguments must outlive the service.
  QueryService(Engine* engine, Authenticator* auth, ServerMetrics* metrics, QueryLimits limits);

  grpc::ServerWriteReactor<grpc::ByteBuffer>* Query(grpc::CallbackServerContext* context,
                                                    const grpc::ByteBuffer* request) override;
  STRATA_SERVE_UNARY(CancelQuery, v1::CancelQueryRequest, v1::CancelQueryResponse);

  // A running query, for CancelQuery, SHOW QUERIES and KILL QUERY.
  struct Running {
    std::shared_ptr<std::atomic<bool>> cancel;
    std::string owner;  // the caller's token name: only it, or an admin, may see or cancel it
    std::string text;
    std::string peer;
    int64_t started_nanos = 0;  // since the Unix epoch
    std::chrono::steady_clock::time_point started;
    // What it has read so far (the engine's scans publish it).
    std::shared_ptr<query::QueryProgress> progress = std::make_shared<query::QueryProgress>();
  };
  // Registers a running query; returns its id.
  std::string Register(Running running);
  void Unregister(const std::string& query_id);
  // The running queries `caller` may see.
  std::vector<query::RunningQuery> ListRunning(const Principal& caller);
  // Cancels query `id` for `caller`; false when it is not running or not
  // the caller's to cancel.
  bool Cancel(const Principal& caller, const std::string& id);

  // A query from another front door (the PostgreSQL wire protocol), run as a
  // gRPC Query is: admitted to the same workers (RESOURCE_EXHAUSTED when the
  // queue is full), registered for SHOW QUERIES and KILL QUERY, its memory
  // from the same budget, counted and logged alike. Blocks until the query
  // ends; `sink` is called on a worker thread.
  struct LocalQuery {
    std::shared_ptr<const Principal> caller;
    std::string sql;
    query::QueryParameters parameters;
    std::string peer;
    // The front door's own cancel (a PostgreSQL CancelRequest) sets it.
    std::shared_ptr<std::atomic<bool>> cancel;
    int page_size = 1000;
    bool describe_only = false;  // QueryOptions::describe_only
    std::string default_database;  // QueryOptions::default_database
  };
  absl::StatusOr<query::QueryStats> RunLocal(const LocalQuery& local, query::ResultSink* sink);
  // The budget every query's memory comes from: a front door that keeps a
  // result past its query (a PostgreSQL portal fetched with a row limit)
  // reserves it here too.
  query::MemoryBudget& memory_budget() { return budget_; }

  // Makes the "system" tables a caller sees (query/system_tables.h); set
  // once, before serving.
  using SystemTablesFactory = std::function<std::unique_ptr<query::SystemTables>(
      std::shared_ptr<const Principal> caller)>;
  void SetSystemTables(SystemTablesFactory factory) { system_tables_ = std::move(factory); }

 private:
  class Call;

  // Counts a finished query for /metrics, and logs it when it was slow.
  void Observe(const std::string& id, const std::string& token, std::string_view sql,
               const absl::StatusOr<query::QueryStats>& stats, double seconds);

  query::QueryEngine engine_;
  SystemTablesFactory system_tables_;
  Authenticator& auth_;
  ServerMetrics& metrics_;
  QueryLimits limits_;
  query::MemoryBudget budget_;
  absl::Mutex mu_;
  std::map<std::string, Running> running_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  // Last: destroyed first, so running tasks finish while the rest is alive.
  QueryWorkers workers_;
};

}  // namespace strata
