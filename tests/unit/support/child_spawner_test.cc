#include "tests/support/child_spawner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace strata::testing {
namespace {

// Whether `pid` runs (a zombie no longer does: a container's first process may not reap).
bool Runs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z" && state != "X";
}

bool EndsWithin(pid_t pid, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!Runs(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Starts a sleeper the way a test does (from a thread that then ends) and writes its pid.
[[noreturn]] void TestProcess(int pids_out) {
  pid_t sleeper = -1;
  std::thread starter([&] {
    sleeper = ForkTiedToThisProcess(
        [] { execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr)); });
  });
  starter.join();
  if (write(pids_out, &sleeper, sizeof sleeper) != sizeof sleeper) _exit(1);
  pause();
  _exit(0);
}

// A test killed (as by ctest's timeout) takes the servers it started with it, and a server
// started from a thread that ended runs on while the test does.
TEST(ChildSpawnerTest, AChildRunsWhileItsTestDoesAndEndsWhenTheTestIsKilled) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t test_process = fork();
  ASSERT_GE(test_process, 0);
  if (test_process == 0) TestProcess(pipe_fds[1]);
  close(pipe_fds[1]);
  pid_t sleeper = -1;
  ASSERT_EQ(read(pipe_fds[0], &sleeper, sizeof sleeper), static_cast<ssize_t>(sizeof sleeper));
  close(pipe_fds[0]);
  ASSERT_GT(sleeper, 0);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(Runs(sleeper)) << "the thread that asked for it ended, and so did the child";

  kill(test_process, SIGKILL);
  int status = 0;
  waitpid(test_process, &status, 0);
  const bool ended = EndsWithin(sleeper, std::chrono::seconds(10));
  if (!ended) kill(sleeper, SIGKILL);
  EXPECT_TRUE(ended) << "the child outlived its killed test process";
}

}  // namespace
}  // namespace strata::testing
