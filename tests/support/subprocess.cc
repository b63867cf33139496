#include "tests/support/subprocess.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmp.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "tests/support/child_spawner.h"

namespace strata::testing {
namespace {

[[noreturn]] void Exec(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  for (const std::string& entry : env) putenv(strdup(entry.c_str()));
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Waits for `pid` up to `timeout`; kills it after that.
int WaitOrKill(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return ExitCodeOf(status);
    usleep(10'000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

}  // namespace

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t size = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return ntohs(address.sin_port);
}

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& input,
                         const std::vector<std::string>& env, std::chrono::seconds timeout) {
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ForkTiedToThisProcess([&] {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    Exec(argv, env);
  });
  if (pid < 0) throw std::runtime_error("fork failed");
  close(in[0]);
  close(out[1]);
  close(err[1]);
  // Feed stdin while draining stdout and stderr, so that neither side blocks.
  size_t written = 0;
  if (input.empty()) close(in[1]);
  ProcessResult result;
  std::vector<pollfd> fds = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  if (!input.empty()) fds.push_back({in[1], POLLOUT, 0});
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int open_outputs = 2;
  while (open_outputs > 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds.data(), fds.size(), 100) <= 0) continue;
    for (auto& fd : fds) {
      if (fd.fd < 0 || fd.revents == 0) continue;
      if (fd.events == POLLOUT) {
        ssize_t n = write(fd.fd, input.data() + written, input.size() - written);
        if (n > 0) written += n;
        if (n <= 0 || written == input.size()) {
          close(fd.fd);
          fd.fd = -1;
        }
        continue;
      }
      char buffer[65536];
      ssize_t n = read(fd.fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fd.fd);
        fd.fd = -1;
        --open_outputs;
        continue;
      }
      (fd.fd == out[0] ? result.out : result.err).append(buffer, n);
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  result.exit_code = WaitOrKill(pid, std::chrono::seconds(5));
  return result;
}

PtyProcess::PtyProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  struct winsize size = {.ws_row = 50, .ws_col = 200};
  int terminal = -1;  // the child's side
  if (openpty(&master_, &terminal, nullptr, nullptr, &size) != 0) {
    throw std::runtime_error("openpty failed");
  }
  pid_ = ForkTiedToThisProcess([&] {
    close(master_);
    if (login_tty(terminal) != 0) _exit(126);
    Exec(argv, env);
  });
  close(terminal);
  if (pid_ < 0) throw std::runtime_error("fork failed");
}

PtyProcess::~PtyProcess() {
  if (pid_ > 0) WaitOrKill(pid_, std::chrono::milliseconds(0));
  if (master_ >= 0) close(master_);
}

void PtyProcess::Type(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(master_, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += n;
  }
}

bool PtyProcess::ReadSome(std::chrono::milliseconds timeout) {
  pollfd fd = {master_, POLLIN, 0};
  if (poll(&fd, 1, static_cast<int>(timeout.count())) <= 0) return false;
  char buffer[65536];
  ssize_t n = read(master_, buffer, sizeof buffer);
  if (n <= 0) return false;
  output_.append(buffer, n);
  return true;
}

bool PtyProcess::WaitFor(const std::string& text, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t found = output_.find(text, consumed_);
    if (found != std::string::npos) {
      consumed_ = found + text.size();
      return true;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (!ReadSome(left)) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      pollfd fd = {master_, POLLIN, 0};
      if (poll(&fd, 1, 0) > 0 && (fd.revents & (POLLHUP | POLLERR))) return false;
    }
  }
}

int PtyProcess::Wait(std::chrono::seconds timeout) {
  // Drain the terminal so the process is never blocked writing to it.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    ReadSome(std::chrono::milliseconds(20));
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      while (ReadSome(std::chrono::milliseconds(20))) {
      }
      pid_ = -1;
      return ExitCodeOf(status);
    }
  }
  return -1;
}

}  // namespace strata::testing
