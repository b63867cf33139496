// Writes query results as they stream in: an aligned table for people, CSV,
// a JSON array or JSON Lines for programs. Writers get the metadata first,
// then pages as they arrive, then Finish; none of them holds a whole result
// (the table writer holds its first rows only, to size the columns).
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "strata/v1/query.pb.h"

namespace strata::cli {

// kExpanded: one "column | value" line per cell, a header per row (psql's \x),
// for rows too wide for a table.
enum class OutputFormat { kTable, kCsv, kJson, kJsonl, kExpanded };

// "table" | "csv" | "json" | "jsonl" | "expanded".
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& name);

class ResultWriter {
 public:
  virtual ~ResultWriter() = default;
  virtual void Begin(const v1::QueryMetadata& metadata) = 0;
  virtual void Page(const v1::RowPage& page) = 0;
  // The stream ended (successfully or not); print what is held.
  virtual void Finish() = 0;
};

// `typed_header`: CSV's header names each column's kind as `strata import`
// reads it ("time:time", "host:dimension", "usage:double"), so an export
// imports back as it was.
std::unique_ptr<ResultWriter> MakeResultWriter(OutputFormat format, std::ostream& out,
                                               bool typed_header = false);

// A value as SQL text: timestamps "2024-05-01 12:00:00.000000000", intervals
// "1 02:00:00.000000000", NULL as "NULL". Used by the table and CSV writers.
std::string DatumText(const v1::Datum& datum, const v1::ColumnType& type);

}  // namespace strata::cli
