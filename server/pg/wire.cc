#include "server/pg/wire.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace strata::pg {

Stream::~Stream() {
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
    SSL_free(ssl_);
  }
  close(fd_);
}

void Stream::SetReadDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
  read_deadline_ = deadline;
  if (!deadline) {
    timeval forever{};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &forever, sizeof forever);
  }
}

bool Stream::ArmReadTimeout() {
  if (!read_deadline_) return true;
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
      *read_deadline_ - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  timeval timeout{.tv_sec = static_cast<time_t>(left.count() / 1'000'000),
                  .tv_usec = static_cast<suseconds_t>(left.count() % 1'000'000)};
  return setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) == 0;
}

bool Stream::ReadExact(char* data, size_t size) {
  while (size > 0) {
    if (!ArmReadTimeout()) return false;
    ssize_t n;
    if (ssl_ != nullptr) {
      n = SSL_read(ssl_, data, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    } else {
      n = recv(fd_, data, size, 0);
      if (n < 0 && errno == EINTR) continue;
    }
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool Stream::WriteAll(std::string_view data) {
  while (!data.empty()) {
    ssize_t n;
    if (ssl_ != nullptr) {
      n = SSL_write(ssl_, data.data(), static_cast<int>(std::min<size_t>(data.size(), 1 << 30)));
    } else {
      n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
    }
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool Stream::StartTls(SSL_CTX* context) {
  ssl_ = SSL_new(context);
  if (ssl_ == nullptr) return false;
  SSL_set_fd(ssl_, fd_);
  return ArmReadTimeout() && SSL_accept(ssl_) == 1;
}

int16_t MessageReader::Int16() {
  std::string_view b = Bytes(2);
  if (b.size() < 2) return 0;
  return static_cast<int16_t>((static_cast<uint8_t>(b[0]) << 8) | static_cast<uint8_t>(b[1]));
}

int32_t MessageReader::Int32() {
  std::string_view b = Bytes(4);
  if (b.size() < 4) return 0;
  uint32_t v = 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  return static_cast<int32_t>(v);
}

std::string MessageReader::CString() {
  const size_t end = body_.find('\0', pos_);
  if (end == std::string_view::npos) {
    failed_ = true;
    pos_ = body_.size();
    return {};
  }
  std::string out(body_.substr(pos_, end - pos_));
  pos_ = end + 1;
  return out;
}

std::string_view MessageReader::Bytes(size_t size) {
  if (body_.size() - pos_ < size) {
    failed_ = true;
    pos_ = body_.size();
    return {};
  }
  std::string_view out = body_.substr(pos_, size);
  pos_ += size;
  return out;
}

void MessageWriter::Begin(char type) {
  message_start_ = buffer_.size();
  buffer_.push_back(type);
  Int32(0);  // the length, set by End
}

void MessageWriter::Int16(int16_t v) {
  buffer_.push_back(static_cast<char>((v >> 8) & 0xff));
  buffer_.push_back(static_cast<char>(v & 0xff));
}

void MessageWriter::Int32(int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    buffer_.push_back(static_cast<char>((static_cast<uint32_t>(v) >> shift) & 0xff));
  }
}

void MessageWriter::Int64(int64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    buffer_.push_back(static_cast<char>((static_cast<uint64_t>(v) >> shift) & 0xff));
  }
}

void MessageWriter::Bytes(std::string_view v) { buffer_.append(v); }

void MessageWriter::CString(std::string_view v) {
  // A NUL inside would end the string early on the client: drop it.
  for (char c : v) {
    if (c != '\0') buffer_.push_back(c);
  }
  buffer_.push_back('\0');
}

void MessageWriter::End() {
  const uint32_t length = static_cast<uint32_t>(buffer_.size() - message_start_ - 1);
  for (int i = 0; i < 4; ++i) {
    buffer_[message_start_ + 1 + i] = static_cast<char>((length >> (24 - 8 * i)) & 0xff);
  }
}

bool MessageWriter::FlushTo(Stream& stream) {
  const bool ok = stream.WriteAll(buffer_);
  buffer_.clear();
  return ok;
}

}  // namespace strata::pg
