#include "query/exec/header_aggregation.h"

#include <cmath>

#include "query/exec/table_layout.h"

namespace strata::query {
namespace {

// Every partial sum of integers bounded so is an integer a double holds
// exactly, so the header's double sum is the exact BIGINT sum.
bool SumIsExact(const format::ColumnSummary& c, int64_t count) {
  const double largest = std::max(std::fabs(static_cast<double>(c.int_min)),
                                  std::fabs(static_cast<double>(c.int_max)));
  return static_cast<double>(count) * largest <= 9007199254740992.0;  // 2^53
}

Datum Extreme(ValueType type, double real, int64_t integer) {
  switch (type) {
    case ValueType::kDouble: return Datum::Double(real);
    case ValueType::kBigint: return Datum::Bigint(integer);
    case ValueType::kTimestamp: return Datum::Timestamp(integer);
    default: return Datum::Null();
  }
}

bool Provides(StatsUse use, const ColumnStats& stats) {
  switch (use) {
    case StatsUse::kNone: return false;
    case StatsUse::kCount: return true;
    case StatsUse::kSum: return stats.count == 0 || stats.has_sum;
    case StatsUse::kExtremes: return stats.count == 0 || (!stats.min.null && !stats.max.null);
  }
  return false;
}

}  // namespace

BlockStatsReader::BlockStatsReader(const TableColumns& table, const HeaderAggregation& plan,
                                   const EvalContext& eval)
    : table_(table),
      plan_(plan),
      eval_(eval),
      row_(table.types.size()),
      summary_column_(table.types.size(), -1) {}

bool BlockStatsReader::SelectSeries(uint64_t series) {
  if (series == last_series_) return series_ != nullptr;
  last_series_ = series;
  auto it = table_.series.find(series);
  series_ = it == table_.series.end() ? nullptr : &it->second;
  if (series_ == nullptr) return false;
  // A series may lack a dimension another has: that column is NULL for it.
  for (int c = 0; c < table_.time_column; ++c) row_[c] = Datum::Null(table_.types[c]);
  for (const auto& [column, value] : series_->values) row_[column] = Datum::Varchar(std::string(value));
  return true;
}

void BlockStatsReader::MapColumns(const format::BlockSummary& summary) {
  for (int column : mapped_) summary_column_[column] = -1;
  mapped_.clear();
  for (size_t i = 0; i < summary.columns.size(); ++i) {
    const format::ColumnSummary& c = summary.columns[i];
    const int column = MeasureColumnOf(table_, *series_, c.name, c.type);
    if (column < 0 || summary_column_[column] >= 0) continue;  // the first one feeds it
    summary_column_[column] = static_cast<int>(i);
    mapped_.push_back(column);
  }
}

bool BlockStatsReader::StatsOf(int column, const format::BlockSummary& summary,
                               ColumnStats* out) const {
  *out = ColumnStats{};
  if (summary_column_[column] >= 0) {
    const format::ColumnSummary& c = summary.columns[summary_column_[column]];
    out->count = static_cast<int64_t>(summary.count) - c.null_count;
    if (!c.has_stats) return true;  // no numbers, or only NaN: neither sum nor extremes
    out->has_sum = c.type == ValueType::kDouble ||
                   (c.type == ValueType::kBigint && SumIsExact(c, out->count));
    out->sum = c.sum;
    out->min = Extreme(c.type, c.min, c.int_min);
    out->max = Extreme(c.type, c.max, c.int_max);
    return true;
  }
  return true;  // no column feeds it: every point is NULL there
}

bool BlockStatsReader::Read(const WholeBlock& block, Row* keys, std::vector<ColumnStats>* stats) {
  if (!SelectSeries(block.series)) return false;
  const format::BlockSummary* summary = block.summary;
  if (summary->min_time < block.start_nanos || summary->max_time >= block.end_nanos) return false;

  // A key that never decreases with time is the same for every point when
  // it is the same for the first and the last.
  keys->clear();
  for (const Expr* k : plan_.keys) {
    row_[table_.time_column] = Datum::Timestamp(summary->min_time);
    Datum first = Eval(*k, row_, eval_);
    row_[table_.time_column] = Datum::Timestamp(summary->max_time);
    if (!eval_.error.empty() || Compare(first, Eval(*k, row_, eval_)) != 0) return false;
    keys->push_back(std::move(first));
  }

  MapColumns(*summary);
  stats->resize(plan_.aggregates.size());
  for (size_t a = 0; a < plan_.aggregates.size(); ++a) {
    const AggregateSpec& spec = plan_.aggregates[a];
    ColumnStats& s = (*stats)[a];
    if (spec.args.empty()) {  // count(*)
      s = ColumnStats{.count = summary->count};
    } else if (!StatsOf(spec.args[0]->bound.column, *summary, &s)) {
      return false;
    }
    if (!Provides(spec.function->stats_use, s)) return false;
  }
  return true;
}

}  // namespace strata::query
