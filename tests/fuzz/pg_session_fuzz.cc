// Fuzz target: arbitrary bytes as what a PostgreSQL client sends, into a
// real session (server/pg/session.h) over a socket pair, against a small
// table with tokens on. The first byte picks where the bytes start: even,
// at the connection's first byte (startup, SSL and cancel requests, the
// password message before login); odd, after a good startup and login with
// the admin token (the simple and the extended protocol). The session must
// answer or close, never crash, hang or allocate what a message announces
// before it is sent.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "server/pg/session.h"
#include "tests/fuzz/front_door_fixture.h"

namespace {

using namespace strata;

std::string Int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}

// A startup packet for user "fuzz" and database "mydb", then the password.
std::string Login(const std::string& token) {
  const std::string startup = Int32(196608) + std::string("user\0fuzz\0database\0mydb\0\0", 25);
  const std::string password = token + std::string(1, '\0');
  return Int32(static_cast<int32_t>(startup.size() + 4)) + startup + "p" +
         Int32(static_cast<int32_t>(password.size() + 4)) + password;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::FrontDoorFixture fixture("pg");
  if (size < 1) return 0;
  std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) input = Login(fixture.admin_token) + input;

  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) != 0) fuzz::EngineFixture::Fail("socketpair");
  // The client's side: everything at once, then its end of the stream, so
  // the session meets EOF instead of waiting for more.
  const int buffer = 1 << 20;
  setsockopt(sockets[1], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  std::thread client([fd = sockets[1], &input] {
    (void)!send(fd, input.data(), input.size(), MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    char sink[1 << 16];
    while (recv(fd, sink, sizeof sink, 0) > 0) {
    }
    close(fd);
  });
  pg::SessionContext context{.queries = fixture.queries.get(),
                             .engine = fixture.engine.get(),
                             .auth = fixture.auth.get(),
                             .tls = nullptr,
                             .auth_timeout = std::chrono::seconds(5),
                             .register_cancel = [](auto) { return std::pair{1000, 7}; },
                             .unregister_cancel = [](int32_t) {},
                             .cancel = [](int32_t, int32_t) {}};
  {
    pg::Session session(std::move(context), std::make_unique<pg::Stream>(sockets[0]), "fuzz:1");
    session.Run();
  }  // closes the session's socket: the client sees EOF
  client.join();
  return 0;
}
