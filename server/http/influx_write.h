// InfluxDB line protocol over HTTP (docs/protocols.md): the body of
// `POST /write` (v1) and `POST /api/v2/write` (v2), read as it streams in,
// into writes of at most 100 records through the one write path (the
// writer's version rules, the metrics), each line's point read in place
// (server/http/line_write_source.h).
//
// Mapping: measurement -> table of the request's database (created on first
// write when auto-creation is on), tags -> dimensions, fields -> the
// attributes of one MULTI record whose measure_name is the measurement,
// timestamp -> time in the request's precision (now when absent). Each line
// gets a version from a server-wide counter that starts at the arrival time
// in nanoseconds and only rises, so, as in InfluxDB, the last write of a
// point wins (a later line, a later request) and a re-sent point is a no-op.
// Up to four batches of a request are written at once (the write path's
// latency is the fsync).
#pragma once

#include <deque>
#include <future>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/line_protocol.h"
#include "server/auth/grants.h"
#include "server/http/line_write_source.h"
#include "server/runner/ingest.h"

namespace strata {

// How many nanoseconds one unit of `precision` is: "ns"/"n", "us"/"u"/"µ",
// "ms", "s", and v1's "m" and "h". Empty means nanoseconds.
absl::StatusOr<int64_t> NanosPerUnit(std::string_view precision);

struct LineWriteOptions {
  std::string database;
  int64_t nanos_per_unit = 1;
  bool auto_create_tables = true;
};

// What happened to one request's lines.
struct LineWriteSummary {
  int64_t lines = 0;          // lines that held a point
  int64_t points_written = 0;
  int64_t lines_rejected = 0;
  // The first rejections, each naming the line number, the line and why.
  std::vector<std::string> errors;
  // A failure of the request as a whole (no permission, the store is full):
  // lines after it were not read.
  absl::Status fatal;
};

// One request's writer. Feed it the body in chunks of any size, then Finish.
// Not thread-safe; one per request.
class LineProtocolWriter {
 public:
  LineProtocolWriter(Ingest& ingest, const Principal& caller, LineWriteOptions options);

  // False once a fatal error stopped the request (stop reading the body).
  bool Feed(std::string_view chunk);
  LineWriteSummary Finish();

 private:
  // A batch's lines, for the messages of its rejections: each line's number
  // and its first bytes (what a message quotes), in one buffer rather than
  // a string each.
  class BatchLines {
   public:
    void Add(int64_t line_number, std::string_view line);
    int64_t number(size_t i) const { return numbers_[i]; }
    std::string_view text(size_t i) const {
      const size_t begin = i == 0 ? 0 : ends_[i - 1];
      return std::string_view(text_).substr(begin, ends_[i] - begin);
    }

   private:
    std::vector<int64_t> numbers_;
    std::vector<size_t> ends_;  // of each line's bytes in text_
    std::string text_;
  };
  struct TableBatch {
    absl::Status ready;  // the table exists and the caller may write it
    std::string table;
    // The batch's points, each a record; `points` past the records' count
    // are spent ones, kept for their strings and vectors.
    std::vector<LinePoint> points;
    std::vector<LineRecord> records;
    BatchLines lines;
  };
  // A batch being written.
  struct InFlight {
    std::future<absl::StatusOr<WriteResult>> result;
    BatchLines lines;
  };

  void Line(std::string_view line);
  TableBatch& BatchFor(const std::string& table);
  void Flush(TableBatch& batch);
  // Waits for the oldest write in flight and accounts for its result.
  void Collect();
  void Reject(int64_t line_number, std::string_view line, std::string_view why);

  Ingest& ingest_;
  const Principal& caller_;
  LineWriteOptions options_;
  const int64_t now_;
  std::deque<InFlight> in_flight_;
  std::string partial_;  // the unfinished last line of the chunks so far
  LinePoint point_;      // the line being read (its buffers reused)
  bool partial_too_long_ = false;
  int64_t line_number_ = 0;
  std::map<std::string, TableBatch> batches_;
  LineWriteSummary summary_;
};

}  // namespace strata
