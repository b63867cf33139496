#include "cluster/cluster_backups.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "cluster/record_codec.h"
#include "common/coding.h"
#include "common/status.h"
#include "common/strings.h"
#include "spdlog/spdlog.h"
#include "storage/catalog/catalog_codec.h"

namespace strata::cluster {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kBackupFormat = 1;
constexpr char kManifest[] = "manifest.pb";
// Rows a restore writes in one request (the write path's bulk size), and the tries a
// request gets while a shard fails over.
constexpr size_t kRestoreRequestRecords = 1000;
constexpr int kRestoreTries = 10;

// A file written whole or not at all: into a temporary name, synced, then renamed, and the
// directory synced (else a power cut could lose the rename: a finished backup's manifest).
class FileWriter {
 public:
  explicit FileWriter(std::string path) : path_(std::move(path)), temp_(path_ + ".tmp") {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  ~FileWriter() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(temp_.c_str());
    }
  }
  absl::Status Append(std::string_view bytes) {
    if (fd_ < 0) return absl::FailedPreconditionError(StrCat("cannot create ", temp_));
    XXH3_64bits_update(hash_.get(), bytes.data(), bytes.size());
    size_ += bytes.size();
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) return absl::InternalError(StrCat("writing ", temp_, ": ", strerror(errno)));
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return absl::OkStatus();
  }
  absl::Status Finish() {
    if (fd_ < 0) return absl::FailedPreconditionError(StrCat("cannot create ", temp_));
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      fd_ = -1;
      return absl::InternalError(StrCat("syncing ", temp_, ": ", strerror(errno)));
    }
    fd_ = -1;
    if (::rename(temp_.c_str(), path_.c_str()) != 0) {
      return absl::InternalError(StrCat("renaming ", temp_, ": ", strerror(errno)));
    }
    const std::string directory = std::filesystem::path(path_).parent_path().string();
    const int dir = ::open(directory.empty() ? "." : directory.c_str(),
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int error = dir < 0 ? errno : 0;
    if (dir >= 0 && ::fsync(dir) != 0) error = errno;
    if (dir >= 0) ::close(dir);
    if (error != 0) return absl::InternalError(StrCat("syncing ", directory, ": ", strerror(error)));
    return absl::OkStatus();
  }
  uint64_t size() const { return size_; }
  uint64_t checksum() { return XXH3_64bits_digest(hash_.get()); }

 private:
  const std::string path_;
  const std::string temp_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> hash_{[] {
                                                                   XXH3_state_t* state =
                                                                       XXH3_createState();
                                                                   XXH3_64bits_reset(state);
                                                                   return state;
                                                                 }(),
                                                                 &XXH3_freeState};
};

// A manifest, or one part of a shard's file, is at most this large (a part is at most 4 MiB
// of records, checkpoint.cc): a damaged length does not make a restore allocate without bound.
constexpr uint64_t kMaxMessageBytes = 64 << 20;

absl::StatusOr<std::string> ReadManifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path));
  std::string bytes;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.append(chunk, static_cast<size_t>(in.gcount()));
    if (bytes.size() > kMaxMessageBytes) {
      return absl::DataLossError(StrCat(path, " is larger than a manifest can be"));
    }
  }
  if (in.bad()) return absl::DataLossError(StrCat("reading ", path, " failed"));
  return bytes;
}

// Whether a file has the size and XXH3 checksum the manifest recorded, read in chunks.
absl::Status CheckFile(const std::string& path, uint64_t size, uint64_t checksum) {
  std::ifstream in(path, std::ios::binary);
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> hash(XXH3_createState(),
                                                               &XXH3_freeState);
  XXH3_64bits_reset(hash.get());
  uint64_t read = 0;
  char chunk[1 << 16];
  while (in && (in.read(chunk, sizeof chunk) || in.gcount() > 0)) {
    XXH3_64bits_update(hash.get(), chunk, static_cast<size_t>(in.gcount()));
    read += static_cast<uint64_t>(in.gcount());
  }
  if (in.bad() || read != size || XXH3_64bits_digest(hash.get()) != checksum) {
    return absl::DataLossError(StrCat(path, " is damaged (its size or checksum is not the one "
                                      "the manifest recorded); nothing was restored"));
  }
  return absl::OkStatus();
}

// The parts of a shard's file, one at a time: each behind its length as a varint.
class PartReader {
 public:
  explicit PartReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {}
  // The next part; false at the end of the file.
  absl::StatusOr<bool> Next(internal::v1::CheckpointResponse* part) {
    uint64_t size = 0;
    for (int shift = 0;; shift += 7) {
      const int c = in_.get();
      if (c == EOF && shift == 0) return false;
      if (c == EOF || shift > 63) return Malformed();
      size |= static_cast<uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) break;
    }
    if (size > kMaxMessageBytes) return Malformed();
    buffer_.resize(size);
    if (!in_.read(buffer_.data(), static_cast<std::streamsize>(size)) ||
        !part->ParseFromString(buffer_)) {
      return Malformed();
    }
    return true;
  }

 private:
  absl::Status Malformed() const {
    return absl::DataLossError(StrCat(path_, " holds a malformed part"));
  }
  const std::string path_;
  std::ifstream in_;
  std::string buffer_;
};

absl::Status Busy() {
  return absl::FailedPreconditionError(
      "a backup or restore of the cluster runs on this node now; wait for it to end");
}

absl::Status CheckDirectory(const std::string& dir) {
  if (dir.empty() || dir.front() != '/') {
    return absl::InvalidArgumentError(
        StrCat("the backup directory must be an absolute path on "
               "the node's machine, not \"",
               dir, "\""));
  }
  return absl::OkStatus();
}

// Every database in the node's catalog.
absl::StatusOr<std::vector<DatabaseInfo>> AllDatabases(Catalog& catalog) {
  std::vector<DatabaseInfo> out;
  std::string token;
  do {
    ASSIGN_OR_RETURN(Page<DatabaseInfo> page, catalog.ListDatabases(kMaxPageSize, token));
    for (DatabaseInfo& db : page.items) out.push_back(std::move(db));
    token = page.next_token;
  } while (!token.empty());
  return out;
}

// A token that can still be used: the ones a backup keeps.
bool Live(const TokenRecord& token, int64_t now_nanos) {
  return token.revoked_nanos == 0 && (token.expires_nanos == 0 || token.expires_nanos > now_nanos);
}

// The backup's tokens and scheduled queries, decoded before a restore changes anything.
struct EtcdState {
  std::vector<TokenRecord> tokens;
  std::vector<std::pair<ScheduledQueryRecord, std::vector<ScheduledQueryRun>>> scheduled;
};

absl::StatusOr<EtcdState> DecodeEtcdState(const internal::v1::ClusterBackupManifest& manifest) {
  EtcdState out;
  for (const std::string& encoded : manifest.tokens()) {
    ASSIGN_OR_RETURN(TokenRecord token, DecodeToken(encoded));
    out.tokens.push_back(std::move(token));
  }
  for (const internal::v1::ScheduledQueryBackup& q : manifest.scheduled_queries()) {
    ASSIGN_OR_RETURN(ScheduledQueryRecord record, DecodeScheduledQuery(q.record()));
    std::vector<ScheduledQueryRun> runs;
    for (const internal::v1::ScheduledQueryRunBackup& run : q.runs()) {
      runs.push_back({.sequence = run.sequence(), .summary = run.summary()});
    }
    out.scheduled.emplace_back(std::move(record), std::move(runs));
  }
  return out;
}

}  // namespace

absl::Status ClusterBackups::BackupEtcdState(internal::v1::ClusterBackupManifest* manifest,
                                             ClusterBackupSummary* summary) {
  ASSIGN_OR_RETURN(std::vector<TokenRecord> tokens, tokens_.LoadAll());
  const int64_t now = engine_.clock().NowNanos();
  for (TokenRecord& token : tokens) {
    if (!Live(token, now)) continue;
    token.last_used_nanos = 0;  // this node's view only; the new cluster records its own
    manifest->add_tokens(EncodeToken(token));
    ++summary->tokens;
  }
  ASSIGN_OR_RETURN(std::vector<ScheduledQueryRecord> scheduled, scheduled_.LoadAll());
  for (const ScheduledQueryRecord& record : scheduled) {
    internal::v1::ScheduledQueryBackup* q = manifest->add_scheduled_queries();
    q->set_record(EncodeScheduledQuery(record));
    ASSIGN_OR_RETURN(std::vector<ScheduledQueryRun> runs, scheduled_.LoadRuns(record.name));
    for (const ScheduledQueryRun& run : runs) {
      internal::v1::ScheduledQueryRunBackup* r = q->add_runs();
      r->set_sequence(run.sequence);
      r->set_summary(run.summary);
    }
    ++summary->scheduled_queries;
  }
  return absl::OkStatus();
}

absl::Status ClusterBackups::RestoreTokens(const std::vector<TokenRecord>& tokens,
                                           ClusterRestoreSummary* summary) {
  ASSIGN_OR_RETURN(std::vector<TokenRecord> here, tokens_.LoadAll());
  const int64_t now = engine_.clock().NowNanos();
  // A token not revoked holds its name, expired or not (as server/auth judges a new token's
  // name).
  absl::flat_hash_map<std::string, std::string> holder_by_name;
  for (const TokenRecord& token : here) {
    if (token.revoked_nanos == 0) holder_by_name[token.name] = token.id;
  }
  for (const TokenRecord& token : tokens) {
    if (!Live(token, now)) continue;  // expired since the backup
    // A token restored by an earlier run of a restore (its id) is put again; another token
    // holding the name keeps it.
    if (auto it = holder_by_name.find(token.name);
        it != holder_by_name.end() && it->second != token.id) {
      summary->tokens_not_restored.push_back(token.name);
      continue;
    }
    RETURN_IF_ERROR(tokens_.Restore(token));
    ++summary->tokens;
  }
  return absl::OkStatus();
}

absl::StatusOr<internal::v1::ShardBackup> ClusterBackups::BackupShard(uint32_t shard,
                                                                      uint64_t at_least,
                                                                      const std::string& path) {
  std::vector<ShardHolder> holders = directory_.Holders(shard);
  // This node's own replica first (no copy over the network), then a follower's.
  std::stable_partition(holders.begin(), holders.end(),
                        [](const ShardHolder& h) { return h.self; });
  absl::Status last =
      absl::UnavailableError(StrCat("shard ", shard, " has no replica on a member node"));
  for (const ShardHolder& holder : holders) {
    grpc::ClientContext context;
    directory_.membership().Present(&context);
    internal::v1::CheckpointRequest request;
    request.set_shard(shard);
    request.set_at_least(at_least);
    auto reader = peers_.For(holder.address)->Checkpoint(&context, request);
    internal::v1::CheckpointResponse message;
    internal::v1::ShardBackup backup;
    backup.set_shard(shard);
    backup.set_node(holder.node);
    backup.set_file(fs::path(path).filename());
    FileWriter file(path);
    absl::Status written;
    bool first = true, done = false;
    while (written.ok() && !done && reader->Read(&message)) {
      if (first) {
        backup.set_applied_sequence(message.applied_sequence());
        backup.set_digest(message.digest());
        first = false;
        continue;
      }
      if (message.done()) {
        done = message.rows() == backup.rows();
        if (!done) written = absl::DataLossError("the checkpoint's row count differs");
        continue;
      }
      backup.set_rows(backup.rows() + message.count());
      std::string framed;
      PutLengthPrefixed(&framed, message.SerializeAsString());
      written = file.Append(framed);
    }
    if (!written.ok()) context.TryCancel();
    const grpc::Status finished = reader->Finish();
    if (written.ok() && !finished.ok()) {
      written = absl::UnavailableError(finished.error_message());
    } else if (written.ok() && !done) {
      written = absl::UnavailableError("its checkpoint ended early");
    }
    if (written.ok()) written = file.Finish();
    if (written.ok()) {
      backup.set_bytes(file.size());
      backup.set_checksum(file.checksum());
      return backup;
    }
    last = absl::UnavailableError(StrCat("shard ", shard, " could not be read from node ",
                                         holder.node, ": ", written.message()));
    spdlog::warn("cluster backup: {}", last.message());
  }
  return last;
}

absl::StatusOr<ClusterBackupSummary> ClusterBackups::Backup(const std::string& dir) {
  RETURN_IF_ERROR(CheckDirectory(dir));
  std::unique_lock<std::mutex> one(running_, std::try_to_lock);
  if (!one.owns_lock()) return Busy();
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(StrCat("cannot create ", dir, ": ", error.message()));
  }
  if (fs::exists(fs::path(dir) / kManifest)) {
    return absl::AlreadyExistsError(
        StrCat(dir, " already holds a cluster backup; back up into a new directory"));
  }
  internal::v1::ClusterBackupManifest manifest;
  manifest.set_format(kBackupFormat);
  manifest.set_cluster_name(cluster_name_);
  manifest.set_shards(directory_.shard_count());
  manifest.set_created_nanos(absl::ToUnixNanos(absl::Now()));
  // The catalog first: a table created during the backup has no rows in it yet.
  directory_.CatchUpCatalog();
  ASSIGN_OR_RETURN(std::vector<DatabaseInfo> databases, AllDatabases(engine_.catalog()));
  for (const DatabaseInfo& db : databases) manifest.add_databases(EncodeDatabase(db));
  const auto tables = engine_.catalog().AllTables();
  for (const auto& table : tables) manifest.add_tables(EncodeTable(*table));
  ClusterBackupSummary summary{.shards = directory_.shard_count(),
                               .databases = static_cast<uint32_t>(databases.size()),
                               .tables = static_cast<uint32_t>(tables.size())};
  RETURN_IF_ERROR(BackupEtcdState(&manifest, &summary));
  for (uint32_t shard = 0; shard < directory_.shard_count(); ++shard) {
    const std::string path = (fs::path(dir) / StrCat("shard-", shard, ".parts")).string();
    // Every write acknowledged before now is at or below the log's end now: the replica read
    // applies that far first.
    absl::StatusOr<uint64_t> end = log_end_(shard);
    if (!end.ok()) {
      return absl::UnavailableError(
          StrCat("where shard ", shard, "'s log ends is not known: ", end.status().message()));
    }
    ASSIGN_OR_RETURN(internal::v1::ShardBackup backup, BackupShard(shard, *end, path));
    summary.rows += backup.rows();
    summary.bytes += backup.bytes();
    *manifest.add_shard_backups() = std::move(backup);
  }
  FileWriter file((fs::path(dir) / kManifest).string());
  RETURN_IF_ERROR(file.Append(manifest.SerializeAsString()));
  RETURN_IF_ERROR(file.Finish());
  summary.bytes += file.size();
  spdlog::info(
      "cluster backup into {}: {} shards, {} tables, {} rows, {} bytes, {} tokens, {} scheduled "
      "queries",
      dir, summary.shards, summary.tables, summary.rows, summary.bytes, summary.tokens,
      summary.scheduled_queries);
  return summary;
}

absl::Status ClusterBackups::RestorePart(const internal::v1::CheckpointResponse& part,
                                         ClusterRestoreSummary* summary) {
  ASSIGN_OR_RETURN(std::vector<IndexedRecord> records, DecodeRecords(part.records()));
  for (size_t from = 0; from < records.size(); from += kRestoreRequestRecords) {
    const size_t to = std::min(records.size(), from + kRestoreRequestRecords);
    absl::StatusOr<WriteResult> result;
    for (int attempt = 0; attempt < kRestoreTries; ++attempt) {
      // A request's records are taken by the write: each try gets a copy.
      std::vector<IndexedRecord> request(records.begin() + from, records.begin() + to);
      NormalizedWriteSource source(part.database_name(), part.table_name(), &request);
      std::promise<absl::StatusOr<WriteResult>> written;
      sink_.WriteAsync(
          source, [&written](absl::StatusOr<WriteResult> r) { written.set_value(std::move(r)); });
      result = written.get_future().get();
      // A shard failing over, or a busy node: the same rows again are a no-op where written.
      if (result.ok() ||
          !(absl::IsUnavailable(result.status()) || absl::IsResourceExhausted(result.status()))) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200 << std::min(attempt, 4)));
    }
    RETURN_IF_ERROR(result.status());
    for (const RejectedRecord& r : result->rejected) {
      if (r.rejection_class != RejectionClass::kTimeWindow) {
        return absl::FailedPreconditionError(StrCat("a row of ", part.database_name(), ".",
                                                    part.table_name(),
                                                    " was rejected: ", r.reason));
      }
    }
    summary->expired += static_cast<int64_t>(result->rejected.size());
    summary->rows += static_cast<int64_t>(to - from - result->rejected.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterRestoreSummary> ClusterBackups::Restore(
    const std::string& dir, const ClusterRestoreOptions& options) {
  RETURN_IF_ERROR(CheckDirectory(dir));
  std::unique_lock<std::mutex> one(running_, std::try_to_lock);
  if (!one.owns_lock()) return Busy();
  absl::StatusOr<std::string> bytes = ReadManifest((fs::path(dir) / kManifest).string());
  if (!bytes.ok()) {
    return absl::NotFoundError(StrCat(dir, " holds no cluster backup (no ", kManifest, ")"));
  }
  internal::v1::ClusterBackupManifest manifest;
  if (!manifest.ParseFromString(*bytes) || manifest.format() != kBackupFormat) {
    return absl::DataLossError(StrCat(dir, "/", kManifest, " is not a cluster backup's manifest"));
  }
  // Every file checked before anything changes: a damaged backup restores nothing.
  for (const internal::v1::ShardBackup& shard : manifest.shard_backups()) {
    RETURN_IF_ERROR(
        CheckFile((fs::path(dir) / shard.file()).string(), shard.bytes(), shard.checksum()));
  }
  absl::StatusOr<EtcdState> etcd_state = DecodeEtcdState(manifest);
  if (!etcd_state.ok()) {
    return absl::DataLossError(StrCat(dir, "/", kManifest,
                                      " holds a malformed token or scheduled "
                                      "query: ",
                                      etcd_state.status().message()));
  }
  ASSIGN_OR_RETURN(std::vector<ScheduledQueryRecord> scheduled_here, scheduled_.LoadAll());
  for (const ScheduledQueryRecord& here : scheduled_here) {
    for (const auto& [record, runs] : etcd_state->scheduled) {
      if (record.name != here.name) continue;
      return absl::FailedPreconditionError(
          StrCat("this cluster already has a scheduled query \"", here.name,
                 "\", which the backup holds too; delete it here first"));
    }
  }
  directory_.CatchUpCatalog();
  ASSIGN_OR_RETURN(std::vector<DatabaseInfo> existing, AllDatabases(engine_.catalog()));
  if (!existing.empty()) {
    return absl::FailedPreconditionError(StrCat(
        "a backup is restored into a cluster holding no database; this one holds ", existing.size(),
        " (", existing.front().name, existing.size() > 1 ? ", ..." : "", ")"));
  }
  ClusterRestoreSummary summary;
  for (const std::string& encoded : manifest.databases()) {
    ASSIGN_OR_RETURN(DatabaseInfo db, DecodeDatabase(encoded));
    RETURN_IF_ERROR(ddl_.CreateDatabase(db.name, db.description).status());
    ++summary.databases;
  }
  // Rows older than the memory store's window go in as magnetic-store writes while the
  // restore runs, whatever the table allowed; its setting comes back after.
  std::vector<TableInfo> tables;
  for (const std::string& encoded : manifest.tables()) {
    ASSIGN_OR_RETURN(TableInfo table, DecodeTable(encoded));
    RETURN_IF_ERROR(ddl_.CreateTable({.database_name = table.database_name,
                                      .table_name = table.name,
                                      .retention = table.retention,
                                      .enable_magnetic_store_writes = true,
                                      .partition_key = table.partition_key})
                        .status());
    tables.push_back(std::move(table));
    ++summary.tables;
  }
  for (const internal::v1::ShardBackup& shard : manifest.shard_backups()) {
    PartReader parts((fs::path(dir) / shard.file()).string());
    internal::v1::CheckpointResponse part;
    while (true) {
      ASSIGN_OR_RETURN(bool more, parts.Next(&part));
      if (!more) break;
      RETURN_IF_ERROR(RestorePart(part, &summary));
    }
  }
  for (const TableInfo& table : tables) {
    if (table.enable_magnetic_store_writes) continue;
    RETURN_IF_ERROR(
        ddl_.UpdateTable(table.database_name, table.name, {.enable_magnetic_store_writes = false})
            .status());
  }
  // Tokens before the scheduled queries, which run as the token that created them.
  if (!options.without_tokens) RETURN_IF_ERROR(RestoreTokens(etcd_state->tokens, &summary));
  for (const auto& [record, runs] : etcd_state->scheduled) {
    RETURN_IF_ERROR(scheduled_.Restore(record, runs));
    ++summary.scheduled_queries;
  }
  spdlog::info(
      "cluster restore from {}: {} databases, {} tables, {} rows ({} past retention), {} tokens "
      "({} not restored: their names are taken here), {} scheduled queries",
      dir, summary.databases, summary.tables, summary.rows, summary.expired, summary.tokens,
      summary.tokens_not_restored.size(), summary.scheduled_queries);
  return summary;
}

}  // namespace strata::cluster
