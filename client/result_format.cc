#include "client/result_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace strata::cli {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kNanosPerDay = 86'400 * kNanosPerSecond;

// As the server prints them (Presto's and PostgreSQL's spellings of NaN and infinity).
std::string DoubleText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, end);
}

std::string TimestampText(int64_t nanos) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E9S", absl::FromUnixNanos(nanos), absl::UTCTimeZone());
}

// ISO 8601 in UTC with nanoseconds, as JSON consumers parse timestamps
// (JavaScript's Date, pandas, jq's fromdate after trimming) and strata import
// reads back: "2024-05-01T12:00:00.000000000Z".
std::string IsoTimestampText(int64_t nanos) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E9SZ", absl::FromUnixNanos(nanos), absl::UTCTimeZone());
}

std::string ClockText(int64_t nanos_of_day) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld.%09lld",
                static_cast<long long>(nanos_of_day / 3'600'000'000'000),
                static_cast<long long>(nanos_of_day / 60'000'000'000 % 60),
                static_cast<long long>(nanos_of_day / kNanosPerSecond % 60),
                static_cast<long long>(nanos_of_day % kNanosPerSecond));
  return buffer;
}

std::string IntervalText(int64_t nanos) {
  std::string sign = nanos < 0 ? "-" : "";
  uint64_t magnitude = nanos < 0 ? -static_cast<uint64_t>(nanos) : nanos;
  return absl::StrCat(sign, magnitude / kNanosPerDay, " ", ClockText(magnitude % kNanosPerDay));
}

std::string MonthsText(int64_t months) {
  std::string sign = months < 0 ? "-" : "";
  int64_t magnitude = months < 0 ? -months : months;
  return absl::StrCat(sign, magnitude / 12, "-", magnitude % 12);
}

std::string DateText(int32_t days) {
  return absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(int64_t{days} * 86'400),
                          absl::UTCTimeZone());
}

const v1::ColumnType& ElementType(const v1::ColumnType& type) {
  if (type.has_array_column_info()) return type.array_column_info().type();
  if (type.has_time_series_measure_value_column_info()) {
    return type.time_series_measure_value_column_info().type();
  }
  return v1::ColumnType::default_instance();
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string DatumJson(const v1::Datum& datum, const v1::ColumnType& type) {
  switch (datum.value_case()) {
    case v1::Datum::kNullValue:
    case v1::Datum::VALUE_NOT_SET:
      return "null";
    case v1::Datum::kDoubleValue:  // JSON has no NaN or infinity: those as strings
      return std::isfinite(datum.double_value()) ? DoubleText(datum.double_value())
                                                 : JsonString(DoubleText(datum.double_value()));
    case v1::Datum::kBigintValue:
      return std::to_string(datum.bigint_value());
    case v1::Datum::kBooleanValue:
      return datum.boolean_value() ? "true" : "false";
    case v1::Datum::kTimestampValue:
      return JsonString(IsoTimestampText(datum.timestamp_value()));
    case v1::Datum::kArrayValue: {
      std::string out = "[";
      for (int i = 0; i < datum.array_value().values_size(); ++i) {
        if (i > 0) out += ",";
        out += DatumJson(datum.array_value().values(i), ElementType(type));
      }
      return out + "]";
    }
    case v1::Datum::kTimeSeriesValue: {
      std::string out = "[";
      const auto& points = datum.time_series_value().points();
      for (int i = 0; i < points.size(); ++i) {
        if (i > 0) out += ",";
        absl::StrAppend(&out, "{\"time\":", JsonString(IsoTimestampText(points[i].time())),
                        ",\"value\":", DatumJson(points[i].value(), ElementType(type)), "}");
      }
      return out + "]";
    }
    case v1::Datum::kRowValue: {
      std::string out = "{";
      const auto& fields = type.row_column_info().fields();
      const auto& data = datum.row_value().data();
      for (int i = 0; i < data.size(); ++i) {
        if (i > 0) out += ",";
        std::string name = i < fields.size() ? fields[i].name() : absl::StrCat("field", i);
        const v1::ColumnType& field_type =
            i < fields.size() ? fields[i].type() : v1::ColumnType::default_instance();
        absl::StrAppend(&out, JsonString(name), ":", DatumJson(data[i], field_type));
      }
      return out + "}";
    }
    default:
      return JsonString(DatumText(datum, type));
  }
}

bool RightAligned(const v1::ColumnType& type) {
  switch (type.scalar_type()) {
    case v1::SCALAR_TYPE_BIGINT:
    case v1::SCALAR_TYPE_INTEGER:
    case v1::SCALAR_TYPE_DOUBLE:
      return true;
    default:
      return false;
  }
}

// psql-style aligned table. The first kSizingRows rows size the columns;
// later rows keep those widths (a longer value only widens its own line), so
// memory stays bounded however long the result.
class TableWriter : public ResultWriter {
 public:
  explicit TableWriter(std::ostream& out) : out_(out) {}

  void Begin(const v1::QueryMetadata& metadata) override {
    for (const auto& column : metadata.columns()) {
      columns_.push_back(column);
      widths_.push_back(column.name().size());
    }
  }

  void Page(const v1::RowPage& page) override {
    for (const auto& row : page.rows()) {
      std::vector<std::string> cells;
      for (int i = 0; i < row.data_size() && i < static_cast<int>(columns_.size()); ++i) {
        cells.push_back(DatumText(row.data(i), columns_[i].type()));
      }
      ++row_count_;
      if (header_printed_) {
        PrintRow(cells);
        continue;
      }
      for (size_t i = 0; i < cells.size(); ++i) widths_[i] = std::max(widths_[i], cells[i].size());
      held_.push_back(std::move(cells));
      if (held_.size() >= kSizingRows) Flush();
    }
  }

  void Finish() override {
    if (columns_.empty()) return;
    Flush();
    out_ << "(" << row_count_ << (row_count_ == 1 ? " row)" : " rows)") << "\n";
    out_.flush();
  }

 private:
  static constexpr size_t kSizingRows = 1000;

  void Flush() {
    if (!header_printed_) {
      header_printed_ = true;
      std::string header, rule;
      for (size_t i = 0; i < columns_.size(); ++i) {
        if (i > 0) {
          header += " | ";
          rule += "-+-";
        }
        header += Pad(columns_[i].name(), widths_[i], false);
        rule += std::string(widths_[i], '-');
      }
      header.erase(header.find_last_not_of(' ') + 1);
      out_ << header << "\n" << rule << "\n";
    }
    for (const auto& cells : held_) PrintRow(cells);
    held_.clear();
  }

  void PrintRow(const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += " | ";
      line += Pad(cells[i], widths_[i], RightAligned(columns_[i].type()));
    }
    // Trailing spaces help nobody.
    line.erase(line.find_last_not_of(' ') + 1);
    out_ << line << "\n";
  }

  static std::string Pad(const std::string& text, size_t width, bool right) {
    if (text.size() >= width) return text;
    std::string padding(width - text.size(), ' ');
    return right ? padding + text : text + padding;
  }

  std::ostream& out_;
  std::vector<v1::ColumnInfo> columns_;
  std::vector<size_t> widths_;
  std::vector<std::vector<std::string>> held_;
  bool header_printed_ = false;
  int64_t row_count_ = 0;
};

// RFC 4180 with Unix line ends: a header line, fields quoted when they hold a comma, quote or
// line break; NULL is an empty field.
class CsvWriter : public ResultWriter {
 public:
  CsvWriter(std::ostream& out, bool typed_header) : out_(out), typed_header_(typed_header) {}

  void Begin(const v1::QueryMetadata& metadata) override {
    // A statement that answers nothing (DROP TABLE) has no header either.
    if (metadata.columns().empty()) return;
    std::vector<std::string> names;
    for (const auto& column : metadata.columns()) {
      columns_.push_back(column);
      names.push_back(typed_header_ ? TypedHeaderCell(column) : column.name());
    }
    WriteLine(names);
  }

  void Page(const v1::RowPage& page) override {
    for (const auto& row : page.rows()) {
      std::vector<std::string> cells;
      for (int i = 0; i < row.data_size() && i < static_cast<int>(columns_.size()); ++i) {
        cells.push_back(row.data(i).has_null_value() ? "" : DatumText(row.data(i), columns_[i].type()));
      }
      WriteLine(cells);
    }
    out_.flush();
  }

  void Finish() override { out_.flush(); }

 private:
  void WriteLine(const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out_ << ',';
      const std::string& cell = cells[i];
      if (cell.find_first_of(",\"\r\n") == std::string::npos) {
        out_ << cell;
        continue;
      }
      out_ << '"';
      for (char c : cell) {
        if (c == '"') out_ << '"';
        out_ << c;
      }
      out_ << '"';
    }
    out_ << "\n";
  }

  // "name:kind" as strata import reads a header (record_parsers.cc): the
  // time column, the measure name, text as dimensions, values by their type.
  static std::string TypedHeaderCell(const v1::ColumnInfo& column) {
    const std::string& name = column.name();
    switch (column.type().scalar_type()) {
      case v1::SCALAR_TYPE_TIMESTAMP: return name + (name == "time" ? ":time" : ":timestamp");
      case v1::SCALAR_TYPE_VARCHAR:
        return name + (name == "measure_name" ? ":measure_name" : ":dimension");
      case v1::SCALAR_TYPE_DOUBLE: return name + ":double";
      case v1::SCALAR_TYPE_BIGINT:
      case v1::SCALAR_TYPE_INTEGER: return name + ":bigint";
      case v1::SCALAR_TYPE_BOOLEAN: return name + ":boolean";
      default: return name + ":varchar";  // dates, intervals, arrays: as their text
    }
  }

  std::ostream& out_;
  const bool typed_header_;
  std::vector<v1::ColumnInfo> columns_;
};

// One JSON object per row, keyed by column name; as a JSON array (`json`)
// or one object per line (`jsonl`).
class JsonWriter : public ResultWriter {
 public:
  JsonWriter(std::ostream& out, bool lines) : out_(out), lines_(lines) {}

  void Begin(const v1::QueryMetadata& metadata) override {
    columns_.assign(metadata.columns().begin(), metadata.columns().end());
    if (!lines_) out_ << "[";
    begun_ = true;
  }

  void Page(const v1::RowPage& page) override {
    for (const auto& row : page.rows()) {
      std::string object = "{";
      for (int i = 0; i < row.data_size() && i < static_cast<int>(columns_.size()); ++i) {
        if (i > 0) object += ",";
        absl::StrAppend(&object, JsonString(columns_[i].name()), ":",
                        DatumJson(row.data(i), columns_[i].type()));
      }
      object += "}";
      if (lines_) {
        out_ << object << "\n";
      } else {
        out_ << (first_ ? "\n" : ",\n") << object;
      }
      first_ = false;
    }
    out_.flush();
  }

  void Finish() override {
    // Closed whenever it was opened: a statement that answers no columns (DROP TABLE) is `[]`.
    if (!lines_ && begun_) out_ << (first_ ? "]\n" : "\n]\n");
    out_.flush();
  }

 private:
  std::ostream& out_;
  bool lines_;
  bool begun_ = false;
  bool first_ = true;
  std::vector<v1::ColumnInfo> columns_;
};

}  // namespace

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  if (name == "jsonl") return OutputFormat::kJsonl;
  if (name == "expanded") return OutputFormat::kExpanded;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown format \"", name, "\": use table, csv, json, jsonl or expanded"));
}

// psql's expanded display:
//   -[ RECORD 1 ]----
//   host  | a
//   usage | 0.5
class ExpandedWriter : public ResultWriter {
 public:
  explicit ExpandedWriter(std::ostream& out) : out_(out) {}
  void Begin(const v1::QueryMetadata& metadata) override {
    for (const auto& column : metadata.columns()) {
      columns_.push_back(column);
      width_ = std::max(width_, column.name().size());
    }
  }
  void Page(const v1::RowPage& page) override {
    for (const auto& row : page.rows()) {
      const std::string header = absl::StrCat("-[ RECORD ", ++row_count_, " ]");
      out_ << header << std::string(header.size() < width_ + 2 ? width_ + 2 - header.size() : 1, '-')
           << "+" << std::string(8, '-') << "\n";
      for (int i = 0; i < row.data_size() && i < static_cast<int>(columns_.size()); ++i) {
        const std::string& name = columns_[i].name();
        out_ << name << std::string(width_ - name.size(), ' ') << " | "
             << DatumText(row.data(i), columns_[i].type()) << "\n";
      }
    }
  }
  void Finish() override {
    if (columns_.empty()) return;
    if (row_count_ == 0) out_ << "(0 rows)\n";
    out_.flush();
  }

 private:
  std::ostream& out_;
  std::vector<v1::ColumnInfo> columns_;
  size_t width_ = 0;
  int64_t row_count_ = 0;
};

std::unique_ptr<ResultWriter> MakeResultWriter(OutputFormat format, std::ostream& out,
                                               bool typed_header) {
  switch (format) {
    case OutputFormat::kTable:
      return std::make_unique<TableWriter>(out);
    case OutputFormat::kCsv:
      return std::make_unique<CsvWriter>(out, typed_header);
    case OutputFormat::kJson:
      return std::make_unique<JsonWriter>(out, false);
    case OutputFormat::kJsonl:
      return std::make_unique<JsonWriter>(out, true);
    case OutputFormat::kExpanded:
      return std::make_unique<ExpandedWriter>(out);
  }
  return nullptr;
}

std::string DatumText(const v1::Datum& datum, const v1::ColumnType& type) {
  switch (datum.value_case()) {
    case v1::Datum::kNullValue:
    case v1::Datum::VALUE_NOT_SET:
      return "NULL";
    case v1::Datum::kDoubleValue:
      return DoubleText(datum.double_value());
    case v1::Datum::kBigintValue:
      return std::to_string(datum.bigint_value());
    case v1::Datum::kVarcharValue:
      return datum.varchar_value();
    case v1::Datum::kBooleanValue:
      return datum.boolean_value() ? "true" : "false";
    case v1::Datum::kTimestampValue:
      return TimestampText(datum.timestamp_value());
    case v1::Datum::kIntervalNanosValue:
      return type.scalar_type() == v1::SCALAR_TYPE_TIME ? ClockText(datum.interval_nanos_value())
                                                         : IntervalText(datum.interval_nanos_value());
    case v1::Datum::kIntervalMonthsValue:
      return MonthsText(datum.interval_months_value());
    case v1::Datum::kDateValue:
      return DateText(datum.date_value());
    case v1::Datum::kArrayValue: {
      std::string out = "[";
      for (int i = 0; i < datum.array_value().values_size(); ++i) {
        if (i > 0) out += ", ";
        out += DatumText(datum.array_value().values(i), ElementType(type));
      }
      return out + "]";
    }
    case v1::Datum::kTimeSeriesValue: {
      std::string out = "[";
      const auto& points = datum.time_series_value().points();
      for (int i = 0; i < points.size(); ++i) {
        if (i > 0) out += ", ";
        absl::StrAppend(&out, "{time=", TimestampText(points[i].time()),
                        ", value=", DatumText(points[i].value(), ElementType(type)), "}");
      }
      return out + "]";
    }
    case v1::Datum::kRowValue: {
      std::string out = "(";
      const auto& data = datum.row_value().data();
      const auto& fields = type.row_column_info().fields();
      for (int i = 0; i < data.size(); ++i) {
        if (i > 0) out += ", ";
        out += DatumText(data[i], i < fields.size() ? fields[i].type()
                                                    : v1::ColumnType::default_instance());
      }
      return out + ")";
    }
  }
  return "";
}

}  // namespace strata::cli
