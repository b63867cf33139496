#include "cluster/shard_reads.h"

#include <algorithm>
#include <map>

#include "cluster/scan_pages.h"
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
    for (const query::ResultColumn& c : columns) types_.push_back(c.type);
    return absl::OkStatus();
  }
  bool TakesBatches() const override { return true; }
  absl::Status Batches(const query::Batch& batch) override {
    ASSIGN_OR_RETURN(const bool go_on, push_(batch));
    if (go_on) return absl::OkStatus();
    enough_ = true;
    return absl::CancelledError("enough rows");  // stops the fragment; not an error
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    query::Batch batch = query::NewBatch(types_, page.size());
    for (size_t r = 0; r < page.size(); ++r) {
      for (size_t c = 0; c < types_.size(); ++c) batch.columns[c].Set(r, page[r][c]);
    }
    return Batches(batch);
  }
  bool enough() const { return enough_; }

 private:
  const query::ShardReads::Push& push_;
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
  std::map<std::string, query::FragmentSite> others;  // by node id
  for (uint32_t shard = 0; shard < count; ++shard) {
    if (directory_.LocalReplica(shard) != nullptr) {
      here.shards.push_back(shard);
      continue;
    }
    const std::vector<ShardHolder> holders = directory_.Holders(shard);
    if (holders.empty()) {
      return absl::UnavailableError(
          StrCat("no node holding shard ", shard,
                 " is a member now (they are restarting, or cut off); retry once one is back"));
    }
    query::FragmentSite& site = others[holders.front().node];
    site.node = holders.front().node;
    site.address = holders.front().address;
    site.shards.push_back(shard);
  }
  if (here.shards.size() == count) return std::vector<query::FragmentSite>();
  std::vector<query::FragmentSite> sites;
  if (!here.shards.empty()) sites.push_back(std::move(here));
  for (auto& [node, site] : others) sites.push_back(std::move(site));
  return sites;
}

absl::Status ClusterShardReads::RunHere(const std::vector<uint32_t>& shards, const std::string& sql,
                                        bool describe_only, steady_clock::time_point deadline,
                                        const std::atomic<bool>* cancelled,
                                        query::ResultSink* sink) {
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
  ASSIGN_OR_RETURN(std::unique_ptr<RemoteScan> scan, Open(site, sql, true, deadline));
  internal::v1::ScanResponse rest;
  while (scan->reader->Read(&rest)) {
  }
  if (grpc::Status end = scan->reader->Finish(); !end.ok()) return FromGrpc(end, site.node);
  return scan->columns;
}

absl::Status ClusterShardReads::Run(const query::FragmentSite& site, const std::string& sql,
                                    steady_clock::time_point deadline,
                                    const std::atomic<bool>* cancelled, const Push& push) {
  if (site.local) {
    PushSink sink(&push);
    absl::Status ran = RunHere(site.shards, sql, false, deadline, cancelled, &sink);
    return sink.enough() ? absl::OkStatus() : ran;
  }
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
      failed =
          FromGrpc(grpc::Status(grpc::StatusCode::INTERNAL, std::string(batch.status().message())),
                   site.node);
      break;
    }
    absl::StatusOr<bool> go_on = push(*batch);
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
