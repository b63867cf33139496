// ShardReads: how a query reads a table whose shards are not all on this node. A single node,
// and a cluster node holding every shard, read everything from their own engine (no
// ShardReads). A cluster node holding some shards only (docs/cluster.md, "Placement") reads a
// table as fragments: the rows of a few shards, each fragment run by one node holding them
// (this node for its own) as `SELECT <columns read> FROM table WHERE <pushed conjuncts>`
// restricted to those shards; the rest of the plan runs here over the fragments' rows
// (query/exec/shard_fragments.h). The cluster implements it (cluster/shard_reads.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "query/base/relayed_pages.h"
#include "query/base/result.h"
#include "query/base/vector.h"

namespace strata::query {

// The shards a fragment reads: a scan keeps the series whose ShardOf(routing hash, count)
// is marked (storage/read/table_state.h).
struct ShardScope {
  uint32_t count = 1;
  std::vector<bool> read;  // by shard
  bool Reads(uint32_t shard) const { return shard < read.size() && read[shard]; }
};

// Where one fragment runs: a node and the shards it reads there.
struct FragmentSite {
  std::string node;     // its id
  std::string address;  // where it is reached
  bool local = false;   // this node
  std::vector<uint32_t> shards;
  // By shard: the log sequence the node's replica must have applied before it reads (a
  // shard this node leads, handed to a follower there; cluster/site_balance.h).
  std::map<uint32_t, uint64_t> applied_at_least;
};

// The values a fragment's statement names as @parameters: its long IN lists
// (query/expr/sql_text.h ListParameters), sent beside it rather than as text.
using FragmentLists = std::map<std::string, Datum, std::less<>>;

// Fragments of one table a query reads at once, unless its read choice says otherwise
// (query/base/read_choice.h).
inline constexpr size_t kMaxConcurrentFragments = 8;

// A node running a fragment found the table's columns there no longer those the query was
// planned with (ShardReads may plan with columns it remembers): the plan may read a column
// as NULL that the node now holds. ABORTED, marked so that the query runner plans the query
// again when none of its answer went out (server/runner/query_runner.cc).
inline constexpr char kColumnsChangedPayload[] = "strata.dev/columns-changed";
inline absl::Status ColumnsChangedError(const std::string& message) {
  absl::Status status = absl::AbortedError(message);
  status.SetPayload(kColumnsChangedPayload, absl::Cord("1"));
  return status;
}
inline bool IsColumnsChanged(const absl::Status& status) {
  return status.GetPayload(kColumnsChangedPayload).has_value();
}

// One query's reads: the sites were chosen, and this node's own shards brought up to date,
// by the query's read choice before it was planned.
class ShardReads {
 public:
  virtual ~ShardReads() = default;
  // The sites that together read every shard once, this node's own first.
  virtual absl::StatusOr<std::vector<FragmentSite>> Sites() = 0;
  // Once the sites are cut to the shards a query reads (this node's first): may move shards
  // between the sites' nodes holding them, so that no node scans much more than another and
  // this node, which also merges every fragment's answer, less. `series_here` counts, by
  // shard, the table's series this node's replica of it holds (0 without one): the shards'
  // sizes as far as this node knows them, counted only when the read is worth sharing out
  // (it walks every series); `merge_share`, what this node's own part of the plan costs, as a
  // share of the whole read's scan.
  virtual void BalanceSites(std::vector<FragmentSite>* /*sites*/,
                            const std::function<std::vector<uint64_t>()>& /*series_here*/,
                            double /*merge_share*/) {}
  // Fragments of one table run at once.
  virtual size_t max_concurrent_fragments() const { return kMaxConcurrentFragments; }
  // The columns `sql` (a fragment's statement) answers with at `site`: possibly as the site
  // answered an earlier query, checked when the fragments run (ColumnsChangedError).
  virtual absl::StatusOr<std::vector<ResultColumn>> Describe(
      const FragmentSite& site, const std::string& sql,
      std::chrono::steady_clock::time_point deadline) = 0;
  // Whether Describe(site, sql) answers without waiting on another node (so that it needs no
  // thread of its own while the others are asked).
  virtual bool DescribesAtOnce(const FragmentSite& site, const std::string& /*sql*/) {
    return site.local;
  }
  // Whether Describe answered with remembered columns (a plan that failed with them, a
  // column not found, is made again after Refresh).
  virtual bool RememberedColumns() const { return false; }
  // Describe asks every site again from now on.
  virtual void Refresh() {}
  // Runs `sql` (with the values of the lists it names) at `site`, calling `answered` once its node
  // answered (its columns checked, before any batch) and handing each batch of rows with its
  // columns to `push`, which stops the fragment by returning false (enough rows) or an error.
  // Stops, CANCELLED, once
  // `*cancelled` (when given) turns true. The columns are those Describe named, unless
  // another node had to answer in the site's place: then that node's (a column missing there
  // is NULL in its rows, as it is in the shards it read). What its scans read is added to
  // `*scanned`.
  // With `relay` (not null), a node other than this one whose answer has the relay's columns
  // sends its rows (those columns) as the client's pages (query/base/relayed_pages.h), which go to
  // its push instead; other answers still come to `push`.
  using Push = std::function<absl::StatusOr<bool>(const Batch& batch,
                                                  const std::vector<ResultColumn>& columns)>;
  struct Relay {
    RelayForm form;
    std::vector<ResultColumn> columns;  // the client's, as the fragment names them
    std::function<absl::StatusOr<bool>(std::string page, size_t rows)> push;
  };
  virtual absl::Status Run(const FragmentSite& site, const std::string& sql,
                           const FragmentLists& lists,
                           std::chrono::steady_clock::time_point deadline,
                           const std::atomic<bool>* cancelled,
                           const std::function<void()>& answered, const Push& push,
                           const Relay* relay, QueryStats* scanned) = 0;
};

// A small leader read on this node's own replicas (docs/cluster.md, "A small leader read"),
// chosen before they were known to be as current as their leaders. The plan tells it what it
// reads of the shards as it is planned (QueryOptions::local_leader_read), so that only those
// shards' leaders are asked what they applied, each question sent as soon as it is known.
class LocalLeaderRead {
 public:
  virtual ~LocalLeaderRead() = default;
  // How many shards the tables have (ShardOf's count).
  virtual uint32_t shard_count() const = 0;
  // A table was looked up. Its columns are those of all its shards: unless the plan then
  // reads its rows through Reading (naming its columns, whose absence here would be an
  // error, confirmed against every shard), the read depends on every shard.
  virtual void TableResolved() = 0;
  // A table's rows are read from these shards only (a condition pins its partition key), or
  // from any (nullopt).
  virtual void Reading(const std::optional<std::set<uint32_t>>& shards) = 0;
  // The answer depends on every shard: a star's columns, information_schema, an error.
  virtual void ReadingEvery() = 0;
  // Called before planning when only the plan goes out (an EXPLAIN): what the plan reads is
  // still noted for Describe, but no leader is asked (nothing will be confirmed).
  virtual void PlanOnly() = 0;
  // Called before any of the answer goes out, once it is whole: an error says a replica was
  // read behind its leader; the query is then read again the usual way (none of it went out).
  virtual absl::Status Confirm() = 0;
  // The other nodes asked so far.
  virtual int leaders_asked() const = 0;
  // One line for EXPLAIN, once the plan is made: that the read is this node's replicas',
  // and whose leaders its answer waits for.
  virtual std::string Describe() const = 0;
};

// How a query reads its tables, as its node chose under the query's read choice.
struct PreparedReads {
  // Null: from this node's engine, which holds every shard the query reads.
  std::unique_ptr<ShardReads> reads;
  // Set when this node's replicas were chosen for a small leader read.
  std::shared_ptr<LocalLeaderRead> local_leader_read;
};

}  // namespace strata::query
