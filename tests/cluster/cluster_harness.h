// A Strata cluster on loopback for the cluster tests (docs/cluster.md): 3 etcd members,
// 3 JetStream NATS servers and N stratad nodes, each a real process on free ports under a
// temp dir, with the faults the tests inject (kill -9, stop, pause) and the checks they
// share (what each replica applied, and the digests).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cluster/cluster_options.h"
#include "cluster/etcd_client.h"
#include "tests/support/stratad_process.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

// A background process with its output in a log file.
class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool Start(const std::vector<std::string>& argv, const std::string& log_path);
  bool Restart() { return Start(argv_, log_path_); }
  void Signal(int signal);
  // SIGTERM, then SIGKILL after `grace`; waits for the exit.
  void Stop(std::chrono::seconds grace = std::chrono::seconds(10));
  void Kill9();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  std::string log() const;

 private:
  void Reap();
  std::vector<std::string> argv_;
  std::string log_path_;
  pid_t pid_ = -1;
};

class TestCluster {
 public:
  struct Options {
    int nodes = 3;
    int shards = 4;
    int lease_seconds = 3;
    bool jetstream = true;  // false: NATS servers without JetStream (a start-up error test)
    std::vector<std::string> node_flags;  // more flags for every node ("--auth", "on")
    std::map<int, std::vector<std::string>> flags_of_node;  // more flags for node i alone
    // TLS everywhere: etcd and NATS serve TLS and require client certificates (NATS a user
    // and password too); nodes call each other over mutual TLS with the cluster's CA, with
    // no cluster secret.
    bool tls = false;
    // etcd's auth on, the nodes logging in as root with a password (--etcd-user).
    bool etcd_auth = false;
    // --cluster-nodes with every node: each shard on three of them, not on all.
    bool placement = false;
    // With `placement`: the first this many nodes are listed (0: all); the others start
    // holding nothing, as nodes added later do.
    int placed_nodes = 0;
    // With `placement`: the nodes holding each shard (--cluster-shard-replicas).
    int shard_replicas = 3;
    // Node i runs as user and group UserOf(i), so a test can cut its packets off by owner.
    bool distinct_users = false;
    // The NATS servers' max_payload in bytes (0: theirs, 1 MB), through a configuration file.
    int nats_max_payload = 0;
  };
  explicit TestCluster(Options options);
  TestCluster() : TestCluster(Options()) {}
  ~TestCluster();

  // Starts etcd and NATS, then the nodes; false (with `error()`) if one does not come up.
  bool StartServices();
  bool StartNodes();
  bool Start() { return StartServices() && StartNodes(); }

  std::string etcd_endpoints() const;
  std::string nats_urls() const;
  const std::string& secret() const { return secret_; }
  // The certificates of a TLS cluster (Options::tls), else null.
  const TestCerts* certs() const { return certs_.get(); }
  // Credentials of a TLS cluster's member: trusting the cluster's CA, presenting a node's
  // certificate.
  std::shared_ptr<grpc::ChannelCredentials> MemberCredentials() const;
  // etcdctl's command line up to its command: the endpoints, and TLS files when on.
  std::vector<std::string> Etcdctl() const;
  // The arguments that make a stratad node `id` of this cluster.
  std::vector<std::string> NodeArgs(const std::string& id) const;

  int node_count() const { return static_cast<int>(nodes_.size()); }
  // Sends every node SIGTERM at once, as an operator stopping the cluster does, and returns
  // their exit codes (-1 for one still running after `patience`, then killed;
  // StratadProcess::kNotRunning for one the test had stopped or killed).
  std::vector<int> StopNodesTogether(std::chrono::seconds patience = std::chrono::seconds(30));
  StratadProcess& node(int i) { return *nodes_[i]; }
  ChildProcess& etcd(int i) { return *etcd_[i]; }
  ChildProcess& nats(int i) { return *nats_[i]; }
  bool WaitNatsHealthy(int i, std::chrono::seconds timeout);

  // The node id leading each shard, from etcd ("" where none does, or when etcd does not
  // answer).
  std::vector<std::string> Leaders();
  // The nodes placed to hold `shard` (all of them without Options::placement).
  std::vector<int> PlacedOn(uint32_t shard) const;
  // The user node i runs as with Options::distinct_users.
  static uid_t UserOf(int i) { return 60000 + i; }
  // Index of the node with id `id` ("n<i>").
  static int IndexOf(const std::string& id) { return std::stoi(id.substr(1)); }

  struct ReplicaState {
    uint64_t applied = 0;
    uint64_t digest = 0;
  };
  // Node i's replicas (shard -> state), over the internal service; empty if it does not
  // answer.
  std::map<uint32_t, ReplicaState> Replicas(int i);
  // Waits until every running node in `nodes` holding a shard has applied the same sequence
  // of it, then says whether their digests agree too ("" when they do, else what differs).
  // `as_held`: the holders of a shard are the nodes of `nodes` reporting a replica of it
  // (replicas moved since the cluster started), not the placement it started with.
  std::string CompareReplicas(const std::vector<int>& nodes, std::chrono::seconds timeout,
                              bool as_held = false);

  const std::string& error() const { return error_; }

 private:
  void KeepServerLogs() const;
  // Each etcd member's client address ("127.0.0.1:port").
  std::vector<std::string> EtcdEndpointList() const;
  // The client certificate etcd wants of a TLS cluster (nothing without Options::tls).
  cluster::ServiceTls EtcdTls() const;
  // A client reading etcd for the test (Leaders), connected at its first use; null while
  // etcd does not answer. Through the cluster's own client rather than an etcdctl process a
  // call: a test asks for the leaders many times, and each etcdctl started costs ~50 ms of
  // CPU on a machine the other tests share.
  cluster::EtcdClient* EtcdReader();
  Options options_;
  TempDir dir_;
  std::unique_ptr<TestCerts> certs_;
  bool etcd_auth_on_ = false;
  std::string secret_ = "cluster-test-secret-0123456789";
  std::vector<int> etcd_client_ports_, etcd_peer_ports_, nats_ports_, nats_route_ports_,
      nats_monitor_ports_;
  std::vector<std::unique_ptr<ChildProcess>> etcd_, nats_;
  std::vector<std::unique_ptr<StratadProcess>> nodes_;
  absl::Mutex etcd_reader_mu_;
  std::unique_ptr<cluster::EtcdClient> etcd_reader_ ABSL_GUARDED_BY(etcd_reader_mu_);
  std::string error_;
};

}  // namespace strata::testing
