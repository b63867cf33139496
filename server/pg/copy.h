// COPY ... TO STDOUT on the PostgreSQL wire, as psql's \copy, psycopg's cursor.copy() and
// pg-copy-streams send it to export a query's rows: `COPY (query) TO STDOUT` or
// `COPY table [(column, ...)] TO STDOUT`, with PostgreSQL's options in either spelling
// (`WITH (FORMAT csv, HEADER, DELIMITER ';')`, `CSV HEADER`, `DELIMITER AS '|'`, `NULL 'x'`,
// `QUOTE`, `ESCAPE`, `ENCODING 'UTF8'`). Rows go out in the text format (tab-separated, \N
// for NULL, backslash escapes) or as CSV, each value as its PostgreSQL text (types.h).
// COPY FROM, COPY to a server file and the binary format are refused, saying what to use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/datum.h"

namespace strata::pg {

struct CopyStatement {
  std::string query;        // the statement the rows come from
  // Where COPY (query)'s query starts in the COPY, for its errors' position; nullopt for
  // COPY table, whose query Strata writes (its errors then point nowhere in the COPY).
  std::optional<size_t> query_offset;
  bool csv = false;
  bool header = false;
  char delimiter = '\t';
  std::string null_text = "\\N";
  char quote = '"';   // CSV
  char escape = '"';  // CSV: what doubles a quote inside a quoted value
};

// nullopt: `sql` is not a COPY. An error names what is malformed or not supported.
std::optional<absl::StatusOr<CopyStatement>> ParseCopyStatement(std::string_view sql);

// The header line (the columns' names) or one row's line, with its newline, appended.
void AppendCopyHeader(const CopyStatement& copy, const std::vector<std::string>& names,
                      std::string* out);
void AppendCopyRow(const CopyStatement& copy, const std::vector<query::Datum>& row,
                   std::string* out);

}  // namespace strata::pg
