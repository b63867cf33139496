#include "storage/catalog/scheduled_query_store.h"

#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/kv/keys.h"

namespace strata {
namespace {

constexpr uint8_t kScheduledQueryFormatV1 = 1;

}  // namespace

std::string EncodeScheduledQuery(const ScheduledQueryRecord& record) {
  std::string out(1, static_cast<char>(kScheduledQueryFormatV1));
  PutLengthPrefixed(&out, record.name);
  PutVarsint64(&out, record.schedule_cursor_nanos);
  PutLengthPrefixed(&out, record.definition);
  return out;
}

absl::StatusOr<ScheduledQueryRecord> DecodeScheduledQuery(std::string_view bytes) {
  Decoder in(bytes);
  ScheduledQueryRecord record;
  uint8_t format;
  std::string_view name, definition;
  if (!in.GetByte(&format) || format != kScheduledQueryFormatV1 || !in.GetLengthPrefixed(&name) ||
      !in.GetVarsint64(&record.schedule_cursor_nanos) || !in.GetLengthPrefixed(&definition)) {
    return CorruptionError("scheduled query record");
  }
  record.name = name;
  record.definition = definition;
  return record;
}

absl::StatusOr<std::vector<ScheduledQueryRecord>> ScheduledQueryStore::LoadAll() const {
  std::vector<ScheduledQueryRecord> out;
  const std::string prefix = keys::ScheduledQueryPrefix();
  std::unique_ptr<rocksdb::Iterator> it(
      store_.db()->NewIterator(rocksdb::ReadOptions(), store_.family(Store::kCatalog)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    ASSIGN_OR_RETURN(ScheduledQueryRecord record, DecodeScheduledQuery(it->value().ToStringView()));
    out.push_back(std::move(record));
  }
  RETURN_IF_ERROR(FromRocks(it->status(), "loading the scheduled queries"));
  return out;
}

absl::StatusOr<std::optional<ScheduledQueryRecord>> ScheduledQueryStore::Load(
    std::string_view name) const {
  std::string value;
  rocksdb::Status s = store_.db()->Get(rocksdb::ReadOptions(), store_.family(Store::kCatalog),
                                       keys::ScheduledQuery(name), &value);
  if (s.IsNotFound()) return std::nullopt;
  RETURN_IF_ERROR(FromRocks(s, "loading a scheduled query"));
  ASSIGN_OR_RETURN(ScheduledQueryRecord record, DecodeScheduledQuery(value));
  return record;
}

absl::Status ScheduledQueryStore::Put(const ScheduledQueryRecord& record) {
  return FromRocks(
      store_.db()->Put(store_.sync_write_options(), store_.family(Store::kCatalog),
                       keys::ScheduledQuery(record.name), EncodeScheduledQuery(record)),
      "saving a scheduled query");
}

absl::Status ScheduledQueryStore::Delete(std::string_view name) {
  rocksdb::WriteBatch batch;
  rocksdb::ColumnFamilyHandle* catalog = store_.family(Store::kCatalog);
  const std::string runs = keys::ScheduledQueryRunPrefix(name);
  batch.Delete(catalog, keys::ScheduledQuery(name));
  batch.DeleteRange(catalog, runs, keys::PrefixEnd(runs));
  return FromRocks(store_.db()->Write(store_.sync_write_options(), &batch),
                   "deleting a scheduled query");
}

absl::StatusOr<std::vector<ScheduledQueryRun>> ScheduledQueryStore::LoadRuns(
    std::string_view name) const {
  std::vector<ScheduledQueryRun> out;
  const std::string prefix = keys::ScheduledQueryRunPrefix(name);
  std::unique_ptr<rocksdb::Iterator> it(
      store_.db()->NewIterator(rocksdb::ReadOptions(), store_.family(Store::kCatalog)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string_view key = it->key().ToStringView();
    if (key.size() != prefix.size() + 8) return CorruptionError("scheduled query run key");
    out.push_back({.sequence = DecodeFixed64BE(key.data() + prefix.size()),
                   .summary = it->value().ToString()});
  }
  RETURN_IF_ERROR(FromRocks(it->status(), "loading a scheduled query's runs"));
  return out;
}

absl::Status ScheduledQueryStore::PutRun(const ScheduledQueryRecord& record,
                                         const ScheduledQueryRun& run, uint64_t keep_from) {
  rocksdb::WriteBatch batch;
  rocksdb::ColumnFamilyHandle* catalog = store_.family(Store::kCatalog);
  batch.Put(catalog, keys::ScheduledQuery(record.name), EncodeScheduledQuery(record));
  batch.Put(catalog, keys::ScheduledQueryRun(record.name, run.sequence), run.summary);
  if (keep_from > 0) {
    batch.DeleteRange(catalog, keys::ScheduledQueryRunPrefix(record.name),
                      keys::ScheduledQueryRun(record.name, keep_from));
  }
  return FromRocks(store_.db()->Write(store_.sync_write_options(), &batch),
                   "saving a scheduled query's run");
}

}  // namespace strata
