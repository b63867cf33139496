#include "server/auth/authenticator.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "gtest/gtest.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

constexpr int64_t kNow = 1'700'000'000LL * kNanosPerSecond;

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open(AuthOptions options = {}) {
    auth_.reset();
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    options.enabled = true;
    if (options.bootstrap_token_file.empty())
      options.bootstrap_token_file = dir_.Sub("admin.token");
    auto auth = Authenticator::Open(&engine_->tokens(), &clock_, options);
    ASSERT_TRUE(auth.ok()) << auth.status();
    auth_ = std::move(*auth);
  }

  absl::StatusOr<std::shared_ptr<const Principal>> Check(const std::string& token) {
    return auth_->Authenticate({"Bearer " + token}, "ipv4:127.0.0.1:1234");
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Authenticator> auth_;
};

TEST_F(AuthenticatorTest, BootstrapsOneAdminTokenIntoAPrivateFile) {
  std::ifstream in(dir_.Sub("admin.token"));
  std::string admin;
  std::getline(in, admin);
  std::string_view id, secret;
  ASSERT_TRUE(ParseToken(admin, &id, &secret)) << admin;
  struct stat info;
  ASSERT_EQ(stat(dir_.Sub("admin.token").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  auto caller = Check(admin);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ((*caller)->name(), "admin");
  EXPECT_TRUE((*caller)->admin());
  // Only the hash is stored.
  std::vector<TokenRecord> stored = *engine_->tokens().LoadAll();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].id, id);
  EXPECT_EQ(stored[0].secret_hash.size(), 32u);
  EXPECT_EQ(stored[0].secret_hash.find(secret), std::string::npos);
  // A reopen keeps the token and makes no other.
  Open();
  EXPECT_TRUE(Check(admin).ok());
  EXPECT_EQ(auth_->List().size(), 1u);
}

TEST_F(AuthenticatorTest, RefusesWhatIsNotALiveTokenOfThisServer) {
  auto created = auth_->Create("ci", {"read:mydb"}, kNow + 60 * kNanosPerSecond, "test");
  ASSERT_TRUE(created.ok()) << created.status();
  const std::string token = created->token;
  ASSERT_TRUE(Check(token).ok());
  std::string wrong_secret = token;
  wrong_secret.back() = wrong_secret.back() == 'a' ? 'b' : 'a';
  struct Case {
    std::vector<std::string> headers;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "this server requires a token"},
      {{"Bearer " + token, "Bearer " + token}, "several authorization headers"},
      {{"Basic abc"}, "is not `Bearer <token>`"},
      {{"Bearer"}, "is not `Bearer <token>`"},
      {{"Bearer " + wrong_secret}, "the token is not valid"},
      {{"Bearer " + token.substr(1)}, "the token is not valid"},
      {{"Bearer " + token + "0"}, "the token is not valid"},
      {{"Bearer strata_zzzzzzzzzzzzzzzz_" + std::string(64, 'a')}, "the token is not valid"},
  };
  for (const Case& c : cases) {
    std::vector<std::string_view> headers(c.headers.begin(), c.headers.end());
    auto result = auth_->Authenticate(headers, "ipv4:127.0.0.1:1");
    ASSERT_FALSE(result.ok()) << c.message;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnauthenticated);
    EXPECT_NE(result.status().message().find(c.message), std::string::npos) << result.status();
  }
  // "bearer" in any case, surrounding spaces.
  EXPECT_TRUE(auth_->Authenticate({"bEaReR  " + token + " "}, "ipv4:127.0.0.1:1").ok());

  clock_.Set(kNow + 61 * kNanosPerSecond);
  EXPECT_NE(Check(token).status().message().find("expired at"), std::string::npos);
  clock_.Set(kNow);
  ASSERT_TRUE(auth_->Revoke("ci", "test").ok());
  EXPECT_NE(Check(token).status().message().find("was revoked at"), std::string::npos);
  // Revocation survives a reopen; the name may be used again.
  Open();
  EXPECT_FALSE(Check(token).ok());
  auto again = auth_->Create("ci", {}, 0, "test");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(Check(again->token).ok());
  EXPECT_EQ(auth_->Create("ci", {}, 0, "test").status().code(), absl::StatusCode::kAlreadyExists);
}

// A change made through another node of a cluster takes effect here at once, and keeps the
// last use this node saw.
TEST_F(AuthenticatorTest, InstallsChangesMadeElsewhere) {
  auto created = auth_->Create("ci", {"read:mydb"}, 0, "test");
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Check(created->token).ok());
  TokenRecord changed = created->record;
  changed.grants = {"write:mydb"};
  changed.last_used_nanos = 0;
  auth_->Install(changed);
  auto caller = Check(created->token);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_TRUE((*caller)->Require(Action::kWrite, "mydb", "t").ok());
  EXPECT_FALSE((*caller)->Require(Action::kRead, "mydb", "t").ok());
  std::vector<TokenRecord> listed = auth_->List();
  auto ci = std::find_if(listed.begin(), listed.end(), [](auto& t) { return t.name == "ci"; });
  ASSERT_NE(ci, listed.end());
  EXPECT_EQ(ci->last_used_nanos, kNow);
  changed.revoked_nanos = kNow;
  auth_->Install(changed);
  EXPECT_NE(Check(created->token).status().message().find("was revoked"), std::string::npos);
  // A token first heard of from another node.
  auto other = auth_->Create("other", {"admin"}, 0, "test");
  ASSERT_TRUE(other.ok());
  TokenRecord elsewhere = other->record;
  elsewhere.id = "0123456789abcdef";
  elsewhere.name = "from-b";
  auth_->Install(elsewhere);
  EXPECT_EQ(auth_->List().size(), 4u);  // admin, ci, other, from-b
}

// Where another node of the cluster made the first admin token at the same time: the
// store refuses this node's (ABORTED), and this node takes the store's tokens.
TEST(AuthenticatorBootstrapTest, LosingTheFirstTokenRaceLoadsTheWinners) {
  class RacedTokens final : public TokenRecords {
   public:
    absl::StatusOr<std::vector<TokenRecord>> LoadAll() const override {
      if (loads_++ == 0) return std::vector<TokenRecord>{};
      return std::vector<TokenRecord>{
          {.id = "00000000000000aa", .name = "admin", .grants = {"admin"}}};
    }
    absl::Status Put(const TokenRecord&) override {
      return absl::AbortedError("another node made it");
    }
    absl::Status PutLastUse(const TokenRecord&) override { return absl::OkStatus(); }

   private:
    mutable int loads_ = 0;
  };
  testing::TempDir dir;
  ManualClock clock{kNow};
  RacedTokens tokens;
  auto auth = Authenticator::Open(
      &tokens, &clock, {.enabled = true, .bootstrap_token_file = dir.Sub("admin.token")});
  ASSERT_TRUE(auth.ok()) << auth.status();
  ASSERT_EQ((*auth)->List().size(), 1u);
  EXPECT_EQ((*auth)->List()[0].id, "00000000000000aa");
  EXPECT_FALSE(std::ifstream(dir.Sub("admin.token")).good()) << "the winner's file holds it";
}

TEST_F(AuthenticatorTest, ValidatesNamesGrantsAndExpiry) {
  EXPECT_EQ(auth_->Create("", {}, 0, "t").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(auth_->Create("has space", {}, 0, "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(auth_->Create(std::string(65, 'a'), {}, 0, "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(auth_->Create("x", {"root"}, 0, "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(auth_->Create("x", {}, kNow - 1, "t").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(auth_->Revoke("nobody", "t").status().code(), absl::StatusCode::kNotFound);
  auto created = auth_->Create("x", {"read:mydb/a"}, 0, "t");
  ASSERT_TRUE(created.ok());
  auto changed = auth_->ChangeGrants("x", {"write:mydb", "read:mydb/a"}, {"read:mydb/a"}, "t");
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed->grants, std::vector<std::string>{"write:mydb"});
  auto caller = Check(created->token);
  ASSERT_TRUE(caller.ok());
  EXPECT_TRUE((*caller)->May(Action::kWrite, "mydb", "z"));
  EXPECT_FALSE((*caller)->May(Action::kRead, "mydb", "a"));
}

TEST_F(AuthenticatorTest, LimitsFailuresPerPeerForAMinute) {
  Open({.failure_limit = 2});
  auto created = auth_->Create("ci", {}, 0, "test");
  ASSERT_TRUE(created.ok());
  const std::string bad = "Bearer strata_0000000000000000_" + std::string(64, '0');
  for (int i = 0; i < 2; ++i) EXPECT_FALSE(auth_->Authenticate({bad}, "ipv4:10.0.0.1:5").ok());
  auto limited = auth_->Authenticate({bad}, "ipv4:10.0.0.1:6");
  EXPECT_NE(limited.status().message().find("too many failed authentication attempts from "
                                            "10.0.0.1"),
            std::string::npos)
      << limited.status();
  // A valid token from the same address still gets through: on loopback
  // anyone local could otherwise lock everyone out.
  EXPECT_TRUE(auth_->Authenticate({"Bearer " + created->token}, "ipv4:10.0.0.1:6").ok());
  // Other peers are not affected; the limit ends with the minute.
  auto limited_message = [&](const std::string& peer) {
    return std::string(auth_->Authenticate({bad}, peer).status().message()).rfind("too many", 0) ==
           0;
  };
  EXPECT_FALSE(limited_message("ipv6:[::1]:7"));
  clock_.Set(kNow + 61 * kNanosPerSecond);
  EXPECT_FALSE(limited_message("ipv4:10.0.0.1:8"));
}

TEST_F(AuthenticatorTest, AuthenticationOffLetsEveryoneDoEverything) {
  auth_.reset();
  auto auth = Authenticator::Open(&engine_->tokens(), &clock_, {.enabled = false});
  ASSERT_TRUE(auth.ok());
  auto caller = (*auth)->Authenticate({}, "");
  ASSERT_TRUE(caller.ok());
  EXPECT_TRUE((*caller)->admin());
}

}  // namespace
}  // namespace strata
