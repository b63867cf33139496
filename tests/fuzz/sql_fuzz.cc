// Fuzz target: arbitrary text as a SQL statement against a small in-process
// table (extreme BIGINTs, multi-byte text, NULLs). Any input must end in an
// answer or an error: never a crash, a hang past the timeout or a stack
// overflow. The front end, planner and both evaluators (row and vector) run, and
// each statement runs twice: its result taken as rows, then as batches under a session's time
// zone; its shape is taken.
#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "common/clock.h"
#include "query/base/shard_reads.h"
#include "query/engine.h"
#include "query/insert_sink.h"
#include "query/parse/statement_shape.h"
#include "storage/catalog/catalog_changes.h"
#include "storage/engine.h"

namespace {

using namespace strata;

constexpr int64_t kNow = 1'709'294'400'000'000'000;  // 2024-03-01T12:00:00Z

// `batches`: takes the result as column batches where the plan gives them (the gRPC
// server's way), so that the operators' batch forms run too.
class DiscardSink : public query::ResultSink {
 public:
  explicit DiscardSink(bool batches = false) : batches_(batches) {}
  absl::Status Columns(const std::vector<query::ResultColumn>&) override {
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row>) override { return absl::OkStatus(); }
  bool TakesBatches() const override { return batches_; }
  absl::Status Batches(const query::Batch&) override { return absl::OkStatus(); }

 private:
  bool batches_;
};

InputMeasure Attribute(std::string name, Value value) {
  return {std::move(name), std::nullopt, std::move(value)};
}

struct Fixture {
  Fixture() : clock(kNow) {
    dir =
        std::filesystem::temp_directory_path() / ("strata-sql-fuzz-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    engine = *Engine::Open({.data_dir = dir.string(), .clock = &clock});
    Require(engine->catalog().CreateDatabase("mydb", "").status());
    // Partitioned by host, so that a plan names the shards a condition on host pins.
    Require(
        engine->catalog()
            .CreateTable({.database_name = "mydb",
                          .table_name = "tbl",
                          .partition_key = {.type = PartitionKeyType::kDimension, .name = "host"}})
            .status());
    WriteRequest request{.database_name = "mydb", .table_name = "tbl"};
    const int64_t extremes[] = {INT64_MAX, INT64_MIN, 0, -1, 1, 7};
    for (int i = 0; i < 24; ++i) {
      InputRecord r;
      r.dimensions = {{"host", i % 2 ? "a" : "é€"}, {"region", i % 3 ? "eu" : "us"}};
      r.measure_name = i % 4 ? "cpu" : "mem";
      r.measure_value_type = MeasureKind::kMulti;
      r.measure_values = {Attribute("n", Value::Bigint(extremes[i % 6])),
                          Attribute("d", Value::Double(i * 0.5 - 3)),
                          Attribute("s", Value::Varchar(i % 2 ? "é€x" : "plain"))};
      if (i % 5) r.measure_values.push_back(Attribute("b", Value::Boolean(i % 2 == 0)));
      r.time = (kNow - int64_t{i} * 600'000'000'000) / 1'000'000;
      request.records.push_back(std::move(r));
    }
    auto written = engine->Write(request);
    Require(written.status());
    if (!written->rejected.empty()) Fail(written->rejected[0].reason);
    query = std::make_unique<query::QueryEngine>(engine.get());
    // A fixture that answers nothing would fuzz nothing.
    DiscardSink sink;
    auto stats = query->Execute("SELECT count(*) FROM mydb.tbl", {}, &sink);
    Require(stats.status());
    if (stats->rows_scanned != 24) Fail("the fixture's rows are not there");
  }
  static void Fail(std::string_view why) {
    std::fprintf(stderr, "sql_fuzz fixture: %.*s\n", static_cast<int>(why.size()), why.data());
    std::abort();
  }
  static void Require(const absl::Status& status) {
    if (!status.ok()) Fail(std::string(status.message()));
  }
  ~Fixture() {
    query.reset();
    (void)engine->Close();
    std::filesystem::remove_all(dir);
  }
  ManualClock clock;
  std::filesystem::path dir;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<query::QueryEngine> query;
};

}  // namespace

namespace {

// The server runs queries on threads with a fixed 16 MiB stack
// (server/runner/query_workers.h), room for the parser's nesting limits with a wide
// margin (they need under 4 MiB in a release build). AddressSanitizer makes
// every frame several times larger: there the query thread gets 256 MiB.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(STRATA_FUZZ_ASAN)
constexpr size_t kQueryStackBytes = size_t{256} << 20;
#else
constexpr size_t kQueryStackBytes = size_t{16} << 20;
#endif

struct Job {
  Fixture* fixture;
  std::string sql;
};

// What a cluster node's small leader read is told as the plan is made: each shard named is
// one of the cluster's.
class CheckedLocalRead final : public query::LocalLeaderRead {
 public:
  uint32_t shard_count() const override { return 4; }
  void TableResolved() override {}
  void Reading(const std::optional<std::set<uint32_t>>& shards) override {
    if (shards.has_value() && !shards->empty() && *shards->rbegin() >= shard_count()) std::abort();
  }
  void ReadingEvery() override {}
  void PlanOnly() override {}
  absl::Status Confirm() override { return absl::OkStatus(); }
  int leaders_asked() const override { return 0; }
  std::string Describe() const override { return "LocalLeaderRead"; }
};

// CREATE, ALTER and DROP checked and answered as if made, changing nothing: an input that
// drops the fixture's table must not leave the inputs after it nothing to read.
class UnchangingCatalog final : public CatalogChanges {
 public:
  absl::StatusOr<DatabaseInfo> CreateDatabase(std::string_view name,
                                              std::string_view description) override {
    return DatabaseInfo{.name = std::string(name), .description = std::string(description)};
  }
  absl::StatusOr<DatabaseInfo> UpdateDatabase(std::string_view name,
                                              std::string_view description) override {
    return CreateDatabase(name, description);
  }
  absl::Status DeleteDatabase(std::string_view) override { return absl::OkStatus(); }
  absl::StatusOr<TableInfo> CreateTable(const TableSpec& spec) override {
    return TableInfo{.database_name = spec.database_name,
                     .name = spec.table_name,
                     .retention = spec.retention,
                     .enable_magnetic_store_writes = spec.enable_magnetic_store_writes,
                     .partition_key = spec.partition_key};
  }
  absl::StatusOr<TableInfo> UpdateTable(std::string_view database, std::string_view table,
                                        const TableUpdate&) override {
    return TableInfo{.database_name = std::string(database), .name = std::string(table)};
  }
  absl::Status DeleteTable(std::string_view, std::string_view) override { return absl::OkStatus(); }
};

// INSERT's records taken as written and dropped, for the same reason.
class DroppedInserts final : public query::InsertSink {
 public:
  absl::StatusOr<WriteResult> Write(WriteRequest request) override {
    return WriteResult{.memory_store = static_cast<int64_t>(request.records.size())};
  }
};

void* RunQuery(void* arg) {
  Job* job = static_cast<Job*>(arg);
  UnchangingCatalog unchanging;
  DroppedInserts dropped;
  query::QueryOptions options;
  options.ddl = &unchanging;
  options.inserts = &dropped;
  options.timeout_millis = 2000;
  options.memory_limit_bytes = 64 << 20;
  CheckedLocalRead local;
  for (bool batches : {false, true}) {
    DiscardSink sink(batches);
    options.local_leader_read = batches ? &local : nullptr;  // as a cluster node's small read
    // The second run under a PostgreSQL session's zone (query/parse/session_zone.h), one whose
    // summer time begins at midnight, so that the statement is read and bound as rewritten.
    options.parameters.time_zone = batches ? "America/Santiago" : "";
    (void)job->fixture->query->Execute(job->sql, options, &sink);
  }
  // The shape a cluster node files the statement's size under (server/runner/read_sizes.h).
  for (const std::optional<std::string>& shape :
       {query::ReadStatementShape(job->sql), query::ExplainedStatementShape(job->sql)}) {
    if (shape.has_value() && (shape->empty() || shape->size() > query::kMaxStatementShape)) {
      std::abort();
    }
  }
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  Job job{&fixture, std::string(reinterpret_cast<const char*>(data), size)};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kQueryStackBytes);
  pthread_t thread;
  if (pthread_create(&thread, &attr, RunQuery, &job) != 0) Fixture::Fail("no query thread");
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return 0;
}
