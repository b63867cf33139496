// Lines of a file descriptor (a file, or standard input) read in large
// blocks: no iostream per byte or per line, and stdin as fast as a named file.
// A line is returned without its '\n'; the last one need not end with one.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::cli {

class LineReader {
 public:
  // Reads `fd` (not owned; 0 for standard input).
  explicit LineReader(int fd, size_t block_bytes = size_t{1} << 20);

  // The next line, valid until the next call; false at the end of the input
  // (or after a read error, which error() then names).
  bool Next(std::string_view* line);
  const std::string& error() const { return error_; }

 private:
  // Reads another block after the unread bytes; false at the end.
  bool Fill();

  int fd_;
  size_t block_bytes_;
  std::string buffer_;
  size_t start_ = 0;  // the first unread byte of buffer_
  bool eof_ = false;
  std::string error_;
};

}  // namespace strata::cli
