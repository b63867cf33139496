#include "tests/sql/sql_logic_runner.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/clock.h"
#include "gtest/gtest.h"

namespace strata::testing {
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

// One record line: <iso time> <measure> <dims|-> <type>:<value> [v=N] [!reject].
InputRecord ParseRecord(const std::string& line, bool* expect_reject) {
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
  *expect_reject = false;
  while (in >> extra) {
    if (extra.rfind("v=", 0) == 0) r.version = std::stoll(extra.substr(2));
    if (extra == "!reject") *expect_reject = true;
  }
  return r;
}

TableSpec ParseTable(std::istringstream& words) {
  std::string target, option;
  words >> target;
  auto dot = target.find('.');
  TableSpec spec{.database_name = target.substr(0, dot), .table_name = target.substr(dot + 1)};
  while (words >> option) {
    if (option.rfind("memory=", 0) == 0) {
      spec.retention.memory_store_retention_hours = std::stoll(option.substr(7));
    }
    if (option.rfind("magnetic=", 0) == 0) {
      spec.retention.magnetic_store_retention_days = std::stoll(option.substr(9));
    }
    if (option == "magnetic_writes") spec.enable_magnetic_store_writes = true;
    if (option.rfind("partition=", 0) == 0) {
      auto parts = Split(option.substr(10), ":");
      spec.partition_key = {PartitionKeyType::kDimension, parts[0],
                            parts.size() > 1 ? Enforcement::kRequired : Enforcement::kOptional};
    }
  }
  return spec;
}

class FileRun {
 public:
  FileRun(std::string name, std::vector<std::string> lines, SqlLogicBackend& backend)
      : name_(std::move(name)), lines_(std::move(lines)), backend_(backend) {}

  void Run() {
    for (size_t i = 0; i < lines_.size(); ++i) {
      const std::string& line = lines_[i];
      if (line.empty() || line[0] == '#') continue;
      std::istringstream words(line);
      std::string directive;
      words >> directive;
      const std::string at = name_ + ":" + std::to_string(i + 1);
      if (directive == "clock") {
        std::string t;
        words >> t;
        backend_.SetClock(ParseTime(t));
      } else if (directive == "database") {
        std::string name;
        words >> name;
        ASSERT_TRUE(backend_.CreateDatabase(name).ok()) << at;
      } else if (directive == "table") {
        absl::Status created = backend_.CreateTable(ParseTable(words));
        ASSERT_TRUE(created.ok()) << at << ": " << created;
      } else if (directive == "write" || directive == "legacy-write") {
        std::string target;
        words >> target;
        auto [records, end] = Block(i + 1, false);
        for (size_t k = 0; k < records.size(); k += 100) {
          std::vector<std::string> chunk(records.begin() + k,
                                         records.begin() + std::min(records.size(), k + 100));
          if (directive == "write") {
            Write(target, chunk, static_cast<int>(i + 1 + k));
          } else {
            absl::Status written = backend_.LegacyWrite(Request(target, chunk, nullptr));
            ASSERT_TRUE(written.ok()) << at << ": " << written;
          }
        }
        i = end;
      } else if (directive == "legacy-rename") {
        std::string from, to;
        words >> from >> to;
        const auto [database, table] = SplitTarget(from);
        const auto [new_database, new_table] = SplitTarget(to);
        absl::Status renamed = backend_.LegacyRename(database, table, new_database, new_table);
        ASSERT_TRUE(renamed.ok()) << at << ": " << renamed;
      } else if (directive == "restart") {
        backend_.Restart();
      } else if (directive == "maintain") {
        backend_.Maintain();
      } else if (directive == "query" || directive == "error") {
        i = Check(directive, words, i, at);
      } else {
        FAIL() << at << ": unknown directive " << directive;
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(checked_, 0) << name_ << " checks nothing";
  }

 private:
  // Lines from `from` up to a blank line (or "----").
  std::pair<std::vector<std::string>, size_t> Block(size_t from, bool stop_at_separator) const {
    std::vector<std::string> out;
    size_t j = from;
    for (; j < lines_.size() && !lines_[j].empty(); ++j) {
      if (stop_at_separator && lines_[j] == "----") break;
      out.push_back(lines_[j]);
    }
    return {out, j};
  }

  // "database.table" -> its two names.
  static std::pair<std::string, std::string> SplitTarget(const std::string& target) {
    const auto dot = target.find('.');
    return {target.substr(0, dot), dot == std::string::npos ? "" : target.substr(dot + 1)};
  }

  // The records of `lines` for table `target` ("mydb.table"); whether each
  // line expects a rejection goes to `expect_reject` (if given).
  static WriteRequest Request(const std::string& target, const std::vector<std::string>& lines,
                              std::vector<bool>* expect_reject) {
    auto [database, table] = SplitTarget(target);
    WriteRequest request{.database_name = std::move(database), .table_name = std::move(table)};
    for (const std::string& line : lines) {
      bool reject = false;
      request.records.push_back(ParseRecord(line, &reject));
      if (expect_reject != nullptr) expect_reject->push_back(reject);
    }
    return request;
  }

  void Write(const std::string& target, const std::vector<std::string>& lines, int line_no) {
    std::vector<bool> expect_reject;
    const WriteRequest request = Request(target, lines, &expect_reject);
    auto result = backend_.Write(request);
    ASSERT_TRUE(result.ok()) << name_ << ":" << line_no << ": " << result.status();
    std::vector<std::string> rejected(lines.size());
    for (const RejectedRecord& r : result->rejected) rejected[r.record_index] = r.reason;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(!rejected[i].empty(), expect_reject[i])
          << name_ << ":" << line_no + 1 + i << ": " << lines[i]
          << (rejected[i].empty() ? " was accepted" : " was rejected: " + rejected[i]);
    }
  }

  // A `query` or `error` block starting at line `i`; returns its last line.
  size_t Check(const std::string& directive, std::istringstream& words, size_t i,
               const std::string& at) {
    std::string mode;
    words >> mode;
    auto [sql_lines, separator] = Block(i + 1, true);
    std::string sql;
    for (const std::string& l : sql_lines) sql += (sql.empty() ? "" : "\n") + l;
    if (separator >= lines_.size() || lines_[separator] != "----") {
      ADD_FAILURE() << at << ": missing ----";
      return lines_.size();
    }
    auto [expected, end] = Block(separator + 1, false);
    auto rows = backend_.Query(sql);
    if (directive == "error") {
      if (rows.ok()) {
        ADD_FAILURE() << at << ": expected an error for\n" << sql;
      } else {
        const std::string message(rows.status().message());
        for (const std::string& part : expected) {
          EXPECT_NE(message.find(part), std::string::npos)
              << at << ": error\n" << message << "\ndoes not contain\n" << part;
        }
      }
    } else if (!rows.ok()) {
      ADD_FAILURE() << at << ": " << sql << "\n" << rows.status();
    } else {
      std::vector<std::string> got = *rows;
      if (mode == "rowsort") {
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
      }
      EXPECT_EQ(got, expected) << at << ": " << sql;
    }
    ++checked_;
    return end;
  }

  const std::string name_;
  const std::vector<std::string> lines_;
  SqlLogicBackend& backend_;
  int checked_ = 0;
};

}  // namespace

void RunSqlLogicFile(const std::string& path, const std::string& name, SqlLogicBackend& backend) {
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  FileRun(name, std::move(lines), backend).Run();
}

std::vector<std::string> SqlLogicFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string SqlLogicTestName(const std::string& file) {
  std::string name = file.substr(0, file.size() - 5);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace strata::testing
