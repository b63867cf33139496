#include "cluster/shard_reads.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "absl/strings/str_join.h"
#include "cluster/local_replicas_read.h"
#include "cluster/scan_pages.h"
#include "cluster/site_balance.h"
#include "common/start_thread.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {
namespace {

using std::chrono::steady_clock;

absl::Status FromGrpc(const grpc::Status& status, const std::string& node) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      StrCat("node ", node, ": ", status.error_message()));
}

int64_t MillisLeft(steady_clock::time_point deadline) {
  if (deadline == steady_clock::time_point::max()) return 0;
  return std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady_clock::now())
             .count());
}

// A fragment's result handed on: as batches, or rows made into batches.
class PushSink final : public query::ResultSink {
 public:
  explicit PushSink(const query::ShardReads::Push* push) : push_(*push) {}
  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override {
    columns_ = columns;
    for (const query::ResultColumn& c : columns) types_.push_back(c.type);
    return absl::OkStatus();
  }
  bool TakesBatches() const override { return true; }
  absl::Status Batches(const query::Batch& batch) override {
    ASSIGN_OR_RETURN(const bool go_on, push_(batch, columns_));
    if (go_on) return absl::OkStatus();
    enough_ = true;
    return absl::CancelledError("enough rows");  // stops the fragment; not an error
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    return Batches(RowsAsBatch(types_, page));
  }
  bool enough() const { return enough_; }

 private:
  const query::ShardReads::Push& push_;
  std::vector<query::ResultColumn> columns_;
  std::vector<query::DataType> types_;
  bool enough_ = false;
};

// The first of `holders` that `wanted` takes, or null.
template <typename Predicate>
const ShardHolder* FirstHolder(const std::vector<ShardHolder>& holders, Predicate wanted) {
  auto it = std::find_if(holders.begin(), holders.end(), wanted);
  return it == holders.end() ? nullptr : &*it;
}

// Shards gathered into one site per node reading them, this node's first.
class SiteGroups {
 public:
  explicit SiteGroups(const std::string& self) {
    here_.node = self;
    here_.local = true;
  }
  void Add(uint32_t shard, const ShardHolder& holder) {
    query::FragmentSite& site = holder.self ? here_ : elsewhere_[holder.node];
    site.node = holder.node;
    site.address = holder.address;
    site.shards.push_back(shard);
  }
  std::vector<query::FragmentSite> Take() {
    std::vector<query::FragmentSite> sites;
    if (!here_.shards.empty()) sites.push_back(std::move(here_));
    for (auto& [node, site] : elsewhere_) sites.push_back(std::move(site));
    return sites;
  }

 private:
  query::FragmentSite here_;
  std::map<std::string, query::FragmentSite> elsewhere_;  // by node id
};

// A site's node and shards: what a remembered answer and its check are filed under.
std::string SiteKey(const query::FragmentSite& site) {
  return StrCat(site.node, "\n", absl::StrJoin(site.shards, ","));
}

// Remembered sites' columns at most; past it they are forgotten and asked again.
constexpr size_t kMaxKnownColumns = 4096;

// How long small leader reads fan out after one found a replica here behind its leader: under
// a write load a few reads a second are read twice, and a passing lag (a new leader's barrier
// not applied here yet) costs a quarter of a second of fanned-out reads, not a second's.
constexpr std::chrono::milliseconds kLocalReadsPause{250};

}  // namespace

struct ClusterShardReads::RemoteScan {
  grpc::ClientContext context;
  CancelWatch::Watch watch;  // cancels `context`: after it, so it goes first
  std::unique_ptr<grpc::ClientReader<internal::v1::ScanResponse>> reader;
  std::vector<query::ResultColumn> columns;
  internal::v1::ScanResponse first;  // the first answer: the columns, maybe rows and stats
};

// One query's reads: the sites chosen for it, read under its choice.
class ClusterShardReads::QueryReads final : public query::ShardReads {
 public:
  QueryReads(ClusterShardReads* reads, const query::ReadChoice& choice,
             std::vector<query::FragmentSite> sites)
      : reads_(*reads), choice_(choice), sites_(std::move(sites)) {}

  absl::StatusOr<std::vector<query::FragmentSite>> Sites() override { return sites_; }
  // Leader reads only: another choice reads where it reads for reasons of its own.
  void BalanceSites(std::vector<query::FragmentSite>* sites,
                    const std::function<std::vector<uint64_t>()>& series_here,
                    double merge_share) override {
    if (choice_.consistency == query::ReadConsistency::kLeader) {
      reads_.BalanceSites(sites, series_here, merge_share);
    }
  }
  size_t max_concurrent_fragments() const override {
    return choice_.max_fragments > 0 ? static_cast<size_t>(choice_.max_fragments)
                                     : query::kMaxConcurrentFragments;
  }
  absl::StatusOr<std::vector<query::ResultColumn>> Describe(
      const query::FragmentSite& site, const std::string& sql,
      steady_clock::time_point deadline) override {
    bool remembered = false;
    ASSIGN_OR_RETURN(SiteColumns known,
                     reads_.Describe(site, sql, deadline, choice_, refresh_.load(), &remembered));
    if (remembered) remembered_ = true;
    if (known.check.has_value()) {
      absl::MutexLock lock(&mu_);
      checks_[site.node].push_back(*std::move(known.check));
    }
    return std::move(known.columns);
  }
  bool DescribesAtOnce(const query::FragmentSite& site, const std::string& sql) override {
    return site.local || (!refresh_.load() && reads_.RemembersColumns(site, sql));
  }
  bool RememberedColumns() const override { return remembered_.load(); }
  void Refresh() override {
    refresh_ = true;
    remembered_ = false;
    absl::MutexLock lock(&mu_);
    checks_.clear();
  }
  absl::Status Run(const query::FragmentSite& site, const std::string& sql,
                   const query::FragmentLists& lists, steady_clock::time_point deadline,
                   const std::atomic<bool>* cancelled, const std::function<void()>& answered,
                   const Push& push, const Relay* relay, query::QueryStats* scanned) override {
    ColumnsChecks checks;
    {
      absl::MutexLock lock(&mu_);
      checks = checks_;
    }
    return reads_.Run(site, sql, lists, deadline, cancelled, answered, push, relay, choice_, checks,
                      scanned);
  }

 private:
  ClusterShardReads& reads_;
  const query::ReadChoice choice_;
  const std::vector<query::FragmentSite> sites_;
  std::atomic<bool> refresh_{false};     // every site asked again
  std::atomic<bool> remembered_{false};  // a Describe answered from memory
  absl::Mutex mu_;
  ColumnsChecks checks_ ABSL_GUARDED_BY(mu_);  // of the columns it planned with
};

absl::StatusOr<query::PreparedReads> ClusterShardReads::Prepare(const query::ReadChoice& choice,
                                                                std::chrono::milliseconds wait,
                                                                bool describe_only, bool small) {
  if (small && !describe_only && choice.consistency == query::ReadConsistency::kLeader) {
    if (std::optional<query::PreparedReads> local = PrepareLocalLeaderRead()) {
      return *std::move(local);
    }
  }
  ASSIGN_OR_RETURN(std::vector<query::FragmentSite> sites, Choose(choice));
  if (!describe_only && !sites.empty() && sites.front().local) {
    RETURN_IF_ERROR(directory_.CatchUpShards(sites.front().shards, choice, wait));
  }
  query::PreparedReads prepared;
  if (sites.size() == 1 && sites.front().local) return prepared;  // every shard, here
  prepared.reads = std::make_unique<QueryReads>(this, choice, std::move(sites));
  return prepared;
}

std::optional<query::PreparedReads> ClusterShardReads::PrepareLocalLeaderRead() {
  if (steady_clock::now().time_since_epoch().count() < local_reads_paused_until_.load()) {
    return std::nullopt;
  }
  // The replicas here that do not lead under a lease, and what each had applied before the
  // query read it: a read sees at least that much.
  std::vector<LocalReplicasRead::Follower> followers;
  for (uint32_t shard = 0; shard < directory_.shard_count(); ++shard) {
    std::shared_ptr<Replica> replica = directory_.LocalReplica(shard);
    if (replica == nullptr || !replica->health().ok()) return std::nullopt;
    if (directory_.LeadsUnderLease(*replica)) continue;  // as for any leader read
    const uint64_t applied = replica->state().applied;
    followers.push_back({.shard = shard, .replica = std::move(replica), .applied = applied});
  }
  query::PreparedReads prepared;
  if (followers.empty()) return prepared;  // this node leads every shard
  prepared.local_leader_read = std::make_shared<LocalReplicasRead>(
      directory_, stubs_, node_id_, std::move(followers), [this] {
        local_reads_paused_until_ =
            (steady_clock::now() + kLocalReadsPause).time_since_epoch().count();
      });
  return prepared;
}

absl::StatusOr<std::vector<query::FragmentSite>> ClusterShardReads::Choose(
    const query::ReadChoice& choice) {
  SiteGroups groups(node_id_);
  for (uint32_t shard = 0; shard < directory_.shard_count(); ++shard) {
    const std::vector<ShardHolder> holders = directory_.Holders(shard);  // its leader first
    const ShardHolder* pick = nullptr;
    switch (choice.consistency) {
      case query::ReadConsistency::kLeader:
        pick = FirstHolder(holders, [](const ShardHolder& h) { return h.leader; });
        break;
      case query::ReadConsistency::kStrong:
        break;
      case query::ReadConsistency::kFollower:
        // Another node's follower spares the leader, which also takes the shard's writes.
        pick = FirstHolder(holders, [](const ShardHolder& h) { return h.self; });
        if (pick == nullptr) {
          pick = FirstHolder(holders, [](const ShardHolder& h) { return !h.leader; });
        }
        break;
    }
    // No leader now (one is being elected): a replica reads at the log's end instead.
    if (pick == nullptr) pick = FirstHolder(holders, [](const ShardHolder& h) { return h.self; });
    if (pick == nullptr && !holders.empty()) pick = &holders.front();
    if (pick == nullptr) {
      return absl::UnavailableError(
          StrCat("no node holding shard ", shard, " answers now; retry once one is back"));
    }
    groups.Add(shard, *pick);
  }
  return groups.Take();
}

void ClusterShardReads::BalanceSites(std::vector<query::FragmentSite>* sites,
                                     const std::function<std::vector<uint64_t>()>& series_of,
                                     double merge_share) {
  if (!WorthBalancing(*sites)) return;
  const std::vector<uint64_t> series_here = series_of();
  std::vector<double> weights(directory_.shard_count(), 0);
  std::vector<bool> known(weights.size(), false);
  double sum = 0;
  size_t counted = 0;
  for (uint32_t shard = 0; shard < weights.size(); ++shard) {
    if (directory_.LocalReplica(shard) == nullptr) continue;
    known[shard] = true;
    weights[shard] = shard < series_here.size() ? static_cast<double>(series_here[shard]) : 0;
    sum += weights[shard];
    ++counted;
  }
  // Shards held elsewhere only weigh the average; with no series known, all weigh the same.
  const double average = counted > 0 && sum > 0 ? sum / static_cast<double>(counted) : 1;
  for (uint32_t shard = 0; shard < weights.size(); ++shard) {
    if (!known[shard] || sum <= 0) weights[shard] = average;
  }
  // Each shard's holders, looked up once (the balance asks of every shard and site each move).
  std::map<uint32_t, std::vector<ShardHolder>> holders;
  for (const query::FragmentSite& site : *sites) {
    for (uint32_t shard : site.shards) holders[shard] = directory_.Holders(shard);
  }
  cluster::BalanceSites(
      sites, merge_share,
      [&weights](uint32_t shard) { return shard < weights.size() ? weights[shard] : 0; },
      [&holders](uint32_t shard, const std::string& node) {
        const std::vector<ShardHolder>& of = holders[shard];
        return std::any_of(of.begin(), of.end(),
                           [&node](const ShardHolder& h) { return h.node == node; });
      },
      [this](uint32_t shard) -> std::optional<uint64_t> {
        std::shared_ptr<Replica> replica = directory_.LocalReplica(shard);
        if (replica == nullptr || !directory_.LeadsUnderLease(*replica)) return std::nullopt;
        return replica->state().applied;
      });
}

absl::StatusOr<std::vector<query::FragmentSite>> ClusterShardReads::OtherSites(
    const std::vector<uint32_t>& shards, const std::set<std::string>& avoid) {
  SiteGroups groups(node_id_);
  for (uint32_t shard : shards) {
    const std::vector<ShardHolder> holders = directory_.Holders(shard);
    auto allowed = [&avoid](const ShardHolder& h) { return !avoid.contains(h.node); };
    const ShardHolder* pick =
        FirstHolder(holders, [&](const ShardHolder& h) { return h.self && allowed(h); });
    if (pick == nullptr) pick = FirstHolder(holders, allowed);
    if (pick == nullptr) {
      return absl::UnavailableError(
          StrCat("no node holding shard ", shard, " answers now",
                 avoid.empty() ? "" : StrCat(" (", absl::StrJoin(avoid, ", "), " did not)"),
                 "; retry once one is back"));
    }
    groups.Add(shard, *pick);
  }
  return groups.Take();
}

absl::StatusOr<query::QueryStats> ClusterShardReads::RunHere(
    const std::vector<uint32_t>& shards, const std::string& sql, const query::FragmentLists& lists,
    bool describe_only, steady_clock::time_point deadline, const std::atomic<bool>* cancelled,
    query::ResultSink* sink) {
  // Held while the fragment reads: a replica moving away keeps its rows until then.
  std::vector<std::shared_ptr<Replica>> held;
  for (uint32_t shard : shards) {
    std::shared_ptr<Replica> replica = directory_.LocalReplica(shard);
    if (replica == nullptr) {
      return absl::UnavailableError(StrCat("node ", node_id_, " holds no replica of shard ",
                                           shard, " now; read it from a node that does"));
    }
    held.push_back(std::move(replica));
  }
  query::ShardScope scope{.count = directory_.shard_count()};
  scope.read.assign(scope.count, false);
  for (uint32_t shard : shards) {
    if (shard < scope.count) scope.read[shard] = true;
  }
  query::QueryOptions options;
  options.page_size = 4096;
  options.timeout_millis = MillisLeft(deadline);
  options.cancelled = cancelled;
  options.describe_only = describe_only;
  options.shard_scope = &scope;
  // The coordinator found the statement's tables; this node's catalog may be a moment behind.
  options.catch_up_catalog = [this] { return directory_.CatchUpCatalog(); };
  // The statement names each of its long IN lists (`@list_1`); one it names in a condition the
  // coordinator applies itself instead is not used.
  for (const auto& [name, values] : lists) {
    options.parameters.named[name] = values;
    options.parameters.optional.insert(name);
  }
  return engine_.Execute(sql, options, sink);
}

absl::StatusOr<query::QueryStats> ClusterShardReads::RunLocal(
    const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
    bool describe_only, steady_clock::time_point deadline, const std::atomic<bool>* cancelled,
    const query::ReadChoice& choice, query::ResultSink* sink) {
  if (!describe_only) {
    const auto wait = std::chrono::milliseconds(std::min<int64_t>(MillisLeft(deadline), 10000));
    RETURN_IF_ERROR(directory_.CatchUpShards(site.shards, choice, wait));
  }
  return RunHere(site.shards, sql, lists, describe_only, deadline, cancelled, sink);
}

absl::Status ClusterShardReads::OpenInto(RemoteScan* scan, const query::FragmentSite& site,
                                         const std::string& sql, const query::FragmentLists& lists,
                                         bool describe_only, steady_clock::time_point deadline,
                                         const query::ReadChoice& choice,
                                         const ColumnsChecks* checks,
                                         const std::atomic<bool>* cancelled,
                                         const internal::v1::RelayPages* relay) {
  internal::v1::ScanRequest request;
  if (relay != nullptr) *request.mutable_relay() = *relay;
  request.set_sql(sql);
  for (const auto& [name, values] : lists) EncodeList(name, values, request.add_lists());
  for (uint32_t shard : site.shards) {
    request.add_shards(shard);
    const auto at_least = site.applied_at_least.find(shard);
    request.add_applied_at_least(at_least != site.applied_at_least.end() ? at_least->second : 0);
  }
  request.set_catalog_revision(directory_.catalog_revision());
  request.set_timeout_millis(MillisLeft(deadline));
  request.set_describe_only(describe_only);
  request.set_consistency(static_cast<int32_t>(choice.consistency));
  request.set_max_staleness_millis(choice.max_staleness.count());
  request.set_columns_first(choice.hedge_after.count() > 0);
  if (checks != nullptr) {
    if (auto it = checks->find(site.node); it != checks->end()) {
      for (const internal::v1::ColumnsCheck& check : it->second) *request.add_checks() = check;
    }
  }
  if (deadline != steady_clock::time_point::max()) {
    scan->context.set_deadline(std::chrono::system_clock::now() + (deadline - steady_clock::now()));
  }
  directory_.membership().Present(&scan->context);
  if (cancelled != nullptr) {
    scan->watch = cancel_watch_.Add([cancelled] { return cancelled->load(); },
                                    [call = &scan->context] { call->TryCancel(); });
  }
  scan->reader = stubs_.For(site.address)->Scan(&scan->context, request);
  internal::v1::ScanResponse& first = scan->first;
  if (!scan->reader->Read(&first)) {
    const grpc::Status end = scan->reader->Finish();
    if (end.error_details() == kColumnsChangedDetail) {
      ForgetColumnsOf(site.node);
      return query::ColumnsChangedError(StrCat("node ", site.node, ": ", end.error_message()));
    }
    return FromGrpc(end, site.node);
  }
  scan->columns = DecodeColumns(first);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClusterShardReads::RemoteScan>> ClusterShardReads::Open(
    const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
    bool describe_only, steady_clock::time_point deadline, const query::ReadChoice& choice,
    const ColumnsChecks* checks, const std::atomic<bool>* cancelled,
    const internal::v1::RelayPages* relay) {
  auto scan = std::make_unique<RemoteScan>();
  RETURN_IF_ERROR(OpenInto(scan.get(), site, sql, lists, describe_only, deadline, choice, checks,
                           cancelled, relay));
  return scan;
}

absl::StatusOr<std::unique_ptr<ClusterShardReads::RemoteScan>> ClusterShardReads::OpenHedged(
    const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
    bool describe_only, steady_clock::time_point deadline, const query::ReadChoice& choice,
    const ColumnsChecks* checks, const std::atomic<bool>* cancelled, query::FragmentSite* at,
    const internal::v1::RelayPages* relay) {
  *at = site;
  std::optional<query::FragmentSite> other;  // one other node holding every shard of the site
  if (choice.hedge_after.count() > 0) {
    absl::StatusOr<std::vector<query::FragmentSite>> others =
        OtherSites(site.shards, {site.node, node_id_});
    if (others.ok() && others->size() == 1) other = std::move(others->front());
  }
  if (!other) {
    return Open(site, sql, lists, describe_only, deadline, choice, checks, cancelled, relay);
  }

  struct Attempt {
    std::unique_ptr<RemoteScan> scan = std::make_unique<RemoteScan>();
    absl::Status status;
    bool done = false;
  };
  std::array<Attempt, 2> attempts;
  std::mutex mu;
  std::condition_variable settled;
  int winner = -1;  // the first attempt to answer
  auto attempt = [&](int i, const query::FragmentSite& where) {
    absl::Status opened = OpenInto(attempts[i].scan.get(), where, sql, lists, describe_only,
                                   deadline, choice, checks, cancelled, relay);
    std::lock_guard lock(mu);
    attempts[i].status = std::move(opened);
    attempts[i].done = true;
    if (attempts[i].status.ok() && winner < 0) winner = i;
    settled.notify_all();
  };
  // Past the process's threads (common/start_thread.h) the fragment is read unhedged.
  absl::StatusOr<std::thread> started = StartThread("a hedged fragment", [&] { attempt(0, site); });
  if (!started.ok()) {
    return Open(site, sql, lists, describe_only, deadline, choice, checks, cancelled, relay);
  }
  std::thread first = *std::move(started);
  std::thread second;
  {
    std::unique_lock lock(mu);
    if (!settled.wait_for(lock, choice.hedge_after, [&] { return attempts[0].done; })) {
      absl::StatusOr<std::thread> hedge =
          StartThread("a hedged fragment", [&] { attempt(1, *other); });
      if (hedge.ok()) {
        spdlog::info("a query's fragment at node {} has not answered in {} ms; asking node {} too",
                     site.node, choice.hedge_after.count(), other->node);
        second = *std::move(hedge);
      }
    }
    const bool hedged = second.joinable();
    settled.wait(
        lock, [&] { return winner >= 0 || (attempts[0].done && (!hedged || attempts[1].done)); });
    for (int i = 0; i < 2; ++i) {
      if (i != winner) attempts[i].scan->context.TryCancel();  // the slower one stops
    }
  }
  first.join();
  if (second.joinable()) second.join();
  for (int i = 0; i < 2; ++i) {
    // Not asked, failed, or the one read.
    if (i == winner || !attempts[i].done || !attempts[i].status.ok()) continue;
    internal::v1::ScanResponse rest;  // answered too, after the winner: closed unread
    while (attempts[i].scan->reader->Read(&rest)) {
    }
    attempts[i].scan->reader->Finish().ok();
  }
  if (winner < 0) return attempts[0].status;
  if (winner == 1) *at = *other;
  return std::move(attempts[winner].scan);
}

absl::StatusOr<ClusterShardReads::SiteColumns> ClusterShardReads::Describe(
    const query::FragmentSite& site, const std::string& sql, steady_clock::time_point deadline,
    const query::ReadChoice& choice, bool ask_again, bool* remembered) {
  if (site.local) {
    query::ColumnsSink sink;
    RETURN_IF_ERROR(
        RunHere(site.shards, sql, {}, /*describe_only=*/true, deadline, nullptr, &sink).status());
    return SiteColumns{.columns = sink.columns()};
  }
  const std::string key = KnownColumnsKey(site, sql);
  if (!ask_again) {
    absl::MutexLock lock(&known_mu_);
    if (auto it = known_columns_.find(key); it != known_columns_.end()) {
      *remembered = true;
      return it->second;
    }
  }
  SiteColumns out;
  // Several nodes in its place: each one's columns, once.
  auto add = [&out](std::vector<query::ResultColumn> more) {
    for (query::ResultColumn& c : more) {
      if (std::none_of(out.columns.begin(), out.columns.end(),
                       [&](const query::ResultColumn& d) { return d.name == c.name; })) {
        out.columns.push_back(std::move(c));
      }
    }
  };
  bool own_answer = false;  // the site's node answered, alone
  RETURN_IF_ERROR(Reach(site, {}, [&](const query::FragmentSite& at) -> absl::Status {
    own_answer = false;
    if (at.local) {
      query::ColumnsSink sink;
      RETURN_IF_ERROR(RunLocal(at, sql, {}, true, deadline, nullptr, choice, &sink).status());
      add(sink.columns());
      return absl::OkStatus();
    }
    query::FragmentSite answering;
    ASSIGN_OR_RETURN(std::unique_ptr<RemoteScan> scan,
                     OpenHedged(at, sql, {}, true, deadline, choice, nullptr, nullptr, &answering));
    internal::v1::ScanResponse rest;
    while (scan->reader->Read(&rest)) {
    }
    if (grpc::Status end = scan->reader->Finish(); !end.ok()) return FromGrpc(end, answering.node);
    add(std::move(scan->columns));
    own_answer = answering.node == site.node;
    return absl::OkStatus();
  }));
  if (own_answer) {
    internal::v1::ColumnsCheck check;
    check.set_sql(sql);
    check.set_fingerprint(ColumnsFingerprint(out.columns));
    out.check = std::move(check);
    absl::MutexLock lock(&known_mu_);
    if (known_columns_.size() >= kMaxKnownColumns) known_columns_.clear();
    known_columns_[key] = out;
  }
  return out;
}

std::string ClusterShardReads::KnownColumnsKey(const query::FragmentSite& site,
                                               const std::string& sql) {
  return StrCat(SiteKey(site), "\n", sql);
}

bool ClusterShardReads::RemembersColumns(const query::FragmentSite& site, const std::string& sql) {
  absl::MutexLock lock(&known_mu_);
  return known_columns_.contains(KnownColumnsKey(site, sql));
}

void ClusterShardReads::ForgetColumnsOf(const std::string& node) {
  const std::string prefix = node + "\n";
  absl::MutexLock lock(&known_mu_);
  for (auto it = known_columns_.begin(); it != known_columns_.end();) {
    if (it->first.starts_with(prefix)) {
      known_columns_.erase(it++);
    } else {
      ++it;
    }
  }
}

absl::Status ClusterShardReads::Reach(
    const query::FragmentSite& site, std::set<std::string> avoid,
    const std::function<absl::Status(const query::FragmentSite&)>& attempt) {
  absl::Status tried = attempt(site);
  if (!absl::IsUnavailable(tried) || site.local) return tried;
  // The node is down or cut off (it may still be a member until its lease ends): its shards
  // are read from the other nodes holding them, this one first.
  avoid.insert(site.node);
  absl::StatusOr<std::vector<query::FragmentSite>> instead = OtherSites(site.shards, avoid);
  if (!instead.ok()) return tried;
  for (const query::FragmentSite& other : *instead) {
    RETURN_IF_ERROR(Reach(other, avoid, attempt));
  }
  return absl::OkStatus();
}

absl::Status ClusterShardReads::Run(
    const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
    steady_clock::time_point deadline, const std::atomic<bool>* cancelled,
    const std::function<void()>& answered, const query::ShardReads::Push& push,
    const query::ShardReads::Relay* relay, const query::ReadChoice& choice,
    const ColumnsChecks& checks, query::QueryStats* scanned) {
  // A fragment here; one that stopped because the query had enough rows ended well (its
  // scans uncounted).
  auto here = [&](const absl::StatusOr<query::QueryStats>& ran, const PushSink& sink) {
    if (ran.ok()) AddScans(*ran, scanned);
    return sink.enough() ? absl::OkStatus() : ran.status();
  };
  if (site.local) {
    answered();
    PushSink sink(&push);
    return here(RunHere(site.shards, sql, lists, false, deadline, cancelled, &sink), sink);
  }
  bool sent = false;  // once rows went on, another node cannot take over without repeating them
  return Reach(site, {}, [&](const query::FragmentSite& at) -> absl::Status {
    if (at.local) {
      answered();
      PushSink sink(&push);
      return here(RunLocal(at, sql, lists, false, deadline, cancelled, choice, &sink), sink);
    }
    absl::Status ran = RunRemote(at, sql, lists, deadline, cancelled, answered, push, relay, choice,
                                 checks, &sent, scanned);
    if (sent && absl::IsUnavailable(ran)) {
      // Not UNAVAILABLE: another node would send those rows again.
      return absl::AbortedError(StrCat(ran.message(), " (after it sent rows; run it again)"));
    }
    return ran;
  });
}

absl::Status ClusterShardReads::RunRemote(
    const query::FragmentSite& site, const std::string& sql, const query::FragmentLists& lists,
    steady_clock::time_point deadline, const std::atomic<bool>* cancelled,
    const std::function<void()>& answered, const query::ShardReads::Push& push,
    const query::ShardReads::Relay* relay, const query::ReadChoice& choice,
    const ColumnsChecks& checks, bool* sent, query::QueryStats* scanned) {
  query::FragmentSite answering;
  // A call the query's cancellation stopped (CancelWatch) failed CANCELLED in the transport:
  // say why.
  auto why = [cancelled](absl::Status failed) {
    if (!failed.ok() && cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
      return absl::CancelledError("the query was cancelled");
    }
    return failed;
  };
  std::optional<internal::v1::RelayPages> relay_pages;
  if (relay != nullptr) {
    relay_pages.emplace();
    relay_pages->set_page_size(relay->form.page_size);
    relay_pages->set_page_bytes(relay->form.page_bytes);
    relay_pages->set_row_pages(relay->form.row_pages);
    for (const query::ResultColumn& c : relay->columns) {
      internal::v1::ScanColumn* column = relay_pages->add_columns();
      column->set_name(c.name);
      column->set_type(static_cast<int32_t>(c.type));
    }
  }
  absl::StatusOr<std::unique_ptr<RemoteScan>> opened =
      OpenHedged(site, sql, lists, false, deadline, choice, &checks, cancelled, &answering,
                 relay_pages ? &*relay_pages : nullptr);
  if (!opened.ok()) return why(opened.status());
  std::unique_ptr<RemoteScan> scan = *std::move(opened);
  answered();
  std::vector<query::DataType> types;
  for (const query::ResultColumn& c : scan->columns) types.push_back(c.type);
  absl::Status failed;
  bool enough = false;
  // One answer: false once the fragment is to stop.
  auto take = [&](internal::v1::ScanResponse& page) {
    if (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
      failed = absl::CancelledError("the query was cancelled");
      return false;
    }
    if (page.rows() > 0) {
      *sent = true;
      absl::StatusOr<bool> go_on;
      if (!page.relayed_page().empty()) {  // the client's page, made there
        if (relay == nullptr) {
          failed = absl::InternalError(
              StrCat("node ", answering.node, " sent a client's page that was not asked for"));
          return false;
        }
        go_on =
            relay->push(std::move(*page.mutable_relayed_page()), static_cast<size_t>(page.rows()));
      } else {
        absl::StatusOr<query::Batch> batch = DecodeBatch(page, types);
        if (!batch.ok()) {
          failed =
              absl::InternalError(StrCat("node ", answering.node, ": ", batch.status().message()));
          return false;
        }
        go_on = push(*batch, scan->columns);
      }
      if (!go_on.ok()) failed = go_on.status();
      enough = go_on.ok() && !*go_on;
      if (!failed.ok() || enough) return false;
    }
    if (page.has_stats()) AddScans(DecodeStats(page), scanned);  // the last answer
    return true;
  };
  internal::v1::ScanResponse page;
  for (bool go_on = take(scan->first); go_on && scan->reader->Read(&page);) go_on = take(page);
  if (!failed.ok() || enough) {
    scan->context.TryCancel();
    while (scan->reader->Read(&page)) {
    }
    scan->reader->Finish().ok();
    return failed;
  }
  if (grpc::Status end = scan->reader->Finish(); !end.ok()) {
    return why(FromGrpc(end, answering.node));
  }
  return absl::OkStatus();
}

}  // namespace strata::cluster
