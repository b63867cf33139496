#include "cluster/shard_reads.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_join.h"
#include "cluster/scan_pages.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/parse/parser.h"

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

}  // namespace

struct ClusterShardReads::RemoteScan {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<internal::v1::ScanResponse>> reader;
  std::vector<query::ResultColumn> columns;
};

absl::StatusOr<std::vector<query::FragmentSite>> ClusterShardReads::Sites() {
  const uint32_t count = directory_.shard_count();
  query::FragmentSite here{.node = node_id_, .local = true};
  std::vector<uint32_t> elsewhere;
  for (uint32_t shard = 0; shard < count; ++shard) {
    if (directory_.LocalReplica(shard) != nullptr) {
      here.shards.push_back(shard);
    } else {
      elsewhere.push_back(shard);
    }
  }
  if (elsewhere.empty()) return std::vector<query::FragmentSite>();
  ASSIGN_OR_RETURN(std::vector<query::FragmentSite> sites, RemoteSites(elsewhere, {}));
  if (!here.shards.empty()) sites.insert(sites.begin(), std::move(here));
  return sites;
}

absl::StatusOr<std::vector<query::FragmentSite>> ClusterShardReads::RemoteSites(
    const std::vector<uint32_t>& shards, const std::set<std::string>& avoid) {
  std::map<std::string, query::FragmentSite> sites;  // by node id
  for (uint32_t shard : shards) {
    bool chosen = false;
    for (const ShardHolder& holder : directory_.Holders(shard)) {
      if (holder.self || avoid.contains(holder.node)) continue;
      query::FragmentSite& site = sites[holder.node];
      site.node = holder.node;
      site.address = holder.address;
      site.shards.push_back(shard);
      chosen = true;
      break;
    }
    if (!chosen) {
      return absl::UnavailableError(
          StrCat("no node holding shard ", shard, " answers now",
                 avoid.empty() ? "" : StrCat(" (", absl::StrJoin(avoid, ", "), " did not)"),
                 "; retry once one is back"));
    }
  }
  std::vector<query::FragmentSite> out;
  for (auto& [node, site] : sites) out.push_back(std::move(site));
  return out;
}

absl::Status ClusterShardReads::RunHere(const std::vector<uint32_t>& shards, const std::string& sql,
                                        bool describe_only, steady_clock::time_point deadline,
                                        const std::atomic<bool>* cancelled,
                                        query::ResultSink* sink) {
  // A fragment reads: a statement that changes anything here would change one replica
  // outside its shard's log.
  ASSIGN_OR_RETURN(query::Statement statement, query::Parse(sql));
  using Kind = query::Statement::Kind;
  if (statement.kind != Kind::kSelect && statement.kind != Kind::kDescribe &&
      statement.kind != Kind::kShowMeasures) {
    return absl::InvalidArgumentError(
        "a fragment is a SELECT, DESCRIBE or SHOW MEASURES; nothing that writes");
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
  return engine_.Execute(sql, options, sink).status();
}

absl::StatusOr<std::unique_ptr<ClusterShardReads::RemoteScan>> ClusterShardReads::Open(
    const query::FragmentSite& site, const std::string& sql, bool describe_only,
    steady_clock::time_point deadline) {
  auto scan = std::make_unique<RemoteScan>();
  internal::v1::ScanRequest request;
  request.set_sql(sql);
  for (uint32_t shard : site.shards) request.add_shards(shard);
  request.set_catalog_revision(directory_.catalog_revision());
  request.set_timeout_millis(MillisLeft(deadline));
  request.set_describe_only(describe_only);
  if (deadline != steady_clock::time_point::max()) {
    scan->context.set_deadline(std::chrono::system_clock::now() + (deadline - steady_clock::now()));
  }
  directory_.membership().Present(&scan->context);
  scan->reader = stubs_.For(site.address)->Scan(&scan->context, request);
  internal::v1::ScanResponse first;
  if (!scan->reader->Read(&first)) return FromGrpc(scan->reader->Finish(), site.node);
  scan->columns = DecodeColumns(first);
  return scan;
}

absl::StatusOr<std::vector<query::ResultColumn>> ClusterShardReads::Describe(
    const query::FragmentSite& site, const std::string& sql, steady_clock::time_point deadline) {
  if (site.local) {
    query::ColumnsSink sink;
    RETURN_IF_ERROR(RunHere(site.shards, sql, /*describe_only=*/true, deadline, nullptr, &sink));
    return sink.columns();
  }
  std::vector<query::ResultColumn> columns;
  RETURN_IF_ERROR(Reach(site, {}, [&](const query::FragmentSite& at) -> absl::Status {
    ASSIGN_OR_RETURN(std::unique_ptr<RemoteScan> scan, Open(at, sql, true, deadline));
    internal::v1::ScanResponse rest;
    while (scan->reader->Read(&rest)) {
    }
    if (grpc::Status end = scan->reader->Finish(); !end.ok()) return FromGrpc(end, at.node);
    // Several nodes in its place: each one's columns, once.
    for (query::ResultColumn& c : scan->columns) {
      if (std::none_of(columns.begin(), columns.end(),
                       [&](const query::ResultColumn& d) { return d.name == c.name; })) {
        columns.push_back(std::move(c));
      }
    }
    return absl::OkStatus();
  }));
  return columns;
}

absl::Status ClusterShardReads::Reach(
    const query::FragmentSite& site, std::set<std::string> avoid,
    const std::function<absl::Status(const query::FragmentSite&)>& attempt) {
  absl::Status tried = attempt(site);
  if (!absl::IsUnavailable(tried)) return tried;
  // The node is down or cut off (it may still be a member until its lease ends): its shards
  // are read from the other nodes holding them.
  avoid.insert(site.node);
  absl::StatusOr<std::vector<query::FragmentSite>> instead = RemoteSites(site.shards, avoid);
  if (!instead.ok()) return tried;
  for (const query::FragmentSite& other : *instead) {
    RETURN_IF_ERROR(Reach(other, avoid, attempt));
  }
  return absl::OkStatus();
}

absl::Status ClusterShardReads::Run(const query::FragmentSite& site, const std::string& sql,
                                    steady_clock::time_point deadline,
                                    const std::atomic<bool>* cancelled, const Push& push) {
  if (site.local) {
    PushSink sink(&push);
    absl::Status ran = RunHere(site.shards, sql, false, deadline, cancelled, &sink);
    return sink.enough() ? absl::OkStatus() : ran;
  }
  bool sent = false;  // once rows went on, another node cannot take over without repeating them
  return Reach(site, {}, [&](const query::FragmentSite& at) -> absl::Status {
    absl::Status ran = RunRemote(at, sql, deadline, cancelled, push, &sent);
    if (sent && absl::IsUnavailable(ran)) {
      // Not UNAVAILABLE: another node would send those rows again.
      return absl::AbortedError(StrCat(ran.message(), " (after it sent rows; run it again)"));
    }
    return ran;
  });
}

absl::Status ClusterShardReads::RunRemote(const query::FragmentSite& site, const std::string& sql,
                                          steady_clock::time_point deadline,
                                          const std::atomic<bool>* cancelled, const Push& push,
                                          bool* sent) {
  ASSIGN_OR_RETURN(std::unique_ptr<RemoteScan> scan, Open(site, sql, false, deadline));
  std::vector<query::DataType> types;
  for (const query::ResultColumn& c : scan->columns) types.push_back(c.type);
  internal::v1::ScanResponse page;
  absl::Status failed;
  bool enough = false;
  while (failed.ok() && !enough && scan->reader->Read(&page)) {
    if (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
      failed = absl::CancelledError("the query was cancelled");
      break;
    }
    absl::StatusOr<query::Batch> batch = DecodeBatch(page, types);
    if (!batch.ok()) {
      failed = absl::InternalError(StrCat("node ", site.node, ": ", batch.status().message()));
      break;
    }
    *sent = true;
    absl::StatusOr<bool> go_on = push(*batch, scan->columns);
    if (!go_on.ok()) failed = go_on.status();
    enough = go_on.ok() && !*go_on;
  }
  if (!failed.ok() || enough) {
    scan->context.TryCancel();
    while (scan->reader->Read(&page)) {
    }
    scan->reader->Finish().ok();
    return failed;
  }
  if (grpc::Status end = scan->reader->Finish(); !end.ok()) return FromGrpc(end, site.node);
  return absl::OkStatus();
}

}  // namespace strata::cluster
