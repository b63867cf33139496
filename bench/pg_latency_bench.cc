// Small-query latency, PostgreSQL wire protocol against gRPC, on one running
// stratad: the same SQL run --runs times over each (one connection each,
// sequentially), reporting the median and the 99th percentile. The PostgreSQL
// side speaks the simple query protocol from raw sockets, as a minimal client
// (libpq adds little on top of the wire); the gRPC side is the generated stub.
//
//   build/bench/pg_latency_bench --target 127.0.0.1:7878 --pg-port 7880
//       --query "SELECT count(*) FROM mydb.cpu WHERE host = 'host_1'"
// (one command line)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_connection.h"
#include "strata/v1/query.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string Int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}

class PgConnection {
 public:
  bool Connect(int port, const std::string& password) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return false;
    std::string body = Int32(196608) + std::string("user\0bench\0\0", 12);
    Write(Int32(static_cast<int32_t>(body.size() + 4)) + body);
    char type;
    std::string message;
    while (Read(&type, &message)) {
      if (type == 'R' && message.size() >= 4 && message[3] == 3) {  // cleartext password
        std::string p = password + std::string(1, '\0');
        Write("p" + Int32(static_cast<int32_t>(p.size() + 4)) + p);
      }
      if (type == 'E') return false;
      if (type == 'Z') return true;
    }
    return false;
  }
  // Runs `sql`; the number of rows, or -1 on an error.
  int64_t Query(const std::string& sql) {
    std::string q = sql + std::string(1, '\0');
    Write("Q" + Int32(static_cast<int32_t>(q.size() + 4)) + q);
    int64_t rows = 0;
    bool failed = false;
    char type;
    std::string message;
    while (Read(&type, &message)) {
      if (type == 'D') ++rows;
      if (type == 'E') failed = true;
      if (type == 'Z') return failed ? -1 : rows;
    }
    return -1;
  }
  ~PgConnection() { close(fd_); }

 private:
  void Write(const std::string& bytes) { (void)!send(fd_, bytes.data(), bytes.size(), 0); }
  bool ReadExact(char* data, size_t size) {
    while (size > 0) {
      ssize_t n = recv(fd_, data, size, 0);
      if (n <= 0) return false;
      data += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }
  bool Read(char* type, std::string* body) {
    char header[5];
    if (!ReadExact(header, 5)) return false;
    *type = header[0];
    uint32_t length = 0;
    for (int i = 1; i < 5; ++i) length = (length << 8) | static_cast<uint8_t>(header[i]);
    body->resize(length - 4);
    return ReadExact(body->data(), body->size());
  }
  int fd_ = -1;
};

void Report(const char* name, std::vector<double> millis) {
  std::sort(millis.begin(), millis.end());
  std::printf("%-6s median %.3f ms, p99 %.3f ms over %zu runs\n", name, millis[millis.size() / 2],
              millis[std::min(millis.size() - 1, millis.size() * 99 / 100)], millis.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("PostgreSQL wire vs gRPC latency of one small query");
  strata::bench::BenchConnection connection;
  connection.AddOptions(app);
  int pg_port = 7880;
  int runs = 500;
  std::string sql = "SELECT 1";
  app.add_option("--pg-port", pg_port, "stratad's --pg-listen port")->capture_default_str();
  app.add_option("--runs", runs, "Runs over each protocol")->capture_default_str();
  app.add_option("--query", sql, "The SQL to run")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  PgConnection pg;
  if (!pg.Connect(pg_port, connection.token)) {
    std::fprintf(stderr, "cannot connect to the PostgreSQL port %d\n", pg_port);
    return 1;
  }
  auto stub = strata::v1::QueryService::NewStub(connection.Channel());
  auto grpc_query = [&]() -> int64_t {
    grpc::ClientContext context;
    connection.Authorize(context);
    strata::v1::QueryRequest request;
    request.set_query_string(sql);
    auto reader = stub->Query(&context, request);
    strata::v1::QueryResponse response;
    int64_t rows = 0;
    while (reader->Read(&response)) rows += response.page().rows_size();
    return reader->Finish().ok() ? rows : -1;
  };
  // Warm both paths (connections, caches), and check they agree.
  const int64_t pg_rows = pg.Query(sql);
  const int64_t grpc_rows = grpc_query();
  if (pg_rows < 0 || pg_rows != grpc_rows) {
    std::fprintf(stderr, "the query failed or the protocols disagree (%lld vs %lld rows)\n",
                 static_cast<long long>(pg_rows), static_cast<long long>(grpc_rows));
    return 1;
  }
  std::vector<double> pg_ms, grpc_ms;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    pg.Query(sql);
    pg_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    start = Clock::now();
    grpc_query();
    grpc_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::printf("query: %s (%lld rows)\n", sql.c_str(), static_cast<long long>(pg_rows));
  Report("pg", pg_ms);
  Report("grpc", grpc_ms);
  return 0;
}
