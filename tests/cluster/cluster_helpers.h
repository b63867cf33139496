// What the cluster tests do through a node's public API: write, create a table, read a
// table back, and skip when etcd or nats-server is not installed.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "strata/v1/write.pb.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {

class TestCluster;

bool HaveClusterServers();

#define REQUIRE_CLUSTER_SERVERS() \
  if (!HaveClusterServers()) GTEST_SKIP() << "etcd or nats-server is missing: scripts/deps.sh"

// WriteRecords of `records` into demo.`table` through `node`.
grpc::Status Write(StratadProcess& node, const std::string& table, std::vector<v1::Record> records,
                   v1::WriteRecordsResponse* response);
// One cpu record for each of hosts h0..h<count-1> at `time_millis`, host hi's value i.
std::vector<v1::Record> HostRecords(int count, int64_t time_millis);
// Creates demo.`table` through `node`, partitioned by the dimension `partition_key` when
// one is named.
grpc::Status CreateTable(StratadProcess& node, const std::string& table,
                         const std::string& partition_key = "");
// demo.late, a memory store of one hour and 30 days of magnetic store, through `node`:
// created (`create`) or changed, taking magnetic-store writes while `enable`.
grpc::Status SetUpLateTable(StratadProcess& node, bool create, bool enable);
// host|time|value of every row of demo.`table`, through `node` (`own_replicas`: read from
// the node's own replicas where it holds them).
std::map<std::pair<std::string, int64_t>, double> ReadAll(StratadProcess& node,
                                                          const std::string& table,
                                                          bool own_replicas = false);

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
