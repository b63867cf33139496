#include "client/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::cli {

LineReader::LineReader(int fd, size_t block_bytes) : fd_(fd), block_bytes_(block_bytes) {}

bool LineReader::Fill() {
  if (eof_) return false;
  // Keep the unread tail (a line cut by the previous block) at the front.
  buffer_.erase(0, start_);
  start_ = 0;
  const size_t kept = buffer_.size();
  buffer_.resize(kept + block_bytes_);
  ssize_t n;
  do {
    n = ::read(fd_, buffer_.data() + kept, block_bytes_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    error_ = std::strerror(errno);
    n = 0;
  }
  buffer_.resize(kept + static_cast<size_t>(n));
  if (n == 0) eof_ = true;
  return n > 0;
}

bool LineReader::Next(std::string_view* line) {
  size_t searched = start_;
  while (true) {
    const size_t end = buffer_.find('\n', searched);
    if (end != std::string::npos) {
      *line = std::string_view(buffer_).substr(start_, end - start_);
      start_ = end + 1;
      return true;
    }
    searched = buffer_.size() - start_;  // offsets move when Fill compacts
    if (!Fill()) break;
    searched += start_;
  }
  if (start_ < buffer_.size()) {  // a last line without '\n'
    *line = std::string_view(buffer_).substr(start_);
    start_ = buffer_.size();
    return true;
  }
  return false;
}

}  // namespace strata::cli
