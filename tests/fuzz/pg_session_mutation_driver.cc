// The PostgreSQL session target's driver without libFuzzer (driver.h): byte
// mutations (byte_mutator.h) of connection starts (startup, SSL, cancel and
// unsupported requests, oversized password announcements) and of message
// streams after login (simple queries, the extended protocol with
// parameters and row limits, COPY both ways, unknown types, lying lengths).
#include <string>
#include <vector>

#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

std::string Int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}
std::string Int16(int16_t v) { return {static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)}; }
std::string Message(char type, const std::string& body) {
  return std::string(1, type) + Int32(static_cast<int32_t>(body.size() + 4)) + body;
}
std::string Str(const std::string& s) { return s + std::string(1, '\0'); }
std::string Packet(const std::string& body) { return Int32(static_cast<int32_t>(body.size() + 4)) + body; }

std::vector<std::string> Seeds() {
  const std::string startup = Packet(Int32(196608) + Str("user") + Str("u") + Str("database") +
                                     Str("mydb") + std::string(1, '\0'));
  const std::string before = std::string(1, '\x00');  // bytes from the connection's start
  const std::string after = std::string(1, '\x01');   // bytes after a good login
  return {
      before + startup + Message('p', Str("strata_0123456789abcdef_" + std::string(64, 'a'))),
      before + Packet(Int32(80877103)) + startup,                 // SSLRequest first
      before + Packet(Int32(80877102) + Int32(1000) + Int32(7)),  // CancelRequest
      before + Packet(Int32(131072)),                             // protocol 2.0
      before + startup + "p" + Int32(16 << 20),                   // a 16 MB password announced
      after + Message('Q', Str("SELECT host, usage FROM mydb.cpu WHERE usage > 1 ORDER BY 2")) +
          Message('Q', Str("SELECT 1; SELECT 'a;b'; BEGIN; SELEC; ROLLBACK")) + Message('X', ""),
      after + Message('P', Str("s1") + Str("SELECT $1::bigint + 1, $2") + Int16(1) + Int32(20)) +
          Message('B', Str("p1") + Str("s1") + Int16(0) + Int16(2) + Int32(2) + "41" + Int32(-1) +
                           Int16(0)) +
          Message('D', "P" + Str("p1")) + Message('E', Str("p1") + Int32(1)) +
          Message('E', Str("p1") + Int32(0)) + Message('C', "S" + Str("s1")) + Message('S', ""),
      after + Message('Q', Str("SELECT * FROM pg_catalog.pg_type LIMIT 3")) +
          Message('Q', Str("SHOW QUERIES")) + Message('d', "data") + Message('?', "x"),
      after + Message('P', Str("") + Str("SELECT $32768") + Int16(0)) + Message('S', ""),
      // COPY FROM STDIN: the text format cut across CopyData messages, CSV with quotes across
      // lines and a header, a CopyFail, and data after the COPY ended.
      after + Message('Q', Str("COPY mydb.cpu (time, host, v) FROM STDIN")) +
          Message('d', "2024-03-01 11:00:00\ta\\tb\t1.5\n2024-03-01 11:0") +
          Message('d', "1:00\t\\N\t-2\n\\.\n") + Message('c', "") +
          Message('Q', Str("COPY mydb.cpu FROM STDIN WITH (FORMAT csv, HEADER)")) +
          Message('d', "h\n2024-03-01 11:02:00,\"x\ny\",3,\"\"\"\"\n") + Message('c', "") +
          Message('Q', Str("COPY mydb.cpu (time, v) FROM STDIN CSV")) + Message('d', "1,2\n") +
          Message('f', Str("stop")) + Message('d', "late") + Message('c', "") + Message('X', ""),
  };
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "pg_session", Seeds(), strata::fuzz::MutateBytes,
                                 50'000);
}
