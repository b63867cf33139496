// The PostgreSQL frontend/backend protocol v3 at the byte level
// (https://www.postgresql.org/docs/current/protocol-message-formats.html):
// a connection's byte stream (plain TCP or TLS after SSLRequest), and the
// reading and writing of messages: a type byte, an Int32 length that counts
// itself, then big-endian integers and NUL-terminated strings.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::pg {

// One client connection. Reads block; a read or write that fails (peer gone,
// timeout) returns false and the session ends.
class Stream {
 public:
  explicit Stream(int fd) : fd_(fd) {}
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  bool ReadExact(char* data, size_t size);
  // Every read (and the TLS handshake) must be done by `deadline`; nullopt:
  // reads wait as long as the client takes. Startup and authentication run
  // under one deadline, so a client that sends nothing (or a byte at a time)
  // cannot hold a connection slot for good.
  void SetReadDeadline(std::optional<std::chrono::steady_clock::time_point> deadline);
  bool WriteAll(std::string_view data);
  // Switches to TLS (after answering 'S' to SSLRequest); false when the
  // handshake fails.
  bool StartTls(SSL_CTX* context);
  bool tls() const { return ssl_ != nullptr; }
  int fd() const { return fd_; }

 private:
  // Sets the socket's receive timeout to what is left until the deadline;
  // false once it has passed.
  bool ArmReadTimeout();

  int fd_;
  SSL* ssl_ = nullptr;
  std::optional<std::chrono::steady_clock::time_point> read_deadline_;
};

// Reads the fields of one received message body. A read past the end sets
// failed() and returns zero / empty, so a malformed message is detected
// once, after parsing it.
class MessageReader {
 public:
  explicit MessageReader(std::string_view body) : body_(body) {}
  int16_t Int16();
  int32_t Int32();
  std::string CString();
  std::string_view Bytes(size_t size);
  bool failed() const { return failed_; }
  bool at_end() const { return pos_ == body_.size(); }

 private:
  std::string_view body_;
  size_t pos_ = 0;
  bool failed_ = false;
};

// Builds outgoing messages into one buffer, flushed to the stream in large
// writes (at ReadyForQuery, or when it grows past a threshold).
class MessageWriter {
 public:
  void Begin(char type);
  void Int16(int16_t v);
  void Int32(int32_t v);
  void Int64(int64_t v);
  void Bytes(std::string_view v);
  void CString(std::string_view v);
  void End();
  // A length-prefixed value (Int32 length, then the bytes) for DataRow and
  // Bind; a NULL is length -1.
  void Value(std::string_view v) {
    Int32(static_cast<int32_t>(v.size()));
    Bytes(v);
  }
  void Null() { Int32(-1); }

  size_t size() const { return buffer_.size(); }
  bool FlushTo(Stream& stream);

 private:
  std::string buffer_;
  size_t message_start_ = 0;
};

}  // namespace strata::pg
