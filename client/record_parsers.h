// Parsers that turn one line of an import file into a record: CSV (the header
// names the columns), JSON Lines (one flat object per line) and InfluxDB line
// protocol. Each row becomes one MULTI record: dimensions, a measure_name,
// the measures as attributes, and a time. Which field is which:
//
//   CSV header    "host:dimension", "cpu:double", "time:time",
//                 "measure_name:measure_name", "note:ignore"; or the flags in
//                 ImportColumns; or, for the rest, the first non-empty value:
//                 a number is a DOUBLE measure, true/false a BOOLEAN measure,
//                 anything else a dimension.
//   JSON Lines    the flags; else strings are dimensions, numbers DOUBLE
//                 measures, booleans BOOLEAN measures, null is skipped.
//   line protocol measurement -> measure_name, tags -> dimensions, fields ->
//                 measures (1.5 double, 1i / 1u bigint, "s" varchar, t/f
//                 boolean), the trailing integer -> time.
//
// A field keeps the role it got first; a row that contradicts it is an error
// for that row only. Not thread-safe: one parser reads one file.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/request_encoder.h"
#include "strata/v1/records.pb.h"
#include "strata/v1/write.pb.h"

namespace strata::cli {

struct ImportColumns {
  std::string time_field = "time";
  std::string measure_name_field = "measure_name";
  // Used when a row has no measure_name field.
  std::string measure_name;
  // Integer times count this unit (ISO 8601 text is always understood).
  v1::TimeUnit time_unit = v1::TIME_UNIT_MILLISECONDS;
  std::set<std::string> dimensions;
  // Measures named by flag; UNSPECIFIED means "infer from the value".
  std::map<std::string, v1::MeasureValueType> measures;
  std::set<std::string> ignored;
};

class RecordParser {
 public:
  virtual ~RecordParser() = default;
  // One logical line (see NeedsMoreLines) into `*out`, which it clears
  // first: true for a record, false for a line that holds none (header,
  // blank, comment), an error for a malformed line. Filling a reused record
  // (an importer's request) keeps its allocations.
  virtual absl::StatusOr<bool> ParseInto(std::string_view line, v1::Record* out) = 0;
  // ParseInto a new record; nullopt for a line without one.
  absl::StatusOr<std::optional<v1::Record>> Parse(std::string_view line) {
    v1::Record record;
    absl::StatusOr<bool> got = ParseInto(line, &record);
    if (!got.ok()) return got.status();
    if (!*got) return std::nullopt;
    return std::optional<v1::Record>(std::move(record));
  }
  // True when `partial` ends inside a quoted field that continues on the
  // next physical line (CSV only).
  virtual bool NeedsMoreLines(std::string_view /*partial*/) const { return false; }

  // Whether EncodeInto works: the record straight to wire bytes, no v1::Record
  // built (line protocol; building the message tree and walking it again to
  // encode it was a third of the import's CPU per row).
  virtual bool EncodesRecords() const { return false; }
  // ParseInto's record appended to `out` as a WriteRecordsRequest `records`
  // field (request_encoder.h), the bytes encoding ParseInto's record gives. On
  // false (no record) or an error `out` is as it was.
  virtual absl::StatusOr<bool> EncodeInto(std::string_view /*line*/, EncodedRecords* /*out*/) {
    return absl::UnimplementedError("this format has no direct encoding");
  }
};

// Records kept from sent requests, their messages still allocated: a
// request's Clear() would free every attribute's value message, which
// ParseInto sets again in place. One per reading thread.
class RecordPool {
 public:
  // Appends a record to `request` (a kept one if any) for ParseInto.
  v1::Record* Add(v1::WriteRecordsRequest* request);
  // Takes `request`'s records and clears the rest of it.
  void Recycle(v1::WriteRecordsRequest* request);

 private:
  std::vector<std::unique_ptr<v1::Record>> kept_;
};

// Each parser keeps its own copy of `columns`.
std::unique_ptr<RecordParser> MakeCsvParser(const ImportColumns& columns);
std::unique_ptr<RecordParser> MakeJsonLinesParser(const ImportColumns& columns);
std::unique_ptr<RecordParser> MakeLineProtocolParser(const ImportColumns& columns);

// RFC 4180 fields of one CSV record ("" inside quotes is a quote).
absl::StatusOr<std::vector<std::string>> SplitCsv(std::string_view line);

}  // namespace strata::cli
