// The ingest door every write goes through, on a real engine: the caller's
// grant before anything is written, the write metrics, and the tables and
// databases an ingest protocol names.
#include "server/runner/ingest.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/server/server_test_base.h"

namespace strata {
namespace {

using ::testing::HasSubstr;

WriteRequest Usage(std::string table, int records) {
  WriteRequest request{.database_name = "mydb", .table_name = std::move(table)};
  for (int i = 0; i < records; ++i) {
    InputRecord r;
    r.dimensions = {{"host", "h" + std::to_string(i)}};
    r.measure_name = "usage";
    r.measure_value_type = MeasureKind::kDouble;
    r.measure_value = Value::Double(i);
    r.time = ServerUnitTest::kNow / 1'000'000;
    request.records.push_back(std::move(r));
  }
  return request;
}

Principal Token(std::string name, std::vector<std::string> grants) {
  return Principal::ForToken(std::move(name), grants);
}

class IngestTest : public ServerUnitTest {
 protected:
  void SetUp() override {
    ServerUnitTest::SetUp();
    ingest_ = std::make_unique<Ingest>(engine_.get(), metrics_.get());
    CreateTable("cpu");
  }

  // strata_records_ingested_total{tier="memory"} as /metrics shows it.
  std::string IngestedLine() {
    const std::string text = metrics_->Render();
    const std::string key = "strata_records_ingested_total{tier=\"memory\"} ";
    const size_t at = text.find(key);
    return at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
  }

  std::unique_ptr<Ingest> ingest_;
};

TEST_F(IngestTest, WritesForACallerWhoMayAndCountsTheRecords) {
  auto written = ingest_->Write(Token("collector", {"write:mydb"}), Usage("cpu", 3));
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->total(), 3);
  EXPECT_THAT(IngestedLine(), HasSubstr("} 3"));
}

TEST_F(IngestTest, RefusesACallerWithoutWriteAndStoresNothing) {
  // Read is not write, and a grant on another table is not this one's.
  for (const Principal& caller : {Token("reader", {"read:mydb"}),
                                  Token("other", {"write:mydb/mem"})}) {
    auto written = ingest_->Write(caller, Usage("cpu", 2));
    EXPECT_EQ(written.status().code(), absl::StatusCode::kPermissionDenied) << caller.name();
    EXPECT_THAT(written.status().message(), HasSubstr("write:mydb/cpu"));
  }
  EXPECT_THAT(IngestedLine(), HasSubstr("} 0"));
  // The records were never stored: the same write by a writer is new.
  auto written = ingest_->Write(Token("collector", {"write:mydb"}), Usage("cpu", 2));
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->total(), 2);
}

TEST_F(IngestTest, AsynchronousWritesAnswerOnceCommitted) {
  const Principal collector = Token("collector", {"write:mydb"});
  WriteRequest request = Usage("cpu", 4);
  InputWriteSource source(request);
  auto result = ingest_->WriteInBackground(collector, source).get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->total(), 4);
  const Principal reader = Token("reader", {"read:*"});
  auto refused = ingest_->WriteInBackground(reader, source).get();
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(IngestTest, PreparesTheTableAnIngestProtocolNames) {
  const Principal writer = Token("collector", {"write:mydb"});
  // Without auto-creation a missing table is an error that says what to do.
  absl::Status missing = ingest_->PrepareTable(writer, "mydb", "mem", /*auto_create=*/false);
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("strata table create mydb mem"));
  // Creating needs write on the whole database; a table grant is not enough.
  absl::Status narrow =
      ingest_->PrepareTable(Token("narrow", {"write:mydb/mem"}), "mydb", "mem", true);
  EXPECT_EQ(narrow.code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(ingest_->PrepareTable(writer, "mydb", "mem", true).ok());
  auto created = engine_->catalog().FindTable("mydb", "mem");
  ASSERT_TRUE(created.ok()) << created.status();
  // Agents send late points: magnetic writes are on.
  EXPECT_TRUE((*created)->enable_magnetic_store_writes);
  // An existing table needs only write on it.
  EXPECT_TRUE(ingest_->PrepareTable(Token("t", {"write:mydb/cpu"}), "mydb", "cpu", false).ok());
}

TEST_F(IngestTest, ChecksTheDatabaseAnIngestRequestNames) {
  const Principal writer = Token("collector", {"write:*"});
  absl::Status none = ingest_->CheckDatabase(writer, "", "db");
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.message(), HasSubstr("?db=DATABASE"));
  absl::Status missing = ingest_->CheckDatabase(writer, "nodb", "bucket");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("strata db create nodb"));
  // A caller that may not see the database learns nothing of it.
  absl::Status hidden = ingest_->CheckDatabase(Token("t", {"write:otherdb"}), "nodb", "db");
  EXPECT_EQ(hidden.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(ingest_->CheckDatabase(writer, "mydb", "db").ok());
}

}  // namespace
}  // namespace strata
