// ShardRouter: a cluster node's write sink (storage/write/write_sink.h). It normalizes a
// write's records as the writer would (the same rejections for invalid ones), claims the
// names new to the table cluster-wide (schema_claims.h: records contradicting a claim are
// rejected here), splits the rest by shard (shard_map.h) and sends each shard's part to the
// shard's leader — this node's own replica, or another node's over the internal service —
// retrying through a failover, then merges the answers. A write spanning shards is atomic
// per shard: if one shard cannot be written the call fails with UNAVAILABLE naming it, and
// some shards may be written; a retry is idempotent under the version rules (docs/api.md).
//
// Thread-safety: WriteAsync may be called from any thread.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "cluster/membership.h"
#include "cluster/peer_stubs.h"
#include "cluster/replica.h"
#include "cluster/schema_claims.h"
#include "query/base/read_choice.h"
#include "query/delete_sink.h"
#include "storage/catalog/catalog.h"
#include "storage/write/write_sink.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

// A node holding a replica of a shard.
struct ShardHolder {
  std::string node;
  std::string address;
  bool self = false;
  bool leader = false;  // leads the shard, as far as this node knows
};

// What the router, the internal service and the fragments of queries ask of the node they
// run on.
class ShardDirectory {
 public:
  virtual ~ShardDirectory() = default;
  virtual uint32_t shard_count() const = 0;
  // The address of the node leading `shard` (empty when none does right now) and whether it
  // is this node.
  virtual std::string LeaderAddress(uint32_t shard, bool* self) = 0;
  // This node's replica of `shard` (joining or serving), null when it holds none.
  virtual std::shared_ptr<Replica> LocalReplica(uint32_t shard) = 0;
  virtual int64_t catalog_revision() = 0;
  // Whether this node campaigns for the shards it holds (not while stopping).
  virtual bool TakesLeads() const = 0;
  // Brings this node's catalog up to etcd's current revision (a table just created through
  // another node); false if it could not.
  virtual bool CatchUpCatalog() = 0;
  // How this node proves membership when it calls another (membership.h).
  virtual const Membership& membership() const = 0;
  // The nodes holding a replica of `shard` that are members now, its leader first.
  virtual std::vector<ShardHolder> Holders(uint32_t shard) = 0;
  // Brings this node's replicas of `shards` up to `choice` (query/base/read_choice.h): a
  // replica leading under a live lease is current; any other waits until it applied its log
  // to where the log ends now, unless `choice` is a follower read and it was current within
  // the choice's staleness. UNAVAILABLE after `wait`.
  virtual absl::Status CatchUpShards(const std::vector<uint32_t>& shards,
                                     const query::ReadChoice& choice,
                                     std::chrono::milliseconds wait) = 0;
  // Waits until this node's catalog reached etcd revision `revision`; false if it did not.
  virtual bool WaitCatalog(int64_t revision, std::chrono::milliseconds wait) = 0;
  // `replica` leads its shard and this node's etcd lease is sure to last a while yet: no
  // other node can acknowledge a write to the shard meanwhile.
  virtual bool LeadsUnderLease(Replica& replica) = 0;
};

class ShardRouter final : public WriteSink, public query::DeleteSink {
 public:
  // All must outlive the router. `call_bytes`: what one call to another node carries at most
  // (ClusterOptions::peer_page_bytes), its parts too.
  ShardRouter(ShardDirectory* directory, Catalog* catalog, SchemaClaims* claims, int threads,
              size_t call_bytes);
  ~ShardRouter() override;

  void WriteAsync(WriteSource& source, WriteDone done) override;
  // A DELETE's points: each shard's to its leader, which logs them in an entry of their own;
  // every replica deletes them there. Like a write, atomic per shard (UNAVAILABLE naming a
  // shard that failed; a retry deletes what is left).
  absl::StatusOr<int64_t> Delete(const TableInfo& table,
                                 std::vector<query::SeriesDeletion> deletions) override;

 private:
  struct Task;
  struct Merge;
  // One shard's part of a request: `count` records, encoded back to back.
  struct Part {
    uint32_t shard = 0;
    int count = 0;
    std::string encoded;
  };
  // Records by shard, in parts of about `limit` bytes at most: a part is logged whole in one
  // entry, which must fit a NATS message.
  class PartCutter {
   public:
    PartCutter(uint32_t shards, size_t limit) : open_(shards), limit_(limit) {}
    // The index the next record of `shard`'s open part has within it.
    int next_in_part(uint32_t shard) const { return open_[shard].count; }
    // Encodes `record` (with `index`: record_codec.h) into `shard`'s open part, which is
    // closed once it holds `limit` bytes.
    void Add(uint32_t shard, int index, const NormalizedRecord& record);
    // Every part, the open ones closed.
    std::vector<Part> Take();

   private:
    std::vector<Part> open_;
    std::vector<Part> closed_;
    const size_t limit_;
  };
  // Queues each part for its shard's leader; `merge` gets the answers.
  void Dispatch(const TableInfo& table, std::vector<Part> parts, bool erase,
                std::shared_ptr<Merge> merge);
  // Sends the parts of `task`, whose shards one other node led when they were queued, in one
  // call; a part whose leader moved meanwhile (or all, when the call fails) is queued again
  // on its own, as WriteShard retries it.
  void WriteTogether(std::unique_ptr<Task> task);
  // Writes one shard's part, retrying through leader changes until `deadline`.
  absl::StatusOr<internal::v1::ShardWriteResponse> WriteShard(
      const internal::v1::ShardWriteRequest& request,
      std::chrono::steady_clock::time_point deadline);
  // One try, given up at `deadline`.
  absl::StatusOr<internal::v1::ShardWriteResponse> WriteOnce(
      const internal::v1::ShardWriteRequest& request,
      std::chrono::steady_clock::time_point deadline);
  void Work();

  ShardDirectory& directory_;
  Catalog& catalog_;
  SchemaClaims& claims_;
  const size_t call_bytes_;
  PeerStubs stubs_;
  absl::Mutex mu_;
  std::deque<std::unique_ptr<Task>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

// Converts a write result to and from the internal service's answer.
void ToProto(const WriteResult& result, internal::v1::ShardWriteResponse* out);
WriteResult FromProto(const internal::v1::ShardWriteResponse& response);

}  // namespace strata::cluster
