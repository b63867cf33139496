#include "tests/cluster/cluster_helpers.h"

#include <chrono>
#include <sstream>

#include "gtest/gtest.h"
#include "httplib.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/scheduled_query.grpc.pb.h"
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
                   v1::WriteRecordsResponse* response, const std::string& token) {
  auto stub = v1::WriteService::NewStub(node.channel());
  std::unique_ptr<grpc::ClientContext> context = WithToken(token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(40));
  return stub->WriteRecords(context.get(), WriteRequest("demo", table, std::move(records)),
                            response);
}

grpc::Status BulkWrite(StratadProcess& node, const std::string& table,
                       std::vector<v1::Record> records, v1::WriteRecordsResponse* response) {
  auto stub = v1::WriteService::NewStub(node.channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(40));
  return stub->BulkWriteRecords(&context, WriteRequest("demo", table, std::move(records)),
                                response);
}

std::vector<v1::Record> HostRecords(int count, int64_t time_millis) {
  std::vector<v1::Record> records;
  for (int i = 0; i < count; ++i)
    records.push_back(CpuRecord("h" + std::to_string(i), time_millis, i));
  return records;
}

grpc::Status CreateTable(StratadProcess& node, const std::string& table,
                         const std::string& partition_key, const std::string& token) {
  auto stub = v1::CatalogService::NewStub(node.channel());
  v1::CreateTableRequest request;
  request.set_database_name("demo");
  request.set_table_name(table);
  if (!partition_key.empty()) {
    auto* key = request.mutable_schema()->add_composite_partition_key();
    key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
    key->set_name(partition_key);
  }
  v1::CreateTableResponse response;
  return stub->CreateTable(WithToken(token).get(), request, &response);
}

double MetricValue(StratadProcess& node, const std::string& series) {
  httplib::Client client("127.0.0.1", node.http_port());
  auto response = client.Get("/metrics");
  if (!response || response->status != 200) return -1;
  std::istringstream lines(response->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > series.size() && line.starts_with(series) && line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

std::unique_ptr<grpc::ClientContext> WithToken(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

v1::CreateScheduledQueryRequest Cpu1mScheduledQuery() {
  v1::CreateScheduledQueryRequest create;
  v1::ScheduledQuery& q = *create.mutable_scheduled_query();
  q.set_name("cpu_1m");
  q.set_query_string(
      "SELECT host, bin(time, 1m) AS minute, max(measure_value::double) AS max_cpu FROM demo.cpu "
      "WHERE time >= @scheduled_runtime - 5m AND time < @scheduled_runtime "
      "GROUP BY host, bin(time, 1m)");
  q.set_schedule_expression("rate(1 minute)");
  auto* target = q.mutable_target_configuration();
  target->set_database_name("demo");
  target->set_table_name("cpu_1m");
  target->set_time_column("minute");
  target->add_dimension_mappings()->set_name("host");
  auto* multi = target->mutable_multi_measure_mappings();
  multi->set_target_multi_measure_name("stats");
  auto* max = multi->add_multi_measure_attribute_mappings();
  max->set_source_column("max_cpu");
  max->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  return create;
}

grpc::Status SetClock(StratadProcess& node, int64_t unix_seconds, const std::string& token) {
  v1::SetClockRequest request;
  request.mutable_time()->set_seconds(unix_seconds);
  v1::SetClockResponse response;
  return v1::TestingService::NewStub(node.channel())
      ->SetClock(WithToken(token).get(), request, &response);
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
