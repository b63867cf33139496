// What the front-door fuzz targets (PostgreSQL session, HTTP request path)
// share: a real engine (engine_fixture.h) with a small table, tokens on
// (the admin token kept for the targets to put into requests), the metrics
// and the query runner and ingest door every front door goes through.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "server/auth/authenticator.h"
#include "server/ops/metrics.h"
#include "server/runner/ingest.h"
#include "server/runner/query_runner.h"
#include "tests/fuzz/engine_fixture.h"

namespace strata::fuzz {

struct FrontDoorFixture : EngineFixture {
  explicit FrontDoorFixture(const std::string& name) : EngineFixture(name) {
    const std::string token_file = (dir / "admin.token").string();
    auto opened = Authenticator::Open(&engine->tokens(), &clock,
                                      {.enabled = true, .failure_limit = 0,
                                       .bootstrap_token_file = token_file});
    if (!opened.ok()) Fail(std::string(opened.status().message()));
    auth = std::move(*opened);
    std::ifstream(token_file) >> admin_token;
    if (admin_token.empty()) Fail("no admin token");
    metrics = std::make_unique<ServerMetrics>(engine.get());
    queries = std::make_unique<QueryRunner>(engine.get(), metrics.get(),
                                             QueryLimits{.default_timeout_millis = 2000,
                                                         .slow_query_millis = -1});
    ingest = std::make_unique<Ingest>(engine.get(), metrics.get());
    if (!engine->catalog().CreateTable({.database_name = "mydb", .table_name = "cpu"}).ok()) {
      Fail("cannot create the table");
    }
    WriteRequest request{.database_name = "mydb", .table_name = "cpu"};
    for (int i = 0; i < 16; ++i) {
      InputRecord r;
      r.dimensions = {{"host", i % 2 ? "a" : "é€"}};
      r.measure_name = "usage";
      r.measure_value_type = MeasureKind::kDouble;
      r.measure_value = Value::Double(i * 0.5);
      r.time = (kFixtureNow - int64_t{i} * 60'000'000'000) / 1'000'000;
      request.records.push_back(std::move(r));
    }
    if (!engine->Write(request).ok()) Fail("cannot write the table's rows");
  }

  std::unique_ptr<Authenticator> auth;
  std::string admin_token;
  std::unique_ptr<ServerMetrics> metrics;
  std::unique_ptr<QueryRunner> queries;
  std::unique_ptr<Ingest> ingest;
};

}  // namespace strata::fuzz
