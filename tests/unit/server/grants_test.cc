#include "server/auth/grants.h"

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(GrantsTest, ParsesAndNormalizes) {
  struct Case {
    std::string text;
    std::string normal;  // empty: refused
  };
  const std::vector<Case> cases = {
      {"read:*", "read:*"},
      {"read:*/*", "read:*"},
      {"write:mydb", "write:mydb"},
      {"write:mydb/*", "write:mydb"},
      {"read:mydb.with.dots/t-1", "read:mydb.with.dots/t-1"},
      {"read", ""},
      {"delete:db", ""},
      {"read:", ""},
      {"read:mydb/", ""},
      {"read:*/t", ""},
      {"read:bad name", ""},
      {"read:mydb/bad name", ""},
      {"READ:db", ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<std::string>> normal = NormalizeGrants({c.text});
    if (c.normal.empty()) {
      EXPECT_FALSE(normal.ok()) << c.text;
      if (!normal.ok()) {
        EXPECT_NE(normal.status().message().find("a grant is admin, read:*"), std::string::npos)
            << normal.status();
      }
    } else {
      ASSERT_TRUE(normal.ok()) << c.text << ": " << normal.status();
      EXPECT_EQ(*normal, std::vector<std::string>{c.normal}) << c.text;
    }
  }
  auto deduplicated = NormalizeGrants({"read:mydb", "read:mydb/*", "admin", "admin"});
  ASSERT_TRUE(deduplicated.ok());
  EXPECT_EQ(*deduplicated, (std::vector<std::string>{"read:mydb", "admin"}));
}

TEST(GrantsTest, WhatAPrincipalMayDo) {
  const Principal p = Principal::ForToken("t", {"read:mydb/a", "write:mydb", "read:logs"});
  struct Case {
    Action action;
    std::string db, table;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {Action::kRead, "mydb", "a", true},     {Action::kRead, "mydb", "b", false},
      {Action::kWrite, "mydb", "a", true},    {Action::kWrite, "mydb", "zz", true},
      {Action::kWrite, "other", "a", false}, {Action::kRead, "logs", "any", true},
      {Action::kWrite, "logs", "any", false}, {Action::kRead, "dbx", "a", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(p.May(c.action, c.db, c.table), c.allowed) << c.db << "." << c.table;
    EXPECT_EQ(p.Require(c.action, c.db, c.table).ok(), c.allowed);
  }
  EXPECT_TRUE(p.MaySee("mydb"));
  EXPECT_TRUE(p.MaySee("logs"));
  EXPECT_FALSE(p.MaySee("other"));
  EXPECT_TRUE(p.RequireTableAdmin("mydb", "create tables").ok());
  EXPECT_FALSE(p.RequireTableAdmin("logs", "create tables").ok());
  EXPECT_FALSE(p.RequireAdmin("create databases").ok());
  const absl::Status denied = p.Require(Action::kRead, "mydb", "b");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(denied.message(),
            "token \"t\" may not read \"mydb\".\"b\": it needs the grant read:mydb/b (or read:mydb, "
            "read:*); an admin adds it with `strata token grant t read:mydb/b`");

  const Principal admin = Principal::ForToken("root", {"admin"});
  EXPECT_TRUE(admin.May(Action::kWrite, "anything", "at-all"));
  EXPECT_TRUE(admin.RequireAdmin("x").ok());
  EXPECT_TRUE(Principal::Unrestricted().May(Action::kRead, "a", "b"));
  EXPECT_TRUE(Principal::ForToken("all", {"read:*"}).May(Action::kRead, "x", "y"));
  EXPECT_FALSE(Principal::ForToken("all", {"read:*"}).May(Action::kWrite, "x", "y"));
}

}  // namespace
}  // namespace strata
