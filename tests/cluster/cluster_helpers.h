// What the cluster tests do through a node's public API: write, create a table, read a
// table back, and skip when etcd or nats-server is not installed.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "strata/v1/scheduled_query.pb.h"
#include "strata/v1/write.pb.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {

class TestCluster;

bool HaveClusterServers();

#define REQUIRE_CLUSTER_SERVERS() \
  if (!HaveClusterServers()) GTEST_SKIP() << "etcd or nats-server is missing: scripts/deps.sh"

// WriteRecords of `records` into demo.`table` through `node`, with `token` as the bearer
// token when set.
grpc::Status Write(StratadProcess& node, const std::string& table, std::vector<v1::Record> records,
                   v1::WriteRecordsResponse* response, const std::string& token = "");
// The same through BulkWriteRecords (up to 10,000 records).
grpc::Status BulkWrite(StratadProcess& node, const std::string& table,
                       std::vector<v1::Record> records, v1::WriteRecordsResponse* response);
// One cpu record for each of hosts h0..h<count-1> at `time_millis`, host hi's value i.
std::vector<v1::Record> HostRecords(int count, int64_t time_millis);
// Creates demo.`table` through `node`, partitioned by the dimension `partition_key` when
// one is named, with `token` as the bearer token when set.
grpc::Status CreateTable(StratadProcess& node, const std::string& table,
                         const std::string& partition_key = "", const std::string& token = "");
// demo.late, a memory store of one hour and 30 days of magnetic store, through `node`:
// created (`create`) or changed, taking magnetic-store writes while `enable`.
grpc::Status SetUpLateTable(StratadProcess& node, bool create, bool enable);
// host|time|value of every row of demo.`table`, through `node` (`own_replicas`: read from
// the node's own replicas where it holds them).
std::map<std::pair<std::string, int64_t>, double> ReadAll(StratadProcess& node,
                                                          const std::string& table,
                                                          bool own_replicas = false);

// The value of `series` (a metric's name and labels as /metrics writes them) in `node`'s
// GET /metrics; -1 when the node does not answer or has no such series.
double MetricValue(StratadProcess& node, const std::string& series);

// A call's context with `token` as its bearer token (none when empty) and a 20 s deadline.
std::unique_ptr<grpc::ClientContext> WithToken(const std::string& token);

// What `get` answers once it answers `want`, or its last answer after 30 s: for what other
// nodes learn through a watch.
template <typename T>
T Eventually(const std::function<T()>& get, const T& want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  T got = get();
  while (got != want && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    got = get();
  }
  return got;
}

// The scheduled query "cpu_1m": every minute, each host's maximum of demo.cpu over the five
// minutes before into demo.cpu_1m (multi-measure "stats", max_cpu).
v1::CreateScheduledQueryRequest Cpu1mScheduledQuery();

// Sets the clock of `node` (started with --testing-fixed-time) to `unix_seconds`, which runs
// the scheduled queries then due.
grpc::Status SetClock(StratadProcess& node, int64_t unix_seconds, const std::string& token = "");

// Per shard, one column of "system"."cluster_shards" as text, as `node` reports it (a shard's
// first row where it has one per replica); empty if the query fails.
std::map<int64_t, std::string> ShardColumn(StratadProcess& node, const std::string& column);

// Batches of one cpu record for each of 20 hosts, written at times of their own through a
// cluster's nodes, and what was acknowledged.
class HostBatches {
 public:
  // Writes `count` batches through the nodes `through` in turn. A batch that fails (a
  // shard between leaders) is not acknowledged and not counted.
  void Write(TestCluster& cluster, int count, const std::vector<int>& through);
  // host|time|value of every acknowledged record, as ReadAll reads them.
  const std::map<std::pair<std::string, int64_t>, double>& acknowledged() const {
    return acknowledged_;
  }

 private:
  int64_t base_ = NowMillis() - 600'000;
  int next_ = 0;
  std::map<std::pair<std::string, int64_t>, double> acknowledged_;
};

}  // namespace strata::testing
