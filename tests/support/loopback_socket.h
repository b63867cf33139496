// A plain TCP connection to a loopback port, for end-to-end tests that speak
// a protocol by hand (raw HTTP, the PostgreSQL wire) or send what no real
// client would: bytes as given, answers read until the server closes.
#pragma once

#include <string>
#include <string_view>

namespace strata::testing {

class LoopbackSocket {
 public:
  explicit LoopbackSocket(int port);
  ~LoopbackSocket();
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  // Sends all of `data`; false when the server closed the connection.
  bool Send(std::string_view data);
  // Reads exactly `size` bytes; false at EOF or an error first.
  bool ReadExact(char* data, size_t size);
  // What arrives until the server closes the connection or `seconds` pass;
  // `closed` says which.
  std::string ReadAll(int seconds, bool* closed);

 private:
  int fd_ = -1;
  bool connected_ = false;
};

}  // namespace strata::testing
