// What GET /metrics exposes (docs/operations.md), in the Prometheus text
// format through prometheus-cpp. Two kinds:
// - counters and histograms updated where things happen: one family lookup
//   per request (never per record), the values themselves atomics;
// - gauges read when Prometheus scrapes: query admission, per-table sizes
//   and maintenance, RocksDB internals, the process.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "query/engine.h"
#include "storage/engine.h"

namespace strata {

// Query admission as the query runner sees it now.
struct AdmissionSnapshot {
  int running = 0;
  int queued = 0;
  int64_t refused = 0;
  int64_t memory_used_bytes = 0;
  int64_t memory_limit_bytes = 0;
  int64_t memory_refusals = 0;
};

// This node's replica of one shard of a cluster (docs/cluster.md), read at scrape time.
struct ShardSnapshot {
  uint32_t shard = 0;
  bool leading = false;
  int64_t epoch = 0;
  bool healthy = true;
  uint64_t applied = 0;
  uint64_t entries_applied = 0;
  uint64_t entries_refused = 0;
  uint64_t entries_published = 0;
};

class ServerMetrics {
 public:
  // `engine` must outlive the metrics.
  explicit ServerMetrics(Engine* engine);

  // Where scrape-time admission figures come from (the query runner).
  void SetAdmissionSource(std::function<AdmissionSnapshot()> source);

  // One finished gRPC call: `method` is "/strata.v1.WriteService/WriteRecords".
  void CountRpc(std::string_view method, int grpc_code, double seconds);
  // One WriteRecords that was carried out (its ingested and rejected records).
  void CountWrite(const WriteResult& result);
  // One query that ran (or failed while running).
  void CountQuery(const absl::Status& status, const query::QueryStats& stats, double seconds);
  // One small leader read on a cluster node's own replicas (docs/cluster.md, "A small leader
  // read"): `confirmed`, or a replica was behind its leader and the query was read again;
  // `leaders_asked`, the other nodes it asked what their shards' leaders applied.
  void CountLocalLeaderRead(bool confirmed, int leaders_asked);
  // One HTTP request answered: `endpoint` is a route ("/write") or "other".
  void CountHttpRequest(std::string_view endpoint, int http_status);
  // Where the open connections of a front door ("http", "postgres") are
  // counted, read at scrape time.
  void SetConnectionSource(std::string door, std::function<int()> open);
  // On a cluster: where this node's shard replicas are read at scrape time.
  void SetShardSource(std::function<std::vector<ShardSnapshot>()> source);

  // Everything, in the Prometheus text exposition format.
  std::string Render() const;

 private:
  class ScrapeCollector;

  Engine& engine_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<ScrapeCollector> scrape_;
  prometheus::Family<prometheus::Counter>& rpcs_;
  prometheus::Family<prometheus::Counter>& http_requests_;
  prometheus::Family<prometheus::Histogram>& rpc_seconds_;
  prometheus::Family<prometheus::Counter>& ingested_;
  prometheus::Counter& ingested_memory_;
  prometheus::Counter& ingested_magnetic_;
  prometheus::Family<prometheus::Counter>& rejected_;
  prometheus::Family<prometheus::Counter>& queries_;
  prometheus::Histogram& query_seconds_;
  prometheus::Counter& query_rows_scanned_;
  prometheus::Counter& query_bytes_scanned_;
  prometheus::Counter& query_rows_returned_;
  prometheus::Counter& query_rows_relayed_;
  prometheus::Family<prometheus::Counter>& local_leader_reads_;
  prometheus::Counter& local_leader_read_questions_;
};

}  // namespace strata
