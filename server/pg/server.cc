#include "server/pg/server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/start_thread.h"
#include "common/status.h"
#include "common/strings.h"
#include "server/ops/config.h"
#include "server/pg/session.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// A session whose client stops reading gives up after this long, so a
// query's worker thread is never held by a stalled socket for good.
constexpr int kSendTimeoutSeconds = 60;

// How often the sockets of busy sessions are checked for a client that left.
constexpr absl::Duration kClientCheckInterval = absl::Seconds(1);

std::string PeerName(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = {0};
  if (address.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    return StrCat("ipv6:[", host, "]:", ntohs(a->sin6_port));
  }
  const auto* a = reinterpret_cast<const sockaddr_in*>(&address);
  inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
  return StrCat("ipv4:", host, ":", ntohs(a->sin_port));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PgServer>> PgServer::Start(const PgOptions& options,
                                                          StatementRunner* queries, Engine* engine,
                                                          Authenticator* auth,
                                                          ServerMetrics* metrics) {
  ASSIGN_OR_RETURN(auto host_port, SplitHostPort(options.listen));
  auto server = std::unique_ptr<PgServer>(new PgServer());
  server->options_ = options;
  metrics->SetConnectionSource("postgres", [open = server->open_] { return open->load(); });
  server->queries_ = queries;
  server->engine_ = engine;
  server->auth_ = auth;
  if (options.tls.enabled()) {
    ASSIGN_OR_RETURN(server->tls_setup_, HttpsContextSetup(options.tls));
    server->tls_context_ = SSL_CTX_new(TLS_server_method());
    if (server->tls_context_ == nullptr || !server->tls_setup_(*server->tls_context_)) {
      return absl::FailedPreconditionError(
          StrCat("the PostgreSQL listener cannot load --tls-cert ", options.tls.cert_file,
                 " and --tls-key ", options.tls.key_file));
    }
  }
  const auto& [host, port] = host_port;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port);
  auto unavailable = [&](std::string_view why) {
    return absl::UnavailableError(StrCat(
        "cannot listen for PostgreSQL clients on ", options.listen, ": ", why,
        "; choose another address with --pg-listen or STRATA_PG_LISTEN (an empty value turns "
        "it off)"));
  };
  if (getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found) != 0 || found == nullptr) {
    return unavailable("the host is not an address of this machine");
  }
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const bool bound = fd >= 0 && bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                     listen(fd, 128) == 0;
  freeaddrinfo(found);
  if (!bound) {
    if (fd >= 0) close(fd);
    return unavailable("the port is in use or the host is not an address of this machine");
  }
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  server->port_ = ntohs(address.ss_family == AF_INET6
                            ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                            : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  server->listen_fd_ = fd;
  server->accept_thread_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  server->watch_thread_ = std::thread([s = server.get()] { s->WatchClients(); });
  return server;
}

void PgServer::AcceptLoop() {
  while (!stopping_.load()) {
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_.load()) return;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      spdlog::warn("pg: accept failed: {}", strerror(errno));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval timeout{.tv_sec = kSendTimeoutSeconds, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    absl::MutexLock lock(&mu_);
    ReapFinished();
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      RefuseConnection(fd, StrCat("sorry, too many clients already (", options_.max_connections,
                                  " connections; raise --pg-max-connections)"));
      continue;
    }
    const uint64_t id = next_connection_++;
    auto watch = std::make_shared<pg::ClientWatch>();
    const std::string peer = PeerName(address);
    absl::StatusOr<std::thread> serving = StartThread(
        "a PostgreSQL connection", [this, fd, peer, id, watch] { Serve(fd, peer, id, watch); });
    if (!serving.ok()) {
      RefuseConnection(fd, std::string(serving.status().message()));
      continue;
    }
    Connection& connection = connections_[id];
    connection.fd = fd;
    connection.thread = *std::move(serving);
    connection.peer = peer;
    connection.watch = std::move(watch);
  }
}

void PgServer::RefuseConnection(int fd, const std::string& why) {
  pg::MessageWriter refusal;
  refusal.Begin('E');
  for (auto [field, value] :
       {std::pair{"S", std::string("FATAL")}, {"V", "FATAL"}, {"C", "53300"}, {"M", why}}) {
    refusal.Bytes(field);
    refusal.CString(value);
  }
  refusal.Bytes(std::string_view("\0", 1));
  refusal.End();
  pg::Stream stream(fd);  // closes it
  refusal.FlushTo(stream);
}

void PgServer::WatchClients() {
  absl::MutexLock lock(&mu_);
  std::vector<pollfd> polled;
  std::vector<const Connection*> polled_connections;
  while (!mu_.AwaitWithTimeout(absl::Condition(&stop_watching_), kClientCheckInterval)) {
    polled.clear();
    polled_connections.clear();
    for (const auto& [id, connection] : connections_) {
      if (connection.fd < 0 || !connection.watch->busy.load(std::memory_order_acquire)) continue;
      polled.push_back({.fd = connection.fd, .events = POLLRDHUP, .revents = 0});
      polled_connections.push_back(&connection);
    }
    // Under mu_: Serve forgets a descriptor under it before closing it, so none is reused here.
    if (polled.empty() || poll(polled.data(), polled.size(), 0) <= 0) continue;
    for (size_t i = 0; i < polled.size(); ++i) {
      if ((polled[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) == 0) continue;
      const Connection& connection = *polled_connections[i];
      if (!connection.watch->cancel->exchange(true)) {
        spdlog::info("pg: client {} closed its connection while its statement ran; cancelled it",
                     connection.peer);
      }
    }
  }
}

void PgServer::Serve(int fd, std::string peer, uint64_t id,
                     std::shared_ptr<pg::ClientWatch> watch) {
  pg::SessionContext context{.queries = queries_,
                             .engine = engine_,
                             .auth = auth_,
                             .tls = tls_context_,
                             .auth_timeout = std::chrono::seconds(options_.auth_timeout_seconds),
                             .register_cancel =
                                 [this](std::shared_ptr<std::atomic<bool>> flag) {
                                   absl::MutexLock lock(&mu_);
                                   const int32_t pid = next_process_id_++;
                                   const int32_t secret = static_cast<int32_t>(random_());
                                   cancel_keys_[pid] = {secret, std::move(flag)};
                                   return std::pair{pid, secret};
                                 },
                             .unregister_cancel =
                                 [this](int32_t pid) {
                                   absl::MutexLock lock(&mu_);
                                   cancel_keys_.erase(pid);
                                 },
                             .cancel =
                                 [this](int32_t pid, int32_t secret) {
                                   absl::MutexLock lock(&mu_);
                                   auto it = cancel_keys_.find(pid);
                                   if (it != cancel_keys_.end() && it->second.secret == secret)
                                     *it->second.flag = true;
                                 },
                             .watch = std::move(watch)};
  auto session = std::make_unique<pg::Session>(std::move(context), std::make_unique<pg::Stream>(fd),
                                               std::move(peer));
  open_->fetch_add(1);
  session->Run();
  open_->fetch_sub(1);
  {
    // Before the descriptor is closed, so Stop never shuts down a reused number.
    absl::MutexLock lock(&mu_);
    connections_[id].fd = -1;
  }
  session.reset();
  absl::MutexLock lock(&mu_);
  connections_[id].done = true;
}

void PgServer::ReapFinished() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (it->second.done) {
      it->second.thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void PgServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) {
    shutdown(listen_fd_, SHUT_RDWR);
    close(listen_fd_);
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  {
    absl::MutexLock lock(&mu_);
    stop_watching_ = true;
  }
  if (watch_thread_.joinable()) watch_thread_.join();
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [pid, key] : cancel_keys_) *key.flag = true;
    for (auto& [id, connection] : connections_) {
      if (connection.fd >= 0) shutdown(connection.fd, SHUT_RDWR);
      threads.push_back(std::move(connection.thread));
    }
  }
  for (std::thread& t : threads) {
    if (t.joinable()) t.join();
  }
  absl::MutexLock lock(&mu_);
  connections_.clear();
}

PgServer::~PgServer() {
  Stop();
  if (tls_context_ != nullptr) SSL_CTX_free(tls_context_);
}

}  // namespace strata
