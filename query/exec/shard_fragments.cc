#include "query/exec/shard_fragments.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/spare_threads.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/exec/select_nodes.h"
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
                                       std::vector<std::string> sql,
                                       std::shared_ptr<const ListParameters> lists,
                                       std::string table_name, size_t shards_pruned,
                                       QueryStats* stats)
    : PlanNode(std::move(schema), 0, {}),
      reads_(reads),
      sites_(std::move(sites)),
      sql_(std::move(sql)),
      lists_(std::move(lists)),
      table_name_(std::move(table_name)),
      shards_pruned_(shards_pruned),
      stats_(stats) {}

std::string ShardFragmentsNode::Describe() const {
  // One statement for every site, or each site's after it.
  const bool same = std::all_of(sql_.begin(), sql_.end(),
                                [this](const std::string& s) { return s == sql_.front(); });
  std::string where;
  for (size_t i = 0; i < sites_.size(); ++i) {
    std::string shards;
    for (uint32_t s : sites_[i].shards) shards += StrCat(shards.empty() ? "" : ",", s);
    where +=
        StrCat(where.empty() ? "" : "; ", "shards ", shards, " on ",
               sites_[i].local ? "this node" : sites_[i].node, same ? "" : StrCat(": ", sql_[i]));
  }
  if (shards_pruned_ > 0) {
    where += StrCat("; ", shards_pruned_, shards_pruned_ == 1 ? " shard" : " shards",
                    " pruned by the partition key");
  }
  return StrCat("ShardFragments ", table_name_, " (", where, ")", same ? ": " + sql_.front() : "");
}

namespace {

// Where each column of a fragment's batches goes in the node's schema (-1: nowhere), for the
// columns its last batch came with.
class ColumnMap {
 public:
  explicit ColumnMap(const Schema& schema) : schema_(schema) {
    for (size_t c = 0; c < schema.size(); ++c) column_of_[schema[c].name] = static_cast<int>(c);
  }

  // Whether `columns` are the node's schema, in its order: a batch with them goes on as it is
  // (most fragments' answers, which spares copying every column).
  bool Same(const std::vector<ResultColumn>& columns) {
    Remap(columns);
    return same_;
  }

  // `batch` (with `columns`) in the node's schema: a column it lacks is NULL.
  Batch Map(const Batch& batch, const std::vector<ResultColumn>& columns) {
    Remap(columns);
    Batch out;
    out.rows = batch.rows;
    out.columns.reserve(schema_.size());
    for (const ColumnInfo& c : schema_) {
      out.columns.emplace_back(c.type);
      out.columns.back().ResetNull(batch.rows);
    }
    for (size_t c = 0; c < columns.size(); ++c) {
      if (target_[c] >= 0) out.columns[target_[c]] = batch.columns[c];
    }
    return out;
  }

 private:
  void Remap(const std::vector<ResultColumn>& columns) {
    if (columns.size() == mapped_.size() &&
        std::equal(columns.begin(), columns.end(), mapped_.begin(),
                   [](const ResultColumn& a, const ResultColumn& b) {
                     return a.name == b.name && a.type == b.type;
                   })) {
      return;
    }
    mapped_ = columns;
    target_.assign(columns.size(), -1);
    same_ = columns.size() == schema_.size();
    for (size_t c = 0; c < columns.size(); ++c) {
      auto it = column_of_.find(columns[c].name);
      if (it != column_of_.end() && schema_[it->second].type == columns[c].type) {
        target_[c] = it->second;
      }
      same_ = same_ && target_[c] == static_cast<int>(c);
    }
  }

  const Schema& schema_;
  absl::flat_hash_map<std::string, int> column_of_;
  std::vector<ResultColumn> mapped_;
  std::vector<int> target_;
  bool same_ = false;
};

}  // namespace

absl::Status ShardFragmentsNode::ProduceBatches(QueryContext* context, BatchSink* sink) const {
  // The fragments run at once (each site's node works while the others do), up to the
  // query's cap (kMaxConcurrentFragments unless it chose another); their batches reach the
  // sink one at a time, in no set order, once every fragment started at once has answered:
  // a node that finds the columns the plan assumed changed (ColumnsChangedError) says so in
  // its answer, and the query can be planned again only while none of it went out.
  size_t threads = std::min(sites_.size(), reads_->max_concurrent_fragments());
  // The answer's pages that other nodes make, when this node's rows are the answer.
  const RelayedAnswer* relayed =
      context->relayed_answer != nullptr && context->relayed_answer->node == this
          ? context->relayed_answer
          : nullptr;
  std::vector<ResultColumn> client_columns;
  if (relayed != nullptr) {
    for (int c : relayed->columns) client_columns.push_back({schema()[c].name, schema()[c].type});
  }
  absl::Mutex mu;
  absl::Status failed;  // the first fragment's error: the others stop at their next batch
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  std::vector<bool> answered(sites_.size(), false);
  size_t waiting = threads;  // fragments started at once that have not answered
  bool gate_open = threads == 0;
  auto run_fragments = [&] {
    for (size_t i = next++; i < sites_.size() && !stop.load(); i = next++) {
      const std::function<void()> on_answer = [&, i] {
        absl::MutexLock lock(&mu);
        if (answered[i]) return;
        answered[i] = true;
        if (i < threads && --waiting == 0) gate_open = true;
      };
      ColumnMap map(schema());
      const ShardReads::Push push =
          [&](const Batch& batch,
              const std::vector<ResultColumn>& columns) -> absl::StatusOr<bool> {
        RETURN_IF_ERROR(context->CheckAlive());
        if (batch.columns.size() != columns.size()) {
          return absl::InternalError(StrCat("a fragment of ", table_name_, " sent ",
                                            batch.columns.size(), " columns, not ",
                                            columns.size()));
        }
        const bool same = map.Same(columns);
        Batch mapped;
        if (!same) mapped = map.Map(batch, columns);
        absl::MutexLock lock(&mu);
        mu.Await(absl::Condition(&gate_open));
        if (stop.load()) return false;
        RETURN_IF_ERROR(sink->Push(same ? batch : mapped));
        return !context->enough.load(std::memory_order_relaxed);
      };
      std::optional<ShardReads::Relay> relay;
      if (relayed != nullptr) {
        relay.emplace(
            ShardReads::Relay{.form = relayed->form,
                              .columns = client_columns,
                              .push = [&](std::string page, size_t rows) -> absl::StatusOr<bool> {
                                RETURN_IF_ERROR(context->CheckAlive());
                                absl::MutexLock lock(&mu);
                                mu.Await(absl::Condition(&gate_open));
                                if (stop.load()) return false;
                                relayed->stats->rows_returned += static_cast<int64_t>(rows);
                                relayed->stats->rows_relayed += static_cast<int64_t>(rows);
                                RETURN_IF_ERROR(relayed->sink->RelayPage(std::move(page), rows));
                                return !context->enough.load(std::memory_order_relaxed);
                              }});
      }
      QueryStats scanned;
      absl::Status ran =
          reads_->Run(sites_[i], sql_[i], lists_ != nullptr ? lists_->values() : FragmentLists(),
                      context->deadline, context->cancelled, on_answer, push,
                      relay ? &*relay : nullptr, &scanned);
      absl::MutexLock lock(&mu);
      if (stats_ != nullptr) AddScans(scanned, stats_);
      if (!ran.ok() && failed.ok()) failed = std::move(ran);
      if (!failed.ok() || context->enough.load(std::memory_order_relaxed)) stop = true;
      if (stop.load()) gate_open = true;  // pushes waiting on it give up
    }
  };
  // The other fragments on threads another query's fragments left idle (common/spare_threads.h).
  // Past the process's threads, fewer run at once (as many as started, this one too); the
  // helpers start reading once that number, which the gate counts, is known.
  // The helpers that never started are counted down here; the counter is documented as safe
  // to destroy once Wait returns.
  absl::Notification go;
  const size_t wanted = threads > 0 ? threads - 1 : 0;
  absl::BlockingCounter helpers_done(static_cast<int>(wanted));
  size_t started = 0;
  for (; started < wanted; ++started) {
    const bool running = SpareThreads::Shared().Run([&] {
      go.WaitForNotification();
      run_fragments();
      helpers_done.DecrementCount();
    });
    if (!running) break;
  }
  for (size_t never = started; never < wanted; ++never) helpers_done.DecrementCount();
  {
    absl::MutexLock lock(&mu);
    if (threads > 0) threads = started + 1;
    waiting = threads;
  }
  go.Notify();
  run_fragments();
  helpers_done.Wait();
  RETURN_IF_ERROR(failed);
  return sink->Finish();
}

const ShardFragmentsNode* PassThroughFragments(const Plan& plan, std::vector<int>* columns) {
  const Schema& answer = plan.output;
  const PlanNode* node = plan.root.get();
  if (node == nullptr || node->schema().size() != answer.size()) return nullptr;
  // By the answer's column: the one of `node` it is.
  std::vector<int> at(answer.size());
  for (size_t c = 0; c < at.size(); ++c) at[c] = static_cast<int>(c);
  for (;;) {
    if (const auto* fragments = dynamic_cast<const ShardFragmentsNode*>(node)) {
      for (size_t c = 0; c < at.size(); ++c) {
        if (fragments->schema()[at[c]].type != answer[c].type) return nullptr;
      }
      *columns = std::move(at);
      return fragments;
    }
    // A projection of its input's columns passes their values on as they are.
    if (dynamic_cast<const ProjectNode*>(node) == nullptr || node->inputs().empty()) {
      return nullptr;
    }
    for (int& column : at) {
      column = node->ColumnBelow(column);
      if (column < 0) return nullptr;
    }
    node = node->inputs().front().get();
  }
}

}  // namespace strata::query
