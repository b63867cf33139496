// Runs another program for end-to-end tests: to completion with captured
// output (RunProcess), or attached to a pseudo-terminal that the test types
// into and reads from (PtyProcess), as a person at a terminal would.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace strata::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;
  std::string err;
};

// Runs `argv` with `input` on stdin and `env` ("NAME=value") added to the
// environment. Kills it after `timeout`.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input = "",
                         const std::vector<std::string>& env = {},
                         std::chrono::seconds timeout = std::chrono::seconds(60));

// The first executable `name` on PATH, or "".
std::string FindOnPath(const std::string& name);

// A loopback TCP port free right now, for a program the test starts.
int FreePort();

class PtyProcess {
 public:
  PtyProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});
  ~PtyProcess();  // kills the process if it still runs

  // Types `text` (use "\x03" for Ctrl-C, "\x04" for Ctrl-D).
  void Type(const std::string& text);
  // Reads until the output since the last successful wait contains `text`;
  // false on timeout or end of output. All output stays in output().
  bool WaitFor(const std::string& text, std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Waits for the exit; returns the exit code or -1 on timeout.
  int Wait(std::chrono::seconds timeout = std::chrono::seconds(20));

  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }

 private:
  bool ReadSome(std::chrono::milliseconds timeout);

  int master_ = -1;
  pid_t pid_ = -1;
  std::string output_;
  size_t consumed_ = 0;  // output_ before this was matched by an earlier WaitFor
};

}  // namespace strata::testing
