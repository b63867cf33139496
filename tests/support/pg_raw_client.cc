#include "tests/support/pg_raw_client.h"

namespace strata::testing {

std::string PgRawClient::Int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  return out;
}

std::string PgRawClient::Int16(int16_t v) {
  return std::string{static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
}

std::string PgRawClient::Message(char type, const std::string& body) {
  std::string message;
  if (type != 0) message.push_back(type);
  return message + Int32(static_cast<int32_t>(body.size() + 4)) + body;
}

std::string PgRawClient::Startup(const std::string& user) {
  return Message(0, Int32(196608) + Str("user") + Str(user) + std::string(1, '\0'));
}

std::string PgRawClient::ReadUntilReady() {
  std::string seen;
  while (true) {
    char header[5];
    if (!socket_.ReadExact(header, 5)) return seen + "<eof>";
    uint32_t length = 0;
    for (int i = 1; i < 5; ++i) length = (length << 8) | static_cast<uint8_t>(header[i]);
    if (length < 4) return seen + "<eof>";
    std::string body(length - 4, '\0');
    if (!socket_.ReadExact(body.data(), body.size())) return seen + "<eof>";
    seen.push_back(header[0]);
    if (header[0] == 'D' && body.size() > 6) {
      uint32_t size = 0;
      for (int i = 2; i < 6; ++i) size = (size << 8) | static_cast<uint8_t>(body[i]);
      seen += "(" + body.substr(6, size) + ")";
    }
    if (header[0] == 'E') {
      const size_t m = body.find(std::string("\0M", 2));
      if (m != std::string::npos) seen += "(" + std::string(body.c_str() + m + 2) + ")";
    }
    if (header[0] == 'Z') return seen;
  }
}

}  // namespace strata::testing
