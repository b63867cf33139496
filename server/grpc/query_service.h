// QueryService handlers: a Query call's statement runs through the query
// runner (server/runner/query_runner.h: admission, registry, budget,
// timeout) and its result streams back (metadata, row or column pages,
// statistics) with backpressure; CancelQuery, client cancellation and the
// timeout (also while the client is not reading) stop the query. Pages
// waiting for the client come from the runner's memory budget. Query is
// served through gRPC's async API on the server's CallQueues (rpc/call_queues.h):
// a small query's fixed cost is mostly gRPC's threading.
#pragma once

#include "absl/status/statusor.h"
#include "query/engine.h"
#include "rpc/call_queues.h"
#include "server/grpc/unary.h"
#include "server/runner/query_runner.h"
#include "strata/v1/query.grpc.pb.h"

namespace strata {

// Both methods served from raw bytes on the server's CallQueues: a request
// that does not parse gets INVALID_ARGUMENT. CancelQuery as every unary
// method (server/grpc/unary.h).
using RawQueryService = v1::QueryService::WithRawMethod_Query<
    v1::QueryService::WithRawMethod_CancelQuery<v1::QueryService::Service>>;

class QueryService final : public RawQueryService {
 public:
  // The arguments must outlive the service. `max_message_bytes`: the largest message the
  // server sends (--max-message-bytes); a page is cut well below it.
  QueryService(QueryRunner* runner, Authenticator* auth, int64_t max_message_bytes)
      : runner_(*runner), auth_(*auth), max_message_bytes_(max_message_bytes) {}

  // Serves both methods on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(CancelQuery, v1::CancelQueryRequest, v1::CancelQueryResponse);

 private:
  class Call;

  QueryRunner& runner_;
  Authenticator& auth_;
  const int64_t max_message_bytes_;
  CallQueues* queues_ = nullptr;
};

}  // namespace strata
