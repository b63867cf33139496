#include "server/http/sql_result_format.h"

#include <cmath>

#include "common/json_text.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "fmt/format.h"
#include "query/base/error.h"

namespace strata {
namespace {

using query::DataType;
using query::Datum;

void AppendJsonValue(const Datum& value, std::string* out) {
  if (value.null) {
    *out += "null";
    return;
  }
  switch (value.type) {
    case DataType::kBoolean:
      *out += value.i != 0 ? "true" : "false";
      return;
    case DataType::kBigint:
      fmt::format_to(std::back_inserter(*out), "{}", value.i);
      return;
    case DataType::kDouble:
      if (std::isfinite(value.d)) {
        fmt::format_to(std::back_inserter(*out), "{}", value.d);
      } else {
        AppendJsonString(value.ToString(), out);  // JSON has no NaN or infinity
      }
      return;
    case DataType::kVarchar:
      AppendJsonString(value.s, out);
      return;
    default:
      break;
  }
  if (query::KindOf(value.type) == query::TypeKind::kArray) {
    out->push_back('[');
    bool first = true;
    for (const Datum& item : value.items()) {
      if (!first) out->push_back(',');
      first = false;
      AppendJsonValue(item, out);
    }
    out->push_back(']');
    return;
  }
  AppendJsonString(value.ToString(), out);
}

void AppendColumns(const std::vector<query::ResultColumn>& columns, std::string* out) {
  *out += "\"columns\":[";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out->push_back(',');
    *out += "{\"name\":";
    AppendJsonString(columns[c].name, out);
    *out += ",\"type\":";
    AppendJsonString(query::TypeName(columns[c].type), out);
    out->push_back('}');
  }
  out->push_back(']');
}

void AppendStatistics(const query::QueryStats& stats, std::string* out) {
  fmt::format_to(std::back_inserter(*out),
                 "\"statistics\":{{\"rows_returned\":{},\"rows_scanned\":{},\"bytes_scanned\":{},"
                 "\"buckets_scanned\":{},\"buckets_pruned\":{},\"series_scanned\":{},"
                 "\"series_pruned\":{},\"blocks_scanned\":{},\"blocks_pruned\":{},"
                 "\"elapsed_ms\":{:.3f}}}",
                 stats.rows_returned, stats.rows_scanned, stats.bytes_scanned,
                 stats.buckets_scanned, stats.buckets_pruned, stats.series_scanned,
                 stats.series_pruned, stats.blocks_scanned, stats.blocks_pruned,
                 static_cast<double>(stats.elapsed_nanos) / 1e6);
}

// "statistics":{...} when the query succeeded, else "error":{...}.
void AppendOutcome(const query::QueryStats& stats, const absl::Status& failure,
                   std::string_view sql, std::string* out) {
  if (failure.ok()) {
    AppendStatistics(stats, out);
  } else {
    *out += "\"error\":";
    AppendSqlErrorObject(failure, sql, out);
  }
}

class JsonWriter final : public SqlResultWriter {
 public:
  void Begin(const std::vector<query::ResultColumn>& columns, std::string* out) override {
    out->push_back('{');
    AppendColumns(columns, out);
    *out += ",\"rows\":[";
  }
  void Row(const query::Row& row, std::string* out) override {
    *out += first_row_ ? "\n[" : ",\n[";
    first_row_ = false;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out->push_back(',');
      AppendJsonValue(row[c], out);
    }
    out->push_back(']');
  }
  bool End(const query::QueryStats& stats, const absl::Status& failure, std::string_view sql,
           std::string* out) override {
    *out += "\n],";
    AppendOutcome(stats, failure, sql, out);
    *out += "}\n";
    return true;
  }

 private:
  bool first_row_ = true;
};

class NdjsonWriter final : public SqlResultWriter {
 public:
  void Begin(const std::vector<query::ResultColumn>& columns, std::string* out) override {
    out->push_back('{');
    AppendColumns(columns, out);
    *out += "}\n";
    for (const query::ResultColumn& c : columns) {
      std::string key;
      AppendJsonString(c.name, &key);
      keys_.push_back(std::move(key));
    }
  }
  void Row(const query::Row& row, std::string* out) override {
    out->push_back('{');
    for (size_t c = 0; c < row.size() && c < keys_.size(); ++c) {
      if (c > 0) out->push_back(',');
      *out += keys_[c];
      out->push_back(':');
      AppendJsonValue(row[c], out);
    }
    *out += "}\n";
  }
  bool End(const query::QueryStats& stats, const absl::Status& failure, std::string_view sql,
           std::string* out) override {
    out->push_back('{');
    AppendOutcome(stats, failure, sql, out);
    *out += "}\n";
    return true;
  }

 private:
  std::vector<std::string> keys_;
};

void AppendCsvField(std::string_view text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    *out += text;
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

class CsvWriter final : public SqlResultWriter {
 public:
  void Begin(const std::vector<query::ResultColumn>& columns, std::string* out) override {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) out->push_back(',');
      AppendCsvField(ToValidUtf8(columns[c].name), out);
    }
    *out += "\r\n";
  }
  void Row(const query::Row& row, std::string* out) override {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out->push_back(',');
      if (row[c].null) continue;
      AppendCsvField(row[c].type == DataType::kVarchar ? ToValidUtf8(row[c].s) : row[c].ToString(),
                     out);
    }
    *out += "\r\n";
  }
  bool End(const query::QueryStats&, const absl::Status& failure, std::string_view,
           std::string*) override {
    return failure.ok();
  }
};

}  // namespace

absl::StatusOr<SqlResultFormat> ChooseSqlResultFormat(std::string_view name,
                                                      std::string_view accept) {
  if (!name.empty()) {
    if (EqualsIgnoreCase(name, "json")) return SqlResultFormat::kJson;
    if (EqualsIgnoreCase(name, "ndjson") || EqualsIgnoreCase(name, "jsonl"))
      return SqlResultFormat::kNdjson;
    if (EqualsIgnoreCase(name, "csv")) return SqlResultFormat::kCsv;
    return absl::InvalidArgumentError(StrCat(
        "format=", EchoInput(name, 40), " is not one this API writes; use json, ndjson or csv"));
  }
  // The first type of the Accept header this API writes (clients list what
  // they prefer first; q-values are not weighed).
  for (std::string_view rest = accept; !rest.empty();) {
    const size_t comma = rest.find(',');
    std::string_view type = StripWhitespace(rest.substr(0, comma));
    type = StripWhitespace(type.substr(0, type.find(';')));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (EqualsIgnoreCase(type, "application/json")) return SqlResultFormat::kJson;
    if (EqualsIgnoreCase(type, "application/x-ndjson") ||
        EqualsIgnoreCase(type, "application/jsonl")) {
      return SqlResultFormat::kNdjson;
    }
    if (EqualsIgnoreCase(type, "text/csv")) return SqlResultFormat::kCsv;
  }
  return SqlResultFormat::kJson;
}

std::string_view ContentTypeOf(SqlResultFormat format) {
  switch (format) {
    case SqlResultFormat::kNdjson:
      return "application/x-ndjson";
    case SqlResultFormat::kCsv:
      return "text/csv; charset=utf-8; header=present";
    case SqlResultFormat::kJson:
      break;
  }
  return "application/json";
}

std::unique_ptr<SqlResultWriter> SqlResultWriter::For(SqlResultFormat format) {
  switch (format) {
    case SqlResultFormat::kNdjson:
      return std::make_unique<NdjsonWriter>();
    case SqlResultFormat::kCsv:
      return std::make_unique<CsvWriter>();
    case SqlResultFormat::kJson:
      break;
  }
  return std::make_unique<JsonWriter>();
}

void AppendSqlErrorObject(const absl::Status& status, std::string_view sql, std::string* out) {
  *out += "{\"code\":";
  AppendJsonString(StatusCodeName(status.code()), out);
  *out += ",\"message\":";
  const std::optional<int> offset = query::SqlErrorOffset(status);
  AppendJsonString(offset ? query::SqlErrorMessage(status) : std::string(status.message()), out);
  if (offset && *offset >= 0 && static_cast<size_t>(*offset) <= sql.size()) {
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < static_cast<size_t>(*offset); ++i) {
      if (sql[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    const int64_t column = Utf8Length(sql.substr(line_start, *offset - line_start)) + 1;
    fmt::format_to(std::back_inserter(*out),
                   ",\"position\":{{\"line\":{},\"column\":{},\"offset\":{}}}", line, column,
                   *offset);
  }
  out->push_back('}');
}

}  // namespace strata
