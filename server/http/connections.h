// How the HTTP port holds its connections (docs/security.md, "Limits per
// door"). cpp-httplib parses requests and routes them; what it leaves open is
// decided here, because each gap let a client without a token take the port
// down:
//   - it serves from a fixed pool of 8 threads, so 8 idle sockets block
//     /health: here each connection gets a thread of an elastic pool, up to
//     max_connections, and the next one is answered 503 at once;
//   - its timeouts are per read, so a client sending a header byte every few
//     seconds holds a thread for good: here the request head has one
//     deadline from its first byte, a body a deadline of its own, and an
//     idle keep-alive connection a short one;
//   - it reads request heads and chunked bodies without bound: here a head
//     may take max_head_bytes and a request max_request_bytes as sent;
//   - it listens with SO_REUSEPORT, so a second process could take part of
//     the traffic: here the port is bound exclusively.
// TLS is done here too (OpenSSL on a non-blocking socket), so the same
// deadlines cover the handshake and every TLS record.
//
// Thread-safety: Start and Stop from one thread; the rest runs on the
// server's own threads.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "httplib.h"

namespace strata {

// Waits of the HTTP door are cut into slices this long so that Stop is seen promptly.
inline constexpr auto kStopCheck = std::chrono::milliseconds(100);

struct HttpConnectionLimits {
  int max_connections = 256;         // served at once; past it 503
  int head_timeout_millis = 10'000;  // a request line and headers, from the first byte
  int idle_timeout_millis = 5'000;   // a kept-alive connection between requests
  int body_read_timeout_millis = 10'000;  // between two reads of a body
  int request_timeout_millis = 300'000;   // a whole request, body included
  int write_timeout_millis = 30'000;      // between two writes of an answer
  size_t max_head_bytes = 64 << 10;
  size_t max_request_bytes = (64 << 20) + (8 << 20);  // a body as sent, with chunk framing
  int keep_alive_requests = 100;     // requests per connection
};

class GuardedHttpServer : public httplib::Server {
 public:
  // `tls`: an SSL_CTX the server owns (freed with it), or null for plain HTTP.
  GuardedHttpServer(HttpConnectionLimits limits, SSL_CTX* tls);
  ~GuardedHttpServer() override;

  // Binds HOST:PORT (port 0 picks one) without SO_REUSEPORT and starts
  // accepting on a thread of its own; returns once it accepts. UNAVAILABLE
  // when the address cannot be bound.
  absl::Status Start(const std::string& host, int port);
  int port() const { return port_; }
  // Connections open now, counted while the server lives and after (for
  // the metrics, which may be read later).
  std::shared_ptr<const std::atomic<int>> open_connections() const { return connections_; }
  // Stops accepting, ends idle connections, lets requests in flight finish
  // and joins every thread. Safe to call more than once, and after a failed
  // Start.
  void Stop();

  // For a handler that answers without reading the request's body: the
  // connection closes after the answer, so the unread body is never taken
  // for the next request.
  static void CloseConnectionAfterAnswer();
  // For a handler that works before it answers (a query before its first
  // rows): whether the client of this thread's request has gone.
  static bool ClientLeft();

 private:
  class Pool;
  class Connection;

  bool process_and_close_socket(socket_t sock) override;

  // The connection this thread is serving, for CloseConnectionAfterAnswer.
  static thread_local Connection* current_connection_;

  const HttpConnectionLimits limits_;
  SSL_CTX* const tls_;
  const std::shared_ptr<std::atomic<int>> connections_ = std::make_shared<std::atomic<int>>(0);
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  int port_ = 0;
};

}  // namespace strata
