// A fixture for the query memory tests: an engine on a temp dir and a query engine over it,
// and a statement run under a memory limit (--query-memory-mb's), each test comparing the
// least limits its statements run under (least_memory_limit.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "query/base/result.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

class QueryMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    query_ = std::make_unique<query::QueryEngine>(engine_.get());
  }

  // `sql` under `limit` bytes of query memory, its answer into `sink` (none: not kept).
  absl::Status RunUnder(const std::string& sql, int64_t limit,
                        query::QueryParameters parameters = {}, query::ResultSink* sink = nullptr) {
    query::QueryOptions options;
    options.memory_limit_bytes = limit;
    options.parameters = std::move(parameters);
    query::ColumnsSink columns;
    return query_->Execute(sql, options, sink != nullptr ? sink : &columns).status();
  }

  TempDir dir_;
  ManualClock clock_{0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<query::QueryEngine> query_;
};

}  // namespace strata::testing
