// One entry of a shard's log (a message on its JetStream stream, docs/cluster.md):
//
//   format (1 byte, 3) · kind (1 byte) · epoch (varint) · leader time (zig-zag varint) ·
//   catalog revision (varint) · previous digest (fixed64) · intended sequence (varint) ·
//   id (length-prefixed) ·
//   write count (varint) · count × [database · table · records (each length-prefixed,
//   records as cluster/record_codec.h encodes them) · windows: 0, or 1 · memory hours
//   (varint) · magnetic days (varint) · magnetic-store writes (1 byte) · memory floor ·
//   retention floor (zig-zag varints)]
//
// Format 2 has no windows; format 1 no intended sequence either. Every node of a cluster
// must read the format its leaders write: upgrade all nodes together.
//
// A barrier (kind 1) has no writes: a new leader publishes one to fence its predecessor and
// learn where the log ends. Deletes (kind 3) hold a DELETE's points (records naming a series
// and a time) in place of rows; every replica deletes those it holds there. Writes (kind 2)
// are validated and normalized records; every
// replica applies them with the version rules at the leader's time, in log order, so every
// replica takes the same decisions (docs/architecture.md, "Cluster: why the log holds
// records").
//
// The digest chain: digest(n) = XXH3(entry n's bytes, seed digest(n-1)), digest(0) = 0. An
// entry carries its predecessor's digest; a replica whose chain differs has a log that lost
// or changed entries, and stops rather than diverge.
//
// The intended sequence is where the publisher expected the entry to land (its view of the
// log's end + 1; format 1 has none: 0). NATS's expected-last-sequence check is the first
// fence; this is the second, at apply: an entry found at another sequence came from a
// publisher with a stale view, and every replica refuses it alike (a no-op that leaves the
// chain as it was), so a fence NATS misses cannot fork the replicas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"

namespace strata::cluster {

struct LogWrite {
  std::string database;
  std::string table;
  std::string records;  // record_codec.h
  // The table's windows as the leader's catalog had them when it published (format 3):
  // every replica judges the records' times by these, not by its catalog at apply time,
  // which may already hold a later change of the table (a retention, magnetic-store writes
  // turned off). Unset in older entries, and for a table the leader did not know.
  std::optional<TableWindows> windows;
};

struct LogEntry {
  enum Kind : uint8_t { kBarrier = 1, kWrites = 2, kDeletes = 3 };
  Kind kind = kBarrier;
  int64_t epoch = 0;
  int64_t leader_nanos = 0;
  int64_t catalog_revision = 0;
  uint64_t previous_digest = 0;
  uint64_t intended_sequence = 0;  // 0: not known (format 1)
  std::string id;  // the publish's message id: the leader finds its callers' results by it
  std::vector<LogWrite> writes;
};

std::string EncodeLogEntry(const LogEntry& entry);
absl::StatusOr<LogEntry> DecodeLogEntry(std::string_view bytes);
// The chain digest after an entry of `bytes` whose predecessor's digest is `previous`.
uint64_t ChainDigest(uint64_t previous, std::string_view bytes);

}  // namespace strata::cluster
