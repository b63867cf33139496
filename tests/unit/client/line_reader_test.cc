#include "client/line_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

// Every line of `text` as LineReader returns them, reading `block` bytes at a time.
std::vector<std::string> Lines(const std::string& text, size_t block) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  EXPECT_EQ(write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fds[1]);
  LineReader reader(fds[0], block);
  std::vector<std::string> out;
  std::string_view line;
  while (reader.Next(&line)) out.emplace_back(line);
  EXPECT_EQ(reader.error(), "");
  close(fds[0]);
  return out;
}

TEST(LineReaderTest, LinesAcrossBlocksComeWhole) {
  const std::string text = "first line\nsecond\n\nlast without newline";
  const std::vector<std::string> expected = {"first line", "second", "", "last without newline"};
  for (size_t block : {1, 2, 3, 7, 64, 1 << 20}) {
    EXPECT_EQ(Lines(text, block), expected) << "block " << block;
  }
  EXPECT_EQ(Lines("a\r\nb\n", 2), (std::vector<std::string>{"a\r", "b"}));
  EXPECT_TRUE(Lines("", 4).empty());
  EXPECT_EQ(Lines("\n", 4), (std::vector<std::string>{""}));
}

TEST(LineReaderTest, AReadErrorIsReported) {
  LineReader reader(-1);
  std::string_view line;
  EXPECT_FALSE(reader.Next(&line));
  EXPECT_NE(reader.error(), "");
}

}  // namespace
}  // namespace strata::cli
