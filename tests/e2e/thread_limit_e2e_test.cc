// Past the process's thread limit (a cgroup's pids.max, as a container's pids limit sets it)
// a request that needs a thread of its own is refused saying so, and the server lives on
// (common/start_thread.h): std::thread's exception used to end the process for every client.
// Needs root and the cgroup pids controller; skipped without them.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/support/pg_raw_client.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

bool WriteCgroupFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return out.good();
}

// A pids cgroup holding one process (cgroup v1's pids hierarchy, or v2's unified one).
class PidsLimit {
 public:
  static std::optional<PidsLimit> Around(pid_t pid) {
    for (const fs::path& root : {fs::path("/sys/fs/cgroup/pids"), fs::path("/sys/fs/cgroup")}) {
      if (!fs::exists(root / "cgroup.procs") || access(root.c_str(), W_OK) != 0) continue;
      if (root == "/sys/fs/cgroup") {
        std::ifstream controllers(root / "cgroup.controllers");
        std::string all((std::istreambuf_iterator<char>(controllers)), {});
        if (all.find("pids") == std::string::npos) continue;
        WriteCgroupFile(root / "cgroup.subtree_control", "+pids");
      }
      PidsLimit limit(root, root / ("strata-thread-limit-" + std::to_string(getpid())), pid);
      std::error_code ignored;
      fs::create_directory(limit.dir_, ignored);
      if (!fs::exists(limit.dir_ / "pids.max") ||
          !WriteCgroupFile(limit.dir_ / "cgroup.procs", std::to_string(pid))) {
        fs::remove(limit.dir_, ignored);
        continue;
      }
      return limit;
    }
    return std::nullopt;
  }
  PidsLimit(PidsLimit&& other) noexcept
      : root_(other.root_), dir_(std::move(other.dir_)), pid_(other.pid_) {
    other.dir_.clear();
  }
  ~PidsLimit() {
    if (dir_.empty()) return;
    WriteCgroupFile(root_ / "cgroup.procs", std::to_string(pid_));
    std::error_code ignored;
    fs::remove(dir_, ignored);
  }
  bool Set(const std::string& max) { return WriteCgroupFile(dir_ / "pids.max", max); }

 private:
  PidsLimit(fs::path root, fs::path dir, pid_t pid)
      : root_(std::move(root)), dir_(std::move(dir)), pid_(pid) {}
  fs::path root_;
  fs::path dir_;
  pid_t pid_;
};

int ThreadsOfProcess(pid_t pid) {
  int n = 0;
  for ([[maybe_unused]] const auto& task :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    ++n;
  }
  return n;
}

TEST(ThreadLimitE2ETest, PastTheThreadLimitRequestsAreRefusedAndTheServerLivesOn) {
  StratadProcess server;
  ASSERT_TRUE(server.Start()) << server.error();
  ASSERT_TRUE(RunQuery(server.channel(), "SELECT 1").status.ok());
  std::optional<PidsLimit> limit = PidsLimit::Around(server.pid());
  if (!limit) GTEST_SKIP() << "needs root and a writable cgroup pids controller";
  // Not one thread more than it runs now.
  ASSERT_TRUE(limit->Set(std::to_string(ThreadsOfProcess(server.pid()))));

  // A PostgreSQL connection needs a thread: refused, saying why.
  PgRawClient refused(server.pg_port());
  ASSERT_TRUE(refused.connected());
  EXPECT_THAT(refused.Start(), HasSubstr("E(could not start a thread for a PostgreSQL connection"));

  // An HTTP query needs one for its pages: refused with 429 and the reason. (Its connection
  // has no thread of the pool either: it is served on the listener's.)
  httplib::Client http("127.0.0.1", server.http_port());
  http.set_read_timeout(20, 0);
  auto res = http.Post("/api/v1/sql", "SELECT 1", "text/plain");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 429) << res->body;
  EXPECT_THAT(res->body, HasSubstr("thread limit"));

  // A gRPC query runs on the query workers the server started with: it still answers.
  QueryResult grpc_query = RunQuery(server.channel(), "SELECT 40 + 2");
  ASSERT_TRUE(grpc_query.status.ok()) << grpc_query.status.error_message();
  EXPECT_EQ(RowsText(grpc_query.rows), "42\n");

  // Once threads can start again, every door answers: nothing ended.
  ASSERT_TRUE(limit->Set("max"));
  EXPECT_EQ(kill(server.pid(), 0), 0) << "the server ended";
  PgRawClient admitted(server.pg_port());
  EXPECT_THAT(admitted.Start(), HasSubstr("Z"));
  auto again = http.Post("/api/v1/sql", "SELECT 1", "text/plain");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
  EXPECT_TRUE(RunQuery(server.channel(), "SELECT 1").status.ok());
}

}  // namespace
}  // namespace strata::testing
