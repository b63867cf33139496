// A minimal PostgreSQL frontend for end-to-end tests: messages built by hand
// (protocol 3.0: a type byte, an Int32 length that counts itself, big-endian
// integers, NUL-terminated strings), for what real clients do not send.
#pragma once

#include <cstdint>
#include <string>

#include "tests/support/loopback_socket.h"

namespace strata::testing {

class PgRawClient {
 public:
  explicit PgRawClient(int port) : socket_(port) {}

  bool connected() const { return socket_.connected(); }
  LoopbackSocket& socket() { return socket_; }

  // Sends one message (`type` 0: none, as for startup packets). The server
  // may have closed the connection already (a fatal error): not a failure.
  void Send(char type, const std::string& body) { (void)socket_.Send(Message(type, body)); }

  static std::string Int32(int32_t v);
  static std::string Int16(int16_t v);
  static std::string Str(const std::string& s) { return s + std::string(1, '\0'); }
  // A message of `type` (0: none) with its length.
  static std::string Message(char type, const std::string& body);
  // A protocol 3.0 startup packet for `user`.
  static std::string Startup(const std::string& user = "raw");

  // Sends a startup packet for `user`; what the server answers.
  std::string Start(const std::string& user = "raw") {
    (void)socket_.Send(Startup(user));
    return ReadUntilReady();
  }

  // The types of the messages received until ReadyForQuery (or "<eof>"),
  // with DataRow's first value and ErrorResponse's message appended.
  std::string ReadUntilReady();

 private:
  LoopbackSocket socket_;
};

}  // namespace strata::testing
