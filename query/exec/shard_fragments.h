// A table read as fragments (query/base/shard_reads.h): on a cluster node that holds some of
// the shards only, each fragment is a statement over the table (`SELECT <columns read> FROM
// table WHERE <pushed conjuncts>`, with its ORDER BY ... LIMIT or its aggregation's partial
// states when those split: query/plan/planner_shards.cc) run by one node over the shards it
// reads for this query. This node pushes their rows on, in one schema (the union of the
// fragments' columns: a column a fragment lacks is NULL in its rows), to the rest of the plan.
// The fragments run at once, up to the query's cap (ShardReads); the scan's fast paths (block
// headers, last points, newest first) run inside each fragment's own plan, not across them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/result.h"
#include "query/base/shard_reads.h"
#include "query/exec/plan_node.h"
#include "query/expr/sql_text.h"

namespace strata::query {

// The fragments' columns as one table schema (`qualifier` on each): dimensions by name,
// measure_name, time, the measure_value:: columns in the single node's order, then the
// MULTI attributes by name. INVALID_ARGUMENT when two fragments give a column two types.
absl::StatusOr<Schema> MergeFragmentColumns(const std::vector<std::vector<ResultColumn>>& fragments,
                                            const std::string& qualifier);

class ShardFragmentsNode : public PlanNode {
 public:
  // `sql` is each site's statement, in the order of `sites`; `schema` holds every column a
  // site answers with (one a site lacks is NULL in its rows). `shards_pruned`: the shards
  // the query's partition key condition left out (for EXPLAIN). The fragments' scans are
  // counted in `*stats` (when given).
  // `lists`: the long IN lists the statements name (`@list_1`), sent beside them; may be null.
  ShardFragmentsNode(Schema schema, ShardReads* reads, std::vector<FragmentSite> sites,
                     std::vector<std::string> sql, std::shared_ptr<const ListParameters> lists,
                     std::string table_name, size_t shards_pruned = 0, QueryStats* stats = nullptr);
  std::string Describe() const override;
  absl::Status ProduceBatches(QueryContext* context, BatchSink* sink) const override;

 private:
  ShardReads* reads_;
  std::vector<FragmentSite> sites_;
  std::vector<std::string> sql_;
  std::shared_ptr<const ListParameters> lists_;
  std::string table_name_;
  size_t shards_pruned_;
  QueryStats* stats_;
};

// The fragments whose rows are `plan`'s answer as they are, their columns `*columns`
// (positions among theirs, by the answer's columns) unchanged (the table's fragments under
// projections of their columns only), or null: then their remote fragments' pages may be
// relayed (QueryContext::relayed_answer).
const ShardFragmentsNode* PassThroughFragments(const Plan& plan, std::vector<int>* columns);

}  // namespace strata::query
