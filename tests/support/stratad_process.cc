#include "tests/support/stratad_process.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "tests/support/child_spawner.h"

namespace strata::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStartTimeout = std::chrono::seconds(30);
// A stop at a test's end: stratad's own grace for in-flight calls (10 s) and the close of its
// data directory, with room for a loaded machine.
constexpr int kStopAtTestEndSeconds = 30;

// "Suite.Name" with the characters a file name should not hold replaced.
std::string StrCatForPath(std::string_view suite, std::string_view name) {
  std::string out = std::string(suite) + "." + std::string(name);
  for (char& c : out) {
    if (c == '/' || c == ' ') c = '_';
  }
  return out;
}

}  // namespace

std::string StratadPath() {
  const char* other = std::getenv("STRATA_TEST_STRATAD");
  return other != nullptr && *other != '\0' ? other : STRATAD_PATH;
}

StratadProcess::StratadProcess()
    : data_dir_(dir_.Sub("data")), log_path_(dir_.Sub("stratad.log")) {}

std::string StopProblem(int stop_result) {
  if (stop_result == -1) return "did not stop within its time after SIGTERM (killed)";
  const int signal = stop_result > 128 ? stop_result - 128 : 0;
  if (signal == SIGSEGV || signal == SIGABRT || signal == SIGBUS || signal == SIGFPE ||
      signal == SIGILL || signal == SIGTRAP || signal == SIGSYS) {
    return std::string("crashed (") + strsignal(signal) + ")";
  }
  return "";
}

StratadProcess::~StratadProcess() {
  if (const std::string problem = StopProblem(Stop(kStopAtTestEndSeconds)); !problem.empty()) {
    ADD_FAILURE() << "stratad at the test's end: " << problem << "; its log is kept";
  }
  if (::testing::Test::HasFailure()) KeepLogOfFailure();
}

int64_t StratadProcess::PeakRssBytes() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

std::string TestArtifactsDir() {
  const char* configured = std::getenv("STRATA_TEST_ARTIFACTS");
  const std::string dir = configured != nullptr ? configured : "test-artifacts";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return dir;
}

std::string CurrentTestFileName() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return test == nullptr ? "unknown" : StrCatForPath(test->test_suite_name(), test->name());
}

void StratadProcess::KeepLogOfFailure() const {
  // The next "Socket closed" says why: the log is copied where CI keeps it and its end is
  // printed with the test's output.
  const std::filesystem::path dir = TestArtifactsDir();
  std::error_code ec;
  // The temp dir's name tells the processes of one test apart (a cluster test runs several).
  const std::string name = CurrentTestFileName() + "." +
                           std::filesystem::path(log_path_).parent_path().filename().string();
  std::filesystem::copy_file(log_path_, dir / (name + ".stratad.log"),
                             std::filesystem::copy_options::overwrite_existing, ec);
  std::ifstream in(log_path_);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  const size_t from = lines.size() > 60 ? lines.size() - 60 : 0;
  std::cerr << "---- the last " << lines.size() - from
            << " lines of stratad's log (whole: " << (dir / (name + ".stratad.log")).string()
            << ")\n";
  for (size_t i = from; i < lines.size(); ++i) std::cerr << lines[i] << "\n";
  std::cerr << "----\n";
}

pid_t StratadProcess::Spawn(const std::vector<std::string>& args) {
  const bool run_as = run_as_uid_ != static_cast<uid_t>(-1);
  if (run_as) {
    // Its files are its own: the temp dir, the data dir and what is in them.
    std::filesystem::create_directories(data_dir_);
    ::chown(dir_.path().c_str(), run_as_uid_, run_as_gid_);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      ::chown(entry.path().c_str(), run_as_uid_, run_as_gid_);
    }
  }
  std::string binary = StratadPath();
  std::vector<char*> argv;
  argv.push_back(binary.data());
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return ForkTiedToThisProcess([&] {
    int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    if (run_as) {
      if (setgroups(0, nullptr) != 0 || setgid(run_as_gid_) != 0 || setuid(run_as_uid_) != 0) {
        _exit(126);
      }
      // Changing its user cleared the parent-death signal (child_spawner.h): again.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
    }
    execv(binary.c_str(), argv.data());
  });
}

std::string StratadProcess::AdminToken() const {
  std::ifstream in(data_dir_ + "/admin.token");
  std::string token;
  std::getline(in, token);
  return token;
}

bool StratadProcess::StartWithTls(const TestCerts& certs,
                                  const std::vector<std::string>& extra_args) {
  UseCredentials(certs.Credentials(certs.ca_cert()));
  std::vector<std::string> args = {"--tls-cert", certs.server_cert(), "--tls-key",
                                   certs.server_key()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  return Start(args);
}

bool StratadProcess::Start(const std::vector<std::string>& extra_args) {
  // A restart reuses the last ports, and a test running beside this one may
  // have been given the HTTP or PostgreSQL port meanwhile (they were the
  // kernel's free ports): then those two start again on free ports. (The
  // gRPC port stays: the test's channels hold its address.)
  if (StartOnce(extra_args)) return true;
  if (error_.find("cannot listen for HTTP") == std::string::npos &&
      error_.find("cannot listen for PostgreSQL") == std::string::npos) {
    return false;
  }
  http_port_ = 0;
  pg_port_ = 0;
  return StartOnce(extra_args);
}

bool StratadProcess::StartOnce(const std::vector<std::string>& extra_args) {
  extra_args_ = extra_args;
  std::ofstream(log_path_, std::ios::trunc).close();
  std::vector<std::string> args = {"--data-dir", data_dir_, "--listen",
                                   "127.0.0.1:" + std::to_string(port_)};
  // Tests run side by side: a free HTTP port, unless the test names one.
  if (std::find(extra_args.begin(), extra_args.end(), "--http-listen") == extra_args.end()) {
    args.insert(args.end(), {"--http-listen", "127.0.0.1:" + std::to_string(http_port_)});
  }
  if (std::find(extra_args.begin(), extra_args.end(), "--pg-listen") == extra_args.end()) {
    args.insert(args.end(), {"--pg-listen", "127.0.0.1:" + std::to_string(pg_port_)});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = Spawn(args);
  return WaitHealthy();
}

bool StratadProcess::WaitHealthy() {
  const auto deadline = Clock::now() + kStartTimeout;
  static const std::regex kServing("serving on port ([0-9]+)");
  while (Clock::now() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "stratad exited during start-up:\n" + log();
      return false;
    }
    std::smatch match;
    std::string text = log();
    if (std::regex_search(text, match, kServing)) {
      port_ = std::stoi(match[1]);
      static const std::regex kHttp("HTTP on port ([0-9]+)");
      if (std::smatch http; std::regex_search(text, http, kHttp)) http_port_ = std::stoi(http[1]);
      static const std::regex kPg("PostgreSQL clients on port ([0-9]+)");
      if (std::smatch pg; std::regex_search(text, pg, kPg)) pg_port_ = std::stoi(pg[1]);
      // A fresh subchannel pool: otherwise the channel inherits the reconnect
      // backoff of connections to the previous (killed) server on this port.
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
      args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 200);
      channel_ = grpc::CreateCustomChannel(
          address(), credentials_ ? credentials_ : grpc::InsecureChannelCredentials(), args);
      grpc::health::v1::HealthCheckRequest request;
      grpc::health::v1::HealthCheckResponse response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
      auto stub = grpc::health::v1::Health::NewStub(channel_);
      if (stub->Check(&context, request, &response).ok() &&
          response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
        return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error_ = "stratad did not become healthy in time:\n" + log();
  return false;
}

int StratadProcess::WaitExit(int timeout_seconds) {
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  while (Clock::now() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

int StratadProcess::RunToExit(const std::vector<std::string>& given, int timeout_seconds) {
  std::ofstream(log_path_, std::ios::trunc).close();
  std::vector<std::string> args = given;
  if (std::find(args.begin(), args.end(), "--http-listen") == args.end()) {
    args.insert(args.end(), {"--http-listen", "127.0.0.1:0"});
  }
  if (std::find(args.begin(), args.end(), "--pg-listen") == args.end()) {
    args.insert(args.end(), {"--pg-listen", "127.0.0.1:0"});
  }
  pid_ = Spawn(args);
  int code = WaitExit(timeout_seconds);
  if (code == -1) Kill9();
  return code;
}

int StratadProcess::Stop(int timeout_seconds) {
  if (pid_ <= 0) return kNotRunning;
  kill(pid_, SIGCONT);
  kill(pid_, SIGTERM);
  int code = WaitExit(timeout_seconds);
  if (code == -1) Kill9();
  return code;
}

void StratadProcess::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool StratadProcess::Restart() { return Start(extra_args_); }

std::string StratadProcess::address() const { return "127.0.0.1:" + std::to_string(port_); }

std::string StratadProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace strata::testing
