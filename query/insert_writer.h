// What INSERT and COPY FROM share: each column's role in the records they write (time,
// measure_name, version, a dimension or a measure), and the writer that turns rows into MULTI
// records, writes them a hundred at a time and keeps the first few rejections by row (INSERT)
// or line (COPY). docs/sql.md, "INSERT", says which column becomes what.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "query/exec/operators.h"
#include "query/exec/table_layout.h"
#include "query/insert_sink.h"  // the write seam: WriteRequest, WriteResult
#include "query/parse/ast.h"
#include "query/parse/session_zone.h"
#include "query/statements.h"

namespace strata::query {

// What one column of the rows becomes.
struct ColumnRole {
  enum class Kind { kTime, kMeasureName, kVersion, kDimension, kMeasure, kSkipped };
  Kind kind = Kind::kSkipped;
  std::string name;
  MeasureKind measure = MeasureKind::kDouble;  // kMeasure's type
  DataType type = DataType::kUnknown;          // the rows'
};

// Each column's role, by its name (stmt.columns', else `output`'s): time, measure_name and
// version are theirs; a name the table has as a dimension or a measure stays one; another
// VARCHAR column is a new dimension, any other a new measure. `verb` (INSERT, COPY) names the
// statement in the errors.
absl::StatusOr<std::vector<ColumnRole>> ColumnRoles(std::string_view verb, const Statement& stmt,
                                                    const StatementRun& run, const Schema& output,
                                                    const TableLayout& layout);

// The statement's table, once the caller may write it, and its layout (what it has now).
struct InsertTarget {
  std::shared_ptr<const TableInfo> table;
  std::shared_ptr<const TableLayout> layout;
};
absl::StatusOr<InsertTarget> OpenInsertTarget(const Statement& stmt, const StatementRun& run);

// Turns rows into records and writes them a hundred at a time through the statement's
// InsertSink (or the storage engine); keeps the first few rejections with their row's number.
class InsertWriter final : public RowSink {
 public:
  static constexpr size_t kBatch = 100;
  static constexpr size_t kReasonsKept = 5;
  // Requests written but not yet answered: they share group commits (one at a time, a COPY
  // waited for each commit in turn).
  static constexpr size_t kWritesInFlight = 8;
  // Past this, an INSERT stops: an INSERT ... SELECT reading its own table could otherwise
  // read what it writes until its timeout. (A COPY reads its client's rows: no bound.)
  static constexpr int64_t kMaxRows = 5'000'000;

  // `verb` and `unit` name the statement and what its rows are numbered by in Rejections
  // ("INSERT", "row"; "COPY", "line").
  InsertWriter(const TableInfo& table, std::vector<ColumnRole> roles, const StatementRun& run,
               std::string_view verb, std::string_view unit);

  // A row numbered one past the last.
  absl::Status Push(Row row) override { return PushNumbered(std::move(row), rows_ + 1); }
  absl::Status PushNumbered(Row row, int64_t number);
  // A row refused before it became a row (a field that does not read as its column's type).
  void Reject(int64_t number, std::string_view reason);
  // Writes the last batch and waits for every write's answer.
  absl::Status Finish() override;

  int64_t written() const { return written_; }
  // The rejections as an error, or OK when there were none.
  absl::Status Rejections() const;
  // `error`, which ends the statement, saying what it leaves: the rows written before it stay
  // (a statement here is not a transaction). Waits for the requests in flight first, whose
  // rows may have been written, so that the count is exact, and names the first row (line)
  // not known written, where a client resends from: a record written again with the value it
  // has is a no-op. `error` unchanged when no row was written.
  absl::Status Stopped(absl::Status error);

 private:
  // A request of the batch, sent; waits first for the oldest answer when kWritesInFlight are.
  absl::Status Flush();
  // The oldest request's answer: what it wrote and rejected, or its error.
  absl::Status Collect();
  // A rejection counted, its reason kept if it is among the first few.
  void Keep(int64_t number, std::string_view reason);

  const TableInfo& table_;
  const std::vector<ColumnRole> roles_;
  const int64_t now_;
  // A PostgreSQL session's time zone: a time's text without an offset is its wall clock.
  const SessionZone zone_;
  const std::function<std::future<absl::StatusOr<WriteResult>>(WriteRequest)> write_;
  const std::function<absl::Status()> alive_;  // the statement's cancel and timeout
  const std::string verb_, unit_;
  WriteRequest batch_;
  std::vector<int64_t> batch_rows_;  // each batched record's row number
  struct InFlight {
    std::future<absl::StatusOr<WriteResult>> result;
    std::vector<int64_t> rows;  // each of its records' row number
  };
  std::deque<InFlight> in_flight_;  // oldest first
  int64_t rows_ = 0;
  int64_t last_number_ = 0;             // the highest row (line) number pushed or rejected
  int64_t unwritten_from_ = INT64_MAX;  // the first row of the first request that failed
  int64_t written_ = 0;
  int64_t rejected_ = 0;
  std::vector<std::pair<int64_t, std::string>> reasons_;  // by row number
};

}  // namespace strata::query
