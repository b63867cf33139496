#include "tests/cluster/cluster_helpers.h"

#include <chrono>
#include <sstream>

#include "gtest/gtest.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/cluster/cluster_harness.h"
#include "tests/support/query_helpers.h"
#include "tests/support/subprocess.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {

bool HaveClusterServers() {
  return !FindOnPath("etcd").empty() && !FindOnPath("nats-server").empty();
}

grpc::Status Write(StratadProcess& node, const std::string& table, std::vector<v1::Record> records,
                   v1::WriteRecordsResponse* response) {
  auto stub = v1::WriteService::NewStub(node.channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(40));
  return stub->WriteRecords(&context, WriteRequest("demo", table, std::move(records)), response);
}

std::vector<v1::Record> HostRecords(int count, int64_t time_millis) {
  std::vector<v1::Record> records;
  for (int i = 0; i < count; ++i)
    records.push_back(CpuRecord("h" + std::to_string(i), time_millis, i));
  return records;
}

grpc::Status CreateTable(StratadProcess& node, const std::string& table,
                         const std::string& partition_key) {
  auto stub = v1::CatalogService::NewStub(node.channel());
  grpc::ClientContext context;
  v1::CreateTableRequest request;
  request.set_database_name("demo");
  request.set_table_name(table);
  if (!partition_key.empty()) {
    auto* key = request.mutable_schema()->add_composite_partition_key();
    key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
    key->set_name(partition_key);
  }
  v1::CreateTableResponse response;
  return stub->CreateTable(&context, request, &response);
}

grpc::Status SetUpLateTable(StratadProcess& node, bool create, bool enable) {
  auto stub = v1::CatalogService::NewStub(node.channel());
  grpc::ClientContext context;
  if (create) {
    v1::CreateTableRequest request;
    request.set_database_name("demo");
    request.set_table_name("late");
    request.mutable_retention_properties()->set_memory_store_retention_hours(1);
    request.mutable_retention_properties()->set_magnetic_store_retention_days(30);
    request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(enable);
    v1::CreateTableResponse response;
    return stub->CreateTable(&context, request, &response);
  }
  v1::UpdateTableRequest request;
  request.set_database_name("demo");
  request.set_table_name("late");
  request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(enable);
  v1::UpdateTableResponse response;
  return stub->UpdateTable(&context, request, &response);
}

std::map<std::pair<std::string, int64_t>, double> ReadAll(StratadProcess& node,
                                                          const std::string& table,
                                                          bool own_replicas) {
  v1::QueryRequest request;
  request.set_query_string("SELECT host, to_milliseconds(time), measure_value::double FROM demo." +
                           table);
  // A follower read prefers the node's own replicas, brought to their logs' end first (no
  // staleness allowed).
  if (own_replicas) request.mutable_read()->set_consistency(v1::READ_CONSISTENCY_FOLLOWER);
  QueryResult result = RunQueryRequest(node.channel(), request);
  EXPECT_TRUE(result.status.ok()) << result.status.error_message();
  std::map<std::pair<std::string, int64_t>, double> out;
  std::istringstream lines(RowsText(result.rows));
  std::string host, millis, value;
  while (std::getline(lines, host, '|') && std::getline(lines, millis, '|') &&
         std::getline(lines, value)) {
    out[{host, std::stoll(millis)}] = std::stod(value);
  }
  return out;
}

std::map<int64_t, std::string> ShardColumn(StratadProcess& node, const std::string& column) {
  QueryResult result =
      RunQuery(node.channel(), "SELECT DISTINCT shard, " + column +
                                   " FROM \"system\".\"cluster_shards\" ORDER BY shard");
  std::map<int64_t, std::string> out;
  if (!result.status.ok()) return out;
  std::istringstream lines(RowsText(result.rows));  // "shard|value\n" each
  std::string shard, value;
  while (std::getline(lines, shard, '|') && std::getline(lines, value)) {
    out.try_emplace(std::stoll(shard), value);
  }
  return out;
}

void HostBatches::Write(TestCluster& cluster, int count, const std::vector<int>& through) {
  for (int b = 0; b < count; ++b) {
    const int64_t time = base_ + next_++ * 1000;
    v1::WriteRecordsResponse response;
    if (!testing::Write(cluster.node(through[b % through.size()]), "cpu", HostRecords(20, time),
                        &response)
             .ok()) {
      continue;
    }
    for (int h = 0; h < 20; ++h) acknowledged_[{"h" + std::to_string(h), time}] = h;
  }
}

}  // namespace strata::testing
