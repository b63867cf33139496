// The PostgreSQL session's state machine against a fake query runner: what it
// hands the runner for a simple query and for the extended protocol's
// Parse/Bind/Describe/Execute, and how it answers the runner's rows and
// errors (RowDescription, DataRow, CommandComplete, ErrorResponse with its
// SQLSTATE, ReadyForQuery), over a socket pair.
#include "server/pg/session.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_base.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using query::DataType;
using query::Datum;

// Answers every statement with one BIGINT column `n` holding 42, or with the
// error it was told to give; keeps what it was asked.
class FakeRunner final : public StatementRunner {
 public:
  absl::StatusOr<query::QueryStats> Run(Request request, query::ResultSink* sink) override {
    {
      absl::MutexLock lock(&mu_);
      requests_.push_back(request);
      if (!error_.ok()) return error_;
    }
    RETURN_IF_ERROR(sink->Columns({{"n", DataType::kBigint}}));
    if (request.describe_only) return query::QueryStats{};
    std::vector<query::Row> rows;
    rows.push_back({Datum::Bigint(42)});
    RETURN_IF_ERROR(sink->Rows(std::move(rows)));
    return query::QueryStats{.rows_returned = 1};
  }
  query::MemoryBudget& memory_budget() override { return budget_; }

  void Fail(absl::Status error) {
    absl::MutexLock lock(&mu_);
    error_ = std::move(error);
  }
  std::vector<Request> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  query::MemoryBudget budget_{1 << 20};
  absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  std::vector<Request> requests_ ABSL_GUARDED_BY(mu_);
};

std::string Int32(int32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) {
    out[i] = static_cast<char>((static_cast<uint32_t>(v) >> (24 - 8 * i)) & 0xff);
  }
  return out;
}
std::string Int16(int16_t v) { return Int32(v).substr(2); }
std::string Str(const std::string& s) { return s + std::string(1, '\0'); }
std::string Message(char type, const std::string& body) {
  return std::string(1, type) + Int32(static_cast<int32_t>(body.size() + 4)) + body;
}
std::string Startup() {
  const std::string body = Int32(196608) + Str("user") + Str("tester") + Str("database") +
                           Str("mydb") + std::string(1, '\0');
  return Int32(static_cast<int32_t>(body.size() + 4)) + body;
}

struct Received {
  char type;
  std::string body;
};

class PgSessionTest : public ServerUnitTest {
 protected:
  // Runs a session over `input` (after the startup packet) to its end; the
  // messages it sent after the startup's ReadyForQuery.
  std::vector<Received> Converse(const std::string& input) {
    int sockets[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets), 0);
    std::string output;
    std::thread client([fd = sockets[1], all = Startup() + input + Message('X', ""), &output] {
      (void)!send(fd, all.data(), all.size(), MSG_NOSIGNAL);
      shutdown(fd, SHUT_WR);
      char buffer[1 << 16];
      for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) output.append(buffer, n);
      close(fd);
    });
    pg::SessionContext context{.queries = &runner_,
                               .engine = engine_.get(),
                               .auth = auth_.get(),
                               .auth_timeout = std::chrono::seconds(5),
                               .register_cancel = [](auto) { return std::pair{1000, 7}; },
                               .unregister_cancel = [](int32_t) {},
                               .cancel = [](int32_t, int32_t) {}};
    {
      pg::Session session(std::move(context), std::make_unique<pg::Stream>(sockets[0]), "test:1");
      session.Run();
    }
    client.join();
    std::vector<Received> messages;
    for (size_t at = 0; at + 5 <= output.size();) {
      const uint32_t length = (static_cast<uint8_t>(output[at + 1]) << 24) |
                              (static_cast<uint8_t>(output[at + 2]) << 16) |
                              (static_cast<uint8_t>(output[at + 3]) << 8) |
                              static_cast<uint8_t>(output[at + 4]);
      messages.push_back({output[at], output.substr(at + 5, length - 4)});
      at += 1 + length;
    }
    // Drop the startup's answer: everything up to its ReadyForQuery.
    size_t ready = 0;
    while (ready < messages.size() && messages[ready].type != 'Z') ++ready;
    EXPECT_LT(ready, messages.size()) << "no ReadyForQuery after the startup";
    messages.erase(messages.begin(), messages.begin() + std::min(ready + 1, messages.size()));
    return messages;
  }

  static std::string Types(const std::vector<Received>& messages) {
    std::string out;
    for (const Received& m : messages) out += m.type;
    return out;
  }

  FakeRunner runner_;
};

TEST_F(PgSessionTest, ASimpleQueryRunsThroughTheRunnerAndStreamsItsRows) {
  const std::vector<Received> got = Converse(Message('Q', Str("SELECT 42 AS n")));
  EXPECT_EQ(Types(got), "TDCZ");
  EXPECT_THAT(got[0].body, HasSubstr(Str("n")));
  EXPECT_THAT(got[1].body, HasSubstr("42"));
  EXPECT_EQ(got[2].body, Str("SELECT 1"));
  // A copy held here: requests() returns one, and a reference into it would dangle.
  const std::vector<StatementRunner::Request> requests = runner_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const StatementRunner::Request& request = requests[0];
  EXPECT_EQ(request.sql, "SELECT 42 AS n");
  EXPECT_EQ(request.peer, "test:1");
  EXPECT_FALSE(request.describe_only);
  ASSERT_NE(request.cancel, nullptr);  // a CancelRequest's flag
}

TEST_F(PgSessionTest, TheRunnersErrorsGetTheirSqlstateAndTheSessionGoesOn) {
  runner_.Fail(absl::ResourceExhaustedError("the server is running 4 queries"));
  std::vector<Received> got = Converse(Message('Q', Str("SELECT 1")));
  EXPECT_EQ(Types(got), "EZ");
  EXPECT_THAT(got[0].body, HasSubstr("C53000"));
  EXPECT_THAT(got[0].body, HasSubstr("the server is running 4 queries"));

  runner_.Fail(absl::PermissionDeniedError("token t may not read mydb.cpu"));
  got = Converse(Message('Q', Str("SELECT * FROM cpu")) + Message('Q', Str("SELECT 2")));
  EXPECT_EQ(Types(got), "EZEZ");
  EXPECT_THAT(got[0].body, HasSubstr("C42501"));
}

TEST_F(PgSessionTest, TheExtendedProtocolDescribesWithoutRunningThenRunsWithItsParameters) {
  const std::string input =
      Message('P', Str("") + Str("SELECT $1 AS n") + Int16(1) + Int32(20)) +  // int8
      Message('B', Str("") + Str("") + Int16(0) + Int16(1) + Int32(1) + "7" + Int16(0)) +
      Message('D', "P" + Str("")) + Message('E', Str("") + Int32(0)) + Message('S', "");
  const std::vector<Received> got = Converse(input);
  EXPECT_EQ(Types(got), "12TDCZ");
  const std::vector<StatementRunner::Request> requests = runner_.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_TRUE(requests.front().describe_only);
  const StatementRunner::Request& run = requests.back();
  EXPECT_FALSE(run.describe_only);
  EXPECT_EQ(run.sql, "SELECT @p1 AS n");
  ASSERT_TRUE(run.parameters.named.contains("p1"));
  EXPECT_EQ(run.parameters.named.at("p1").i, 7);
}

TEST_F(PgSessionTest, AFailedExecuteAnswersOnceAndWaitsForSync) {
  runner_.Fail(absl::InvalidArgumentError("line 1:8: column \"x\" does not exist"));
  const std::string input = Message('P', Str("") + Str("SELECT x") + Int16(0)) +
                            Message('B', Str("") + Str("") + Int16(0) + Int16(0) + Int16(0)) +
                            Message('E', Str("") + Int32(0)) +
                            Message('E', Str("") + Int32(0)) + Message('S', "");
  const std::vector<Received> got = Converse(input);
  // Parse and Bind are answered without planning; Execute's error comes
  // once, with its SQLSTATE, and the session waits for Sync.
  EXPECT_EQ(Types(got), "12EZ");
  EXPECT_THAT(got[2].body, HasSubstr("C42703"));
  EXPECT_THAT(got[2].body, HasSubstr("does not exist"));
}

}  // namespace
}  // namespace strata
