// The PostgreSQL wire protocol listener (--pg-listen, docs/protocols.md):
// accepts connections and serves each on a thread of its own
// (server/pg/session.h), up to --pg-max-connections; routes CancelRequests
// to the session whose key they carry; cancels the work of a session whose
// client closed its connection (WatchClients).
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/auth/authenticator.h"
#include "server/auth/tls.h"
#include "server/ops/metrics.h"
#include "server/pg/session.h"
#include "server/runner/query_runner.h"
#include "storage/engine.h"

namespace strata {

struct PgOptions {
  std::string listen;  // HOST:PORT, port 0 picks one
  TlsConfig tls;       // the gRPC listener's files: with them, clients must use SSL
  int max_connections = 100;
  int auth_timeout_seconds = 60;  // startup and authentication
};

class PgServer {
 public:
  // Binds and starts accepting. UNAVAILABLE when the address cannot be bound.
  // The arguments must outlive the server.
  static absl::StatusOr<std::unique_ptr<PgServer>> Start(const PgOptions& options,
                                                         StatementRunner* queries, Engine* engine,
                                                         Authenticator* auth,
                                                         ServerMetrics* metrics);
  ~PgServer();

  int port() const { return port_; }
  // Stops accepting, ends every session and waits for their threads.
  void Stop();

 private:
  struct Connection {
    int fd = -1;
    std::thread thread;
    bool done = false;
    std::string peer;
    std::shared_ptr<pg::ClientWatch> watch;
  };
  struct CancelKey {
    int32_t secret = 0;
    std::shared_ptr<std::atomic<bool>> flag;
  };

  PgServer() = default;
  void AcceptLoop();
  // Sends a client FATAL 53300 (too many connections) saying `why`, and closes `fd`.
  static void RefuseConnection(int fd, const std::string& why);
  void Serve(int fd, std::string peer, uint64_t id, std::shared_ptr<pg::ClientWatch> watch);
  // Once a second until Stop: the sockets of the sessions busy with a message are polled, and
  // a session whose client hung up has its work cancelled.
  void WatchClients();
  void ReapFinished() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  PgOptions options_;
  StatementRunner* queries_ = nullptr;
  Engine* engine_ = nullptr;
  Authenticator* auth_ = nullptr;
  std::function<bool(ssl_ctx_st&)> tls_setup_;
  SSL_CTX* tls_context_ = nullptr;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread accept_thread_;
  std::thread watch_thread_;
  std::atomic<bool> stopping_{false};
  // Sessions open now (the metrics read it, possibly after the server).
  const std::shared_ptr<std::atomic<int>> open_ = std::make_shared<std::atomic<int>>(0);

  absl::Mutex mu_;
  std::map<uint64_t, Connection> connections_ ABSL_GUARDED_BY(mu_);
  uint64_t next_connection_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int32_t, CancelKey> cancel_keys_ ABSL_GUARDED_BY(mu_);
  int32_t next_process_id_ ABSL_GUARDED_BY(mu_) = 1000;
  bool stop_watching_ ABSL_GUARDED_BY(mu_) = false;
  std::mt19937 random_ ABSL_GUARDED_BY(mu_){std::random_device{}()};
};

}  // namespace strata
