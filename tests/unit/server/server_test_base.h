// What the server's unit tests build on: a real engine in a temporary data
// directory, its clock standing at 2024-03-01T12:00:00Z (on the minute), the
// server's metrics, authentication off, and database "mydb".
#pragma once

#include <memory>
#include <string>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "server/auth/authenticator.h"
#include "server/ops/metrics.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata {

class ServerUnitTest : public ::testing::Test {
 public:
  static constexpr int64_t kNow = 1'709'294'400'000'000'000;

 protected:
  void SetUp() override {
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    auto auth = Authenticator::Open(&engine_->tokens(), &clock_, {.enabled = false});
    ASSERT_TRUE(auth.ok()) << auth.status();
    auth_ = std::move(*auth);
    metrics_ = std::make_unique<ServerMetrics>(engine_.get());
    ASSERT_TRUE(engine_->catalog().CreateDatabase("mydb", "").ok());
  }

  void CreateTable(const std::string& table) {
    ASSERT_TRUE(engine_->catalog().CreateTable({.database_name = "mydb", .table_name = table}).ok());
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<ServerMetrics> metrics_;
};

}  // namespace strata
