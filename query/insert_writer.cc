#include "query/insert_writer.h"

#include <algorithm>
#include <optional>
#include <set>

#include "common/clock.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "query/base/error.h"
#include "query/insert_sink.h"
#include "query/parse/session_zone.h"
#include "storage/read/table_state.h"

namespace strata::query {

absl::StatusOr<std::vector<ColumnRole>> ColumnRoles(std::string_view verb, const Statement& stmt,
                                                    const StatementRun& run, const Schema& output,
                                                    const TableLayout& layout) {
  if (!stmt.columns.empty() && stmt.columns.size() != output.size()) {
    return SqlError(run.sql, stmt.columns.front().second,
                    StrCat(verb, " names ", stmt.columns.size(), " columns but its query gives ",
                           output.size()));
  }
  std::vector<ColumnRole> roles(output.size());
  std::set<std::string> seen;
  bool time = false;
  bool measure = false;
  for (size_t c = 0; c < output.size(); ++c) {
    ColumnRole& role = roles[c];
    role.name = stmt.columns.empty() ? output[c].name : stmt.columns[c].first;
    // JSON is stored as its text: a VARCHAR (a dimension, or a measure the table has).
    role.type = output[c].type == DataType::kJson ? DataType::kVarchar : output[c].type;
    const Position at = stmt.columns.empty() ? stmt.table_pos : stmt.columns[c].second;
    auto wrong = [&](std::string_view message) {
      return SqlError(run.sql, at, StrCat("column ", role.name, ": ", message));
    };
    if (!seen.insert(role.name).second) return wrong("named twice");
    const bool null_only = role.type == DataType::kUnknown;
    if (role.name == kTimeColumn) {
      if (role.type != DataType::kTimestamp && role.type != DataType::kVarchar && !null_only) {
        return wrong(StrCat("the time is a timestamp (or its text), not ", TypeName(role.type)));
      }
      role.kind = ColumnRole::Kind::kTime;
      time = true;
    } else if (role.name == kMeasureNameColumn) {
      if (role.type != DataType::kVarchar && !null_only) return wrong("measure_name is varchar");
      role.kind = ColumnRole::Kind::kMeasureName;
    } else if (role.name == "version") {
      if (role.type != DataType::kBigint && !null_only) return wrong("a version is a bigint");
      role.kind = ColumnRole::Kind::kVersion;
    } else if (layout.dimension_column.contains(role.name) ||
               (role.type == DataType::kVarchar && !layout.measure_is_multi.contains(role.name) &&
                !layout.columns->attribute_column.contains(role.name))) {
      if (role.type != DataType::kVarchar && !null_only) {
        return wrong(
            StrCat("a dimension's values are varchar, not ", TypeName(role.type), "; CAST them"));
      }
      role.kind = ColumnRole::Kind::kDimension;
    } else if (null_only) {
      role.kind = ColumnRole::Kind::kSkipped;  // NULL in every row: nothing to write
      measure = true;
    } else {
      const std::optional<ValueType> kind = ToValueType(role.type);
      if (!kind.has_value()) {
        return wrong(StrCat("a measure is a double, bigint, varchar, boolean or timestamp, not ",
                            TypeName(role.type)));
      }
      role.kind = ColumnRole::Kind::kMeasure;
      role.measure = static_cast<MeasureKind>(*kind);  // a scalar kind is its value type
      // A whole number into a DOUBLE measure the table has: written as a double.
      auto known = layout.columns->attribute_column.find(role.name);
      if (known != layout.columns->attribute_column.end() &&
          static_cast<MeasureKind>(known->second.type) == MeasureKind::kDouble &&
          *kind == ValueType::kBigint) {
        role.measure = MeasureKind::kDouble;
      }
      measure = true;
    }
  }
  if (!time) {
    return SqlError(
        run.sql, stmt.table_pos,
        StrCat(verb, " needs a time column: each row is a point in time",
               !stmt.columns.empty() ? ""
               : verb == "COPY" ? "; name the columns: COPY db.tbl (time, host, usage) FROM ..."
                                : "; name the columns: INSERT INTO db.tbl (time, host, usage) "
                                  "VALUES ..."));
  }
  if (!measure) {
    return SqlError(run.sql, stmt.table_pos,
                    StrCat(verb,
                           " needs a measure column: a number, boolean or timestamp, or a "
                           "name the table has as a measure (a VARCHAR column is a "
                           "dimension)"));
  }
  return roles;
}

absl::StatusOr<InsertTarget> OpenInsertTarget(const Statement& stmt, const StatementRun& run) {
  if (run.options.access != nullptr) {
    if (absl::Status allowed = run.options.access->CheckWrite(stmt.database, stmt.table);
        !allowed.ok()) {
      return SqlError(run.sql, stmt.table_pos, allowed);
    }
  }
  auto table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  if (absl::IsNotFound(table.status()) && run.options.catch_up_catalog &&
      run.options.catch_up_catalog()) {
    table = run.storage.catalog().FindTable(stmt.database, stmt.table);
  }
  if (!table.ok()) return SqlError(run.sql, stmt.table_pos, table.status());
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, run.storage.TableStateOf(**table));
  return InsertTarget{.table = *table, .layout = run.layouts.Get(**table, state)};
}

InsertWriter::InsertWriter(const TableInfo& table, std::vector<ColumnRole> roles,
                           const StatementRun& run, std::string_view verb, std::string_view unit)
    : table_(table),
      roles_(std::move(roles)),
      now_(run.context.eval.now_nanos),
      zone_(MakeSessionZone(run.options.parameters.time_zone)),
      write_([&run](WriteRequest request) {
        if (InsertSink* sink = run.options.inserts; sink != nullptr) {
          return sink->WriteInBackground(std::move(request));
        }
        std::promise<absl::StatusOr<WriteResult>> written;
        written.set_value(run.storage.Write(std::move(request)));
        return written.get_future();
      }),
      alive_([&run] { return run.context.CheckAlive(); }),
      verb_(verb),
      unit_(unit) {
  batch_.database_name = table.database_name;
  batch_.table_name = table.name;
}

absl::Status InsertWriter::PushNumbered(Row row, int64_t number) {
  if (verb_ == "INSERT" && rows_ == kMaxRows) {
    return absl::ResourceExhaustedError(StrCat("an INSERT writes at most ", kMaxRows,
                                               " rows; insert a narrower time range at a time"));
  }
  ++rows_;
  last_number_ = std::max(last_number_, number);
  InputRecord record{.measure_name = table_.name,
                     .measure_value_type = MeasureKind::kMulti,
                     .time_unit = TimeUnit::kNanoseconds};
  record.measure_values.reserve(roles_.size());
  std::optional<std::string> wrong;
  for (size_t c = 0; c < roles_.size() && !wrong; ++c) {
    const ColumnRole& role = roles_[c];
    const Datum& value = row[c];
    if (value.null) {
      if (role.kind == ColumnRole::Kind::kTime) wrong = "its time is NULL";
      if (role.kind == ColumnRole::Kind::kMeasureName) wrong = "its measure_name is NULL";
      continue;  // a NULL dimension or measure is absent
    }
    switch (role.kind) {
      case ColumnRole::Kind::kTime:
        if (role.type == DataType::kVarchar) {
          record.time = TimestampTextInZone(value.s, zone_);  // a session's wall clock
          if (!record.time) wrong = StrCat("its time '", value.s, "' is not a timestamp");
        } else {
          record.time = value.i;
        }
        break;
      case ColumnRole::Kind::kMeasureName:
        record.measure_name = value.s;
        break;
      case ColumnRole::Kind::kVersion:
        record.version = value.i;
        break;
      case ColumnRole::Kind::kDimension:
        record.dimensions.push_back({role.name, value.s});
        break;
      case ColumnRole::Kind::kMeasure:
        record.measure_values.push_back(
            {role.name, role.measure, ToStoredValue(value, static_cast<ValueType>(role.measure))});
        break;
      case ColumnRole::Kind::kSkipped:
        break;
    }
  }
  if (!wrong && record.measure_values.empty()) wrong = "every measure is NULL";
  if (wrong) {
    Keep(number, *wrong);
    return absl::OkStatus();
  }
  if (!record.version) record.version = NextArrivalVersion(now_);
  batch_.records.push_back(std::move(record));
  batch_rows_.push_back(number);
  return batch_.records.size() == kBatch ? Flush() : absl::OkStatus();
}

void InsertWriter::Reject(int64_t number, std::string_view reason) {
  ++rows_;
  last_number_ = std::max(last_number_, number);
  Keep(number, reason);
}

absl::Status InsertWriter::Rejections() const {
  if (rejected_ == 0) return absl::OkStatus();
  std::vector<std::pair<int64_t, std::string>> kept = reasons_;
  std::sort(kept.begin(), kept.end());
  std::string reasons;
  for (const auto& [number, reason] : kept)
    reasons += StrCat("; ", unit_, " ", number, ": ", reason);
  return absl::InvalidArgumentError(
      StrCat(verb_, " wrote ", written_, " of ", rows_, " rows; ", rejected_,
             rejected_ == 1 ? " was" : " were", " rejected", reasons,
             rejected_ > static_cast<int64_t>(reasons_.size()) ? "; ..." : ""));
}

absl::Status InsertWriter::Flush() {
  if (batch_.records.empty()) return absl::OkStatus();
  if (in_flight_.size() >= kWritesInFlight) RETURN_IF_ERROR(Collect());
  RETURN_IF_ERROR(alive_());
  WriteRequest request;
  request.database_name = batch_.database_name;
  request.table_name = batch_.table_name;
  request.records = std::move(batch_.records);
  batch_.records.clear();
  in_flight_.push_back({.result = write_(std::move(request)), .rows = std::move(batch_rows_)});
  batch_rows_.clear();
  return absl::OkStatus();
}

absl::Status InsertWriter::Collect() {
  InFlight write = std::move(in_flight_.front());
  in_flight_.pop_front();
  absl::StatusOr<WriteResult> answer = write.result.get();
  if (!answer.ok()) {
    unwritten_from_ = std::min(unwritten_from_, write.rows.front());
    return answer.status();
  }
  const WriteResult& result = *answer;
  written_ += result.total();
  for (const RejectedRecord& r : result.rejected) {
    Keep(write.rows.at(r.record_index),
         r.existing_version ? StrCat(r.reason, " (stored version ", *r.existing_version, ")")
                            : r.reason);
  }
  return absl::OkStatus();
}

absl::Status InsertWriter::Finish() {
  RETURN_IF_ERROR(Flush());
  while (!in_flight_.empty()) RETURN_IF_ERROR(Collect());
  return absl::OkStatus();
}

absl::Status InsertWriter::Stopped(absl::Status error) {
  while (!in_flight_.empty()) Collect().IgnoreError();  // a failed one is noted in Collect
  if (written_ == 0) return error;
  int64_t resend_from = std::min(unwritten_from_, last_number_ + 1);
  if (!batch_rows_.empty()) resend_from = std::min(resend_from, batch_rows_.front());
  absl::Status said(
      error.code(),
      StrCat(error.message(), "; ", verb_, " wrote ", written_, " rows before it, which stay (",
             verb_ == "COPY" ? "a COPY" : "an INSERT", " is not undone): ", unit_, "s from ",
             resend_from,
             " on are not known written; sending them again is safe, a record written again "
             "with its value is a no-op"));
  // What marks the error (a plan to make again, an SQL position) goes with it.
  error.ForEachPayload(
      [&said](absl::string_view url, const absl::Cord& payload) { said.SetPayload(url, payload); });
  return said;
}

void InsertWriter::Keep(int64_t number, std::string_view reason) {
  ++rejected_;
  if (reasons_.size() < kReasonsKept) reasons_.emplace_back(number, std::string(reason));
}

}  // namespace strata::query
