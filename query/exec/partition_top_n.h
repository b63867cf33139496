// The top rows of each window partition, kept before the window numbers them. `SELECT * FROM
// (SELECT host, time, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM t)
// WHERE rn <= 3` needs three rows of each host, yet the window held and sorted every row. With
// the filter's bound on the call (WindowCall::kept_ranks, from the planner), the rows each
// partition could keep are found as they arrive, and the window gets only those: memory by
// partitions × n, not by rows, and no sort of the rest.
//
// What is kept of a partition is a prefix of its window order (peers in arrival order): the
// first n rows, with every row tied with the n-th when a call reads peers (rank, RANGE frames),
// or the rows of the first n distinct ORDER BY values (dense_rank). Every call of the window
// must then give the kept rows the values it gave them over all rows: the same PARTITION BY
// and ORDER BY, and a value that reads no row after the current row's peers (ranks, lag,
// frames ending at CURRENT ROW or before; not lead, ntile, percent_rank, cume_dist or frames
// reaching FOLLOWING rows).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "query/exec/operators.h"
#include "query/exec/window.h"

namespace strata::query {

struct RankLimit {
  size_t call = 0;           // the bounded call, whose PARTITION BY and ORDER BY every call shares
  int64_t ranks = 0;         // kept of each partition: rows (with ties), or peer groups
  bool peer_groups = false;  // dense_rank: the rows of the first `ranks` distinct ORDER BY values
  // Whether a call reads the current row's peers (rank, RANGE and GROUPS frames): the rows
  // tied with the n-th are kept too. Without, the first n by arrival among ties are.
  bool ties = false;
};

// The limit the window's calls allow: nullopt unless a ranking call has kept_ranks (the
// smallest is taken) and every call is bounded by it as above.
std::optional<RankLimit> RankLimitOf(const std::vector<WindowCall>& calls);

// Keeps columns `keep` of every row (of `types`; the call's expressions are bound to the
// narrowed row, as a window's), drops the rows `limit` leaves out of each partition, and
// hands the others on in arrival order once all came (a window's stable sort then places
// peers as it would have). Where most rows stay candidates (rows against the window's order
// from many partitions at once, a large n), it stops choosing and hands every row on.
std::unique_ptr<BatchSink> MakePartitionTopN(const WindowCall& call, RankLimit limit,
                                             std::vector<int> keep, std::vector<DataType> types,
                                             QueryContext* context, BatchSink* next);

}  // namespace strata::query
