// How a stratad node joins a cluster (stratad --cluster, docs/cluster.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/membership.h"
#include "query/base/result.h"

namespace strata::cluster {

// TLS to etcd or NATS: PEM files; plaintext when ca_file is empty.
struct ServiceTls {
  std::string ca_file;    // the CA that signed the servers' certificates
  std::string cert_file;  // this node's client certificate, for servers that require one
  std::string key_file;
  std::string server_name;  // the name the servers' certificates carry; "" : the first host
  bool enabled() const { return !ca_file.empty(); }
};

// Who this node is to etcd when its auth is on and no client certificate names the user.
struct EtcdLogin {
  std::string user;
  std::string password;
};

// Who this node is to NATS: a user and password, or a .creds file (a user JWT and its NKey
// seed), or nobody (a server without authorization).
struct NatsLogin {
  std::string user;
  std::string password;
  std::string creds_file;
};

struct ClusterOptions {
  std::string name = "strata";  // the etcd prefix /strata/<name>/ and the streams' owner
  std::string node_id;
  std::vector<std::string> etcd;  // host:port of each etcd member
  std::vector<std::string> nats;  // nats://host:port of each server
  // Shards of the cluster's data; 0 takes the cluster's (16 when this node creates it). A
  // power of two.
  int shards = 0;
  int log_replicas = 3;  // copies of each shard's log on the NATS servers
  // --cluster-shard-replicas: nodes holding each shard's data under a placement; 0 takes the
  // cluster's (3 when this node creates it). With one, the logs are never trimmed: they are
  // the second copy a lost node's shards are rebuilt from.
  int shard_replicas = 0;
  // --cluster-nodes: the nodes a new cluster places each shard's three replicas on (shard s
  // on the s-th, (s+1)-th and (s+2)-th, wrapping around); every node starting it names the
  // same list. Empty: every node holds every shard.
  std::vector<std::string> placement;
  int lease_seconds = 5;
  // How long a node on the cluster's list may be away before the placement controller
  // rebuilds its replicas on the others (--dead-node-grace-seconds).
  int dead_node_grace_seconds = 600;
  // Trimming the shards' logs (log_trimmer.h): every this many seconds, keeping this many
  // entries below the lowest sequence the replicas applied (--cluster-log-trim-seconds,
  // --cluster-log-keep-entries).
  int log_trim_seconds = 60;
  int64_t log_keep_entries = 10'000;
  // --replica-ack majority: a write is answered once another replica applied it durably too
  // (docs/operations.md, the durability contract).
  bool replica_ack_majority = false;
  // Tests only: each replica waits this long before applying an entry (one that lags); the
  // node then never leads a shard.
  int testing_apply_delay_ms = 0;
  // Tests only: each fragment served to another node waits this long (cancellable) before it
  // runs (--testing-query-delay-ms, which delays this node's own queries too).
  int testing_query_delay_ms = 0;
  // Tests only: this node's copy of the catalog applies each change from etcd this long late
  // (--testing-catalog-delay-ms).
  int testing_catalog_delay_ms = 0;
  // Tests only: the read leases this node's shard leaders grant last this long (0: the
  // default, GrantedReadLeases::kLength).
  int testing_read_lease_ms = 0;
  // The largest gRPC message this node sends or takes (--max-message-bytes): its own server's
  // limit holds for the internal service too, so a node's answers to its peers stay under it.
  int64_t max_message_bytes = 16 << 20;
  // How the front door's client pages are made, for fragments whose rows are an asking node's
  // answer as they are (query/base/relayed_pages.h); none: fragments send rows only.
  query::PageEncoderFactory page_encoders;
  // Nodes prove membership to each other with mutual TLS (member_tls), the secret
  // (x-strata-cluster-secret), or both (membership.h).
  std::string secret;
  MemberTls member_tls;
  // etcd's and NATS's TLS and credentials (docs/cluster.md, "Security").
  ServiceTls etcd_tls;
  EtcdLogin etcd_login;
  ServiceTls nats_tls;
  NatsLogin nats_login;

  // What a fragment's page of rows, a checkpoint's part or a call's write parts are cut at:
  // 4 MiB, or half of the largest message when that is less.
  size_t peer_page_bytes() const {
    return static_cast<size_t>(query::PageBytesWithin(4 << 20, max_message_bytes));
  }
};

}  // namespace strata::cluster
