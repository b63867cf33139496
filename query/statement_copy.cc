// COPY db.tbl [(columns)] FROM STDIN: the rows a front door's client sends (QueryOptions::
// copy_rows), each one MULTI record of the table, written as INSERT writes them (the caller's
// write grant, the write path's rules, a cluster's shard logs). A column the table has takes
// its type; a new one takes the type of its first value in the first rows (a number: a DOUBLE
// measure; true or false, t or f: a BOOLEAN one; other text: a dimension). docs/protocols.md,
// "COPY".
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "query/base/error.h"
#include "query/copy_rows.h"
#include "query/insert_writer.h"
#include "query/statements.h"

namespace strata::query {
namespace {

// The rows a new column's type is read from, before the first is written.
constexpr size_t kRowsTypesAreReadFrom = 1000;

// The type a new column's text says: a number is a DOUBLE measure (a later 2.5 must fit where
// a first 2 came), true or false (t, f) a BOOLEAN one, other text a dimension. A number a double
// would not give back as written is text: a leading zero (a zip code, 02134), hexadecimal.
DataType TypeOfText(std::string_view text) {
  size_t digits_from = text.starts_with('-') || text.starts_with('+') ? 1 : 0;
  const bool numeric =
      digits_from < text.size() &&
      (std::isdigit(static_cast<unsigned char>(text[digits_from])) || text[digits_from] == '.');
  const bool leading_zero = digits_from + 1 < text.size() && text[digits_from] == '0' &&
                            (std::isdigit(static_cast<unsigned char>(text[digits_from + 1])) ||
                             text[digits_from + 1] == 'x' || text[digits_from + 1] == 'X');
  double number;
  if (numeric && !leading_zero &&
      absl::SimpleAtod(absl::string_view(text.data(), text.size()), &number)) {
    return DataType::kDouble;
  }
  // PostgreSQL's words for a boolean it writes (COPY TO writes t and f).
  if (EqualsIgnoreCase(text, "true") || EqualsIgnoreCase(text, "false") ||
      EqualsIgnoreCase(text, "t") || EqualsIgnoreCase(text, "f")) {
    return DataType::kBoolean;
  }
  return DataType::kVarchar;
}

// `text` as a value of `type`; nullopt when it is not one.
std::optional<Datum> ValueOfText(const std::string& text, DataType type) {
  switch (type) {
    case DataType::kVarchar:
      return Datum::Varchar(text);
    case DataType::kBigint: {
      int64_t v;
      if (!absl::SimpleAtoi(text, &v)) return std::nullopt;
      return Datum::Bigint(v);
    }
    case DataType::kDouble: {
      double v;
      if (!absl::SimpleAtod(text, &v)) return std::nullopt;
      return Datum::Double(v);
    }
    case DataType::kBoolean: {
      const std::optional<bool> v = ParseBooleanText(text);
      if (!v) return std::nullopt;
      return Datum::Bool(*v);
    }
    case DataType::kTimestamp: {
      const std::optional<int64_t> v = ParseTimestamp(text);
      if (!v) return std::nullopt;
      return Datum::Timestamp(*v);
    }
    default:
      return std::nullopt;
  }
}

// Each column's type: the table's for a column it has (the time as text, which the writer
// reads and names the line of when it is not a time), else read from `first` rows' values.
Schema CopyColumns(const std::vector<std::string>& names, const TableLayout& layout,
                   const std::vector<CopyRow>& first) {
  Schema columns;
  for (size_t c = 0; c < names.size(); ++c) {
    ColumnInfo column{.name = names[c], .type = DataType::kUnknown};
    if (names[c] == kTimeColumn || names[c] == kMeasureNameColumn) {
      column.type = DataType::kVarchar;
    } else if (names[c] == "version") {
      column.type = DataType::kBigint;
    } else if (auto known = std::find_if(layout.schema.begin(), layout.schema.end(),
                                         [&](const ColumnInfo& k) { return k.name == names[c]; });
               known != layout.schema.end()) {
      column.type = known->type;
    } else {
      // The type every value agrees on; numbers beside words (12 and n/a) are text.
      for (const CopyRow& row : first) {
        if (c >= row.fields.size() || !row.fields[c]) continue;
        const DataType type = TypeOfText(*row.fields[c]);
        if (column.type == DataType::kUnknown) column.type = type;
        if (column.type != type) {
          column.type = DataType::kVarchar;
          break;
        }
      }
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

}  // namespace

absl::Status CopyFrom(Statement stmt, const StatementRun& run) {
  CopyRows* source = run.options.copy_rows;
  if (source == nullptr) {
    return SqlError(absl::StatusCode::kUnimplemented, run.sql, stmt.table_pos,
                    "COPY ... FROM STDIN reads the rows a PostgreSQL client sends with it (psql's "
                    "\\copy, psycopg's cursor.copy()); here write rows with INSERT, WriteRecords "
                    "or `strata import`");
  }
  ASSIGN_OR_RETURN(const InsertTarget target, OpenInsertTarget(stmt, run));
  const TableLayout& layout = *target.layout;
  std::vector<std::string> names;
  for (const auto& [name, pos] : stmt.columns) names.push_back(name);
  if (names.empty()) {
    for (const ColumnInfo& column : layout.schema) names.push_back(column.name);
    if (std::all_of(names.begin(), names.end(), [](const std::string& name) {
          return name == kTimeColumn || name == kMeasureNameColumn;
        })) {
      return SqlError(run.sql, stmt.table_pos,
                      StrCat("table ", stmt.table,
                             " has no dimensions or measures yet, whose order "
                             "COPY would take its columns in; name them: COPY ",
                             stmt.table, " (time, host, usage) FROM STDIN"));
    }
  }
  const std::vector<ResultColumn> answer = {{"rows_copied", DataType::kBigint}};
  if (run.options.describe_only) return run.sink.Columns(answer);

  std::vector<CopyRow> first;
  bool more = true;
  while (more && first.size() < kRowsTypesAreReadFrom) {
    RETURN_IF_ERROR(run.context.CheckAlive());
    CopyRow row;
    ASSIGN_OR_RETURN(more, source->Next(&row));
    if (more) first.push_back(std::move(row));
  }
  const Schema columns = CopyColumns(names, layout, first);
  if (stmt.columns.empty()) {
    for (const std::string& name : names) stmt.columns.emplace_back(name, stmt.table_pos);
  }
  ASSIGN_OR_RETURN(std::vector<ColumnRole> roles, ColumnRoles("COPY", stmt, run, columns, layout));
  InsertWriter writer(*target.table, std::move(roles), run, "COPY", "line");
  auto write = [&](CopyRow& line) -> absl::Status {
    if (line.fields.size() != columns.size()) {
      writer.Reject(line.line, StrCat("it has ", line.fields.size(), " fields for the ",
                                      columns.size(), " columns"));
      return absl::OkStatus();
    }
    Row row;
    row.reserve(columns.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      std::optional<std::string>& field = line.fields[c];
      if (!field) {
        row.push_back(Datum::Null(columns[c].type));
        continue;
      }
      if (columns[c].type == DataType::kUnknown) {
        writer.Reject(line.line, StrCat("column ", columns[c].name,
                                        " is new to the table and NULL in the "
                                        "first ",
                                        kRowsTypesAreReadFrom,
                                        " rows, which its type is read from; "
                                        "put a row with its value first"));
        return absl::OkStatus();
      }
      std::optional<Datum> value = ValueOfText(*field, columns[c].type);
      if (!value) {
        writer.Reject(line.line, StrCat("column ", columns[c].name, ": '", EchoInput(*field),
                                        "' is not a ", TypeName(columns[c].type)));
        return absl::OkStatus();
      }
      row.push_back(*std::move(value));
    }
    return writer.PushNumbered(std::move(row), line.line);
  };
  auto copy = [&]() -> absl::Status {
    for (CopyRow& line : first) RETURN_IF_ERROR(write(line));
    first.clear();
    CopyRow line;
    while (more) {
      RETURN_IF_ERROR(run.context.CheckAlive());
      ASSIGN_OR_RETURN(more, source->Next(&line));
      if (more) RETURN_IF_ERROR(write(line));
    }
    return writer.Finish();
  };
  if (absl::Status copied = copy(); !copied.ok()) return writer.Stopped(std::move(copied));
  RETURN_IF_ERROR(writer.Rejections());
  run.stats.rows_returned = 0;
  return run.Emit(answer, {{Datum::Bigint(writer.written())}});
}

}  // namespace strata::query
