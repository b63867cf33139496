// What a statement's result is and where it goes: its columns, its
// statistics, and the sink that takes its rows (or column batches). The
// planner, the system tables and every front door's sink share these
// without the engine's header (query/engine.h includes this one).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "query/base/datum.h"
#include "query/base/relayed_pages.h"
#include "query/base/vector.h"

namespace strata::query {

struct ResultColumn {
  std::string name;
  DataType type = DataType::kUnknown;
};

struct QueryStats {
  int64_t rows_returned = 0;
  int64_t rows_relayed = 0;  // of those returned, in pages other nodes made (relayed_pages.h)
  int64_t rows_scanned = 0;
  int64_t bytes_scanned = 0;
  int64_t buckets_scanned = 0;
  int64_t buckets_pruned = 0;
  int64_t partitions_scanned = 0;
  int64_t partitions_pruned = 0;
  int64_t series_scanned = 0;
  int64_t series_pruned = 0;
  int64_t blocks_scanned = 0;  // magnetic blocks read (whole or merged)
  int64_t blocks_pruned = 0;   // skipped by their time range or min/max
  int64_t elapsed_nanos = 0;
};
// Adds what `from` scanned (rows, bytes, buckets, partitions, series, blocks: not the rows
// returned or the time) to `to`: a fragment's scans to its query's.
inline void AddScans(const QueryStats& from, QueryStats* to) {
  to->rows_scanned += from.rows_scanned;
  to->bytes_scanned += from.bytes_scanned;
  to->buckets_scanned += from.buckets_scanned;
  to->buckets_pruned += from.buckets_pruned;
  to->partitions_scanned += from.partitions_scanned;
  to->partitions_pruned += from.partitions_pruned;
  to->series_scanned += from.series_scanned;
  to->series_pruned += from.series_pruned;
  to->blocks_scanned += from.blocks_scanned;
  to->blocks_pruned += from.blocks_pruned;
}

// A page of results goes out once its rows hold this many bytes, however few they are: 1,000
// rows of 1 MB texts made a page of 1 GB, past any gRPC message. Below gRPC clients' default
// receive limit (4 MiB), so a page a client takes without settings is whole.
inline constexpr int64_t kPageBytes = 1 << 20;

// What a page sent in gRPC messages of at most `max_message_bytes` is cut at: `cap`, or half of
// the largest message when that is less (a page may pass its cut by a row, and a message has
// fields of its own).
inline int64_t PageBytesWithin(int64_t cap, int64_t max_message_bytes) {
  return std::min(cap, max_message_bytes / 2);
}

// Where results go. Columns is called once, before any Rows.
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual absl::Status Columns(const std::vector<ResultColumn>& columns) = 0;
  virtual absl::Status Rows(std::vector<Row> page) = 0;
  // A sink that can take the result as column batches says so (the
  // server's columnar pages); for a statement whose plan runs on batches
  // throughout (Plan::columnar: no window, no DISTINCT) the engine then
  // calls Batches, then EndBatches, instead of Rows: no row is built.
  virtual bool TakesBatches() const { return false; }
  virtual absl::Status Batches(const Batch& /*batch*/) {
    return absl::UnimplementedError("this result sink takes rows only");
  }
  virtual absl::Status EndBatches() { return absl::OkStatus(); }
  // A sink whose pages another node may make (query/base/relayed_pages.h) says how they are
  // cut, and takes them through RelayPage, between Batches, in any order with them.
  virtual std::optional<RelayForm> RelaysPages() const { return std::nullopt; }
  virtual absl::Status RelayPage(std::string /*bytes*/, size_t /*rows*/) {
    return absl::UnimplementedError("this result sink relays no pages");
  }
};

// Keeps only the result's columns: for planning a statement for its shape
// (QueryOptions::describe_only).
class ColumnsSink final : public ResultSink {
 public:
  absl::Status Columns(const std::vector<ResultColumn>& columns) override {
    columns_ = columns;
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<Row>) override { return absl::OkStatus(); }
  const std::vector<ResultColumn>& columns() const { return columns_; }

 private:
  std::vector<ResultColumn> columns_;
};

}  // namespace strata::query
