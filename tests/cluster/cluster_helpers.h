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

namespace strata::testing {

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
// host|time|value of every row of demo.`table`, through `node` (`own_replicas`: read from
// the node's own replicas where it holds them).
std::map<std::pair<std::string, int64_t>, double> ReadAll(StratadProcess& node,
                                                          const std::string& table,
                                                          bool own_replicas = false);

}  // namespace strata::testing
