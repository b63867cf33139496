#include "cluster/checkpoint.h"

#include <future>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "cluster/record_codec.h"
#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {
namespace {

// A part's rows span at most this much time: written at the newest one's time, the oldest
// is still in the memory store's window (at least an hour).
constexpr int64_t kMaxPartSpanNanos = 30 * kNanosPerMinute;
// One table's parts as its rows come.
class PartBuilder {
 public:
  PartBuilder(const TableInfo& table, size_t max_bytes,
              const std::function<absl::Status(CheckpointPart)>& send)
      : table_(table), max_bytes_(max_bytes), send_(send) {}

  absl::Status Add(const NormalizedRecord& record) {
    if (count_ > 0 && (count_ == kCheckpointPartRecords || encoded_.size() >= max_bytes_ ||
                       record.time_nanos < newest_ - kMaxPartSpanNanos ||
                       record.time_nanos > oldest_ + kMaxPartSpanNanos)) {
      RETURN_IF_ERROR(Flush());
    }
    if (count_ == 0) oldest_ = newest_ = record.time_nanos;
    oldest_ = std::min(oldest_, record.time_nanos);
    newest_ = std::max(newest_, record.time_nanos);
    EncodeRecord(count_++, record, &encoded_);
    return absl::OkStatus();
  }

  absl::Status Flush() {
    if (count_ == 0) return absl::OkStatus();
    CheckpointPart part{.database = table_.database_name,
                        .table = table_.name,
                        .count = count_,
                        .records = EncodeRecords(count_, encoded_),
                        .now_nanos = newest_};
    count_ = 0;
    encoded_.clear();
    return send_(std::move(part));
  }

 private:
  const TableInfo& table_;
  const size_t max_bytes_;
  const std::function<absl::Status(CheckpointPart)>& send_;
  int count_ = 0;
  std::string encoded_;
  int64_t oldest_ = 0;
  int64_t newest_ = 0;
};

absl::Status SendTable(Engine& engine, const TableInfo& table, uint32_t shard, uint32_t shards,
                       size_t max_part_bytes,
                       const std::function<absl::Status(CheckpointPart)>& send,
                       const std::function<bool()>& stop) {
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, engine.TableStateOf(table));
  const std::vector<std::shared_ptr<const SeriesInfo>> all = state->AllSeries();
  std::vector<uint32_t> order;
  const std::vector<SeriesTarget> every = SeriesTargetsOf(all, table.partition_key, &order);
  std::vector<SeriesTarget> targets;
  absl::flat_hash_map<uint64_t, const SeriesInfo*> info;
  for (size_t i = 0; i < every.size(); ++i) {
    if (ShardOf(every[i].routing, shards) != shard) continue;
    targets.push_back(every[i]);
    info[every[i].series] = all[order[i]].get();
  }
  if (targets.empty()) return absl::OkStatus();
  // A series' measure is scalar or MULTI for the whole table (one kind per measure name).
  absl::flat_hash_map<std::string, bool> multi;
  for (const auto& [name, schema] : state->Measures()) {
    multi[name] = schema.kind == MeasureKind::kMulti;
  }
  PartBuilder parts(table, max_part_bytes, send);
  absl::Status sent;
  ScanOptions options{.series = &targets};
  RETURN_IF_ERROR(engine.Scan(table, options, [&](const ScanRow& row) {
    if (stop()) {
      sent = absl::CancelledError("the checkpoint was stopped");
      return false;
    }
    const SeriesInfo& series = *info.at(row.series);
    NormalizedRecord record;
    for (const auto& [name, value] : series.dimensions) record.dimensions.emplace_back(name, value);
    record.measure_name = series.measure_name;
    record.multi = multi[series.measure_name];
    record.measures = MeasureList::Of(row.measures);
    record.time_nanos = row.time_nanos;
    record.version = row.version;
    sent = parts.Add(record);
    return sent.ok();
  }));
  RETURN_IF_ERROR(sent);
  return parts.Flush();
}

}  // namespace

absl::Status SendCheckpoint(Engine& engine, uint32_t shard, uint32_t shards, size_t max_part_bytes,
                            const std::function<absl::Status(CheckpointPart part)>& send,
                            const std::function<bool()>& stop) {
  for (const std::shared_ptr<const TableInfo>& table : engine.catalog().AllTables()) {
    RETURN_IF_ERROR(SendTable(engine, *table, shard, shards, max_part_bytes, send, stop));
    if (stop()) return absl::CancelledError("the checkpoint was stopped");
  }
  return absl::OkStatus();
}

absl::Status WriteCheckpointPart(Engine& engine, const CheckpointPart& part,
                                 const std::function<bool()>& stop) {
  auto delay = std::chrono::milliseconds(10);
  while (true) {
    // Decoded for each try: the writer takes the records it is given.
    ASSIGN_OR_RETURN(std::vector<IndexedRecord> records, DecodeRecords(part.records));
    if (static_cast<int>(records.size()) != part.count) {
      return absl::DataLossError(StrCat("a checkpoint part of ", part.database, ".", part.table,
                                        " says ", part.count, " records and holds ",
                                        records.size()));
    }
    NormalizedWriteSource source(part.database, part.table, &records);
    std::promise<absl::StatusOr<WriteResult>> written;
    engine.writer().WriteAsync(
        source, WriteOptions{.now_nanos = part.now_nanos, .copying = true},
        [&written](absl::StatusOr<WriteResult> result) { written.set_value(std::move(result)); });
    absl::StatusOr<WriteResult> result = written.get_future().get();
    if (absl::IsResourceExhausted(result.status()) && !stop()) {
      // The writer's queue or the memory head is full: the copy waits for it, as a client
      // would, rather than grow the head past its budget.
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::milliseconds(1000));
      continue;
    }
    if (!result.ok()) return result.status();
    if (!result->rejected.empty()) {
      const RejectedRecord& first = result->rejected.front();
      return absl::FailedPreconditionError(StrCat("a checkpoint row of ", part.database, ".",
                                                  part.table, " was rejected (", first.reason,
                                                  "): the copy would differ from its peer's"));
    }
    return absl::OkStatus();
  }
}

absl::StatusOr<CopiedCheckpoint> CopyCheckpoint(
    internal::v1::ShardService::Stub& peer, std::string_view peer_name,
    const Membership& membership, Engine& engine, uint32_t shard,
    const std::function<bool(int64_t revision)>& wait_catalog, const std::function<bool()>& stop) {
  grpc::ClientContext context;
  membership.Present(&context);
  internal::v1::CheckpointRequest request;
  request.set_shard(shard);
  std::unique_ptr<grpc::ClientReader<internal::v1::CheckpointResponse>> reader =
      peer.Checkpoint(&context, request);
  auto failed = [&](const absl::Status& why) {
    context.TryCancel();
    reader->Finish().ok();  // the stream's end, after the cancel
    return why;
  };
  internal::v1::CheckpointResponse message;
  CopiedCheckpoint copied;
  bool done = false;
  if (reader->Read(&message)) {
    copied.state = {message.applied_sequence(), message.digest()};
    if (!wait_catalog(message.catalog_revision())) {
      return failed(absl::UnavailableError(
          StrCat("this node's catalog has not reached etcd revision ", message.catalog_revision(),
                 " of node ", peer_name, "'s checkpoint yet")));
    }
    while (!done && reader->Read(&message)) {
      if (stop()) return failed(absl::CancelledError("the copy was stopped"));
      if (message.done()) {
        done = true;
        if (message.rows() != copied.rows) {
          return failed(
              absl::DataLossError(StrCat("node ", peer_name, "'s checkpoint says ", message.rows(),
                                         " rows and sent ", copied.rows)));
        }
        break;
      }
      CheckpointPart part{.database = message.database_name(),
                          .table = message.table_name(),
                          .count = message.count(),
                          .records = std::move(*message.mutable_records()),
                          .now_nanos = message.now_nanos()};
      if (absl::Status written = WriteCheckpointPart(engine, part, stop); !written.ok()) {
        return failed(written);
      }
      copied.rows += part.count;
    }
  }
  const grpc::Status finished = reader->Finish();
  if (!finished.ok()) {
    return absl::UnavailableError(StrCat("node ", peer_name,
                                         " could not send its checkpoint of shard ", shard, ": ",
                                         finished.error_message()));
  }
  if (!done) {
    return absl::UnavailableError(
        StrCat("node ", peer_name, "'s checkpoint of shard ", shard, " ended early"));
  }
  return copied;
}

}  // namespace strata::cluster
