// QueryService handlers: run SQL on a worker thread per query and stream the
// result (metadata, row pages, statistics) with backpressure; CancelQuery
// and client cancellation stop the query.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "query/engine.h"
#include "strata/v1/query.grpc.pb.h"

namespace strata {

struct QueryLimits {
  int64_t default_timeout_millis = 300'000;
  int64_t memory_limit_bytes = 256 << 20;
};

class QueryService final : public v1::QueryService::CallbackService {
 public:
  // `engine` must outlive the service.
  QueryService(Engine* engine, QueryLimits limits) : engine_(engine), limits_(limits) {}

  grpc::ServerWriteReactor<v1::QueryResponse>* Query(grpc::CallbackServerContext* context,
                                                      const v1::QueryRequest* request) override;
  grpc::ServerUnaryReactor* CancelQuery(grpc::CallbackServerContext* context,
                                        const v1::CancelQueryRequest* request,
                                        v1::CancelQueryResponse* response) override;

  // Running queries by id, for CancelQuery.
  std::string Register(std::shared_ptr<std::atomic<bool>> cancel);
  void Unregister(const std::string& query_id);

 private:
  class Call;

  query::QueryEngine engine_;
  QueryLimits limits_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata
