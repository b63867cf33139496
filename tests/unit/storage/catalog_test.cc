#include "storage/catalog/catalog.h"

#include <memory>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "rocksdb/db.h"
#include "storage/engine.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

constexpr int64_t kStart = 1'700'000'000LL * kNanosPerSecond;

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen() {
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }

  Catalog& catalog() { return engine_->catalog(); }

  TableInfo MakeTable(const std::string& db, const std::string& table) {
    if (!catalog().DescribeDatabase(db).ok()) {
      EXPECT_TRUE(catalog().CreateDatabase(db, "").ok());
    }
    auto created = catalog().CreateTable({.database_name = db, .table_name = table});
    EXPECT_TRUE(created.ok()) << created.status();
    return created.value_or(TableInfo{});
  }

  testing::TempDir dir_;
  ManualClock clock_{kStart};
  std::unique_ptr<Engine> engine_;
};

TEST_F(CatalogTest, CreateDescribeDatabase) {
  auto created = catalog().CreateDatabase("metrics", "ops data");
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->creation_time_nanos, kStart);
  auto described = catalog().DescribeDatabase("metrics");
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->description, "ops data");
  EXPECT_EQ(described->table_count, 0);
}

TEST_F(CatalogTest, RejectsBadResourceNames) {
  struct Case {
    std::string name;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"", "database_name is required"},
      {"has space", "may only contain"},
      {"slash/name", "may only contain"},
      {"quote\"", "may only contain"},
      {std::string(257, 'a'), "the limit is 256"},
      {"ab", "is too short: a new database's name needs 3..256 characters"},
      {"x", "is too short"},
      {"system", "is reserved"},
  };
  for (const Case& c : cases) {
    auto result = catalog().CreateDatabase(c.name, "");
    ASSERT_FALSE(result.ok()) << c.name;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(result.status().message().find(c.message_part), std::string::npos)
        << result.status();
  }
  EXPECT_TRUE(catalog().CreateDatabase(std::string(256, 'a'), "").ok());
  EXPECT_TRUE(catalog().CreateDatabase("a-b_c.9", "").ok());
}

TEST_F(CatalogTest, NamesAreCaseSensitive) {
  ASSERT_TRUE(catalog().CreateDatabase("Metrics", "").ok());
  EXPECT_TRUE(catalog().CreateDatabase("metrics", "").ok());
}

TEST_F(CatalogTest, DuplicateAndMissingDatabases) {
  ASSERT_TRUE(catalog().CreateDatabase("metrics", "").ok());
  EXPECT_EQ(catalog().CreateDatabase("metrics", "").status().code(),
            absl::StatusCode::kAlreadyExists);
  auto missing = catalog().DescribeDatabase("metrcs");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("did you mean \"metrics\""), std::string::npos)
      << missing.status();
  EXPECT_EQ(catalog().DeleteDatabase("nope").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(catalog().UpdateDatabase("nope", "").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CatalogTest, UpdateDatabaseDescription) {
  ASSERT_TRUE(catalog().CreateDatabase("metrics", "old").ok());
  clock_.Advance(kNanosPerSecond);
  auto updated = catalog().UpdateDatabase("metrics", "new");
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->description, "new");
  EXPECT_EQ(updated->last_updated_time_nanos, kStart + kNanosPerSecond);
  EXPECT_EQ(catalog().UpdateDatabase("metrics", std::string(2049, 'x')).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, DeleteDatabaseWithTablesIsRefused) {
  MakeTable("metrics", "cpu");
  absl::Status refused = catalog().DeleteDatabase("metrics");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("delete its tables first"), std::string::npos) << refused;
  ASSERT_TRUE(catalog().DeleteTable("metrics", "cpu").ok());
  EXPECT_TRUE(catalog().DeleteDatabase("metrics").ok());
  EXPECT_EQ(catalog().DescribeDatabase("metrics").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CatalogTest, ListDatabasesPaginates) {
  for (const char* name : {"eee", "aaa", "ccc", "bbb", "ddd"}) {
    ASSERT_TRUE(catalog().CreateDatabase(name, "").ok());
  }
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    auto page = catalog().ListDatabases(2, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& db : page->items) seen.push_back(db.name);
    token = page->next_token;
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"aaa", "bbb", "ccc", "ddd", "eee"}));
  EXPECT_EQ(pages, 3);
}

TEST_F(CatalogTest, ListRejectsBadPageArguments) {
  EXPECT_EQ(catalog().ListDatabases(-1, "").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(catalog().ListDatabases(1001, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(catalog().ListDatabases(10, "***").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(catalog().ListTables("", 10, "***").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CatalogTest, CreateTableDefaults) {
  TableInfo table = MakeTable("metrics", "cpu");
  EXPECT_EQ(table.retention.memory_store_retention_hours, 6);
  EXPECT_EQ(table.retention.magnetic_store_retention_days, 73000);
  EXPECT_FALSE(table.enable_magnetic_store_writes);
  EXPECT_EQ(table.partition_key.type, PartitionKeyType::kMeasure);
  EXPECT_EQ(catalog().DescribeDatabase("metrics")->table_count, 1);
}

TEST_F(CatalogTest, TableIdsAreNeverReused) {
  uint32_t first = MakeTable("metrics", "cpu").id;
  ASSERT_TRUE(catalog().DeleteTable("metrics", "cpu").ok());
  Reopen();
  EXPECT_GT(MakeTable("metrics", "cpu").id, first);
}

TEST_F(CatalogTest, RejectsBadTableSettings) {
  ASSERT_TRUE(catalog().CreateDatabase("mydb", "").ok());
  struct Case {
    std::string what;
    RetentionProperties retention;
    PartitionKey key;
    std::string message_part;
  };
  const PartitionKey measure_key;
  const std::vector<Case> cases = {
      {"memory 0", {0, 10}, measure_key, "memory_store_retention_hours must be in 1..8766"},
      {"memory too long", {8767, 10}, measure_key, "got 8767"},
      {"magnetic 0", {6, 0}, measure_key, "magnetic_store_retention_days must be in 1..73000"},
      {"magnetic too long", {6, 73001}, measure_key, "got 73001"},
      {"named measure key", {}, {PartitionKeyType::kMeasure, "host", Enforcement::kOptional},
       "takes no name"},
      {"unnamed dimension key", {}, {PartitionKeyType::kDimension, "", Enforcement::kRequired},
       "needs the name"},
      {"reserved dimension key", {}, {PartitionKeyType::kDimension, "time", Enforcement::kRequired},
       "reserved"},
      {"long dimension key", {}, {PartitionKeyType::kDimension, std::string(61, 'd'),
                                  Enforcement::kRequired}, "the limit is 60"},
  };
  for (const Case& c : cases) {
    auto result = catalog().CreateTable(
        {.database_name = "mydb", .table_name = "tbl", .retention = c.retention,
         .partition_key = c.key});
    ASSERT_FALSE(result.ok()) << c.what;
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(result.status().message().find(c.message_part), std::string::npos)
        << c.what << ": " << result.status();
  }
}

TEST_F(CatalogTest, CreateTableErrors) {
  auto no_db = catalog().CreateTable({.database_name = "nodb", .table_name = "tbl"});
  EXPECT_EQ(no_db.status().code(), absl::StatusCode::kNotFound);
  MakeTable("mydb", "cpu");
  EXPECT_EQ(catalog().CreateTable({.database_name = "mydb", .table_name = "cpu"}).status().code(),
            absl::StatusCode::kAlreadyExists);
  auto typo = catalog().DescribeTable("mydb", "cpv");
  EXPECT_EQ(typo.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(typo.status().message().find("did you mean \"cpu\""), std::string::npos);
  EXPECT_EQ(catalog().DescribeTable("nodb", "cpu").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CatalogTest, ListTablesByDatabaseAndAll) {
  MakeTable("dbb", "tb2");
  MakeTable("dba", "tb1");
  MakeTable("dba", "tb3");
  MakeTable("dba.b", "tb0");  // '.' sorts before other name characters: checks tuple order
  auto in_a = catalog().ListTables("dba", 0, "");
  ASSERT_TRUE(in_a.ok());
  ASSERT_EQ(in_a->items.size(), 2u);
  EXPECT_EQ(in_a->items[0].name, "tb1");
  EXPECT_EQ(in_a->items[1].name, "tb3");
  EXPECT_TRUE(in_a->next_token.empty());

  std::vector<std::string> all;
  std::string token;
  do {
    auto page = catalog().ListTables("", 1, token);
    ASSERT_TRUE(page.ok()) << page.status();
    for (const auto& t : page->items) all.push_back(t.database_name + "." + t.name);
    token = page->next_token;
  } while (!token.empty());
  EXPECT_EQ(all, (std::vector<std::string>{"dba.tb1", "dba.tb3", "dba.b.tb0", "dbb.tb2"}));
  EXPECT_EQ(catalog().ListTables("zzz", 0, "").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CatalogTest, PartitionKeyIsFixedButEnforcementMayChange) {
  ASSERT_TRUE(catalog().CreateDatabase("mydb", "").ok());
  PartitionKey key{PartitionKeyType::kDimension, "viewer_id", Enforcement::kRequired};
  ASSERT_TRUE(
      catalog().CreateTable({.database_name = "mydb", .table_name = "tbl", .partition_key = key}).ok());

  PartitionKey renamed = key;
  renamed.name = "region";
  auto refused = catalog().UpdateTable("mydb", "tbl", {.partition_key = renamed});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  PartitionKey retyped{PartitionKeyType::kMeasure, "", Enforcement::kRequired};
  EXPECT_EQ(catalog().UpdateTable("mydb", "tbl", {.partition_key = retyped}).status().code(),
            absl::StatusCode::kInvalidArgument);

  PartitionKey relaxed = key;
  relaxed.enforcement = Enforcement::kOptional;
  auto updated = catalog().UpdateTable("mydb", "tbl", {.partition_key = relaxed});
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->partition_key, relaxed);
}

TEST_F(CatalogTest, RetentionIncreaseAppliesForwardOnly) {
  ASSERT_TRUE(catalog().CreateDatabase("mydb", "").ok());
  ASSERT_TRUE(catalog()
                  .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                .retention = {.memory_store_retention_hours = 2,
                                              .magnetic_store_retention_days = 1}})
                  .ok());
  auto updated = catalog().UpdateTable(
      "mydb", "tbl",
      {.retention = RetentionProperties{.memory_store_retention_hours = 24,
                                        .magnetic_store_retention_days = 10}});
  ASSERT_TRUE(updated.ok()) << updated.status();
  // Right after the change the windows are still the old ones...
  EXPECT_EQ(updated->MemoryStoreStartNanos(kStart), kStart - 2 * kNanosPerHour);
  EXPECT_EQ(updated->RetentionStartNanos(kStart), kStart - 26 * kNanosPerHour);
  // ...they grow as time passes, up to the new retention.
  EXPECT_EQ(updated->MemoryStoreStartNanos(kStart + 10 * kNanosPerHour),
            kStart - 2 * kNanosPerHour);
  EXPECT_EQ(updated->MemoryStoreStartNanos(kStart + 30 * kNanosPerHour),
            kStart + 6 * kNanosPerHour);
  EXPECT_EQ(updated->RetentionStartNanos(kStart + 20 * kNanosPerDay),
            kStart + 20 * kNanosPerDay - 10 * kNanosPerDay - 24 * kNanosPerHour);

  // A decrease takes effect at once.
  auto shrunk = catalog().UpdateTable(
      "mydb", "tbl",
      {.retention = RetentionProperties{.memory_store_retention_hours = 1,
                                        .magnetic_store_retention_days = 1}});
  ASSERT_TRUE(shrunk.ok());
  EXPECT_EQ(shrunk->MemoryStoreStartNanos(kStart), kStart - kNanosPerHour);
}

TEST_F(CatalogTest, UpdateTableMagneticWritesAndValidation) {
  MakeTable("mydb", "tbl");
  auto updated = catalog().UpdateTable("mydb", "tbl", {.enable_magnetic_store_writes = true});
  ASSERT_TRUE(updated.ok());
  EXPECT_TRUE(updated->enable_magnetic_store_writes);
  EXPECT_EQ(catalog()
                .UpdateTable("mydb", "tbl", {.retention = RetentionProperties{0, 1}})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(catalog().UpdateTable("mydb", "nope", {}).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CatalogTest, EverythingSurvivesReopen) {
  ASSERT_TRUE(catalog().CreateDatabase("mydb", "kept").ok());
  PartitionKey key{PartitionKeyType::kDimension, "host", Enforcement::kRequired};
  ASSERT_TRUE(catalog()
                  .CreateTable({.database_name = "mydb", .table_name = "tbl",
                                .retention = {12, 365}, .enable_magnetic_store_writes = true,
                                .partition_key = key})
                  .ok());
  ASSERT_TRUE(catalog()
                  .UpdateTable("mydb", "tbl", {.retention = RetentionProperties{24, 365}})
                  .ok());
  TableInfo before = *catalog().DescribeTable("mydb", "tbl");
  Reopen();
  auto db = catalog().DescribeDatabase("mydb");
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->description, "kept");
  EXPECT_EQ(db->table_count, 1);
  TableInfo after = *catalog().DescribeTable("mydb", "tbl");
  EXPECT_EQ(after.id, before.id);
  EXPECT_EQ(after.retention, before.retention);
  EXPECT_TRUE(after.enable_magnetic_store_writes);
  EXPECT_EQ(after.partition_key, key);
  EXPECT_EQ(after.memory_store_floor_nanos, before.memory_store_floor_nanos);
  EXPECT_EQ(after.retention_floor_nanos, before.retention_floor_nanos);
}

TEST_F(CatalogTest, DeleteTableDropsItsDataAndNoOtherTables) {
  TableInfo doomed = MakeTable("mydb", "doomed");
  TableInfo kept = MakeTable("mydb", "kept");
  // Put rows straight into the data families, as the write path will.
  engine_.reset();
  {
    auto raw = Store::Open({.data_dir = dir_.Sub("data")});
    ASSERT_TRUE(raw.ok()) << raw.status();
    for (uint32_t id : {doomed.id, kept.id}) {
      for (auto family : {Store::kCold, Store::kColdDelta, Store::kIndex, Store::kColdHeader}) {
        ASSERT_TRUE((*raw)->db()
                        ->Put(rocksdb::WriteOptions(), (*raw)->family(family),
                              keys::TableDataPrefix(id) + "row", "v")
                        .ok());
      }
      // The memory store's log holds well-formed entries only: it is replayed at open.
      head_log::EntryBuilder entry;
      entry.Put({.table_id = id, .bucket = 1, .time_nanos = keys::kBucketNanos}, "row");
      ASSERT_TRUE((*raw)->db()
                      ->Put(rocksdb::WriteOptions(), (*raw)->family(Store::kHeadLog),
                            head_log::Key(id, 1, 1), entry.bytes())
                      .ok());
    }
  }
  Reopen();
  ASSERT_TRUE(catalog().DeleteTable("mydb", "doomed").ok());
  EXPECT_EQ(catalog().DescribeTable("mydb", "doomed").status().code(), absl::StatusCode::kNotFound);
  engine_.reset();
  auto raw = Store::Open({.data_dir = dir_.Sub("data")});
  ASSERT_TRUE(raw.ok());
  std::string logged;
  EXPECT_TRUE((*raw)->db()
                  ->Get(rocksdb::ReadOptions(), (*raw)->family(Store::kHeadLog),
                        head_log::Key(doomed.id, 1, 1), &logged)
                  .IsNotFound());
  EXPECT_TRUE((*raw)->db()
                  ->Get(rocksdb::ReadOptions(), (*raw)->family(Store::kHeadLog),
                        head_log::Key(kept.id, 1, 1), &logged)
                  .ok());
  for (auto family : {Store::kCold, Store::kColdDelta, Store::kIndex, Store::kColdHeader}) {
    std::string value;
    EXPECT_TRUE((*raw)->db()
                    ->Get(rocksdb::ReadOptions(), (*raw)->family(family),
                          keys::TableDataPrefix(doomed.id) + "row", &value)
                    .IsNotFound());
    EXPECT_TRUE((*raw)->db()
                    ->Get(rocksdb::ReadOptions(), (*raw)->family(family),
                          keys::TableDataPrefix(kept.id) + "row", &value)
                    .ok());
  }
}

TEST_F(CatalogTest, SecondOpenOfALockedDirectoryFails) {
  auto second = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("locked by another process"), std::string::npos);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// A cluster node's catalog (cluster/replicated_catalog.h): plans are checked but not saved;
// installing keeps what another node decided, under this node's own ids.
TEST_F(CatalogTest, PlansCheckWithoutSaving) {
  auto planned = catalog().PlanCreateDatabase("metrics", "d");
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_FALSE(catalog().DescribeDatabase("metrics").ok());
  EXPECT_EQ(catalog().PlanCreateDatabase("x", "").status().code(),
            absl::StatusCode::kInvalidArgument);
  MakeTable("metrics", "cpu");
  EXPECT_EQ(catalog().PlanCreateDatabase("metrics", "").status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(catalog().PlanCreateTable({.database_name = "metrics", .table_name = "cpu"})
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(catalog().PlanDeleteDatabase("metrics").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(catalog().PlanDeleteTable("metrics", "nope").code(), absl::StatusCode::kNotFound);
  TableUpdate update{.retention = RetentionProperties{.memory_store_retention_hours = 12,
                                                      .magnetic_store_retention_days = 10}};
  auto changed = catalog().PlanUpdateTable("metrics", "cpu", update);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed->retention.memory_store_retention_hours, 12);
  EXPECT_NE(catalog().DescribeTable("metrics", "cpu")->retention.memory_store_retention_hours, 12);
}

TEST_F(CatalogTest, InstallKeepsTheDecisionAndTheLocalIdAndSurvivesReopen) {
  DatabaseInfo db{.name = "remote", .description = "from etcd", .creation_time_nanos = 42,
                  .last_updated_time_nanos = 43};
  ASSERT_TRUE(catalog().InstallDatabase(db).ok());
  TableInfo table{.id = 999, .database_name = "remote", .name = "t",
                  .creation_time_nanos = 44, .last_updated_time_nanos = 45};
  table.retention_floor_nanos = 7;
  auto installed = catalog().InstallTable(table);
  ASSERT_TRUE(installed.ok()) << installed.status();
  EXPECT_NE(installed->id, 999u);  // ids are each node's own
  const uint32_t id = installed->id;
  // Installed again (a change through another node): same local id, new settings.
  table.enable_magnetic_store_writes = true;
  ASSERT_TRUE(catalog().InstallTable(table).ok());
  Reopen();
  auto described = catalog().DescribeTable("remote", "t");
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->id, id);
  EXPECT_TRUE(described->enable_magnetic_store_writes);
  EXPECT_EQ(described->creation_time_nanos, 44);
  EXPECT_EQ(described->retention_floor_nanos, 7);
  EXPECT_EQ(catalog().DescribeDatabase("remote")->description, "from etcd");
  // Removing what is not there succeeds; removing a table drops it.
  EXPECT_TRUE(catalog().RemoveTable("remote", "missing").ok());
  EXPECT_TRUE(catalog().RemoveTable("remote", "t").ok());
  EXPECT_TRUE(catalog().RemoveDatabase("remote").ok());
  EXPECT_FALSE(catalog().DescribeDatabase("remote").ok());
}

}  // namespace
}  // namespace strata
