#include "server/http/influx_write.h"

#include <future>
#include <utility>

#include "common/clock.h"
#include "common/line_protocol.h"
#include "common/status.h"
#include "common/strings.h"
#include "server/http/line_write_source.h"

namespace strata {
namespace {

// A line longer than this is refused without being kept in memory.
constexpr size_t kMaxLineBytes = 1 << 20;
// How much of a rejected line the answer quotes.
constexpr size_t kQuotedLineBytes = 200;
// Measurements (tables) one request may write: each holds a batch in memory,
// and a body naming millions of them must not create millions of tables.
constexpr size_t kMaxTablesPerRequest = 1000;

std::string Quoted(std::string_view line) {
  if (line.size() <= kQuotedLineBytes) return std::string(line);
  return StrCat(line.substr(0, kQuotedLineBytes), "...");
}

}  // namespace

absl::StatusOr<int64_t> NanosPerUnit(std::string_view precision) {
  if (precision.empty() || precision == "ns" || precision == "n") return 1;
  if (precision == "us" || precision == "u" || precision == "\xC2\xB5") return 1'000;
  if (precision == "ms") return 1'000'000;
  if (precision == "s") return 1'000'000'000;
  if (precision == "m") return 60'000'000'000;
  if (precision == "h") return 3'600'000'000'000;
  return absl::InvalidArgumentError(
      StrCat("precision \"", precision, "\" is not one of ns, us, ms, s (v1 also n, u, m, h)"));
}

LineProtocolWriter::LineProtocolWriter(Ingest& ingest, const Principal& caller,
                                       LineWriteOptions options)
    : ingest_(ingest), caller_(caller), options_(std::move(options)), now_(ingest.NowNanos()) {}

bool LineProtocolWriter::Feed(std::string_view chunk) {
  while (!chunk.empty() && summary_.fatal.ok()) {
    const size_t newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (!partial_too_long_) {
      if (partial_.size() + piece.size() > kMaxLineBytes) {
        partial_too_long_ = true;
        partial_.clear();
      } else {
        partial_.append(piece);
      }
    }
    if (newline == std::string_view::npos) break;
    chunk.remove_prefix(newline + 1);
    if (partial_too_long_) {
      ++line_number_;
      Reject(line_number_, "", StrCat("the line is longer than ", kMaxLineBytes, " bytes"));
      partial_too_long_ = false;
    } else {
      Line(partial_);
    }
    partial_.clear();
  }
  return summary_.fatal.ok();
}

LineWriteSummary LineProtocolWriter::Finish() {
  if (summary_.fatal.ok()) {
    if (partial_too_long_) {
      Feed("\n");
    } else if (!partial_.empty()) {
      Line(partial_);
    }
  }
  for (auto& entry : batches_) {
    if (!summary_.fatal.ok()) break;
    Flush(entry.second);
  }
  while (!in_flight_.empty()) Collect();
  return std::move(summary_);
}

void LineProtocolWriter::Line(std::string_view line) {
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  absl::StatusOr<bool> parsed = ParseLinePointInto(line, &point_);
  if (!parsed.ok()) {
    Reject(line_number_, line, StrCat("unable to parse: ", parsed.status().message()));
    return;
  }
  if (!*parsed) return;
  ++summary_.lines;
  int64_t time = now_;
  if (point_.timestamp.has_value() &&
      __builtin_mul_overflow(*point_.timestamp, options_.nanos_per_unit, &time)) {
    Reject(line_number_, line, "the timestamp is out of range for its precision");
    return;
  }
  if (batches_.size() >= kMaxTablesPerRequest && !batches_.contains(point_.measurement)) {
    Reject(line_number_, line,
           StrCat("the request already wrote ", kMaxTablesPerRequest,
                  " measurements (tables); send the others in another request"));
    return;
  }
  TableBatch& batch = BatchFor(point_.measurement);
  if (!batch.ready.ok()) {
    Reject(line_number_, line, std::string(batch.ready.message()));
    return;
  }
  // The point joins the batch by a swap: point_ takes a spent point's
  // strings and vectors for the next line.
  const size_t at = batch.records.size();
  if (at == batch.points.size()) batch.points.emplace_back();
  std::swap(batch.points[at], point_);
  batch.records.push_back({.time_nanos = time, .version = NextArrivalVersion(now_)});
  batch.lines.Add(line_number_, line);
  if (batch.records.size() == kRecordsPerBodyWrite) Flush(batch);
}

LineProtocolWriter::TableBatch& LineProtocolWriter::BatchFor(const std::string& table) {
  auto [it, inserted] = batches_.try_emplace(table);
  TableBatch& batch = it->second;
  if (!inserted) return batch;
  batch.table = table;
  batch.ready = ingest_.PrepareTable(caller_, options_.database, table,
                                   options_.auto_create_tables);
  // A token that may not write the table fails the request (403, as
  // InfluxDB answers a token without write on the bucket), as do a full or
  // failing disk and an internal error; other refusals are the lines' own.
  const absl::StatusCode code = batch.ready.code();
  if (code == absl::StatusCode::kUnavailable || code == absl::StatusCode::kResourceExhausted ||
      code == absl::StatusCode::kInternal || code == absl::StatusCode::kPermissionDenied) {
    summary_.fatal = batch.ready;
  }
  return batch;
}

void LineProtocolWriter::Flush(TableBatch& batch) {
  if (batch.records.empty()) return;
  if (in_flight_.size() >= kWritesInFlight) Collect();
  // Pointed at now: `points` may have grown since a record joined.
  for (size_t i = 0; i < batch.records.size(); ++i) batch.records[i].point = &batch.points[i];
  InFlight& write = in_flight_.emplace_back();
  write.lines = std::exchange(batch.lines, {});
  // Read before WriteInBackground returns: the points are reused for the
  // next lines while this batch waits for its commit.
  LineWriteSource source(options_.database, batch.table, batch.records);
  write.result = ingest_.WriteInBackground(caller_, source);
  batch.records.clear();
}

void LineProtocolWriter::Collect() {
  InFlight write = std::move(in_flight_.front());
  in_flight_.pop_front();
  absl::StatusOr<WriteResult> result = write.result.get();
  if (!result.ok()) {
    if (summary_.fatal.ok()) summary_.fatal = result.status();
    return;
  }
  summary_.points_written += result->total();
  for (const RejectedRecord& rejected : result->rejected) {
    Reject(write.lines.number(rejected.record_index), write.lines.text(rejected.record_index),
           rejected.reason);
  }
}

void LineProtocolWriter::BatchLines::Add(int64_t line_number, std::string_view line) {
  numbers_.push_back(line_number);
  // One byte past what Quoted keeps, so it still marks a longer line "...".
  text_.append(line.substr(0, kQuotedLineBytes + 1));
  ends_.push_back(text_.size());
}

void LineProtocolWriter::Reject(int64_t line_number, std::string_view line, std::string_view why) {
  ++summary_.lines_rejected;
  if (summary_.errors.size() < kMaxReportedErrors) {
    summary_.errors.push_back(line.empty()
                                  ? StrCat("line ", line_number, ": ", why)
                                  : StrCat("line ", line_number, " '", Quoted(line), "': ", why));
  }
}

}  // namespace strata
