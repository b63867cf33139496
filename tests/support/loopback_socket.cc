#include "tests/support/loopback_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace strata::testing {

LoopbackSocket::LoopbackSocket(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
}

LoopbackSocket::~LoopbackSocket() { close(fd_); }

bool LoopbackSocket::Send(std::string_view data) {
  // MSG_NOSIGNAL: a server that closed first makes this false, not SIGPIPE.
  return send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
}

bool LoopbackSocket::ReadExact(char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = recv(fd_, data, size, 0);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::string LoopbackSocket::ReadAll(int seconds, bool* closed) {
  std::string out;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  *closed = false;
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) {
      *closed = true;
      break;
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

}  // namespace strata::testing
