// COPY ... TO STDOUT on the PostgreSQL wire, as psql's \copy, psycopg's cursor.copy() and
// pg-copy-streams send it to export a query's rows: `COPY (query) TO STDOUT` or
// `COPY table [(column, ...)] TO STDOUT`, with PostgreSQL's options in either spelling
// (`WITH (FORMAT csv, HEADER, DELIMITER ';')`, `CSV HEADER`, `DELIMITER AS '|'`, `NULL 'x'`,
// `QUOTE`, `ESCAPE`, `ENCODING 'UTF8'`). Rows go out in the text format (tab-separated, \N
// for NULL, backslash escapes) or as CSV, each value as its PostgreSQL text (types.h).
// And `COPY table [(column, ...)] FROM STDIN` with the same options: the client's rows in
// CopyData messages (CopyInDecoder), written as INSERT writes rows (query/statement_copy.cc).
// COPY to or from a server file and the binary format are refused, saying what to use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "query/base/datum.h"
#include "query/copy_rows.h"

namespace strata::pg {

struct CopyStatement {
  // The statement the rows come from: a SELECT; or, for COPY FROM STDIN, Strata's
  // `COPY table [(columns)] FROM STDIN` that writes them.
  std::string query;
  bool from_stdin = false;
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

// The header line (the columns' names) or one row's line, with its newline, appended; a
// row's timestamps written in the session's `zone` (null: UTC).
void AppendCopyHeader(const CopyStatement& copy, const std::vector<std::string>& names,
                      std::string* out);
void AppendCopyRow(const CopyStatement& copy, const std::vector<query::Datum>& row,
                   std::string* out, const absl::TimeZone* zone = nullptr);

// COPY FROM STDIN's data as the client sends it, in CopyData messages cut anywhere, read into
// rows by the statement's format: the text format's lines (fields split at the delimiter,
// backslash escapes, the NULL text for NULL, a line `\.` ending the data) or CSV's (quoted
// values across line breaks, the escape before a quote inside, an unquoted NULL text NULL).
// HEADER's line is skipped. Lines are numbered from 1 as PostgreSQL numbers them. Holds at most
// the unread data; not thread-safe.
class CopyInDecoder {
 public:
  static constexpr size_t kMaxLineBytes = 16 << 20;

  explicit CopyInDecoder(CopyStatement copy);
  // The next piece of the data.
  void Feed(std::string_view data);
  // The data has ended (CopyDone): a last line without its line break is a row too.
  void Finish() { finished_ = true; }
  // The next whole row into *row; false when none is complete yet (Feed more) or, once the
  // data has ended, none is left. An error: a line longer than kMaxLineBytes, or a quoted CSV
  // value still open at the end of the data.
  absl::StatusOr<bool> Next(query::CopyRow* row);

 private:
  // Where the line from pos_ ends (its line break), scanning on from where the last call
  // stopped; nullopt when the data so far ends first.
  std::optional<size_t> LineEnd();
  std::vector<std::optional<std::string>> TextFields(std::string_view line) const;
  std::vector<std::optional<std::string>> CsvFields(std::string_view line) const;

  const CopyStatement copy_;
  std::string data_;
  size_t pos_ = 0;          // where the next line starts
  size_t scanned_ = 0;      // how far LineEnd has looked for the next line's end
  bool in_quotes_ = false;  // CSV: at `scanned_`, inside a quoted value
  bool header_ = false;     // the header line is still to be skipped
  bool finished_ = false;
  bool ended_ = false;  // the data's end (or `\.`) has been read
  int64_t line_ = 1;    // the number of the line at pos_
};

}  // namespace strata::pg
