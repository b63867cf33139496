// A shard's rows copied from one node's engine into another's: how a new replica is built
// from a peer's checkpoint and the log's tail (docs/cluster.md, "Building a replica"), so
// that a shard's log can be trimmed and a move need not read the shard's whole history.
//
// The peer takes its replica's applied state S first, then scans the shard's series in every
// table (one RocksDB snapshot and memory-head view per table, taken after S) and sends their
// live rows with their versions. The rows it sends hold every entry through S and perhaps
// some later ones. The new replica writes them, stores S as its applied state, and applies
// the log from S + 1: an entry already in the rows changes nothing again (the same value at
// the same version is a no-op, a lower version is rejected, a DELETE's points are deleted and
// written again by the later writes that follow it in the log), so it ends in the state the
// peer's replica had at the same sequence.
//
// Thread-safety: the functions may run concurrently with the engine's writes and scans.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cluster/membership.h"
#include "cluster/replica.h"
#include "storage/engine.h"
#include "strata/internal/v1/shard.grpc.pb.h"

namespace strata::cluster {

// Rows of one table, encoded as record_codec.h encodes a shard's records (each record's
// index is its place in the part). `now_nanos` is the time their write is judged at: the
// newest row's, so each row is in its table's memory-store window whatever the receiver's
// clock says (a part spans at most half an hour; the memory store keeps at least one).
struct CheckpointPart {
  std::string database;
  std::string table;
  int count = 0;
  std::string records;
  int64_t now_nanos = 0;
};

// Sends every live row of the shard `shard` of `shards` this engine holds, as parts of at
// most kCheckpointPartRecords records, cut once their records pass `max_part_bytes`
// (ClusterOptions::peer_page_bytes). Stops with CANCELLED once `stop` says so, or with the
// first error `send` returns.
inline constexpr int kCheckpointPartRecords = 10'000;
absl::Status SendCheckpoint(Engine& engine, uint32_t shard, uint32_t shards, size_t max_part_bytes,
                            const std::function<absl::Status(CheckpointPart part)>& send,
                            const std::function<bool()>& stop);

// Writes one part into `engine` (waiting out a busy writer or memory head, and until
// `stop`). A row the engine rejects fails the part (FAILED_PRECONDITION naming it): the
// replica would differ from its peer's.
absl::Status WriteCheckpointPart(Engine& engine, const CheckpointPart& part,
                                 const std::function<bool()>& stop);

// Copies a peer's checkpoint of shard `shard` (ShardService.Checkpoint) into `engine`, once
// `wait_catalog` says this node's catalog reached the peer's revision; returns the state the
// rows hold (for the caller to store: the rows are durable when this returns) and the rows
// copied. Stops with CANCELLED once `stop` says so; UNAVAILABLE naming the peer when it fails.
struct CopiedCheckpoint {
  ReplicaState state;
  int64_t rows = 0;
};
absl::StatusOr<CopiedCheckpoint> CopyCheckpoint(
    internal::v1::ShardService::Stub& peer, std::string_view peer_name,
    const Membership& membership, Engine& engine, uint32_t shard,
    const std::function<bool(int64_t revision)>& wait_catalog, const std::function<bool()>& stop);

}  // namespace strata::cluster
