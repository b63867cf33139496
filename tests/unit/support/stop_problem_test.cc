#include <signal.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"

namespace strata::testing {
namespace {

// Which stop results fail a test at its end (StratadProcess's destructor, the cluster
// harness's): a crash signal or a hang, never an exit code or a stop the test made itself.
TEST(StopProblemTest, FailsOnACrashOrAHangOnly) {
  struct Case {
    int stop_result;
    std::string problem;  // "" when the stop is fine
  };
  const Case cases[] = {
      {0, ""},
      {1, ""},  // a close that failed says why in the server's log
      {StratadProcess::kNotRunning, ""},
      {128 + SIGKILL, ""},  // killed by someone else (the test, the OOM killer)
      {128 + SIGTERM, ""},
      {-1, "did not stop within its time after SIGTERM (killed)"},
      {128 + SIGSEGV, std::string("crashed (") + strsignal(SIGSEGV) + ")"},
      {128 + SIGABRT, std::string("crashed (") + strsignal(SIGABRT) + ")"},
      {128 + SIGBUS, std::string("crashed (") + strsignal(SIGBUS) + ")"},
      {128 + SIGFPE, std::string("crashed (") + strsignal(SIGFPE) + ")"},
      {128 + SIGILL, std::string("crashed (") + strsignal(SIGILL) + ")"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(StopProblem(c.stop_result), c.problem) << "stop result " << c.stop_result;
  }
}

}  // namespace
}  // namespace strata::testing
