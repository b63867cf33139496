#include "tests/cluster/cluster_harness.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "strata/internal/v1/shard.grpc.pb.h"
#include "tests/support/child_spawner.h"
#include "tests/support/subprocess.h"

namespace strata::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kNatsUser[] = "strata";
constexpr char kNatsPassword[] = "nats-test-password";
constexpr char kEtcdPassword[] = "etcd-test-password";

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// Holds `port` for this test process until it exits: an flock on a file named after it, which
// the kernel lets go when the process ends however it ends. False if another process holds it.
bool HoldPortForThisProcess(int port) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "strata-test-ports";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  const std::string path = (dir / std::to_string(port)).string();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return true;  // no lock to take: the bind check below still applies
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return false;
  }
  return true;  // the descriptor stays open, and the lock with it
}

// A free loopback port below the kernel's ephemeral range (32768 up): FreePort's ports come
// from that range, where an outgoing connection of another process may take one between the
// pick and etcd's bind (seen: "bind: address already in use").
// Never the same port twice in one test process: a cluster takes 15 of them, and two equal
// picks (free when each was checked) collided at etcd's bind (CI: 1 run in ~6). Nor in two
// test processes at once: the cluster tests run in three chains side by side, and a port one
// had checked but its NATS server had not bound yet was taken by another's (CI, session 45:
// "listen tcp 127.0.0.1:28856: bind: address already in use"); each port is held by an flock.
int QuietPort() {
  static std::mt19937 random(std::random_device{}());
  static std::set<int> handed_out;
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int port = 20000 + static_cast<int>(random() % 12000);
    if (!handed_out.insert(port).second) continue;
    if (!HoldPortForThisProcess(port)) continue;
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool free = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    close(fd);
    if (free) return port;
  }
  return FreePort();
}

}  // namespace

ChildProcess::~ChildProcess() {
  if (pid_ > 0) Kill9();
}

bool ChildProcess::Start(const std::vector<std::string>& argv, const std::string& log_path) {
  argv_ = argv;
  log_path_ = log_path;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = ForkTiedToThisProcess([&] {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    setpgid(0, 0);
    execvp(args[0], args.data());
  });
  return pid_ > 0;
}

void ChildProcess::Signal(int signal) {
  if (pid_ > 0) kill(pid_, signal);
}

void ChildProcess::Reap() {
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ChildProcess::Stop(std::chrono::seconds grace) {
  if (pid_ <= 0) return;
  kill(pid_, SIGCONT);
  kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + grace;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Kill9();
}

void ChildProcess::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  Reap();
}

std::string ChildProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TestCluster::TestCluster(Options options) : options_(options) {
  if (options_.tls) certs_ = std::make_unique<TestCerts>();
  for (int i = 0; i < 3; ++i) {
    etcd_client_ports_.push_back(QuietPort());
    etcd_peer_ports_.push_back(QuietPort());
    nats_ports_.push_back(QuietPort());
    nats_route_ports_.push_back(QuietPort());
    nats_monitor_ports_.push_back(QuietPort());
  }
}

TestCluster::~TestCluster() {
  // Nodes first: they give their leaderships up through etcd. One that crashes on the way out
  // fails the test, though its checks passed (a stop's teardown order once let a replica's
  // thread call the freed etcd client: session 82, found under AddressSanitizer).
  const std::vector<int> codes = StopNodesTogether();
  for (size_t i = 0; i < codes.size(); ++i) {
    if (const std::string problem = StopProblem(codes[i]); !problem.empty()) {
      ADD_FAILURE() << "node " << i << " at its stop: " << problem << "; its log is kept";
    }
  }
  nodes_.clear();
  {
    absl::MutexLock lock(&etcd_reader_mu_);
    etcd_reader_.reset();
  }
  // Their data goes with the test's directory: nothing to stop gracefully for (an etcd
  // member stopped with its peers gone waits seconds for them).
  for (auto& n : nats_) n->Kill9();
  for (auto& e : etcd_) e->Kill9();
  if (::testing::Test::HasFailure()) KeepServerLogs();
}

std::vector<int> TestCluster::StopNodesTogether(std::chrono::seconds patience) {
  std::vector<int> codes(nodes_.size(), -1);
  std::vector<std::thread> stopping;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    stopping.emplace_back([this, i, patience, &codes] {
      codes[i] = nodes_[i]->Stop(static_cast<int>(patience.count()));
    });
  }
  for (std::thread& t : stopping) t.join();
  return codes;
}

void TestCluster::KeepServerLogs() const {
  // Beside the nodes' logs (StratadProcess keeps those): what NATS and etcd said.
  const std::filesystem::path dir = TestArtifactsDir();
  const std::string prefix = CurrentTestFileName();
  std::error_code ec;
  for (const char* server : {"nats", "etcd"}) {
    for (int i = 0; i < 3; ++i) {
      const std::string name = server + std::to_string(i) + ".log";
      std::filesystem::copy_file(dir_.Sub(name), dir / (prefix + "." + name),
                                 std::filesystem::copy_options::overwrite_existing, ec);
    }
  }
}

std::vector<std::string> TestCluster::EtcdEndpointList() const {
  std::vector<std::string> out;
  for (int port : etcd_client_ports_) out.push_back("127.0.0.1:" + std::to_string(port));
  return out;
}

std::string TestCluster::etcd_endpoints() const { return Join(EtcdEndpointList()); }

std::shared_ptr<grpc::ChannelCredentials> TestCluster::MemberCredentials() const {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadFile(certs_->cluster_ca_cert());
  options.pem_cert_chain = ReadFile(certs_->node_cert());
  options.pem_private_key = ReadFile(certs_->node_key());
  return grpc::SslCredentials(options);
}

std::vector<std::string> TestCluster::Etcdctl() const {
  std::vector<std::string> command = {FindOnPath("etcdctl"), "--endpoints", etcd_endpoints()};
  if (etcd_auth_on_)
    command.insert(command.end(), {"--user", std::string("root:") + kEtcdPassword});
  if (certs_ != nullptr) {
    command.insert(command.end(), {"--cacert", certs_->ca_cert(), "--cert", certs_->client_cert(),
                                   "--key", certs_->client_key()});
  }
  return command;
}

std::string TestCluster::nats_urls() const {
  std::vector<std::string> out;
  for (int port : nats_ports_) out.push_back("nats://127.0.0.1:" + std::to_string(port));
  return Join(out);
}

std::vector<std::string> TestCluster::NodeArgs(const std::string& id) const {
  std::vector<std::string> args = {"--cluster",
                                   "--node-id",
                                   id,
                                   "--etcd",
                                   etcd_endpoints(),
                                   "--nats",
                                   nats_urls(),
                                   "--cluster-shards",
                                   std::to_string(options_.shards),
                                   "--cluster-lease-seconds",
                                   std::to_string(options_.lease_seconds)};
  if (options_.placement) {
    std::vector<std::string> ids;
    const int listed = options_.placed_nodes > 0 ? options_.placed_nodes : options_.nodes;
    for (int i = 0; i < listed; ++i) ids.push_back("n" + std::to_string(i));
    args.insert(args.end(), {"--cluster-nodes", Join(ids), "--cluster-shard-replicas",
                             std::to_string(options_.shard_replicas)});
  }
  if (options_.etcd_auth) {
    std::ofstream(dir_.Sub("etcd-password")) << kEtcdPassword << "\n";
    args.insert(args.end(),
                {"--etcd-user", "root", "--etcd-password-file", dir_.Sub("etcd-password")});
  }
  if (certs_ == nullptr) {
    args.insert(args.end(), {"--cluster-secret", secret_});
  } else {
    std::ofstream(dir_.Sub("nats-password")) << kNatsPassword << "\n";
    args.insert(args.end(), {"--tls-cert",
                             certs_->node_cert(),
                             "--tls-key",
                             certs_->node_key(),
                             "--cluster-ca",
                             certs_->cluster_ca_cert(),
                             "--etcd-ca",
                             certs_->ca_cert(),
                             "--etcd-cert",
                             certs_->client_cert(),
                             "--etcd-key",
                             certs_->client_key(),
                             "--nats-ca",
                             certs_->ca_cert(),
                             "--nats-cert",
                             certs_->client_cert(),
                             "--nats-key",
                             certs_->client_key(),
                             "--nats-user",
                             kNatsUser,
                             "--nats-password-file",
                             dir_.Sub("nats-password"),
                             "--auth",
                             "off"});
  }
  args.insert(args.end(), options_.node_flags.begin(), options_.node_flags.end());
  for (const auto& [node, flags] : options_.flags_of_node) {
    if (id == "n" + std::to_string(node)) args.insert(args.end(), flags.begin(), flags.end());
  }
  // To look into a failure: STRATA_TEST_NODE_FLAGS="--log-level debug" adds flags to every node.
  if (const char* more = std::getenv("STRATA_TEST_NODE_FLAGS"); more != nullptr) {
    std::istringstream words(more);
    for (std::string word; words >> word;) args.push_back(word);
  }
  return args;
}

bool TestCluster::WaitNatsHealthy(int i, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  httplib::Client client("127.0.0.1", nats_monitor_ports_[i]);
  client.set_connection_timeout(1);
  while (Clock::now() < deadline) {
    auto response = client.Get("/healthz");
    if (response && response->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool TestCluster::StartServices() {
  std::vector<std::string> peers;
  for (int i = 0; i < 3; ++i) {
    peers.push_back("e" + std::to_string(i) +
                    "=http://127.0.0.1:" + std::to_string(etcd_peer_ports_[i]));
  }
  for (int i = 0; i < 3; ++i) {
    const std::string client = std::string(certs_ != nullptr ? "https" : "http") +
                               "://127.0.0.1:" + std::to_string(etcd_client_ports_[i]);
    const std::string peer = "http://127.0.0.1:" + std::to_string(etcd_peer_ports_[i]);
    std::vector<std::string> argv = {"etcd",
                                     "--name",
                                     "e" + std::to_string(i),
                                     "--data-dir",
                                     dir_.Sub("etcd" + std::to_string(i)),
                                     "--listen-client-urls",
                                     client,
                                     "--advertise-client-urls",
                                     client,
                                     "--listen-peer-urls",
                                     peer,
                                     "--initial-advertise-peer-urls",
                                     peer,
                                     "--initial-cluster",
                                     Join(peers),
                                     "--initial-cluster-state",
                                     "new",
                                     "--initial-cluster-token",
                                     "strata-test-" + std::to_string(etcd_client_ports_[0])};
    if (certs_ != nullptr) {
      argv.insert(argv.end(),
                  {"--cert-file", certs_->server_cert(), "--key-file", certs_->server_key(),
                   "--trusted-ca-file", certs_->ca_cert(), "--client-cert-auth"});
    }
    etcd_.push_back(std::make_unique<ChildProcess>());
    etcd_.back()->Start(argv, dir_.Sub("etcd" + std::to_string(i) + ".log"));
  }
  std::vector<std::string> routes;
  for (int port : nats_route_ports_) routes.push_back("nats://127.0.0.1:" + std::to_string(port));
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> argv = {"nats-server",
                                     "--server_name",
                                     "n" + std::to_string(i),
                                     "-a",
                                     "127.0.0.1",
                                     "-p",
                                     std::to_string(nats_ports_[i]),
                                     "-m",
                                     std::to_string(nats_monitor_ports_[i]),
                                     "--cluster_name",
                                     "strata-test",
                                     "--cluster",
                                     "nats://127.0.0.1:" + std::to_string(nats_route_ports_[i]),
                                     "--routes",
                                     Join(routes)};
    if (options_.jetstream) {
      argv.insert(argv.end(), {"--jetstream", "--store_dir", dir_.Sub("nats" + std::to_string(i))});
    }
    if (certs_ != nullptr) {
      argv.insert(argv.end(), {"--tls", "--tlscert", certs_->server_cert(), "--tlskey",
                               certs_->server_key(), "--tlscacert", certs_->ca_cert(),
                               "--tlsverify", "--user", kNatsUser, "--pass", kNatsPassword});
    }
    if (options_.nats_max_payload > 0) {
      // Only a configuration file sets it (nats-server has no flag).
      const std::string config = dir_.Sub("nats" + std::to_string(i) + ".conf");
      std::ofstream(config) << "max_payload: " << options_.nats_max_payload << "\n";
      argv.insert(argv.end(), {"-c", config});
    }
    nats_.push_back(std::make_unique<ChildProcess>());
    nats_.back()->Start(argv, dir_.Sub("nats" + std::to_string(i) + ".log"));
  }
  // Every member answers a linearizable read (so the three have a leader) before the nodes
  // start: a test that stops one member must leave the other two a quorum.
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  for (int i = 0; i < 3; ++i) {
    while (true) {
      absl::StatusOr<std::unique_ptr<cluster::EtcdClient>> member =
          cluster::EtcdClient::Connect({EtcdEndpointList()[i]}, std::chrono::seconds(1), EtcdTls());
      if (member.ok()) break;
      if (Clock::now() > deadline) {
        error_ = "etcd did not come up: " + std::string(member.status().message());
        for (int j = 0; j < 3; ++j) {
          const std::string log = etcd_[j]->log();
          error_ += "\n--- etcd " + std::to_string(j) + " (last 2 KB):\n" +
                    log.substr(log.size() > 2048 ? log.size() - 2048 : 0);
        }
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (options_.etcd_auth) {
    for (std::vector<std::string> words :
         {std::vector<std::string>{"user", "add", "root",
                                   std::string("--new-user-password=") + kEtcdPassword,
                                   "--interactive=false"},
          std::vector<std::string>{"auth", "enable"}}) {
      std::vector<std::string> command = Etcdctl();
      command.insert(command.end(), words.begin(), words.end());
      ProcessResult done = RunProcess(command, "", {"ETCDCTL_API=3"}, std::chrono::seconds(10));
      if (done.exit_code != 0) {
        error_ = "etcdctl " + words[0] + " " + words[1] + " failed: " + done.err;
        return false;
      }
    }
    etcd_auth_on_ = true;
  }
  for (int i = 0; i < 3; ++i) {
    if (!WaitNatsHealthy(i, std::chrono::seconds(60))) {
      error_ = "NATS server " + std::to_string(i) + " did not come up:\n" + nats_[i]->log();
      return false;
    }
  }
  return true;
}

bool TestCluster::StartNodes() {
  // Started together, as an operator would: they race to create the cluster and its logs.
  std::vector<std::thread> starting;
  // Not vector<bool>: its elements share words, and the threads below write them at once
  // (a node's "started" was lost that way, failing a start with an empty error).
  std::vector<char> started(options_.nodes, 0);
  for (int i = 0; i < options_.nodes; ++i) {
    nodes_.push_back(std::make_unique<StratadProcess>());
    // The test calls the internal service too (Replicas): as a member, with a node's
    // certificate.
    if (certs_ != nullptr) nodes_.back()->UseCredentials(MemberCredentials());
    if (options_.distinct_users) nodes_.back()->RunAs(UserOf(i), UserOf(i));
  }
  for (int i = 0; i < options_.nodes; ++i) {
    starting.emplace_back(
        [this, i, &started] { started[i] = nodes_[i]->Start(NodeArgs("n" + std::to_string(i))); });
  }
  for (std::thread& t : starting) t.join();
  for (int i = 0; i < options_.nodes; ++i) {
    if (!started[i]) {
      error_ = "node n" + std::to_string(i) + " did not start: " + nodes_[i]->error();
      return false;
    }
  }
  // Every shard led, and its leader's barrier (sequence 2 or later, after the genesis entry)
  // applied by every node, before the test begins: a fault injected while a leader is still
  // taking the lead tests the start-up, not the fault.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    std::vector<std::string> leaders = Leaders();
    bool all = static_cast<int>(leaders.size()) == options_.shards;
    for (const std::string& l : leaders) all &= !l.empty();
    for (int i = 0; all && i < options_.nodes; ++i) {
      const std::map<uint32_t, ReplicaState> replicas = Replicas(i);
      int held = 0;
      for (int shard = 0; shard < options_.shards; ++shard) {
        const std::vector<int> placed = PlacedOn(shard);
        held += std::count(placed.begin(), placed.end(), i);
      }
      all &= static_cast<int>(replicas.size()) == held;
      for (const auto& [shard, state] : replicas) all &= state.applied >= 2;
    }
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  error_ =
      "not every shard was led, its barrier applied by every node, 30 s after the nodes "
      "started";
  return false;
}

cluster::ServiceTls TestCluster::EtcdTls() const {
  if (certs_ == nullptr) return {};
  return {certs_->ca_cert(), certs_->client_cert(), certs_->client_key(), ""};
}

cluster::EtcdClient* TestCluster::EtcdReader() {
  absl::MutexLock lock(&etcd_reader_mu_);
  if (etcd_reader_ == nullptr) {
    cluster::EtcdLogin login;
    if (etcd_auth_on_) login = {"root", kEtcdPassword};
    absl::StatusOr<std::unique_ptr<cluster::EtcdClient>> client =
        cluster::EtcdClient::Connect(EtcdEndpointList(), std::chrono::seconds(5), EtcdTls(), login);
    if (!client.ok()) return nullptr;  // asked again at the next call
    etcd_reader_ = std::move(*client);
  }
  return etcd_reader_.get();
}

std::vector<std::string> TestCluster::Leaders() {
  std::vector<std::string> leaders(options_.shards);
  cluster::EtcdClient* etcd = EtcdReader();
  if (etcd == nullptr) return leaders;
  int64_t revision = 0;
  absl::StatusOr<std::vector<cluster::EtcdKeyValue>> keys =
      etcd->List("/strata/strata/leaders/", &revision);
  if (!keys.ok()) return leaders;
  for (const cluster::EtcdKeyValue& kv : *keys) {
    const int shard = std::stoi(kv.key.substr(kv.key.rfind('/') + 1));
    if (shard >= 0 && shard < options_.shards) leaders[shard] = kv.value;
  }
  return leaders;
}

std::map<uint32_t, TestCluster::ReplicaState> TestCluster::Replicas(int i) {
  std::map<uint32_t, ReplicaState> out;
  auto stub = internal::v1::ShardService::NewStub(nodes_[i]->channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  context.AddMetadata("x-strata-cluster-secret", secret_);
  internal::v1::ShardStateResponse response;
  if (!stub->State(&context, internal::v1::ShardStateRequest(), &response).ok()) return out;
  for (const auto& s : response.shards()) out[s.shard()] = {s.applied_sequence(), s.digest()};
  return out;
}

std::vector<int> TestCluster::PlacedOn(uint32_t shard) const {
  std::vector<int> placed;
  const int n =
      options_.placement && options_.placed_nodes > 0 ? options_.placed_nodes : options_.nodes;
  for (int k = 0; k < (options_.placement ? std::min(options_.shard_replicas, n) : n); ++k) {
    placed.push_back(options_.placement ? static_cast<int>((shard + k) % n) : k);
  }
  return placed;
}

std::string TestCluster::CompareReplicas(const std::vector<int>& nodes,
                                         std::chrono::seconds timeout, bool as_held) {
  const auto deadline = Clock::now() + timeout;
  std::string differs;
  while (true) {
    std::map<int, std::map<uint32_t, ReplicaState>> states;
    for (int i : nodes) states[i] = Replicas(i);
    differs.clear();
    bool same_sequences = true;
    for (uint32_t shard = 0; shard < static_cast<uint32_t>(options_.shards); ++shard) {
      const ReplicaState* first = nullptr;
      int first_node = -1;
      std::vector<int> holders = PlacedOn(shard);
      if (as_held) {
        holders.clear();
        for (int i : nodes) {
          if (states[i].contains(shard)) holders.push_back(i);
        }
      }
      for (int i : holders) {
        if (!states.contains(i)) continue;  // not asked
        auto it = states[i].find(shard);
        if (it == states[i].end()) {
          same_sequences = false;
          differs = "shard " + std::to_string(shard) + ": node " + std::to_string(i) +
                    " did not answer for its replica";
          continue;
        }
        if (first == nullptr) {
          first = &it->second;
          first_node = i;
        } else if (it->second.applied != first->applied) {
          same_sequences = false;
          differs = "shard " + std::to_string(shard) + ": node " + std::to_string(i) +
                    " has not applied what node " + std::to_string(first_node) + " applied (" +
                    std::to_string(first->applied) + ")";
        } else if (it->second.digest != first->digest) {
          differs = "shard " + std::to_string(shard) + ": digests differ at sequence " +
                    std::to_string(first->applied) + " between nodes " +
                    std::to_string(first_node) + " and " + std::to_string(i);
        }
      }
    }
    if ((same_sequences && !differs.empty()) || differs.empty() || Clock::now() > deadline) {
      return differs;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace strata::testing
