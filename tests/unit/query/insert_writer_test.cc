// An INSERT or a COPY that a write error stops midway (a disk that fills) says how many rows
// it wrote, which stay, and from which row (line) on a client sends again; the rows it says
// it wrote are the ones stored. A COPY's new columns are typed by their first rows' values.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/time_format.h"
#include "gtest/gtest.h"
#include "query/base/result.h"
#include "query/copy_rows.h"
#include "query/engine.h"
#include "query/insert_sink.h"
#include "storage/engine.h"
#include "tests/support/engine_with_table.h"
#include "tests/support/temp_dir.h"

namespace strata::query {
namespace {

constexpr int64_t kNow = 1'700'000'000LL * kNanosPerSecond;

// Writes the first `room` requests to the engine and refuses every one after them.
class FillingDisk final : public InsertSink {
 public:
  FillingDisk(Engine* engine, int room) : engine_(*engine), room_(room) {}
  absl::StatusOr<WriteResult> Write(WriteRequest request) override {
    if (requests_++ >= room_) {
      absl::Status full = absl::ResourceExhaustedError("the disk is full");
      full.SetPayload("strata.dev/test-mark", absl::Cord("1"));  // kept by the statement's error
      return full;
    }
    return engine_.Write(std::move(request));
  }

 private:
  Engine& engine_;
  const int room_;
  int requests_ = 0;
};

// `count` rows of (time, host, usage) on lines 1 to count, then the end of the data.
class CopyLines final : public CopyRows {
 public:
  explicit CopyLines(int64_t count) : count_(count) {}
  absl::StatusOr<bool> Next(CopyRow* row) override {
    if (next_ > count_) return false;
    row->line = next_;
    row->fields = {FormatSqlTimestamp(kNow - next_ * kNanosPerSecond), "h1",
                   absl::StrCat(next_, ".5")};
    ++next_;
    return true;
  }

 private:
  const int64_t count_;
  int64_t next_ = 1;
};

// The given rows' fields, on lines 1, 2, ...
class CopyTexts final : public CopyRows {
 public:
  explicit CopyTexts(std::vector<std::vector<std::optional<std::string>>> rows)
      : rows_(std::move(rows)) {}
  absl::StatusOr<bool> Next(CopyRow* row) override {
    if (next_ == rows_.size()) return false;
    row->fields = rows_[next_++];
    row->line = static_cast<int64_t>(next_);
    return true;
  }

 private:
  const std::vector<std::vector<std::optional<std::string>>> rows_;
  size_t next_ = 0;
};

class InsertWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto engine = testing::OpenEngineWithTable(dir_.Sub("data"), &clock_, 24);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    query_ = std::make_unique<QueryEngine>(engine_.get());
  }

  absl::Status Run(const std::string& sql, InsertSink* inserts, CopyRows* rows = nullptr) {
    QueryOptions options;
    options.default_database = "mydb";
    options.inserts = inserts;
    options.copy_rows = rows;
    ColumnsSink sink;
    return query_->Execute(sql, options, &sink).status();
  }

  // The first row of `sql`'s answer, as text.
  std::vector<std::string> FirstRow(const std::string& sql) {
    class First final : public ResultSink {
     public:
      absl::Status Columns(const std::vector<ResultColumn>&) override { return absl::OkStatus(); }
      absl::Status Rows(std::vector<Row> page) override {
        if (row.empty() && !page.empty()) {
          for (const Datum& d : page[0]) row.push_back(d.ToString());
        }
        return absl::OkStatus();
      }
      std::vector<std::string> row;
    } sink;
    const absl::Status ran = query_->Execute(sql, QueryOptions{}, &sink).status();
    EXPECT_TRUE(ran.ok()) << ran;
    return sink.row;
  }

  // The rows of mydb.cpu, counted by SQL.
  int64_t Stored() {
    class Count final : public ResultSink {
     public:
      absl::Status Columns(const std::vector<ResultColumn>&) override { return absl::OkStatus(); }
      absl::Status Rows(std::vector<Row> page) override {
        if (!page.empty()) count = page[0][0].i;
        return absl::OkStatus();
      }
      int64_t count = -1;
    } sink;
    EXPECT_TRUE(query_->Execute("SELECT count(*) FROM mydb.cpu", QueryOptions{}, &sink).ok());
    return sink.count;
  }

  testing::TempDir dir_;
  ManualClock clock_{kNow};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<QueryEngine> query_;
};

TEST_F(InsertWriterTest, ACopyStoppedByAFullDiskSaysWhatItWroteAndWhereToResendFrom) {
  FillingDisk disk(engine_.get(), 3);  // three requests of 100 lines, then full
  CopyLines lines(1000);
  const absl::Status copied = Run("COPY cpu (time, host, usage) FROM STDIN", &disk, &lines);
  EXPECT_TRUE(absl::IsResourceExhausted(copied)) << copied;
  EXPECT_NE(copied.message().find("the disk is full; COPY wrote 300 rows before it, which stay"),
            std::string::npos)
      << copied;
  EXPECT_NE(copied.message().find("lines from 301 on are not known written"), std::string::npos)
      << copied;
  EXPECT_TRUE(copied.GetPayload("strata.dev/test-mark").has_value());
  EXPECT_EQ(Stored(), 300);
}

TEST_F(InsertWriterTest, AnInsertStoppedByAFullDiskSaysWhatItWrote) {
  FillingDisk disk(engine_.get(), 2);
  const absl::Status inserted =
      Run("INSERT INTO cpu (time, host, usage) SELECT from_unixtime(1699999000) + i * 1s, 'h1', "
          "i * 0.5 FROM UNNEST(sequence(1, 1000)) AS t(i)",
          &disk);
  EXPECT_TRUE(absl::IsResourceExhausted(inserted)) << inserted;
  EXPECT_NE(inserted.message().find("INSERT wrote 200 rows before it, which stay (an INSERT is "
                                    "not undone): rows from 201 on"),
            std::string::npos)
      << inserted;
  EXPECT_EQ(Stored(), 200);
}

TEST_F(InsertWriterTest, AnErrorBeforeAnyRowWasWrittenIsLeftAsItIs) {
  FillingDisk disk(engine_.get(), 0);
  CopyLines lines(250);
  const absl::Status copied = Run("COPY cpu (time, host, usage) FROM STDIN", &disk, &lines);
  EXPECT_EQ(copied.message(), "the disk is full");
  EXPECT_EQ(Stored(), 0);
}

// A new column's type is the one all its values among the first rows agree on: numbers beside
// words are text, and so is a number a double would not give back as written (a leading zero,
// hexadecimal); NULLs agree with anything.
TEST_F(InsertWriterTest, ACopysNewColumnIsTextUnlessEveryValueIsANumberKeptAsWritten) {
  const std::string t1 = FormatSqlTimestamp(kNow - kNanosPerMinute);
  const std::string t2 = FormatSqlTimestamp(kNow);
  CopyTexts rows({{t1, "02134", "12", "0x1f", "1.5", std::nullopt, "t"},
                  {t2, "10001", "n/a", "31", std::nullopt, "-0.25", "f"}});
  const absl::Status copied =
      Run("COPY cpu (time, zip, reading, code, usage, load, up) FROM STDIN", nullptr, &rows);
  ASSERT_TRUE(copied.ok()) << copied;
  EXPECT_EQ(FirstRow("SELECT zip, reading, code, usage, load, up FROM mydb.cpu ORDER BY time"),
            (std::vector<std::string>{"02134", "12", "0x1f", "1.5", "NULL", "true"}));
  EXPECT_EQ(
      FirstRow("SELECT typeof(zip), typeof(reading), typeof(code), typeof(usage), "
               "typeof(load), typeof(up) FROM mydb.cpu LIMIT 1"),
      (std::vector<std::string>{"varchar", "varchar", "varchar", "double", "double", "boolean"}));
}

}  // namespace
}  // namespace strata::query
