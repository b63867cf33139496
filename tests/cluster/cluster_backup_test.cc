// A whole cluster backed up and restored into a new cluster of another shard count
// (docs/cluster.md, "Backups"): every database, table (with its settings) and row comes back
// with its version, rows older than the memory store included, and the live tokens and the
// scheduled queries (in etcd) too; a damaged or missing backup, a cluster that is not empty
// and a single server are refused with what to do.
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "strata/v1/auth.grpc.pb.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/cluster.grpc.pb.h"
#include "strata/v1/scheduled_query.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/cluster/cluster_helpers.h"
#include "tests/support/query_helpers.h"
#include "tests/support/temp_dir.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {
namespace {

using std::chrono::seconds;

std::unique_ptr<grpc::ClientContext> LongCall(const std::string& token) {
  auto context = WithToken(token);
  context->set_deadline(std::chrono::system_clock::now() + seconds(120));
  return context;
}

grpc::Status Backup(StratadProcess& node, const std::string& dir,
                    v1::BackupClusterResponse* response, const std::string& token = "") {
  v1::BackupClusterRequest request;
  request.set_directory(dir);
  return v1::ClusterService::NewStub(node.channel())
      ->BackupCluster(LongCall(token).get(), request, response);
}

grpc::Status Restore(StratadProcess& node, const std::string& dir,
                     v1::RestoreClusterResponse* response, const std::string& token = "",
                     bool without_tokens = false) {
  v1::RestoreClusterRequest request;
  request.set_directory(dir);
  request.set_without_tokens(without_tokens);
  return v1::ClusterService::NewStub(node.channel())
      ->RestoreCluster(LongCall(token).get(), request, response);
}

v1::DescribeTableResponse Describe(StratadProcess& node, const std::string& table) {
  grpc::ClientContext context;
  v1::DescribeTableRequest request;
  request.set_database_name("demo");
  request.set_table_name(table);
  v1::DescribeTableResponse response;
  EXPECT_TRUE(v1::CatalogService::NewStub(node.channel())
                  ->DescribeTable(&context, request, &response)
                  .ok());
  return response;
}

class ClusterBackupTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_CLUSTER_SERVERS(); }

  // `lagging`: a node whose replicas apply each entry `lag_ms` late (and that never leads).
  std::unique_ptr<TestCluster> StartCluster(int shards, int lagging = -1,
                                            std::vector<std::string> flags = {},
                                            const std::string& lag_ms = "30") {
    TestCluster::Options options{.shards = shards, .node_flags = std::move(flags)};
    if (lagging >= 0) options.flags_of_node[lagging] = {"--testing-apply-delay-ms", lag_ms};
    auto cluster = std::make_unique<TestCluster>(options);
    EXPECT_TRUE(cluster->Start()) << cluster->error();
    return cluster;
  }

  TempDir backups_;
};

TEST_F(ClusterBackupTest, ABackupRestoresIntoANewClusterOfAnotherShardCount) {
  const std::string dir = backups_.Sub("one");
  HostBatches batches;
  const int64_t now = NowMillis();
  const int64_t versioned_at = now - 300'000;
  std::map<std::pair<std::string, int64_t>, double> late_rows;
  {
    // Backed up through n1, whose own replicas lag: the backup waits for them to apply
    // every acknowledged write.
    std::unique_ptr<TestCluster> cluster = StartCluster(4, /*lagging=*/1);
    ASSERT_TRUE(CreateDatabase(cluster->node(0).channel(), "demo").ok());
    ASSERT_TRUE(CreateDatabase(cluster->node(0).channel(), "empty").ok());
    ASSERT_TRUE(CreateTable(cluster->node(1), "cpu").ok());
    ASSERT_TRUE(SetUpLateTable(cluster->node(1), true, true).ok());
    batches.Write(*cluster, 20, {0, 1, 2});
    ASSERT_EQ(batches.acknowledged().size(), 400u);
    // A point at version 5, and rows three hours old (magnetic store) in demo.late, whose
    // magnetic-store writes are then turned off.
    v1::WriteRecordsResponse written;
    ASSERT_TRUE(
        Write(cluster->node(0), "cpu", {CpuRecord("h0", versioned_at, 42, 5)}, &written).ok());
    std::vector<v1::Record> late;
    for (int h = 0; h < 30; ++h) {
      late.push_back(CpuRecord("h" + std::to_string(h), now - 3 * 3'600'000 + h, h));
      late_rows[{"h" + std::to_string(h), now - 3 * 3'600'000 + h}] = h;
    }
    ASSERT_TRUE(Write(cluster->node(2), "late", late, &written).ok());
    ASSERT_EQ(written.rejected_records_size(), 0);
    ASSERT_TRUE(SetUpLateTable(cluster->node(1), false, false).ok());

    v1::BackupClusterResponse backed_up;
    grpc::Status status = Backup(cluster->node(1), dir, &backed_up);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(backed_up.shards(), 4u);
    EXPECT_EQ(backed_up.databases(), 2u);
    EXPECT_EQ(backed_up.tables(), 2u);
    EXPECT_EQ(backed_up.rows(), 400 + 1 + 30);
    EXPECT_TRUE(std::filesystem::exists(dir + "/manifest.pb"));
    // A directory holding a backup is not written over.
    status = Backup(cluster->node(0), dir, &backed_up);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS) << status.error_message();
    EXPECT_NE(status.error_message().find("back up into a new directory"), std::string::npos);
  }

  // A new cluster of 8 shards: each row lands on its shard there.
  std::unique_ptr<TestCluster> cluster = StartCluster(8);
  v1::RestoreClusterResponse restored;
  grpc::Status status = Restore(cluster->node(2), dir, &restored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.databases(), 2u);
  EXPECT_EQ(restored.tables(), 2u);
  EXPECT_EQ(restored.rows(), 400 + 1 + 30);
  EXPECT_EQ(restored.expired(), 0);
  auto expected = batches.acknowledged();
  expected[{"h0", versioned_at}] = 42;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(ReadAll(cluster->node(i), "cpu"), expected) << i;
  EXPECT_EQ(ReadAll(cluster->node(0), "late"), late_rows);
  // The table's settings came back as they were (magnetic-store writes off again).
  const v1::DescribeTableResponse late = Describe(cluster->node(1), "late");
  EXPECT_FALSE(late.table().magnetic_store_write_properties().enable_magnetic_store_writes());
  EXPECT_EQ(late.table().retention_properties().memory_store_retention_hours(), 1);
  EXPECT_EQ(late.table().retention_properties().magnetic_store_retention_days(), 30);
  // Versions came back: a lower one is refused with the stored one.
  v1::WriteRecordsResponse written;
  ASSERT_TRUE(Write(cluster->node(1), "cpu", {CpuRecord("h0", versioned_at, 7, 4)}, &written).ok());
  ASSERT_EQ(written.rejected_records_size(), 1);
  EXPECT_EQ(written.rejected_records(0).existing_version(), 5);
  EXPECT_EQ(cluster->CompareReplicas({0, 1, 2}, seconds(30)), "");

  // Refusals, each saying what is wrong.
  status = Restore(cluster->node(0), dir, &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("a cluster holding no database"), std::string::npos)
      << status.error_message();
  status = Restore(cluster->node(0), backups_.Sub("none"), &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  status = Restore(cluster->node(0), "relative/dir", &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  const std::string damaged = backups_.Sub("damaged");
  std::filesystem::copy(dir, damaged);
  {
    std::fstream file(damaged + "/shard-1.parts", std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(10);
    file.put('\x7f');
  }
  status = Restore(cluster->node(0), damaged, &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DATA_LOSS) << status.error_message();
  EXPECT_NE(status.error_message().find("shard-1.parts is damaged"), std::string::npos)
      << status.error_message();
}

// The cluster's first admin token: the one node that created it wrote it.
std::string AdminTokenOf(TestCluster& cluster) {
  for (int i = 0; i < 3; ++i) {
    if (std::string token = cluster.node(i).AdminToken(); !token.empty()) return token;
  }
  return "";
}

// Tokens and scheduled queries live in etcd, and a backup carries them: the live tokens come
// back (but one whose name the new cluster's own live token holds, and the revoked ones), the
// scheduled queries with their run history, and the new cluster runs them on.
TEST_F(ClusterBackupTest, TokensAndScheduledQueriesComeBack) {
  const std::string dir = backups_.Sub("etcd");
  const int64_t start = absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 1, 1, 0, 0, 30), absl::UTCTimeZone()));
  const std::vector<std::string> flags = {"--auth", "on", "--testing-fixed-time",
                                          "2026-01-01 00:00:30"};
  auto runs_through = [](StratadProcess& node, const std::string& token) {
    QueryResult result =
        RunQuery(node.channel(),
                 "SELECT count(*) FROM system.scheduled_query_runs WHERE scheduled_query = "
                 "'cpu_1m' AND status = 'AUTO_TRIGGER_SUCCESS'",
                 0, token);
    return result.status.ok() ? RowsText(result.rows) : result.status.error_message();
  };
  std::string old_admin, reader, revoked;
  {
    std::unique_ptr<TestCluster> cluster = StartCluster(4, -1, flags);
    old_admin = AdminTokenOf(*cluster);
    ASSERT_FALSE(old_admin.empty());
    ASSERT_TRUE(CreateDatabase(cluster->node(0).channel(), "demo", old_admin).ok());
    ASSERT_TRUE(CreateTable(cluster->node(1), "cpu", "", old_admin).ok());
    ASSERT_TRUE(CreateTable(cluster->node(1), "cpu_1m", "", old_admin).ok());
    v1::WriteRecordsResponse written;
    ASSERT_TRUE(Write(cluster->node(2), "cpu", {CpuRecord("h1", (start - 20) * 1000, 10)}, &written,
                      old_admin)
                    .ok());
    reader = CreateToken(cluster->node(0).channel(), old_admin, "reader", "read:demo");
    revoked = CreateToken(cluster->node(0).channel(), old_admin, "gone", "read:demo");
    ASSERT_FALSE(reader.empty());
    ASSERT_FALSE(revoked.empty());
    v1::RevokeTokenRequest revoke;
    revoke.set_token("gone");
    v1::RevokeTokenResponse revoke_response;
    ASSERT_TRUE(v1::AuthService::NewStub(cluster->node(0).channel())
                    ->RevokeToken(WithToken(old_admin).get(), revoke, &revoke_response)
                    .ok());
    v1::CreateScheduledQueryResponse created;
    grpc::Status status =
        v1::ScheduledQueryService::NewStub(cluster->node(2).channel())
            ->CreateScheduledQuery(WithToken(old_admin).get(), Cpu1mScheduledQuery(), &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
    // 00:01: one run, which the backup's history holds.
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(SetClock(cluster->node(i), start + 30, old_admin).ok());
    ASSERT_EQ(
        Eventually<std::string>([&] { return runs_through(cluster->node(0), old_admin); }, "1\n"),
        "1\n");

    v1::BackupClusterResponse backed_up;
    status = Backup(cluster->node(0), dir, &backed_up, old_admin);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(backed_up.tokens(), 2u);  // admin and reader; "gone" is revoked
    EXPECT_EQ(backed_up.scheduled_queries(), 1u);
  }

  // A new cluster, whose own first admin token is named "admin" too.
  std::unique_ptr<TestCluster> cluster = StartCluster(8, -1, flags);
  const std::string admin = AdminTokenOf(*cluster);
  ASSERT_FALSE(admin.empty());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(SetClock(cluster->node(i), start + 45, admin).ok());
  v1::RestoreClusterResponse restored;
  grpc::Status status = Restore(cluster->node(1), dir, &restored, admin);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.tokens(), 1u);
  ASSERT_EQ(restored.tokens_not_restored_size(), 1);
  EXPECT_EQ(restored.tokens_not_restored(0), "admin");
  EXPECT_EQ(restored.scheduled_queries(), 1u);
  auto query_status = [&](int node, const std::string& token) {
    return RunQuery(cluster->node(node).channel(), "SELECT count(*) FROM demo.cpu", 0, token)
        .status.error_code();
  };
  // The reader's secret works through every node (the restoring node at once, the others
  // once their watch brings it); the revoked token and the old admin's do not.
  EXPECT_EQ(query_status(1, reader), grpc::StatusCode::OK);
  for (int node : {0, 2}) {
    EXPECT_EQ(Eventually<grpc::StatusCode>([&] { return query_status(node, reader); },
                                           grpc::StatusCode::OK),
              grpc::StatusCode::OK)
        << node;
  }
  EXPECT_EQ(query_status(0, revoked), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(query_status(0, old_admin), grpc::StatusCode::UNAUTHENTICATED);
  // The scheduled query and its history, through every node; at 00:02 the new cluster runs it.
  for (int node = 0; node < 3; ++node) {
    EXPECT_EQ(
        Eventually<std::string>([&] { return runs_through(cluster->node(node), admin); }, "1\n"),
        "1\n")
        << node;
  }
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(SetClock(cluster->node(i), start + 90, admin).ok());
  EXPECT_EQ(Eventually<std::string>([&] { return runs_through(cluster->node(2), admin); }, "2\n"),
            "2\n");

  // A third cluster, restored without the backup's tokens: the reader's secret is refused.
  std::unique_ptr<TestCluster> third = StartCluster(2, -1, flags);
  const std::string third_admin = AdminTokenOf(*third);
  status = Restore(third->node(0), dir, &restored, third_admin, /*without_tokens=*/true);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(restored.tokens(), 0u);
  EXPECT_EQ(restored.tokens_not_restored_size(), 0);
  EXPECT_EQ(RunQuery(third->node(0).channel(), "SELECT count(*) FROM demo.cpu", 0, reader)
                .status.error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  // A scheduled query of a name the backup holds stops a restore before it changes anything.
  status = Restore(third->node(2), dir, &restored, third_admin);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("scheduled query \"cpu_1m\""), std::string::npos)
      << status.error_message();
}

// One backup or restore at a time on a node: another asked for meanwhile is refused at once,
// saying why, and the first goes on to its end.
TEST_F(ClusterBackupTest, AnotherBackupOrRestoreWhileOneRunsIsRefused) {
  // n1 applies each entry half a second late: a backup through it waits for its replicas.
  std::unique_ptr<TestCluster> cluster = StartCluster(2, /*lagging=*/1, {}, "500");
  ASSERT_TRUE(CreateDatabase(cluster->node(0).channel(), "demo").ok());
  ASSERT_TRUE(CreateTable(cluster->node(0), "cpu").ok());
  const int64_t now = NowMillis();
  for (int i = 0; i < 8; ++i) {  // an entry each
    v1::WriteRecordsResponse written;
    ASSERT_TRUE(Write(cluster->node(0), "cpu", HostRecords(4, now - i * 1000), &written).ok());
  }
  grpc::Status first;
  v1::BackupClusterResponse first_response;
  std::thread running(
      [&] { first = Backup(cluster->node(1), backups_.Sub("first"), &first_response); });
  // It holds the node's one backup-or-restore turn once it made its directory.
  for (int i = 0; i < 200 && !std::filesystem::exists(backups_.Sub("first")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  v1::BackupClusterResponse second_response;
  grpc::Status second = Backup(cluster->node(1), backups_.Sub("second"), &second_response);
  v1::RestoreClusterResponse restored;
  grpc::Status restore = Restore(cluster->node(1), backups_.Sub("first"), &restored);
  running.join();
  ASSERT_TRUE(first.ok()) << first.error_message();
  EXPECT_EQ(first_response.rows(), 8 * 4);
  for (const grpc::Status& refused : {second, restore}) {
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(refused.error_message().find("runs on this node now"), std::string::npos)
        << refused.error_message();
  }
  EXPECT_FALSE(std::filesystem::exists(backups_.Sub("second") + "/manifest.pb"));
  // Once it ended, the next one runs.
  ASSERT_TRUE(Backup(cluster->node(1), backups_.Sub("third"), &second_response).ok());
  EXPECT_EQ(second_response.rows(), 8 * 4);
}

TEST_F(ClusterBackupTest, ASingleServerSaysToUseItsOwnBackups) {
  StratadProcess single;
  ASSERT_TRUE(single.Start());
  v1::BackupClusterResponse backed_up;
  grpc::Status status = Backup(single, backups_.Sub("single"), &backed_up);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("strata backup create"), std::string::npos);
  v1::RestoreClusterResponse restored;
  status = Restore(single, backups_.Sub("single"), &restored);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("stratad --restore-from"), std::string::npos);
}

}  // namespace
}  // namespace strata::testing
