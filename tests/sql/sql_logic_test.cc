// Runs the SQL-logic golden files in tests/sql/ (format: tests/sql/README.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "query/engine.h"
#include "storage/engine.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

std::vector<std::string> Split(const std::string& s, const std::string& separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t end = s.find(separator, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + separator.size();
  }
}

int64_t ParseTime(const std::string& text) {
  std::tm tm{};
  int millis = 0;
  int n = std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                      &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &millis);
  EXPECT_GE(n, 6) << "bad time " << text;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * kNanosPerSecond + millis * kNanosPerMilli;
}

std::optional<Value> ParseValue(const std::string& typed) {
  size_t colon = typed.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string type = typed.substr(0, colon), text = typed.substr(colon + 1);
  if (type == "double") return Value::Double(std::stod(text));
  if (type == "bigint") return Value::Bigint(std::stoll(text));
  if (type == "varchar") return Value::Varchar(text);
  if (type == "boolean") return Value::Boolean(text == "true");
  if (type == "timestamp") return Value::Timestamp(ParseTime(text));
  return std::nullopt;
}

class Collect : public query::ResultSink {
 public:
  absl::Status Columns(const std::vector<query::ResultColumn>&) override {
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    for (const query::Row& row : page) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? " | " : "") + row[i].ToString();
      lines.push_back(line);
    }
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
};

class SqlLogicTest : public ::testing::TestWithParam<std::string> {
 protected:
  void Open() {
    engine_.reset();
    auto engine = Engine::Open({.data_dir = dir_.Sub("data"), .clock = &clock_});
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
    query_ = std::make_unique<query::QueryEngine>(engine_.get());
  }

  void Write(const std::string& target, const std::vector<std::string>& lines, int line_no) {
    auto dot = target.find('.');
    WriteRequest request{.database_name = target.substr(0, dot),
                         .table_name = target.substr(dot + 1)};
    std::vector<bool> expect_reject;
    for (const std::string& line : lines) {
      std::istringstream in(line);
      std::string time, measure, dims, value, extra;
      in >> time >> measure >> dims >> value;
      InputRecord r;
      r.time = ParseTime(time) / kNanosPerMilli;
      r.measure_name = measure;
      if (dims != "-") {
        for (const std::string& kv : Split(dims, ",")) {
          auto eq = kv.find('=');
          r.dimensions.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
        }
      }
      if (value.rfind("multi:", 0) == 0) {
        for (const std::string& part : Split(value.substr(6), ";")) {
          auto eq = part.find('=');
          auto v = ParseValue(part.substr(eq + 1));
          if (v && v->type == ValueType::kTimestamp) v->number /= kNanosPerMilli;  // record unit
          r.measure_values.push_back({part.substr(0, eq), std::nullopt, v});
        }
      } else {
        r.measure_value = ParseValue(value);
        if (r.measure_value && r.measure_value->type == ValueType::kTimestamp) {
          r.measure_value->number /= kNanosPerMilli;  // in the record's time unit
        }
      }
      bool reject = false;
      while (in >> extra) {
        if (extra.rfind("v=", 0) == 0) r.version = std::stoll(extra.substr(2));
        if (extra == "!reject") reject = true;
      }
      request.records.push_back(std::move(r));
      expect_reject.push_back(reject);
    }
    auto result = engine_->Write(request);
    ASSERT_TRUE(result.ok()) << file_ << ":" << line_no << ": " << result.status();
    std::vector<std::string> rejected(lines.size());
    for (const RejectedRecord& r : result->rejected) rejected[r.record_index] = r.reason;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(!rejected[i].empty(), expect_reject[i])
          << file_ << ":" << line_no + 1 + i << ": " << lines[i]
          << (rejected[i].empty() ? " was accepted" : " was rejected: " + rejected[i]);
    }
  }

  testing::TempDir dir_;
  ManualClock clock_{0};
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<query::QueryEngine> query_;
  std::string file_;
};

TEST_P(SqlLogicTest, Run) {
  file_ = GetParam();
  std::ifstream in(std::string(STRATA_SQL_TEST_DIR) + "/" + file_);
  ASSERT_TRUE(in) << file_;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Open();
  int checked = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string directive;
    words >> directive;
    auto block = [&](size_t from, bool stop_at_separator) {
      std::vector<std::string> out;
      size_t j = from;
      for (; j < lines.size() && !lines[j].empty(); ++j) {
        if (stop_at_separator && lines[j] == "----") break;
        out.push_back(lines[j]);
      }
      return std::pair{out, j};
    };
    if (directive == "clock") {
      std::string t;
      words >> t;
      clock_.Set(ParseTime(t));
    } else if (directive == "database") {
      std::string name;
      words >> name;
      ASSERT_TRUE(engine_->catalog().CreateDatabase(name, "").ok());
    } else if (directive == "table") {
      std::string target, option;
      words >> target;
      auto dot = target.find('.');
      TableSpec spec{.database_name = target.substr(0, dot), .table_name = target.substr(dot + 1)};
      while (words >> option) {
        if (option.rfind("memory=", 0) == 0) spec.retention.memory_store_retention_hours = std::stoll(option.substr(7));
        if (option.rfind("magnetic=", 0) == 0) spec.retention.magnetic_store_retention_days = std::stoll(option.substr(9));
        if (option == "magnetic_writes") spec.enable_magnetic_store_writes = true;
        if (option.rfind("partition=", 0) == 0) {
          auto parts = Split(option.substr(10), ":");
          spec.partition_key = {PartitionKeyType::kDimension, parts[0],
                                parts.size() > 1 ? Enforcement::kRequired : Enforcement::kOptional};
        }
      }
      auto created = engine_->catalog().CreateTable(spec);
      ASSERT_TRUE(created.ok()) << file_ << ":" << i + 1 << ": " << created.status();
    } else if (directive == "write") {
      std::string target;
      words >> target;
      auto [records, end] = block(i + 1, false);
      for (size_t k = 0; k < records.size(); k += 100) {
        std::vector<std::string> chunk(records.begin() + k,
                                       records.begin() + std::min(records.size(), k + 100));
        Write(target, chunk, static_cast<int>(i + 1 + k));
      }
      i = end;
    } else if (directive == "restart") {
      Open();
    } else if (directive == "maintain") {
      // The tiering and retention jobs at the current clock.
      for (const TableMaintenance& r : engine_->RunMaintenance()) {
        ASSERT_TRUE(r.status.ok()) << file_ << ":" << i + 1 << ": " << r.status;
      }
    } else if (directive == "query" || directive == "error") {
      std::string mode;
      words >> mode;
      auto [sql_lines, separator] = block(i + 1, true);
      std::string sql;
      for (const std::string& l : sql_lines) sql += (sql.empty() ? "" : "\n") + l;
      ASSERT_TRUE(separator < lines.size() && lines[separator] == "----")
          << file_ << ":" << i + 1 << ": missing ----";
      auto [expected, end] = block(separator + 1, false);
      Collect sink;
      auto stats = query_->Execute(sql, {}, &sink);
      const int at = static_cast<int>(i + 1);
      if (directive == "error") {
        ASSERT_FALSE(stats.ok()) << file_ << ":" << at << ": expected an error for\n" << sql;
        std::string message(stats.status().message());
        for (const std::string& part : expected) {
          EXPECT_NE(message.find(part), std::string::npos)
              << file_ << ":" << at << ": error\n" << message << "\ndoes not contain\n" << part;
        }
      } else {
        ASSERT_TRUE(stats.ok()) << file_ << ":" << at << ": " << sql << "\n" << stats.status();
        std::vector<std::string> got = sink.lines;
        if (mode == "rowsort") {
          std::sort(got.begin(), got.end());
          std::sort(expected.begin(), expected.end());
        }
        EXPECT_EQ(got, expected) << file_ << ":" << at << ": " << sql;
      }
      ++checked;
      i = end;
    } else {
      FAIL() << file_ << ":" << i + 1 << ": unknown directive " << directive;
    }
  }
  EXPECT_GT(checked, 0) << file_ << " checks nothing";
}

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(STRATA_SQL_TEST_DIR)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

INSTANTIATE_TEST_SUITE_P(Sql, SqlLogicTest, ::testing::ValuesIn(TestFiles()),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.size() - 5);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace strata
