#include "query/exec/shard_fragments.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/table_layout.h"

namespace strata::query {
namespace {

// A table's columns fall in this order (table_layout.h): dimensions, measure_name, time, the
// scalar measure columns, the MULTI attributes.
enum class Part { kDimension, kMeasureName, kTime, kScalar, kAttribute };

// The rank of a measure_value:: column among them: the single node's order (ValueType's).
int ScalarRank(std::string_view name) {
  for (ValueType t : {ValueType::kDouble, ValueType::kBigint, ValueType::kVarchar,
                      ValueType::kBoolean, ValueType::kTimestamp}) {
    if (ScalarColumnName(t) == name) return static_cast<int>(t);
  }
  return -1;
}

}  // namespace

absl::StatusOr<Schema> MergeFragmentColumns(const std::vector<std::vector<ResultColumn>>& fragments,
                                            const std::string& qualifier) {
  // By name: where the column goes (its part, its rank there) and its type.
  absl::flat_hash_map<std::string, std::tuple<Part, int, DataType>> found;
  for (const std::vector<ResultColumn>& columns : fragments) {
    bool before_measure_name = true;
    for (const ResultColumn& c : columns) {
      Part part = Part::kAttribute;
      if (c.name == kMeasureNameColumn) {
        part = Part::kMeasureName;
        before_measure_name = false;
      } else if (before_measure_name) {
        part = Part::kDimension;
      } else if (c.name == kTimeColumn) {
        part = Part::kTime;
      } else if (ScalarRank(c.name) >= 0) {
        part = Part::kScalar;
      }
      const int rank = part == Part::kScalar ? ScalarRank(c.name) : 0;
      auto [at, added] = found.try_emplace(c.name, part, rank, c.type);
      if (!added && std::get<2>(at->second) != c.type) {
        return absl::InvalidArgumentError(
            StrCat("column \"", c.name, "\" is ", TypeName(std::get<2>(at->second)),
                   " in some shards and ", TypeName(c.type),
                   " in others; one name must keep one type in a table"));
      }
    }
  }
  std::map<std::tuple<Part, int, std::string>, DataType> ordered;
  for (const auto& [name, where] : found) {
    ordered[{std::get<0>(where), std::get<1>(where), name}] = std::get<2>(where);
  }
  Schema schema;
  for (const auto& [key, type] : ordered) {
    schema.push_back({.name = std::get<2>(key), .type = type, .qualifier = qualifier});
  }
  return schema;
}

ShardFragmentsNode::ShardFragmentsNode(Schema schema, ShardReads* reads,
                                       std::vector<FragmentSite> sites,
                                       std::vector<std::string> sql, std::string table_name)
    : PlanNode(std::move(schema), 0, {}),
      reads_(reads),
      sites_(std::move(sites)),
      sql_(std::move(sql)),
      table_name_(std::move(table_name)) {}

std::string ShardFragmentsNode::Describe() const {
  // One statement for every site, or each site's after it.
  const bool same = std::all_of(sql_.begin(), sql_.end(),
                                [this](const std::string& s) { return s == sql_.front(); });
  std::string where;
  for (size_t i = 0; i < sites_.size(); ++i) {
    std::string shards;
    for (uint32_t s : sites_[i].shards) shards += StrCat(shards.empty() ? "" : ",", s);
    where += StrCat(where.empty() ? "" : "; ", "shards ", shards, " on ",
                    sites_[i].local ? "this node" : sites_[i].node,
                    same ? "" : StrCat(": ", sql_[i]));
  }
  return StrCat("ShardFragments ", table_name_, " (", where, ")", same ? ": " + sql_.front() : "");
}

absl::Status ShardFragmentsNode::RunBatches(QueryContext* context, BatchSink* sink) const {
  const Schema& out_schema = schema();
  absl::flat_hash_map<std::string, int> column_of;
  for (size_t c = 0; c < out_schema.size(); ++c)
    column_of[out_schema[c].name] = static_cast<int>(c);
  // Where each column of the batches goes in the node's schema (-1: nowhere), for the columns
  // the last batch came with.
  std::vector<ResultColumn> mapped_columns;
  std::vector<int> target;
  auto map_columns = [&](const std::vector<ResultColumn>& columns) {
    if (columns.size() == mapped_columns.size() &&
        std::equal(columns.begin(), columns.end(), mapped_columns.begin(),
                   [](const ResultColumn& a, const ResultColumn& b) {
                     return a.name == b.name && a.type == b.type;
                   })) {
      return;
    }
    mapped_columns = columns;
    target.assign(columns.size(), -1);
    for (size_t c = 0; c < columns.size(); ++c) {
      auto it = column_of.find(columns[c].name);
      if (it != column_of.end() && out_schema[it->second].type == columns[c].type) {
        target[c] = it->second;
      }
    }
  };
  const ShardReads::Push push =
      [&](const Batch& batch, const std::vector<ResultColumn>& columns) -> absl::StatusOr<bool> {
    RETURN_IF_ERROR(context->CheckAlive());
    if (batch.columns.size() != columns.size()) {
      return absl::InternalError(StrCat("a fragment of ", table_name_, " sent ",
                                        batch.columns.size(), " columns, not ", columns.size()));
    }
    map_columns(columns);
    Batch out;
    out.rows = batch.rows;
    out.columns.reserve(out_schema.size());
    for (const ColumnInfo& c : out_schema) {
      out.columns.emplace_back(c.type);
      out.columns.back().ResetNull(batch.rows);
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      if (target[c] >= 0) out.columns[target[c]] = batch.columns[c];
    }
    RETURN_IF_ERROR(sink->Push(out));
    return !context->enough.load(std::memory_order_relaxed);
  };
  for (size_t i = 0; i < sites_.size(); ++i) {
    if (context->enough.load(std::memory_order_relaxed)) break;
    RETURN_IF_ERROR(reads_->Run(sites_[i], sql_[i], context->deadline, context->cancelled, push));
  }
  return sink->Finish();
}

}  // namespace strata::query
