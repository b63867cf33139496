#include "cluster/shard_router.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <future>

#include "cluster/record_codec.h"
#include "cluster/shard_map.h"
#include "common/strings.h"

namespace strata::cluster {
namespace {

using Clock = std::chrono::steady_clock;

// Long enough to ride out a leader's failover (its lease, then the new leader's barrier).
constexpr std::chrono::seconds kShardWritePatience{20};
constexpr std::chrono::seconds kForwardTimeout{15};
// Shard parts waiting for a worker: past this a write is refused at once (RESOURCE_EXHAUSTED)
// rather than queued without bound behind a failing-over leader.
constexpr size_t kMaxQueuedParts = 8192;
// A DELETE's points per part (one log entry each), encoded.
constexpr size_t kMaxDeletePartBytes = 64 << 10;
// A write's records for one shard per part, encoded: a part is logged whole in one entry,
// which must fit a NATS message (1 MB by default); a larger request's records of one shard
// go in several parts. Both are cut smaller when a call to another node must be (below
// 512 KiB of --max-message-bytes).
constexpr size_t kMaxWritePartBytes = 256 << 10;

}  // namespace

void ToProto(const WriteResult& result, internal::v1::ShardWriteResponse* out) {
  out->set_memory_store(result.memory_store);
  out->set_magnetic_store(result.magnetic_store);
  out->set_deleted(result.deleted);
  for (const RejectedRecord& r : result.rejected) {
    auto* rejected = out->add_rejected();
    rejected->set_record_index(r.record_index);
    rejected->set_reason(r.reason);
    rejected->set_has_existing_version(r.existing_version.has_value());
    rejected->set_existing_version(r.existing_version.value_or(0));
    rejected->set_rejection_class(static_cast<int>(r.rejection_class));
  }
}

WriteResult FromProto(const internal::v1::ShardWriteResponse& response) {
  WriteResult result{.memory_store = response.memory_store(),
                     .magnetic_store = response.magnetic_store(),
                     .deleted = response.deleted()};
  for (const auto& r : response.rejected()) {
    RejectedRecord rejected{.record_index = r.record_index(),
                            .reason = r.reason(),
                            .rejection_class = static_cast<RejectionClass>(r.rejection_class())};
    if (r.has_existing_version()) rejected.existing_version = r.existing_version();
    result.rejected.push_back(std::move(rejected));
  }
  return result;
}

// The shards' answers to one write, merged.
struct ShardRouter::Merge {
  absl::Mutex mu;
  int remaining = 0;
  WriteResult result;
  absl::Status failed;
  WriteDone done;

  void Add(uint32_t shard, absl::StatusOr<WriteResult> part) {
    bool last = false;
    {
      absl::MutexLock lock(&mu);
      if (part.ok()) {
        result.memory_store += part->memory_store;
        result.magnetic_store += part->magnetic_store;
        result.deleted += part->deleted;
        for (RejectedRecord& r : part->rejected) result.rejected.push_back(std::move(r));
      } else if (failed.ok()) {
        // A client error (a table dropped meanwhile) keeps its code; the rest is the
        // cluster's: UNAVAILABLE, naming the shard.
        const absl::Status& s = part.status();
        failed = absl::IsNotFound(s) || absl::IsInvalidArgument(s) || absl::IsResourceExhausted(s)
                     ? s
                     : absl::UnavailableError(StrCat(
                           "shard ", shard, " could not be written: ", s.message(),
                           ". Records of other shards may be written; retrying the request is "
                           "safe (an unchanged record at the same version is a no-op)"));
      }
      last = --remaining == 0;
    }
    if (!last) return;
    if (!failed.ok()) {
      done(failed);
      return;
    }
    std::sort(result.rejected.begin(), result.rejected.end(),
              [](const RejectedRecord& a, const RejectedRecord& b) {
                return a.record_index < b.record_index;
              });
    done(std::move(result));
  }
};

// One shard's part of a write, or several whose shards one other node led when they were
// queued: sent in one call (WriteParts) instead of one each.
struct ShardRouter::Task {
  std::vector<internal::v1::ShardWriteRequest> requests;
  std::string address;  // the node leading them, for several
  std::shared_ptr<Merge> merge;
};

namespace {

// Whether a shard write's error may pass once the shard's leader is looked up again: this
// node does not lead it (any more), none does yet, or it was unreachable.
bool LeaderMayHaveMoved(const absl::Status& s) {
  return absl::IsFailedPrecondition(s) || absl::IsUnavailable(s) || absl::IsAborted(s);
}

// A forwarded write's error from the node at `address`, as the write path reports it: the
// client's mistakes keep their code and message, the rest say which node failed.
absl::Status ForwardError(grpc::StatusCode code, const std::string& text,
                          const std::string& address) {
  const std::string message = StrCat("node at ", address, ": ", text);
  switch (code) {
    case grpc::StatusCode::FAILED_PRECONDITION:
      return absl::FailedPreconditionError(message);
    case grpc::StatusCode::NOT_FOUND:
      return absl::NotFoundError(text);
    case grpc::StatusCode::INVALID_ARGUMENT:
      return absl::InvalidArgumentError(text);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return absl::ResourceExhaustedError(text);
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnavailableError(message);
  }
}

}  // namespace

ShardRouter::ShardRouter(ShardDirectory* directory, Catalog* catalog, SchemaClaims* claims,
                         int threads, size_t call_bytes)
    : directory_(*directory),
      catalog_(*catalog),
      claims_(*claims),
      call_bytes_(call_bytes),
      stubs_(&directory->membership()) {
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

ShardRouter::~ShardRouter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : workers_) t.join();
}

void ShardRouter::WriteAsync(WriteSource& source, WriteDone done) {
  auto table = catalog_.FindTable(source.database_name(), source.table_name());
  if (absl::IsNotFound(table.status()) && directory_.CatchUpCatalog()) {
    table = catalog_.FindTable(source.database_name(), source.table_name());
  }
  if (!table.ok()) {
    done(table.status());
    return;
  }
  if (absl::Status shape = source.ValidateShape(); !shape.ok()) {
    done(shape);
    return;
  }
  const uint32_t shards = directory_.shard_count();
  PartCutter parts(shards, std::min(kMaxWritePartBytes, call_bytes_));
  auto merge = std::make_shared<Merge>();
  merge->done = std::move(done);
  const int records = source.record_count();
  std::vector<NormalizedRecord> normalized(records);
  std::vector<const NormalizedRecord*> valid(records);
  for (int i = 0; i < records; ++i) {
    if (absl::Status s = source.NormalizeInto(i, (*table)->partition_key, &normalized[i]);
        !s.ok()) {
      merge->result.rejected.push_back({i, std::string(s.message())});
      continue;
    }
    valid[i] = &normalized[i];
  }
  // Names new to the table are claimed cluster-wide before any shard sees them.
  auto contradicting = claims_.Check(**table, valid);
  if (!contradicting.ok()) {
    merge->done(contradicting.status());
    return;
  }
  for (int i = 0; i < records; ++i) {
    if (valid[i] == nullptr) continue;
    if (std::optional<std::string>& reason = (*contradicting)[i]; reason.has_value()) {
      merge->result.rejected.push_back({.record_index = i,
                                        .reason = *std::move(reason),
                                        .rejection_class = RejectionClass::kSchema});
      continue;
    }
    parts.Add(ShardOf(RoutingHash(normalized[i], (*table)->partition_key), shards), i,
              normalized[i]);
  }
  Dispatch(**table, parts.Take(), /*erase=*/false, std::move(merge));
}

absl::StatusOr<int64_t> ShardRouter::Delete(const TableInfo& table,
                                            std::vector<query::SeriesDeletion> deletions) {
  const uint32_t shards = directory_.shard_count();
  // Each shard's points in parts of a bounded size: a log entry must fit a NATS message
  // (1 MB by default), and a part is one entry.
  PartCutter parts(shards, std::min(kMaxDeletePartBytes, call_bytes_));
  for (query::SeriesDeletion& deletion : deletions) {
    const uint32_t shard = ShardOf(RoutingHash(deletion.series, table.partition_key), shards);
    for (int64_t time : deletion.times_nanos) {
      deletion.series.time_nanos = time;
      parts.Add(shard, parts.next_in_part(shard), deletion.series);
    }
  }
  std::promise<absl::StatusOr<WriteResult>> answered;
  auto merge = std::make_shared<Merge>();
  merge->done = [&answered](absl::StatusOr<WriteResult> r) { answered.set_value(std::move(r)); };
  auto answer = answered.get_future();
  Dispatch(table, parts.Take(), /*erase=*/true, std::move(merge));
  ASSIGN_OR_RETURN(WriteResult result, answer.get());
  return result.deleted;
}

void ShardRouter::PartCutter::Add(uint32_t shard, int index, const NormalizedRecord& record) {
  Part& part = open_[shard];
  EncodeRecord(index, record, &part.encoded);
  ++part.count;
  if (part.encoded.size() >= limit_) {
    part.shard = shard;
    closed_.push_back(std::exchange(part, Part()));
  }
}

std::vector<ShardRouter::Part> ShardRouter::PartCutter::Take() {
  for (uint32_t shard = 0; shard < open_.size(); ++shard) {
    if (open_[shard].count == 0) continue;
    open_[shard].shard = shard;
    closed_.push_back(std::exchange(open_[shard], Part()));
  }
  return std::move(closed_);
}

void ShardRouter::Dispatch(const TableInfo& table, std::vector<Part> parts, bool erase,
                           std::shared_ptr<Merge> merge) {
  const int64_t revision = directory_.catalog_revision();
  std::vector<std::unique_ptr<Task>> tasks;
  // The parts another node leads, by its address: one task (one call) for each node, and the
  // bytes of its parts so far.
  absl::flat_hash_map<std::string, std::pair<Task*, size_t>> to_node;
  for (const Part& part : parts) {
    internal::v1::ShardWriteRequest request;
    request.set_shard(part.shard);
    request.set_database_name(table.database_name);
    request.set_table_name(table.name);
    request.set_records(EncodeRecords(part.count, part.encoded));
    request.set_catalog_revision(revision);
    request.set_erase(erase);
    bool self = false;
    const std::string address = directory_.LeaderAddress(part.shard, &self);
    const bool elsewhere = !self && !address.empty();
    const size_t bytes = request.records().size();
    auto& [together, together_bytes] = to_node[elsewhere ? address : std::string()];
    if (elsewhere && together != nullptr && together_bytes + bytes <= call_bytes_) {
      together->requests.push_back(std::move(request));
      together_bytes += bytes;
      continue;
    }
    auto task = std::make_unique<Task>();
    task->requests.push_back(std::move(request));
    task->address = address;
    task->merge = merge;
    if (elsewhere) {
      together = task.get();
      together_bytes = bytes;
    }
    tasks.push_back(std::move(task));
  }
  // One extra count for this call, released below: a shard answering before the others are
  // queued must not finish the merge.
  merge->remaining = static_cast<int>(parts.size()) + 1;
  size_t waiting = 0;
  {
    absl::MutexLock lock(&mu_);
    waiting = tasks_.size();
    if (waiting + tasks.size() <= kMaxQueuedParts) {
      for (auto& task : tasks) tasks_.push_back(std::move(task));
      tasks.clear();
    }
  }
  if (!tasks.empty()) {
    merge->remaining = 1;
    merge->Add(0, absl::ResourceExhaustedError(
                      StrCat("this node has ", waiting,
                             " shard writes waiting for their leaders; "
                             "nothing of this request was written. Retry with backoff")));
    return;
  }
  merge->Add(0, WriteResult());
}

void ShardRouter::Work() {
  while (true) {
    std::unique_ptr<Task> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !tasks_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    if (task->requests.size() > 1) {
      WriteTogether(std::move(task));
      continue;
    }
    const internal::v1::ShardWriteRequest& request = task->requests.front();
    auto answer = WriteShard(request, Clock::now() + kShardWritePatience);
    if (answer.ok()) {
      task->merge->Add(request.shard(), FromProto(*answer));
    } else {
      task->merge->Add(request.shard(), answer.status());
    }
  }
}

void ShardRouter::WriteTogether(std::unique_ptr<Task> task) {
  internal::v1::ShardWritePartsRequest request;
  for (internal::v1::ShardWriteRequest& part : task->requests) {
    *request.add_parts() = std::move(part);
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kForwardTimeout);
  directory_.membership().Present(&context);
  internal::v1::ShardWritePartsResponse response;
  const grpc::Status status = stubs_.For(task->address)->WriteParts(&context, request, &response);
  const bool answered = status.ok() && response.answers_size() == request.parts_size();
  std::vector<std::unique_ptr<Task>> again;  // parts to look the leader up for
  for (int i = 0; i < request.parts_size(); ++i) {
    internal::v1::ShardWriteRequest& part = *request.mutable_parts(i);
    if (answered) {
      const internal::v1::ShardWritePartAnswer& answer = response.answers(i);
      const auto code = static_cast<grpc::StatusCode>(answer.code());
      if (code == grpc::StatusCode::OK) {
        task->merge->Add(part.shard(), FromProto(answer.response()));
        continue;
      }
      absl::Status failed = ForwardError(code, answer.message(), task->address);
      if (!LeaderMayHaveMoved(failed)) {
        task->merge->Add(part.shard(), std::move(failed));
        continue;
      }
    }
    auto alone = std::make_unique<Task>();
    alone->requests.push_back(std::move(part));
    alone->merge = task->merge;
    again.push_back(std::move(alone));
  }
  if (again.empty()) return;
  absl::MutexLock lock(&mu_);
  for (auto& alone : again) tasks_.push_back(std::move(alone));
}

absl::StatusOr<internal::v1::ShardWriteResponse> ShardRouter::WriteShard(
    const internal::v1::ShardWriteRequest& request, Clock::time_point deadline) {
  auto pause = std::chrono::milliseconds(50);
  absl::Status earlier;  // the previous attempt's error: often more telling than a timeout
  while (true) {
    auto answer = WriteOnce(request, deadline);
    const bool retry = !answer.ok() && LeaderMayHaveMoved(answer.status());
    if (retry && Clock::now() + pause > deadline) {
      if (earlier.ok() || earlier.message() == answer.status().message()) return answer;
      return absl::Status(
          answer.status().code(),
          StrCat(answer.status().message(), " (before that: ", earlier.message(), ")"));
    }
    if (!retry) return answer;
    earlier = answer.status();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

absl::StatusOr<internal::v1::ShardWriteResponse> ShardRouter::WriteOnce(
    const internal::v1::ShardWriteRequest& request, Clock::time_point deadline) {
  bool self = false;
  const std::string address = directory_.LeaderAddress(request.shard(), &self);
  if (address.empty()) {
    return absl::UnavailableError(StrCat("shard ", request.shard(), " has no leader right now"));
  }
  if (self) {
    std::shared_ptr<Replica> replica = directory_.LocalReplica(request.shard());
    if (replica == nullptr) return absl::FailedPreconditionError("not a replica of the shard");
    // Shared: the replica may answer after this call gave up waiting.
    auto promise = std::make_shared<std::promise<absl::StatusOr<WriteResult>>>();
    auto result = promise->get_future();
    replica->Write(
        request.database_name(), request.table_name(), request.records(),
        request.catalog_revision(),
        [promise](absl::StatusOr<WriteResult> r) { promise->set_value(std::move(r)); },
        request.erase());
    if (result.wait_until(deadline) == std::future_status::timeout) {
      return absl::UnavailableError(
          StrCat("shard ", request.shard(), "'s log did not confirm the write in time"));
    }
    absl::StatusOr<WriteResult> written = result.get();
    if (!written.ok()) return written.status();
    internal::v1::ShardWriteResponse response;
    ToProto(*written, &response);
    return response;
  }
  grpc::ClientContext context;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  context.set_deadline(
      std::chrono::system_clock::now() +
      std::clamp(left, std::chrono::milliseconds(100), std::chrono::milliseconds(kForwardTimeout)));
  directory_.membership().Present(&context);
  internal::v1::ShardWriteResponse response;
  grpc::Status status = stubs_.For(address)->Write(&context, request, &response);
  if (status.ok()) return response;
  return ForwardError(status.error_code(), status.error_message(), address);
}

}  // namespace strata::cluster
