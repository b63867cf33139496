// How a stratad node joins a cluster (stratad --cluster, docs/cluster.md).
#pragma once

#include <string>
#include <vector>

namespace strata::cluster {

struct ClusterOptions {
  std::string name = "strata";  // the etcd prefix /strata/<name>/ and the streams' owner
  std::string node_id;
  std::vector<std::string> etcd;  // host:port of each etcd member
  std::vector<std::string> nats;  // nats://host:port of each server
  // Shards of the cluster's data; 0 takes the cluster's (16 when this node creates it). A
  // power of two.
  int shards = 0;
  int log_replicas = 3;  // copies of each shard's log on the NATS servers
  int lease_seconds = 5;
  // --replica-ack majority: a write is answered once another replica applied it durably too
  // (docs/operations.md, the durability contract).
  bool replica_ack_majority = false;
  // Nodes prove membership to each other with it (x-strata-cluster-secret).
  std::string secret;
};

}  // namespace strata::cluster
