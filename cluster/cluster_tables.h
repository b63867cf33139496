// The cluster as SQL (docs/cluster.md, "Status"): "system"."cluster_nodes" (each live node
// and its address) and "system"."cluster_shards" (each shard's leader and epoch, the end of
// its log, and per node what that node's replica applied and how far behind it is), beside
// the server's other system tables. Readable through every door: `strata cluster status`,
// psql, the console.
#pragma once

#include <memory>

#include "cluster/cluster_node.h"
#include "query/exec/system_tables.h"

namespace strata::cluster {

// `node` and `others` answer the rest; `node` must outlive the tables.
std::unique_ptr<query::SystemTables> WithClusterTables(ClusterNode* node,
                                                       std::unique_ptr<query::SystemTables> others);

}  // namespace strata::cluster
