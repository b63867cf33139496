// Runs the real stratad binary for end-to-end tests: a temp data dir, a free
// loopback port (stratad picks it; we read it from its log), readiness by the
// gRPC health service, and stop / kill -9 / restart on the same port and data.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"

namespace strata::testing {

class StratadProcess {
 public:
  // Does not start anything; call Start.
  StratadProcess();
  // Stops the process if it still runs, as an operator would (SIGTERM), and fails the running
  // test when it crashed (on the way out or before) or did not stop: a teardown order that
  // frees what a thread still uses shows here though every check of the test passed.
  ~StratadProcess();

  // How the test's channel (and the readiness check) talks to the server:
  // plaintext unless set before Start (TLS credentials for a TLS server).
  void UseCredentials(std::shared_ptr<grpc::ChannelCredentials> credentials) {
    credentials_ = std::move(credentials);
  }

  // Runs the server as `uid`/`gid` (the test runs as root): its packets can then be told
  // apart by owner (iptables' owner match), to cut it off the network. Set before Start.
  void RunAs(uid_t uid, gid_t gid) {
    run_as_uid_ = uid;
    run_as_gid_ = gid;
  }

  // Starts stratad with `extra_args` and waits until it reports SERVING.
  // Returns false (with the log in `error()`) if it exits or does not become
  // healthy in time.
  bool Start(const std::vector<std::string>& extra_args = {});
  // Start with TLS on (`certs`' server certificate and key), the test's
  // channel trusting `certs`' CA.
  bool StartWithTls(const TestCerts& certs, const std::vector<std::string>& extra_args = {});
  // Starts stratad and waits for it to exit; returns its exit code. For
  // tests of start-up failures.
  int RunToExit(const std::vector<std::string>& args, int timeout_seconds = 20);

  // SIGCONT (a test may have paused it) and SIGTERM, then waits up to `timeout_seconds`;
  // returns the exit status, -1 on a timeout (after which the process is killed), or
  // kNotRunning when no process runs (never started, or already stopped or killed).
  static constexpr int kNotRunning = -2;
  int Stop(int timeout_seconds = 30);
  // SIGKILL: no chance to flush or close.
  void Kill9();
  // Starts again with the same data dir, port and arguments.
  bool Restart();

  int port() const { return port_; }
  // The HTTP port (0 when the server runs without HTTP).
  int http_port() const { return http_port_; }
  // The PostgreSQL port (--pg-listen, a free one unless the test names it).
  int pg_port() const { return pg_port_; }
  pid_t pid() const { return pid_; }
  // The running server's peak resident memory (VmHWM), -1 if unknown.
  int64_t PeakRssBytes() const;
  std::string address() const;
  const std::string& data_dir() const { return data_dir_; }
  // The first admin token, which stratad writes to DATA_DIR/admin.token
  // when authentication is on ("" when there is none).
  std::string AdminToken() const;
  std::string log() const;
  const std::string& error() const { return error_; }
  std::shared_ptr<grpc::Channel> channel() const { return channel_; }

 private:
  pid_t Spawn(const std::vector<std::string>& args);
  bool StartOnce(const std::vector<std::string>& extra_args);
  // When the running test failed: keeps the server's log (see the .cc).
  void KeepLogOfFailure() const;
  bool WaitHealthy();
  int WaitExit(int timeout_seconds);

  TempDir dir_;
  std::string data_dir_;
  std::string log_path_;
  std::vector<std::string> extra_args_;
  pid_t pid_ = -1;
  int port_ = 0;
  int http_port_ = 0;
  int pg_port_ = 0;
  std::string error_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  uid_t run_as_uid_ = static_cast<uid_t>(-1);
  gid_t run_as_gid_ = static_cast<gid_t>(-1);
};

// What a graceful stop's result (StratadProcess::Stop) says went wrong: "" when the process
// exited by itself, with any code (one that failed to close its data says why in its log), or
// was not running; else that a signal such as SIGSEGV or SIGABRT ended it, or that it did not
// stop in time.
std::string StopProblem(int stop_result);

// Path of the stratad binary under test: STRATA_TEST_STRATAD if set (another build of it,
// such as scripts/sanitized_tests.sh's under AddressSanitizer), else the one CMake built.
std::string StratadPath();

// Where a failing test's logs are kept (STRATA_TEST_ARTIFACTS, or test-artifacts/ in the
// working directory, which is build/ under ctest), created; and the running test's name as
// a file name ("Suite.Name").
std::string TestArtifactsDir();
std::string CurrentTestFileName();

}  // namespace strata::testing
