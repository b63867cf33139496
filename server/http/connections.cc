#include "server/http/connections.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>

#include "common/start_thread.h"
#include "common/strings.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How long, and how much of an unread request, a refused connection drains
// before it closes (Connection::LingerBeforeClose).
constexpr auto kLinger = std::chrono::seconds(2);
constexpr size_t kMaxLingerBytes = 8 << 20;

int MillisUntil(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

void Address(int fd, bool remote, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  auto* raw = reinterpret_cast<sockaddr*>(&address);
  if ((remote ? getpeername(fd, raw, &size) : getsockname(fd, raw, &size)) != 0) return;
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (getnameinfo(raw, size, host, sizeof host, service, sizeof service,
                  NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(service);
  }
}

}  // namespace

// Every connection's thread comes from here: a thread is started when a
// connection finds none idle (up to a cap), and one idle for a minute ends.
// httplib's own pool is fixed at 8 threads, so 8 idle sockets blocked the
// port.
class GuardedHttpServer::Pool : public httplib::TaskQueue {
 public:
  explicit Pool(int max_threads) : max_threads_(max_threads) {}

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(mu_);
    jobs_.push_back(std::move(fn));
    if (idle_ < static_cast<int>(jobs_.size()) && threads_ < max_threads_) {
      absl::StatusOr<std::thread> started = StartThread("an HTTP connection", [this] { Work(); });
      if (started.ok()) {
        ++threads_;
        started->detach();
        return;
      }
      // Past the process's threads: the job waits for a thread this pool has; with none, it
      // runs here, on the listener's thread (connections wait meanwhile, none is lost).
      if (threads_ == 0) {
        std::function<void()> job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        job();
        return;
      }
    }
    wake_.notify_one();
  }

  // Runs what was queued, then waits for every thread to end.
  void shutdown() override {
    std::unique_lock lock(mu_);
    shutting_down_ = true;
    wake_.notify_all();
    ended_.wait(lock, [this] { return threads_ == 0; });
  }

 private:
  void Work() {
    std::unique_lock lock(mu_);
    while (true) {
      ++idle_;
      const bool woken = wake_.wait_for(lock, std::chrono::minutes(1),
                                        [this] { return !jobs_.empty() || shutting_down_; });
      --idle_;
      if (jobs_.empty() && (shutting_down_ || !woken)) break;
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
    // The last touch of the pool: shutdown() may free it once this is seen.
    if (--threads_ == 0) ended_.notify_all();
  }

  const int max_threads_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable ended_;
  std::deque<std::function<void()>> jobs_;
  int threads_ = 0;
  int idle_ = 0;
  bool shutting_down_ = false;
};

// One accepted socket, plain or TLS, as httplib's Stream: every wait has a
// deadline, and the bytes of a request head and of a whole request are
// counted. The socket is non-blocking; waits are poll()s.
class GuardedHttpServer::Connection : public httplib::Stream {
 public:
  Connection(int fd, SSL* ssl, const HttpConnectionLimits& limits,
             const std::atomic<bool>& stopping)
      : fd_(fd), ssl_(ssl), limits_(limits), stopping_(stopping) {}

  ~Connection() override {
    if (ssl_ != nullptr) {
      if (!failed_) SSL_shutdown(ssl_);
      SSL_free(ssl_);
    }
  }

  // The TLS handshake, within the head deadline.
  bool Handshake() {
    const SteadyClock::time_point deadline =
        SteadyClock::now() + std::chrono::milliseconds(limits_.head_timeout_millis);
    while (true) {
      ERR_clear_error();
      const int result = SSL_accept(ssl_);
      if (result == 1) return true;
      if (!WaitFor(SSL_get_error(ssl_, result), deadline)) {
        failed_ = true;
        return false;
      }
    }
  }

  // Waits for the first byte of the next request: `first` of the
  // connection within the head deadline, a kept-alive one within the idle
  // one. False when none comes (or the server stops while it is idle).
  bool WaitForRequest(bool first) {
    if (buffered() > 0 || (ssl_ != nullptr && SSL_pending(ssl_) > 0)) return true;
    const int millis = first ? limits_.head_timeout_millis : limits_.idle_timeout_millis;
    return Poll(POLLIN, SteadyClock::now() + std::chrono::milliseconds(millis), /*stop_ends=*/true);
  }

  // A request begins: its head has head_timeout from now.
  void StartRequest() {
    const SteadyClock::time_point now = SteadyClock::now();
    head_deadline_ = now + std::chrono::milliseconds(limits_.head_timeout_millis);
    request_deadline_ = now + std::chrono::milliseconds(limits_.request_timeout_millis);
    in_head_ = true;
    head_end_match_ = 0;
    head_bytes_ = 0;
    request_bytes_ = 0;
    close_after_answer_ = false;
  }

  bool close_after_answer() const { return close_after_answer_ || failed_; }
  // The client shut its side (or the socket failed): it will read nothing
  // more. POLLRDHUP, not a peek: over TLS a close_notify would be data.
  bool PeerClosed() const {
    pollfd p{.fd = fd_, .events = POLLRDHUP, .revents = 0};
    return failed_ ||
           (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0);
  }
  void CloseAfterAnswer() { close_after_answer_ = true; }
  bool refused_unread() const { return close_after_answer_; }

  // Closing a socket with unread bytes sends a reset, which can destroy the
  // answer before the client reads it: after refusing a request unread, its
  // rest is read and dropped for a little while first (Apache's "lingering
  // close"), bounded in time and bytes.
  void LingerBeforeClose() {
    if (ssl_ != nullptr && !failed_) SSL_shutdown(ssl_);
    failed_ = true;  // nothing more is written, TLS's close included
    shutdown(fd_, SHUT_WR);
    const SteadyClock::time_point deadline = SteadyClock::now() + kLinger;
    size_t drained = 0;
    char sink[16 << 10];
    while (drained < kMaxLingerBytes && Poll(POLLIN, deadline, /*stop_ends=*/false)) {
      const ssize_t n = recv(fd_, sink, sizeof sink, 0);
      if (n <= 0) return;
      drained += static_cast<size_t>(n);
    }
  }

  using httplib::Stream::write;

  bool is_readable() const override {
    return buffered() > 0 || (ssl_ != nullptr && SSL_pending(ssl_) > 0);
  }

  bool is_writable() const override { return !failed_; }

  ssize_t read(char* ptr, size_t size) override {
    if (buffered() == 0 && !Fill()) return eof_ ? 0 : -1;
    size = std::min(size, buffered());
    if (!Count(buffer_ + begin_, size)) return -1;
    std::memcpy(ptr, buffer_ + begin_, size);
    begin_ += size;
    return static_cast<ssize_t>(size);
  }

  ssize_t write(const char* ptr, size_t size) override {
    const SteadyClock::time_point deadline =
        SteadyClock::now() + std::chrono::milliseconds(limits_.write_timeout_millis);
    size_t done = 0;
    while (done < size && !failed_) {
      if (ssl_ != nullptr) {
        ERR_clear_error();
        const int n = SSL_write(ssl_, ptr + done, static_cast<int>(std::min<size_t>(size - done, 1 << 30)));
        if (n > 0) {
          done += static_cast<size_t>(n);
        } else if (!WaitFor(SSL_get_error(ssl_, n), deadline)) {
          failed_ = true;
        }
      } else {
        const ssize_t n = send(fd_, ptr + done, size - done, MSG_NOSIGNAL);
        if (n > 0) {
          done += static_cast<size_t>(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
          if (!WaitFor(SSL_ERROR_WANT_WRITE, deadline)) failed_ = true;
        } else {
          failed_ = true;
        }
      }
    }
    return failed_ ? -1 : static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(fd_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(fd_, false, ip, port);
  }
  // httplib answers 500 for a socket numbered past select()'s FD_SETSIZE;
  // this stream never uses select(), and a database holds many files open.
  socket_t socket() const override { return fd_ < FD_SETSIZE ? fd_ : -1; }

 private:
  size_t buffered() const { return end_ - begin_; }

  // The deadline of the next read: the head's while it lasts; in a body, a
  // read timeout, never past the whole request's deadline.
  SteadyClock::time_point ReadDeadline() const {
    if (in_head_) return head_deadline_;
    return std::min(request_deadline_, SteadyClock::now() + std::chrono::milliseconds(
                                                                limits_.body_read_timeout_millis));
  }

  // Reads what the socket has into the buffer, waiting up to the deadline.
  bool Fill() {
    begin_ = end_ = 0;
    if (eof_) return false;
    const SteadyClock::time_point deadline = ReadDeadline();
    while (!failed_) {
      if (ssl_ != nullptr) {
        ERR_clear_error();
        const int n = SSL_read(ssl_, buffer_, sizeof buffer_);
        if (n > 0) {
          end_ = static_cast<size_t>(n);
          return true;
        }
        const int error = SSL_get_error(ssl_, n);
        if (error == SSL_ERROR_ZERO_RETURN) return End();
        if (!WaitFor(error, deadline)) break;
      } else {
        const ssize_t n = recv(fd_, buffer_, sizeof buffer_, 0);
        if (n > 0) {
          end_ = static_cast<size_t>(n);
          return true;
        }
        if (n == 0) return End();
        if (errno != EAGAIN && errno != EINTR) break;
        if (!WaitFor(SSL_ERROR_WANT_READ, deadline)) break;
      }
    }
    failed_ = true;
    return false;
  }

  // The client closed its side: reads end (a body read to the end of the
  // stream ends there), and the answer can still be written.
  bool End() {
    eof_ = true;
    return false;
  }

  // Waits until the socket is ready for what `ssl_error` asks (read or
  // write), by `deadline`; false on any other error, on timeout, and when
  // the server stops while the connection waits for a request head.
  bool WaitFor(int ssl_error, SteadyClock::time_point deadline) {
    if (ssl_error != SSL_ERROR_WANT_READ && ssl_error != SSL_ERROR_WANT_WRITE) return false;
    return Poll(ssl_error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline,
                /*stop_ends=*/in_head_ && head_bytes_ == 0);
  }

  // Waits for `events` on the socket until `deadline`; with `stop_ends`, a
  // server that stops ends the wait too (the connection is between requests).
  bool Poll(short events, SteadyClock::time_point deadline, bool stop_ends) {
    while (!(stop_ends && stopping_.load())) {
      const int left = MillisUntil(deadline);
      if (left == 0) return false;
      pollfd p{.fd = fd_, .events = events, .revents = 0};
      const int ready = poll(&p, 1, std::min<int>(left, kStopCheck.count()));
      if (ready > 0) return true;
      if (ready < 0 && errno != EINTR) return false;
    }
    return false;
  }

  // Counts bytes handed to httplib: the head ends at its blank line
  // (CRLF CRLF); past the limits the connection fails.
  bool Count(const char* data, size_t size) {
    request_bytes_ += size;
    if (request_bytes_ > limits_.max_request_bytes) return Fail();
    if (!in_head_) return true;
    static constexpr char kHeadEnd[] = "\r\n\r\n";
    for (size_t i = 0; i < size; ++i) {
      if (data[i] == kHeadEnd[head_end_match_]) {
        if (++head_end_match_ == 4) {
          in_head_ = false;
          head_bytes_ += i + 1;
          return head_bytes_ <= limits_.max_head_bytes || Fail();
        }
      } else {
        head_end_match_ = data[i] == '\r' ? 1 : 0;
      }
    }
    head_bytes_ += size;
    return head_bytes_ <= limits_.max_head_bytes || Fail();
  }

  bool Fail() {
    failed_ = true;
    return false;
  }

  const int fd_;
  SSL* const ssl_;
  const HttpConnectionLimits& limits_;
  const std::atomic<bool>& stopping_;
  char buffer_[16 << 10];
  size_t begin_ = 0;
  size_t end_ = 0;
  SteadyClock::time_point head_deadline_;
  SteadyClock::time_point request_deadline_;
  bool in_head_ = true;
  int head_end_match_ = 0;
  size_t head_bytes_ = 0;
  size_t request_bytes_ = 0;
  bool close_after_answer_ = false;
  bool eof_ = false;     // the client closed its side
  bool failed_ = false;  // a read or write failed: nothing more is written
};

thread_local GuardedHttpServer::Connection* GuardedHttpServer::current_connection_ = nullptr;

GuardedHttpServer::GuardedHttpServer(HttpConnectionLimits limits, SSL_CTX* tls)
    : limits_(limits), tls_(tls) {
  // A pool thread per connection up to the limit, and a few more to answer
  // the connections past it with 503.
  new_task_queue = [max = limits_.max_connections + 8] { return new Pool(max); };
  set_keep_alive_max_count(static_cast<size_t>(limits_.keep_alive_requests));
  set_keep_alive_timeout(limits_.idle_timeout_millis / 1000);
  // SO_REUSEADDR alone (httplib's default adds SO_REUSEPORT): a taken port
  // fails to bind instead of being shared with whoever holds it.
  set_socket_options([](socket_t sock) {
    const int one = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  });
}

GuardedHttpServer::~GuardedHttpServer() {
  Stop();
  if (tls_ != nullptr) SSL_CTX_free(tls_);
}

absl::Status GuardedHttpServer::Start(const std::string& host, int port) {
  if (port == 0) {
    port_ = bind_to_any_port(host);
  } else if (bind_to_port(host, port)) {
    port_ = port;
  }
  if (port_ <= 0) return absl::UnavailableError("the port is in use or the host is not an address of this machine");
  accept_thread_ = std::thread([this] { listen_after_bind(); });
  // Until the accept loop runs, stop() would not see it to end it.
  while (!is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return absl::OkStatus();
}

void GuardedHttpServer::Stop() {
  stopping_ = true;
  stop();
  if (accept_thread_.joinable()) accept_thread_.join();
}

void GuardedHttpServer::CloseConnectionAfterAnswer() {
  if (current_connection_ != nullptr) current_connection_->CloseAfterAnswer();
}

bool GuardedHttpServer::ClientLeft() {
  return current_connection_ != nullptr && current_connection_->PeerClosed();
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
  const int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  SSL* ssl = nullptr;
  if (tls_ != nullptr) {
    ssl = SSL_new(tls_);
    if (ssl != nullptr) SSL_set_fd(ssl, sock);
  }
  const bool over_limit = connections_->fetch_add(1) >= limits_.max_connections;
  {
    Connection connection(sock, ssl, limits_, stopping_);
    if (tls_ == nullptr || (ssl != nullptr && connection.Handshake())) {
      if (over_limit) {
        const std::string body = StrCat(
            R"({"error":"the HTTP port serves )", limits_.max_connections,
            R"( connections at once and all are taken; retry shortly, or raise --http-max-connections"})",
            "\n");
        connection.write(StrCat("HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                                "application/json\r\nRetry-After: 1\r\nConnection: close\r\n"
                                "Content-Length: ",
                                body.size(), "\r\n\r\n", body));
      } else {
        for (int served = 0; served < limits_.keep_alive_requests && !stopping_.load(); ++served) {
          if (!connection.WaitForRequest(served == 0)) break;
          connection.StartRequest();
          bool closed = false;
          const bool last = served + 1 == limits_.keep_alive_requests || stopping_.load();
          current_connection_ = &connection;
          const bool ok = process_request(connection, last, closed, nullptr);
          current_connection_ = nullptr;
          if (!ok || closed || connection.close_after_answer()) break;
        }
      }
      if (over_limit || connection.refused_unread()) connection.LingerBeforeClose();
    }
  }  // the TLS session ends before the socket closes
  connections_->fetch_sub(1);
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return true;
}

}  // namespace strata
