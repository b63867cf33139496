// The HTTP target's driver without libFuzzer (driver.h): byte mutations
// (byte_mutator.h) of requests to every endpoint, with and without the
// token, gzip and chunked bodies, pipelined requests, bodies where none is
// taken, and heads at and past the limits.
#include <zlib.h>

#include <string>
#include <vector>

#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Post(const std::string& path, const std::string& headers, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::vector<std::string> Seeds() {
  const std::string token = "Authorization: Bearer @TOKEN@\r\n";
  const std::string lines = "cpu,host=a usage=1.5,n=3i,up=t,s=\"x\" 1709294390000000000\nbad\n";
  return {
      "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\n" + token + "\r\n",
      "GET /metrics?p=@TOKEN@ HTTP/1.0\r\n\r\n",
      Post("/write?db=mydb", token, lines),
      Post("/api/v2/write?bucket=mydb/rp&precision=ns", "Authorization: Token @TOKEN@\r\n", lines),
      Post("/write?db=mydb&p=@TOKEN@", "Content-Encoding: gzip\r\n", Gzip(lines + lines)),
      "POST /write?db=mydb HTTP/1.1\r\nHost: x\r\n" + token +
          "Transfer-Encoding: chunked\r\n\r\n10\r\ncpu,host=b v=1 1\r\n2\r\n\n\n\r\n0\r\n\r\n",
      Post("/api/v1/write?db=mydb&table=remote", token + "Content-Encoding: snappy\r\n", "\x05\x10garbage"),
      Post("/api/v1/read?db=mydb", token + "Content-Encoding: gzip\r\n", Gzip(std::string(4096, '\0'))),
      Post("/api/v1/write", "", Gzip(std::string(1 << 16, '\0'))),
      "GET /api/v1/sql?q=SELECT%20*%20FROM%20mydb.cpu&format=ndjson HTTP/1.1\r\nHost: x\r\n" +
          token + "\r\n",
      Post("/api/v1/sql?format=csv", token + "Content-Type: application/json\r\n",
           R"({"query": "SELECT host, usage FROM cpu WHERE usage > ? AND host = @h",)"
           R"( "params": {"h": "a"}, "database": "mydb", "timeout_ms": 1000})"),
      Post("/api/v1/sql", token, "SELECT count(*) FROM mydb.cpu GROUP BY host"),
      "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
      "GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Long: " + std::string(9000, 'a') + "\r\n\r\n",
      "POST /write?db=mydb HTTP/1.1\r\nHost: x\r\n" + token +
          "Expect: 100-continue\r\nContent-Length: 99999999999\r\n\r\n",
      // The console's files, as a browser asks for them (gzip, not brotli).
      "GET /console/app.css HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\n"
      "\r\nGET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br;q=1, gzip;q=0.5\r\n\r\n",
      // Another site's page, and the console's own origin.
      Post("/api/v1/sql", token + "Origin: https://evil.example\r\n", "DELETE FROM mydb.cpu"),
      Post("/api/v1/sql", token + "Origin: http://x\r\n", "SELECT 1"),
  };
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "http", Seeds(), strata::fuzz::MutateBytes, 20'000);
}
