// The HTTP SQL API's answer formats (docs/api.md, "HTTP SQL API"), written a
// page at a time so a result of any size streams:
//   json    {"columns":[{"name":..,"type":..}],"rows":[[..],..],"statistics":{..}}
//           (a failure after the columns adds "error" instead of "statistics")
//   ndjson  a {"columns":[..]} line, then one object per row keyed by column
//           name, then a {"statistics":{..}} or {"error":{..}} line
//   csv     a header line of the column names, then one line per row (RFC 4180)
// Values: numbers and booleans as JSON's; NaN and infinities, times, dates,
// intervals, maps, rows and time series as their SQL text; arrays as JSON
// arrays. In CSV every value is its SQL text, NULL an empty field.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/datum.h"
#include "query/base/result.h"

namespace strata {

enum class SqlResultFormat { kJson, kNdjson, kCsv };

// The format named by `name` (json, ndjson, csv), else by the Accept header
// (application/json, application/x-ndjson or application/jsonl, text/csv);
// JSON when neither names one. INVALID_ARGUMENT for an unknown name.
absl::StatusOr<SqlResultFormat> ChooseSqlResultFormat(std::string_view name,
                                                      std::string_view accept);
std::string_view ContentTypeOf(SqlResultFormat format);

// One result's text, in pieces: Begin, Row for each row, then End.
class SqlResultWriter {
 public:
  static std::unique_ptr<SqlResultWriter> For(SqlResultFormat format);
  virtual ~SqlResultWriter() = default;
  virtual void Begin(const std::vector<query::ResultColumn>& columns, std::string* out) = 0;
  virtual void Row(const query::Row& row, std::string* out) = 0;
  // `failure`: the error that ended the result after its columns. False when
  // the format has no way to say so (CSV): the stream must then be cut.
  virtual bool End(const query::QueryStats& stats, const absl::Status& failure,
                   std::string_view sql, std::string* out) = 0;
};

// {"code":"INVALID_ARGUMENT","message":..,"position":{"line":1,"column":8}}
// (position only for an error that points into `sql`; line and column
// count from 1, the column in characters).
void AppendSqlErrorObject(const absl::Status& status, std::string_view sql, std::string* out);

}  // namespace strata
