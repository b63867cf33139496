// Fuzz target: arbitrary bytes as what an HTTP client sends to stratad's HTTP
// port: a real HttpServer (server/http/server.h, every endpoint, tokens on)
// on a loopback port, the bytes sent on a fresh connection and the write
// side closed. "@TOKEN@" in the input becomes the admin token, so requests
// get past authentication too. The server must answer or close, never
// crash, hang (the head deadline is short here) or read a body before the
// token was checked.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include "common/strings.h"
#include "server/http/server.h"
#include "tests/fuzz/front_door_fixture.h"

namespace {

using namespace strata;

struct Fixture : fuzz::FrontDoorFixture {
  Fixture() : FrontDoorFixture("http") {
    auto started = HttpServer::Start(
        {.listen = "127.0.0.1:0",
         .limits = {.max_connections = 16, .head_timeout_millis = 2000,
                    .body_read_timeout_millis = 2000, .request_timeout_millis = 5000}},
        {.engine = engine.get(), .auth = auth.get(), .metrics = metrics.get(),
         .ingest = ingest.get(), .queries = queries.get()});
    if (!started.ok()) Fail(std::string(started.status().message()));
    http = std::move(*started);
  }
  std::unique_ptr<HttpServer> http;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  std::string input(reinterpret_cast<const char*>(data), size);
  for (size_t at = input.find("@TOKEN@"); at != std::string::npos; at = input.find("@TOKEN@", at)) {
    input.replace(at, 7, fixture.admin_token);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(fixture.http->port()));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // A connection an input: the server closes first, so each leaves a TIME_WAIT on loopback for
  // 60 s, and a few hundred inputs a second use up the 28,000 local ports. Their connect then
  // fails with EADDRNOTAVAIL until ports come free: wait for them, as a client would.
  // libFuzzer's timeout is a timer signal each second: a connect it interrupts (EINTR) is
  // tried again on a new socket.
  int fd = -1;
  const auto ports_back = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (true) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) break;
    const int error = errno;
    close(fd);
    if (error == EINTR) continue;
    if (error != EADDRNOTAVAIL || std::chrono::steady_clock::now() > ports_back) {
      fuzz::EngineFixture::Fail(StrCat("cannot connect to the HTTP port: ", strerror(error)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  (void)!send(fd, input.data(), input.size(), MSG_NOSIGNAL);
  shutdown(fd, SHUT_WR);
  // The server answers and closes; past its deadlines it must have closed.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  char sink[1 << 16];
  while (true) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 1000) > 0 && recv(fd, sink, sizeof sink, 0) <= 0) break;
    if (std::chrono::steady_clock::now() > give_up) {
      fuzz::EngineFixture::Fail("the HTTP server kept a closed client's connection for 30 s");
    }
  }
  close(fd);
  return 0;
}
