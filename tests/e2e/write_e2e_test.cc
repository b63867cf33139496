// WriteService over real gRPC against the real stratad binary: partial
// batches, each rejection reason, whole-request errors, and acknowledged
// writes surviving kill -9.
#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include "gtest/gtest.h"
#include "storage/engine.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using testing::CpuRecord;
using testing::NowMillis;
using testing::WriteRequest;

class WriteE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    Connect();
    ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  }

  void Connect() { writer_ = v1::WriteService::NewStub(server_.channel()); }

  grpc::Status Write(const v1::WriteRecordsRequest& request, v1::WriteRecordsResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return writer_->WriteRecords(&context, request, response);
  }

  void CheckAcknowledgedWritesSurvive(const std::function<void()>& stop_server);

  testing::StratadProcess server_;
  std::unique_ptr<v1::WriteService::Stub> writer_;
};

TEST_F(WriteE2ETest, CommonAttributesAndMultiRecords) {
  v1::WriteRecordsRequest request;
  request.set_database_name("mydb");
  request.set_table_name("tbl");
  auto* common = request.mutable_common_attributes();
  auto* device = common->add_dimensions();
  device->set_name("device_id");
  device->set_value("sensor-sea478");
  common->set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  common->set_time(NowMillis());
  for (const char* name : {"temperature", "pressure"}) {
    v1::Record* r = request.add_records();
    r->set_measure_name(name);
    auto* quality = r->add_measure_values();
    quality->set_name("quality");
    quality->mutable_value()->set_bigint_value(92);
    auto* value = r->add_measure_values();
    value->set_name("value");
    value->mutable_value()->set_double_value(35);
    auto* unit = r->add_measure_values();
    unit->set_name("unit");
    unit->mutable_value()->set_varchar_value("c");
  }
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(Write(request, &response).ok());
  EXPECT_EQ(response.records_ingested().total(), 2);
  EXPECT_EQ(response.records_ingested().memory_store(), 2);
  EXPECT_EQ(response.rejected_records_size(), 0);
}

TEST_F(WriteE2ETest, PartialBatchReportsEachRejectionWithItsIndex) {
  const int64_t now = NowMillis();
  struct Bad {
    std::function<void(v1::Record&)> change;
    std::string reason_part;
  };
  const std::vector<Bad> bad = {
      {[](v1::Record& r) { r.clear_measure_name(); }, "measure_name is missing"},
      {[](v1::Record& r) { r.mutable_measure_value()->set_double_value(NAN); }, "NaN"},
      {[](v1::Record& r) { r.clear_measure_value(); }, "has no value"},
      {[](v1::Record& r) { r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_BIGINT); },
       "declared BIGINT"},
      {[](v1::Record& r) { r.set_version(0); }, "below 1"},
      {[](v1::Record& r) { r.clear_time(); }, "time is missing"},
      {[now](v1::Record& r) { r.set_time(now + 3'600'000); }, "in the future"},
      {[now](v1::Record& r) { r.set_time(now - 7 * 3'600'000); }, "of the memory store"},
      {[](v1::Record& r) { r.mutable_dimensions(0)->set_name("time"); }, "reserved"},
      {[](v1::Record& r) { r.mutable_dimensions(0)->set_name(std::string(61, 'x')); },
       "the limit is 60"},
      {[](v1::Record& r) { r.set_measure_name("host"); }, "both a dimension and a measure"},
  };
  std::vector<v1::Record> records;
  records.push_back(CpuRecord("good0", now, 1));
  for (size_t i = 0; i < bad.size(); ++i) {
    v1::Record r = CpuRecord("bad" + std::to_string(i), now, 1);
    bad[i].change(r);
    records.push_back(r);
  }
  records.push_back(CpuRecord("good1", now, 2));
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(Write(WriteRequest("mydb", "tbl", records), &response).ok());
  EXPECT_EQ(response.records_ingested().total(), 2);
  ASSERT_EQ(response.rejected_records_size(), static_cast<int>(bad.size()));
  for (size_t i = 0; i < bad.size(); ++i) {
    const auto& rejected = response.rejected_records(static_cast<int>(i));
    EXPECT_EQ(rejected.record_index(), static_cast<int>(i) + 1);
    EXPECT_NE(rejected.reason().find(bad[i].reason_part), std::string::npos)
        << i << ": " << rejected.reason();
    EXPECT_FALSE(rejected.has_existing_version());
  }
}

// BulkWriteRecords: WriteRecords' request, answer and rules with 10,000
// records (a loader's call); one more is refused naming the limit, and a
// rejected record is named by its index past 100 as well.
TEST_F(WriteE2ETest, BulkWriteRecordsTakesTenThousandRecords) {
  const int64_t now = NowMillis();
  auto bulk = [&](const v1::WriteRecordsRequest& request, v1::WriteRecordsResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return writer_->BulkWriteRecords(&context, request, response);
  };
  std::vector<v1::Record> records;
  for (int i = 0; i < 10'000; ++i) records.push_back(CpuRecord("h" + std::to_string(i), now, i));
  records[9'876].set_measure_name("");  // rejected, the others written
  v1::WriteRecordsResponse response;
  grpc::Status status = bulk(WriteRequest("mydb", "tbl", records), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.records_ingested().total(), 9'999);
  ASSERT_EQ(response.rejected_records_size(), 1);
  EXPECT_EQ(response.rejected_records(0).record_index(), 9'876);

  records.push_back(CpuRecord("one-too-many", now, 1));
  status = bulk(WriteRequest("mydb", "tbl", records), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("1..10000 records, this one has 10001"),
            std::string::npos)
      << status.error_message();
  // WriteRecords keeps Timestream's 100.
  records.resize(101);
  status = Write(WriteRequest("mydb", "tbl", records), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("1..100 records, this one has 101"), std::string::npos);
}

TEST_F(WriteE2ETest, VersionConflictReportsExistingVersion) {
  const int64_t now = NowMillis();
  v1::WriteRecordsResponse response;
  ASSERT_TRUE(Write(WriteRequest("mydb", "tbl", {CpuRecord("h", now, 1, 200)}), &response).ok());
  ASSERT_TRUE(Write(WriteRequest("mydb", "tbl", {CpuRecord("h", now, 2, 2)}), &response).ok());
  ASSERT_EQ(response.rejected_records_size(), 1);
  EXPECT_EQ(response.rejected_records(0).existing_version(), 200);
  // The exact retry is accepted.
  ASSERT_TRUE(Write(WriteRequest("mydb", "tbl", {CpuRecord("h", now, 1, 200)}), &response).ok());
  EXPECT_EQ(response.rejected_records_size(), 0);
  EXPECT_EQ(response.records_ingested().total(), 1);
}

TEST_F(WriteE2ETest, WholeRequestErrors) {
  v1::WriteRecordsResponse response;
  EXPECT_EQ(Write(WriteRequest("mydb", "tbl", {}), &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  std::vector<v1::Record> many(101, CpuRecord("h", NowMillis(), 1));
  grpc::Status too_many = Write(WriteRequest("mydb", "tbl", many), &response);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(too_many.error_message().find("1..100"), std::string::npos);

  v1::WriteRecordsRequest clash = WriteRequest("mydb", "tbl", {CpuRecord("h", NowMillis(), 1)});
  auto* d = clash.mutable_common_attributes()->add_dimensions();
  d->set_name("host");
  d->set_value("x");
  EXPECT_EQ(Write(clash, &response).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  grpc::Status missing = Write(WriteRequest("mydb", "tbll", {CpuRecord("h", 1, 1)}), &response);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(missing.error_message().find("did you mean \"tbl\""), std::string::npos);
  EXPECT_EQ(Write(WriteRequest("nodb", "tbl", {CpuRecord("h", 1, 1)}), &response).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

// Several clients write (and upsert with higher versions) while the server is
// stopped at a random moment by `stop_server`. After a restart, every
// acknowledged record must read back with at least its acknowledged version,
// and with exactly its acknowledged value when that version is the stored one.
void WriteE2ETest::CheckAcknowledgedWritesSurvive(const std::function<void()>& stop_server) {
  struct Acked {
    int64_t version;
    double value;
  };
  constexpr int kClients = 4;
  std::vector<std::map<std::pair<std::string, int64_t>, Acked>> acked(kClients);
  std::atomic<bool> stop{false};
  const int64_t base = NowMillis() - 60'000;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto stub = v1::WriteService::NewStub(server_.channel());
      for (int64_t round = 0; !stop; ++round) {
        // Odd rounds upsert the previous round's points with version 2.
        const bool upsert = round % 2 == 1;
        const int64_t time = base + (upsert ? round - 1 : round);
        const int64_t version = upsert ? 2 : 1;
        std::vector<v1::Record> records;
        for (int h = 0; h < 100; ++h) {
          double value = static_cast<double>(round * 1000 + h);
          records.push_back(CpuRecord("c" + std::to_string(c) + "-h" + std::to_string(h), time,
                                      value, version));
        }
        v1::WriteRecordsRequest request = WriteRequest("mydb", "tbl", records);
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
        v1::WriteRecordsResponse response;
        if (!stub->WriteRecords(&context, request, &response).ok()) return;  // killed
        ASSERT_EQ(response.records_ingested().total(), 100) << response.DebugString();
        for (const v1::Record& r : request.records()) {
          acked[c][{r.dimensions(0).value(), r.time()}] = {version, r.measure_value().double_value()};
        }
      }
    });
  }
  std::mt19937 random(std::random_device{}());
  std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
  stop_server();
  stop = true;
  for (auto& t : clients) t.join();

  size_t total_acked = 0;
  for (const auto& a : acked) total_acked += a.size();
  ASSERT_GT(total_acked, 0u) << "no write was acknowledged before the stop";

  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(server_.Stop(), 0);

  auto engine = Engine::Open({.data_dir = server_.data_dir()});
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto table = (*engine)->catalog().DescribeTable("mydb", "tbl");
  ASSERT_TRUE(table.ok());
  auto state = (*engine)->TableStateOf(*table);
  ASSERT_TRUE(state.ok());
  std::map<std::pair<std::string, int64_t>, Acked> stored;
  ASSERT_TRUE((*engine)
                  ->Scan(*table, {},
                         [&](const ScanRow& row) {
                           auto info = (*state)->DescribeSeries(row.series);
                           EXPECT_TRUE(info.has_value());
                           stored[{info->dimensions[0].second, row.time_nanos / 1'000'000}] = {
                               row.version, row.measures[0].value.real};
                           return true;
                         })
                  .ok());
  size_t checked = 0;
  for (const auto& client : acked) {
    for (const auto& [key, want] : client) {
      auto it = stored.find(key);
      ASSERT_NE(it, stored.end()) << "acknowledged record lost: " << key.first << "@" << key.second;
      EXPECT_GE(it->second.version, want.version);
      if (it->second.version == want.version) {
        EXPECT_EQ(it->second.value, want.value);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, total_acked);
  RecordProperty("acknowledged_records", static_cast<int>(total_acked));
}

TEST_F(WriteE2ETest, AcknowledgedWritesSurviveKill9) {
  CheckAcknowledgedWritesSurvive([this] { server_.Kill9(); });
}

// SIGTERM with writes in flight and queued for the committer: the server
// finishes them, closes and exits cleanly.
TEST_F(WriteE2ETest, AcknowledgedWritesSurviveAGracefulStopUnderLoad) {
  CheckAcknowledgedWritesSurvive([this] { EXPECT_EQ(server_.Stop(), 0); });
}

}  // namespace
}  // namespace strata
