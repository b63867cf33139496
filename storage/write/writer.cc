#include "storage/write/writer.h"

#include <algorithm>
#include <array>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/notification.h"
#include "common/coding.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/unaligned.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/write_batch.h"
#include "storage/blocks/block.h"
#include "storage/head/head_log.h"
#include "storage/kv/keys.h"
#include "storage/read/stored_blocks.h"
#include "storage/rows/head_rows.h"
#include "storage/rows/row_codec.h"
#include "storage/write/record_validation.h"
#include "storage/write/schema_rules.h"
#include "xxhash.h"

namespace strata {
namespace {

// The committer takes at most this many queue slots (below) into one group
// (and always one request), so one group's latency stays bounded under heavy load.
constexpr size_t kMaxGroupSlots = 64;

// What a request counts for in the write queue: the 100-record requests it
// could have been (WriteRecords' limit), at least one.
size_t Slots(size_t records) {
  return std::max<size_t>(1, (records + kMaxRecordsPerWrite - 1) / kMaxRecordsPerWrite);
}

uint64_t Hash(std::string_view bytes, uint64_t seed = 0) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

std::string Window(int64_t from, int64_t to) {
  return StrCat("[", FormatIso8601Millis(from), ", ", FormatIso8601Millis(to), ")");
}

// Routes a record by its time: memory store, magnetic store, or rejected. `copying`: the
// record was accepted once (WriteOptions::copying), so the table's magnetic-store setting
// does not refuse it.
absl::StatusOr<bool> IsMagnetic(const TableInfo& table, int64_t time, int64_t now, bool copying) {
  const int64_t memory_start = table.MemoryStoreStartNanos(now);
  const int64_t future_end = now + kFutureWindowNanos;
  const int64_t retention_start = table.RetentionStartNanos(now);
  if (time >= future_end) {
    return absl::InvalidArgumentError(StrCat(
        "the record time ", FormatIso8601Millis(time),
        " is more than 15 minutes in the future; the memory store accepts ",
        Window(memory_start, future_end), ". Check the record's time and time_unit"));
  }
  if (time >= memory_start) return false;
  if (!table.enable_magnetic_store_writes && !copying) {
    return absl::InvalidArgumentError(StrCat(
        "the record timestamp ", FormatIso8601Millis(time), " is outside the time range ",
        Window(memory_start, future_end),
        " of the memory store. To accept older records, enable magnetic store writes on the "
        "table (`ALTER TABLE db.tbl SET (magnetic_store_writes = TRUE)`, `strata table update "
        "--magnetic-writes true`, or UpdateTable with "
        "magnetic_store_write_properties.enable_magnetic_store_writes)"));
  }
  if (time < retention_start) {
    return absl::InvalidArgumentError(StrCat(
        "the record timestamp ", FormatIso8601Millis(time), " is outside the time range ",
        Window(retention_start, future_end),
        " of the data ingestion window: it is older than the table's retention"));
  }
  return true;
}

// True if the two records have the same measure name and kind and the same
// attribute names and types, in the same order.
bool SameShape(const NormalizedRecord& a, const NormalizedRecord& b) {
  return a.multi == b.multi && a.measure_name == b.measure_name &&
         a.measures.SameShape(b.measures);
}

// True if every measure the write names is stored with the same value.
bool SameValues(const StoredRow& stored, const std::vector<Measure>& written) {
  for (const Measure& m : written) {
    auto it = std::find_if(stored.measures.begin(), stored.measures.end(),
                           [&](const Measure& s) { return s.name == m.name; });
    if (it == stored.measures.end() || !(it->value == m.value)) return false;
  }
  return true;
}

// MULTI upsert: the written measures replace or add to the stored ones.
std::vector<Measure> MergeMeasures(const StoredRow& stored, const std::vector<Measure>& written) {
  std::vector<Measure> merged = stored.measures;
  for (const Measure& m : written) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const Measure& s) { return s.name == m.name; });
    if (it == merged.end()) {
      merged.push_back(m);
    } else {
      it->value = m.value;
    }
  }
  return merged;
}

absl::Status QueueFull(size_t queued) {
  return absl::ResourceExhaustedError(StrCat(
      "the server's write queue is full: ", queued,
      queued == 1 ? " write request waits" : " write requests wait",
      " for the disk (a bulk write counts as one per 100 records); nothing "
      "of this one was written. Retry with backoff, send fewer requests at once, or raise the "
      "server's --write-queue"));
}

}  // namespace

// Named, not file-local: Writer::GroupCommit's members are of these types.
namespace writer_internal {

// The group's maps by point key hash its four words: two of them are
// hashes already (partition and series), and absl's hash of the bytes, a
// call into std::hash's murmur for string_view, was ~70 instructions a key
// and three keys a record. Any other length is hashed as bytes.
struct PointKeyHash {
  size_t operator()(std::string_view key) const {
    if (key.size() != keys::kPointKeySize) return absl::Hash<std::string_view>()(key);
    const char* p = key.data();
    return absl::HashOf(LoadUnaligned<uint64_t>(p), LoadUnaligned<uint64_t>(p + 8),
                        LoadUnaligned<uint64_t>(p + 16), LoadUnaligned<uint64_t>(p + 24));
  }
};
template <typename V>
using PointKeyMap = absl::flat_hash_map<std::string_view, V, PointKeyHash>;

}  // namespace writer_internal
using writer_internal::PointKeyMap;

// A validated record on its way to the committer. The table's registry and
// schema only grow, so what Prepare found in them (on the caller's thread)
// still holds at commit; the committer looks up only what it did not find.
struct Writer::Prepared {
  int index = 0;
  NormalizedRecord record;
  uint64_t pk_hash = 0;
  bool magnetic = false;
  std::optional<uint64_t> registered;  // the series' id, if registered
  bool conforms = false;               // TableState::Conforms
};

// One request in the queue.
struct Writer::Pending {
  std::shared_ptr<const TableInfo> table;
  std::shared_ptr<TableState> state;
  std::vector<Prepared> records;
  WriteResult result;
  WriteDone done;
  std::vector<std::pair<std::string, std::string>> catalog_puts;  // WriteOptions'
};

// What the committer does for one group, without holding the queue lock.
class Writer::GroupCommit {
 public:
  // `buckets` is the writer's (the caller holds commit_mu_).
  GroupCommit(Store* store, MemoryHead* head, const std::vector<Pending*>& group, int64_t now,
              int64_t seal_after_nanos, BucketActivity* buckets)
      : store_(store), head_(head), group_(group), now_(now), seal_after_nanos_(seal_after_nanos),
        buckets_(buckets) {}

  absl::Status Run() {
    size_t records = 0;
    size_t value_bytes = 0;  // the records' measures, as new rows hold them
    for (Pending* p : group_) {
      records += p->records.size();
      for (const Prepared& r : p->records) value_bytes += r.record.measures.values().size();
    }
    // Room for the group's rows (a version before each record's values) and
    // its batch (each row logged with its point, shape index and length:
    // under 48 bytes), which otherwise grow by doubling, copying the rows
    // ~twice over. A row rewritten whole or merged may take more: the
    // buffers grow then.
    constexpr size_t kLoggedRowOverhead = 48;
    values_.reserve(records * kMaxVarint64Bytes + value_bytes);
    batch_ = rocksdb::WriteBatch(records * kLoggedRowOverhead + value_bytes);
    targets_.reserve(records);  // rows_ and written_ hold views of their keys
    written_.reserve(records);  // one entry per record: no rehash moving them
    for (Pending* p : group_) {
      for (Prepared& r : p->records) Resolve(p, r);
    }
    // The newest times cached for the table are advanced as records are
    // applied; a group that is not written must forget them.
    auto forget_newest = [&] {
      for (auto& [state, changes] : changes_) state->newest_cache().clear();
    };
    RETURN_IF_ERROR(ReadExisting());
    for (Target& t : targets_) {
      if (absl::Status applied = Apply(t); !applied.ok()) {
        forget_newest();
        return applied;
      }
    }
    // A family's rows of one table and bucket made consecutive (one log
    // entry each), in the order they were applied: a key written twice
    // keeps its last value, and a series' rows reach the head in the order
    // written. Nothing needs the keys sorted within a bucket (sorting them
    // was ~5 % of the server's instructions per row); a group's rows mostly
    // share one bucket already.
    auto bucket_less = [](const Put& a, const Put& b) {
      return a.family != b.family ? a.family < b.family : a.table_bucket() < b.table_bucket();
    };
    if (!std::is_sorted(puts_.begin(), puts_.end(), bucket_less)) {
      std::stable_sort(puts_.begin(), puts_.end(), bucket_less);
    }
    // Memory-store rows go to the head once durable, logged as one
    // head_log entry per table and bucket (puts_ is ordered: a bucket's rows
    // are consecutive); the rest are RocksDB puts.
    std::vector<MemoryHead::Change> head_changes;
    head_changes.reserve(puts_.size());
    head_log::EntryBuilder entry;  // one buffer for the group's entries, each copied into batch_
    entry.Reserve(puts_.size(), values_.size());
    keys::PointKey entry_key;
    size_t entry_first = 0;  // head_changes' first change of `entry`
    auto log_entry = [&] {
      if (entry.empty()) return;
      const uint64_t sequence = head_->TakeLogSequence();
      batch_.Put(store_->family(Store::kHeadLog),
                 head_log::Key(entry_key.table_id, entry_key.bucket, sequence),
                 entry.bytes());
      for (size_t i = entry_first; i < head_changes.size(); ++i) {
        head_changes[i].sequence = sequence;
      }
      entry_first = head_changes.size();
      entry.Clear();
    };
    for (const Put& put : puts_) {
      const std::string_view row = put.value(values_);
      if (put.family != Store::kHot) {
        batch_.Put(store_->family(put.family), put.key, row);
        continue;
      }
      keys::PointKey key;
      keys::DecodePointKey(put.key, &key);
      if (!entry.empty() &&
          (key.table_id != entry_key.table_id || key.bucket != entry_key.bucket)) {
        log_entry();
      }
      entry_key = key;
      if (put.shape != nullptr) {
        entry.PutCompact(key, put.shape->first, row);
        head_changes.push_back({.key = key, .row = row, .shape = put.shape->first});
      } else {
        entry.Put(key, row);
        head_changes.push_back({.key = key, .row = row});
      }
    }
    log_entry();
    for (Pending* p : group_) {
      for (const auto& [key, value] : p->catalog_puts) {
        batch_.Put(store_->family(Store::kCatalog), key, value);
      }
    }
    absl::Status written =
        FromRocks(store_->db()->Write(store_->write_options(), &batch_), "writing the records");
    if (!written.ok()) {
      forget_newest();
      return written;
    }
    head_->Apply(head_changes);
    for (auto& [state, changes] : changes_) state->Apply(changes);
    for (const WrittenPoint& p : written_points_) {
      p.state->last_points().Written(p.series, p.time_nanos, p.version,
                                     std::string_view(values_).substr(p.row_offset, p.row_size),
                                     p.shape);
    }
    return absl::OkStatus();
  }

 private:
  // A row this group writes to a table whose last-point entries are in use,
  // for them once it is durable.
  struct WrittenPoint {
    TableState* state;
    uint64_t series;
    int64_t time_nanos;
    int64_t version;
    // The row's bytes in values_ (which grows, so not a view until it is
    // complete; not a copy either: one allocation per row while last points
    // are kept).
    size_t row_offset;
    size_t row_size;
    std::shared_ptr<const RowShape> shape;  // null: the row carries its names
  };
  std::vector<WrittenPoint> written_points_;

  // The names and types of the group's memory-store rows, by signature
  // (row_codec.h, EncodeRowSignature): the head_log entries write each once
  // and the head finds its shape once per entry, instead of every row
  // carrying its names (~130 of ~230 bytes of a row of ten doubles).
  using Shape = std::pair<const std::string, std::shared_ptr<const RowShape>>;
  absl::node_hash_map<std::string, std::shared_ptr<const RowShape>> shapes_;  // stable nodes

  // A data row for the batch: its key is a view of its Target's (targets_
  // does not reallocate), its value a slice of values_ (one buffer for the
  // group's rows instead of a string each). A memory-store row is compact
  // (its version and values) with its shape (in shapes_); other rows are
  // encoded whole.
  struct Put {
    Store::Family family;
    std::string_view key;
    size_t value_offset;
    size_t value_size;
    const Shape* shape = nullptr;
    std::string_view value(const std::string& values) const {
      return std::string_view(values).substr(value_offset, value_size);
    }
    // The point key's [table][bucket], as one number in the keys' order.
    uint64_t table_bucket() const { return DecodeFixed64BE(key.data()); }
  };
  // The last record's shape and the group's entry for it: the records of a
  // request mostly share one shape object (the normalizer's NameMemo).
  std::shared_ptr<const RowShape> last_record_shape_;
  const Shape* last_shape_ = nullptr;

  // The group's entry for the shape of `measures`; null for no measures.
  const Shape* ShapeOf(const MeasureList& measures) {
    if (measures.shape() == nullptr) return nullptr;
    if (measures.shape() == last_record_shape_ && last_shape_ != nullptr) return last_shape_;
    const std::string_view signature = measures.shape()->signature();
    auto it = shapes_.find(absl::string_view(signature.data(), signature.size()));
    if (it == shapes_.end()) it = shapes_.emplace(signature, measures.shape()).first;
    last_record_shape_ = measures.shape();
    last_shape_ = &*it;
    return last_shape_;
  }
  // The same for a row the version rules merged (rare).
  const Shape* ShapeOf(const std::vector<Measure>& measures) {
    return ShapeOf(MeasureList::Of(measures));
  }

  // A record whose key is known, waiting for the version rules.
  struct Target {
    Pending* pending;
    Prepared* prepared;
    // The point's key (the same in `hot` and `cold_delta`), in place: a
    // string of 32 bytes would be an allocation per record.
    std::array<char, keys::kPointKeySize> key_bytes;
    std::string_view hot_key() const { return {key_bytes.data(), key_bytes.size()}; }
    bool check_hot;        // `hot` may hold this key: read it
    bool check_cold;       // a block or `cold_delta` may hold it: read them
    Store::Family family;  // where a new row goes
  };

  void Reject(Pending* p, const Prepared& r, RejectionClass why, std::string reason,
              std::optional<int64_t> existing_version = std::nullopt) {
    p->result.rejected.push_back({r.index, std::move(reason), existing_version, why});
  }

  // The table-wide type of attribute `name`, counting this group's changes.
  static std::optional<ValueType> AttributeType(const TableState& state,
                                                const TableChanges& changes,
                                                std::string_view name) {
    // Debian's Abseil has its own string_view, which its string maps look up by.
    if (auto it = changes.attribute_types.find(absl::string_view(name.data(), name.size()));
        it != changes.attribute_types.end()) {
      return it->second;
    }
    return state.AttributeType(name);
  }

  static bool IsDimension(const TableState& state, const TableChanges& changes,
                          std::string_view name) {
    return changes.dimension_names.contains(absl::string_view(name.data(), name.size())) ||
           state.IsDimension(name);
  }

  // A new series' dimension names must not be MULTI attribute names.
  static std::optional<std::string> CheckDimensions(const TableState& state,
                                                    const TableChanges& changes,
                                                    const NormalizedRecord& record) {
    for (const auto& [name, value] : record.dimensions) {
      if (auto type = AttributeType(state, changes, name)) {
        return DimensionIsAttribute(name, *type);
      }
    }
    return std::nullopt;
  }

  // Checks the record's types against the table's schema: the measure's
  // kind, and each MULTI attribute's one type across the table. Returns the
  // rejection reason, if any; changes nothing.
  static std::optional<std::string> CheckTypes(const TableState& state,
                                               const TableChanges& changes,
                                               const NormalizedRecord& record,
                                               const std::optional<MeasureSchema>& known) {
    const MeasureKind kind = record.kind();
    if (!known && state.measure_count() + static_cast<int>(changes.schema.size()) >=
                      kMaxMeasureNamesPerTable) {
      return TooManyMeasureNames();
    }
    if (known && known->kind != kind) {
      return MeasureKindConflict(record.measure_name, known->kind, kind);
    }
    if (!record.multi) return std::nullopt;
    int new_names = 0;
    for (size_t i = 0; i < record.measures.size(); ++i) {
      const std::string_view name = record.measures.name(i);
      if (IsDimension(state, changes, name)) {
        return AttributeIsDimension(name);
      }
      const std::optional<ValueType> type = AttributeType(state, changes, name);
      if (!type) {
        ++new_names;
      } else if (*type != record.measures.type(i)) {
        return AttributeTypeConflict(name, *type, record.measures.type(i));
      }
    }
    if (new_names > 0 && state.attribute_count() + static_cast<int>(changes.attribute_types.size()) +
                                 new_names > kMaxMultiAttributesPerTable) {
      return TooManyAttributes();
    }
    return std::nullopt;
  }

  // Checks the record's types against the table's schema, registering new
  // measure names and attributes (in this batch) once every check passed.
  // Returns the rejection reason, if any.
  std::optional<std::string> CheckSchema(TableState& state, TableChanges& changes,
                                         const Prepared& prepared) {
    const NormalizedRecord& record = prepared.record;
    // A record that conforms to the committed schema passes the checks
    // below whatever this group registers: they only add names.
    if (prepared.conforms) return std::nullopt;
    auto pending = changes.schema.find(record.measure_name);
    if (pending == changes.schema.end() && state.Conforms(record)) return std::nullopt;
    std::optional<MeasureSchema> known;
    if (pending != changes.schema.end()) {
      known = pending->second;
    } else {
      known = state.FindMeasure(record.measure_name);
    }
    if (auto reason = CheckTypes(state, changes, record, known)) return reason;

    const uint32_t table = state.table_id();
    if (!known) {
      const MeasureKind kind = record.kind();
      known = MeasureSchema{.kind = kind};
      batch_.Put(store_->family(Store::kCatalog), keys::MeasureEntry(table, record.measure_name),
                 std::string(1, static_cast<char>(kind)));
    }
    if (record.multi) {
      for (size_t i = 0; i < record.measures.size(); ++i) {
        const std::string_view name = record.measures.name(i);
        const ValueType type = record.measures.type(i);
        if (!known->attributes.emplace(name, type).second) continue;
        if (!AttributeType(state, changes, name)) changes.attribute_types.emplace(name, type);
        batch_.Put(store_->family(Store::kCatalog),
                   keys::AttributeEntry(table, record.measure_name, name),
                   std::string(1, static_cast<char>(type)));
      }
    }
    changes.schema[record.measure_name] = *std::move(known);
    return std::nullopt;
  }

  // The id of the record's series (`registered`: the registry's answer),
  // registering it (registry entry and dimension index, in this batch) when
  // it is new.
  uint64_t SeriesId(TableState& state, TableChanges& changes, const Prepared& r,
                    std::optional<uint64_t> registered) {
    if (registered) return *registered;
    if (auto it = changes.new_series.find(SeriesKeyView::Of(r.record));
        it != changes.new_series.end()) {
      return it->second.id;
    }
    std::string series_key = SeriesKey(r.record);  // joined for a new series only
    uint64_t id = Hash(series_key);
    for (uint64_t seed = 1; state.SeriesIdTaken(id) || changes.new_series_ids.contains(id);
         ++seed) {
      id = Hash(series_key, seed);  // a 64-bit collision: rare, but resolved
    }
    const uint32_t table = state.table_id();
    std::string value;
    PutFixed64BE(&value, id);
    batch_.Put(store_->family(Store::kCatalog), keys::SeriesEntry(table, series_key), value);
    for (const auto& [name, dim_value] : r.record.dimensions) {
      batch_.Put(store_->family(Store::kIndex), keys::IndexEntry(table, name, dim_value, id), "");
      if (!state.IsDimension(name)) changes.dimension_names.emplace(name);
    }
    SeriesInfo info{.id = id, .measure_name = r.record.measure_name,
                    .dimensions = r.record.dimensions.ToVector()};
    changes.new_series_ids.emplace(id, series_key);
    changes.new_series.emplace(std::move(series_key), std::move(info));
    return id;
  }

  // What is stored of (series, bucket), from the cache or, on a miss, a
  // reverse seek in `hot` and `cold_delta` and the block's header. The
  // tiering job moves rows without changing the newest time (it runs between
  // groups, and a converted bucket is one `check_cold` covers), and retention
  // only removes rows, so a cached time is never too low.
  TableState::Newest NewestStored(TableState& state, const keys::PointKey& key) {
    auto& cache = state.newest_cache();
    const uint32_t conversions = ConversionsOf(state, key.bucket);
    auto it = cache.find(key.series);
    if (it != cache.end() && it->second.bucket == key.bucket) {
      TableState::Newest& newest = it->second;
      if (newest.conversions != conversions) {  // converted since: in a block now
        newest.in_cold = true;
        newest.conversions = conversions;
      }
      return newest;
    }
    const std::string prefix =
        keys::SeriesBucketPrefix(key.table_id, key.bucket, key.pk_hash, key.series);
    const int64_t hot =
        head_->NewestTime(key.table_id, key.bucket, key.pk_hash, key.series);
    const int64_t cold = std::max(NewestRowTime(Store::kColdDelta, prefix), BlockEnd(prefix));
    TableState::Newest newest{.bucket = key.bucket, .time_nanos = std::max(hot, cold),
                              .in_cold = cold != INT64_MIN, .conversions = conversions};
    cache[key.series] = newest;
    return newest;
  }

  static uint32_t ConversionsOf(TableState& state, uint32_t bucket) {
    const auto& conversions = state.bucket_conversions();
    auto it = conversions.find(bucket);
    return it == conversions.end() ? 0 : it->second;
  }

  void Resolve(Pending* p, Prepared& r) {
    TableState& state = *p->state;
    TableChanges& changes = changes_[&state];
    const std::optional<uint64_t> registered =
        r.registered ? r.registered : state.FindSeries(SeriesKeyView::Of(r.record));
    if (!registered && !changes.new_series.contains(SeriesKeyView::Of(r.record))) {
      if (auto reason = CheckDimensions(state, changes, r.record)) {
        Reject(p, r, RejectionClass::kSchema, *std::move(reason));
        return;
      }
    }
    if (auto reason = CheckSchema(state, changes, r)) {
      Reject(p, r, RejectionClass::kSchema, *std::move(reason));
      return;
    }
    keys::PointKey key{.table_id = state.table_id(), .bucket = keys::BucketOf(r.record.time_nanos),
                 .pk_hash = r.pk_hash, .series = SeriesId(state, changes, r, registered),
                 .time_nanos = r.record.time_nanos};
    // Conservative: marked even if the record is rejected below. Records of
    // a group mostly share one bucket, so most records skip the maps.
    if (const BucketId bucket{key.table_id, key.bucket}; bucket != last_bucket_) {
      last_bucket_ = bucket;
      buckets_->last_write[bucket] = now_;
    }
    // A bucket the tiering job may already have converted (past the memory
    // store's window, or a sealed hour) may hold the key in a block or in
    // `cold_delta`; so may any bucket where the lookup found some (written
    // before a restart that changed the sealing, or a late write). A new row
    // goes to the tier the record was routed to; an update goes where the
    // row lives (Apply).
    const TableState::Newest stored = NewestStored(state, key);
    const bool check_cold =
        r.magnetic || stored.in_cold ||
        key.bucket < keys::BucketsBefore(p->table->BlocksBeforeNanos(now_, seal_after_nanos_));
    Target t{.pending = p, .prepared = &r, .key_bytes = {},
             .check_hot = true, .check_cold = check_cold,
             .family = r.magnetic ? Store::kColdDelta : Store::kHot};
    keys::EncodePointKeyTo(key, t.key_bytes.data());
    // Appends, the common case, cannot collide with anything stored.
    if (key.time_nanos > stored.time_nanos) {
      t.check_hot = false;
      t.check_cold = false;
    }
    if (t.check_hot) to_read_.emplace(Store::kHot, t.hot_key());
    if (t.check_cold) {
      to_read_.emplace(Store::kColdDelta, t.hot_key());
      to_read_.emplace(Store::kCold, t.hot_key());
    }
    targets_.push_back(std::move(t));
  }

  // The time of the last row of `family` under the 24-byte series prefix.
  int64_t NewestRowTime(Store::Family family, const std::string& prefix) {
    const std::string end = keys::PrefixEnd(prefix);
    const rocksdb::Slice upper(end);
    rocksdb::ReadOptions options;
    options.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> iter(
        store_->db()->NewIterator(options, store_->family(family)));
    iter->SeekToLast();
    keys::PointKey found;
    if (iter->Valid() && iter->key().starts_with(prefix) &&
        keys::DecodePointKey(iter->key().ToStringView(), &found)) {
      return found.time_nanos;
    }
    return INT64_MIN;
  }

  // The newest time of the series' block in the bucket, from its header
  // copy. A header that cannot be read gives INT64_MAX: every write is then
  // checked against the block, whose reading reports the damage.
  int64_t BlockEnd(const std::string& block_key) {
    std::string header;
    const rocksdb::Status s = store_->db()->Get(
        rocksdb::ReadOptions(), store_->family(Store::kColdHeader), block_key, &header);
    if (s.IsNotFound()) return INT64_MIN;
    if (!s.ok()) return INT64_MAX;
    auto summary = format::DecodeBlockSummary(header);
    return summary.ok() ? summary->max_time : INT64_MAX;
  }

  // One MultiGet for every stored row the group's records may collide with.
  // A `cold` entry names a point; its block (keyed by the point's 24-byte
  // prefix) is fetched and decoded once however many points of it the
  // group writes.
  absl::Status ReadExisting() {
    if (to_read_.empty()) return absl::OkStatus();
    // Views of to_read_'s keys (rows_ keeps them) and of block_keys'.
    std::vector<std::pair<Store::Family, std::string_view>> lookups;
    absl::flat_hash_set<std::string> block_keys;
    for (const auto& [family, key] : to_read_) {
      if (family == Store::kCold) {
        block_keys.insert(key.substr(0, keys::kBlockKeySize));
      } else if (family == Store::kHot) {
        // The memory store's rows are the head's.
        keys::PointKey point;
        keys::DecodePointKey(key, &point);
        if (auto row = head_->Find(point)) {
          ASSIGN_OR_RETURN(rows_[key].in(Store::kHot), DecodeRow(*row));
        }
      } else {
        lookups.emplace_back(family, key);
      }
    }
    // A block is stored in two parts (stored_blocks.h): both are read.
    for (const std::string& key : block_keys) {
      lookups.emplace_back(Store::kCold, key);
      lookups.emplace_back(Store::kColdHeader, key);
    }
    std::vector<rocksdb::ColumnFamilyHandle*> families;
    std::vector<rocksdb::Slice> slices;
    for (const auto& [family, key] : lookups) {
      families.push_back(store_->family(family));
      slices.emplace_back(key.data(), key.size());
    }
    std::vector<std::string> values;
    std::vector<rocksdb::Status> statuses =
        store_->db()->MultiGet(rocksdb::ReadOptions(), families, slices, &values);
    // A block's times are decoded first, to find whether it holds the
    // group's points at all (a late write of a new point does not); its
    // other columns only for a point it holds (a retry, an update), once.
    // Each of the group's records mostly falls in a block of its own, and
    // decoding every point of each into Measures cost ~0.3 ms a record.
    struct Block {
      std::string_view bytes;
      format::BlockColumns decoded;  // times; with every column once `points` is set
      std::optional<format::PointReader> points;
    };
    absl::flat_hash_map<std::string_view, Block> blocks;
    absl::flat_hash_map<std::string_view, std::string_view> headers;
    for (size_t i = 0; i < lookups.size(); ++i) {
      if (lookups[i].first != Store::kColdHeader || statuses[i].IsNotFound()) continue;
      RETURN_IF_ERROR(FromRocks(statuses[i], "reading stored block headers"));
      headers[lookups[i].second] = values[i];
    }
    std::vector<std::string> joined(lookups.size());  // blocks stored in two parts
    for (size_t i = 0; i < lookups.size(); ++i) {
      if (statuses[i].IsNotFound() || lookups[i].first == Store::kColdHeader) continue;
      RETURN_IF_ERROR(FromRocks(statuses[i], "reading stored records"));
      if (lookups[i].first == Store::kCold) {
        Block& block = blocks[lookups[i].second];
        const auto header = headers.find(lookups[i].second);
        ASSIGN_OR_RETURN(block.bytes,
                         JoinedBlock(header == headers.end()
                                        ? std::nullopt
                                        : std::optional<std::string_view>(header->second),
                                    values[i], &joined[i]));
        ASSIGN_OR_RETURN(block.decoded,
                         format::DecodeBlockColumns(block.bytes, /*with_versions=*/false,
                                                    [](const format::ColumnSummary&) {
                                                      return false;
                                                    }));
      } else {
        ASSIGN_OR_RETURN(rows_[lookups[i].second].in(lookups[i].first), DecodeRow(values[i]));
      }
    }
    for (const auto& entry : to_read_) {
      if (entry.first != Store::kCold) continue;
      auto it = blocks.find(std::string_view(entry.second).substr(0, keys::kBlockKeySize));
      if (it == blocks.end()) continue;
      Block& block = it->second;
      keys::PointKey point;
      keys::DecodePointKey(entry.second, &point);
      const std::vector<int64_t>& times = block.decoded.times;
      const auto found = std::lower_bound(times.begin(), times.end(), point.time_nanos);
      if (found == times.end() || *found != point.time_nanos) continue;
      const size_t index = found - times.begin();
      if (!block.points) {
        std::vector<int64_t> decoded_times = std::move(block.decoded.times);
        ASSIGN_OR_RETURN(block.decoded,
                         format::DecodeBlockColumns(block.bytes, /*with_versions=*/true,
                                                    [](const format::ColumnSummary&) {
                                                      return true;
                                                    },
                                                    /*with_times=*/false));
        block.decoded.times = std::move(decoded_times);
        block.points.emplace(block.decoded);
      }
      rows_[entry.second].in(Store::kCold) =
          StoredRow{block.decoded.versions[index], block.points->MeasuresAt(index)};
    }
    return absl::OkStatus();
  }

  // A second record of the group at a point the group already wrote (rare):
  // the row the first left, decoded back from values_ into rows_.
  absl::Status ReadBackWritten(std::string_view key) {
    auto it = written_.find(key);
    if (it == written_.end()) return absl::OkStatus();
    const Put& put = puts_[it->second];
    StoredRow row;
    RETURN_IF_ERROR(DecodeRowInto(put.value(values_),
                                  put.shape != nullptr ? put.shape->second.get() : nullptr, &row));
    rows_[key].in(put.family) = std::move(row);
    written_.erase(it);
    return absl::OkStatus();
  }

  // The version rules, against the row as stored or as an earlier record of
  // this group left it.
  absl::Status Apply(Target& t) {
    Prepared& r = *t.prepared;
    Store::Family family = t.family;
    RETURN_IF_ERROR(ReadBackWritten(t.hot_key()));
    // rows_ holds what was read and what this group wrote at a point written
    // twice, in every tier; the current row is the one with the highest version.
    const StoredRow* existing = nullptr;
    if (auto it = rows_.find(t.hot_key()); it != rows_.end()) {
      for (Store::Family f : {Store::kHot, Store::kColdDelta, Store::kCold}) {
        const std::optional<StoredRow>& row = it->second.in(f);
        if (!row) continue;
        if (existing == nullptr || row->version > existing->version) {
          existing = &*row;
          // Update the row where it lives; a block is updated through the delta.
          family = f == Store::kCold ? Store::kColdDelta : f;
        }
      }
    }
    const size_t value_offset = values_.size();
    const Shape* shape = nullptr;
    int64_t version = r.record.version;
    if (existing == nullptr) {
      // The record's values become the row as they are.
      const MeasureList& measures = r.record.measures;
      if (family == Store::kHot) {
        shape = ShapeOf(measures);
        AppendCompactRow(version, measures.values(), &values_);
      } else {
        compact_.clear();
        AppendCompactRow(version, measures.values(), &compact_);
        measures.shape()->AppendEncodedRow(compact_, &values_);
      }
    } else {
      const StoredRow& stored = *existing;
      std::vector<Measure> written = r.record.measures.ToVector();
      const bool same = SameValues(stored, written);
      if (version <= stored.version) {
        if (same) {
          Count(t);  // an idempotent retry: accepted, nothing changes
          return absl::OkStatus();
        }
        Reject(t.pending, r, RejectionClass::kVersion,
               StrCat("a record with the same dimensions, measure name and time already exists "
                      "with version ", stored.version, " and different values; write it with a "
                      "version above ", stored.version, " to update it"),
               stored.version);
        return absl::OkStatus();
      }
      StoredRow next{.version = version};
      next.measures = same ? stored.measures
                           : (r.record.multi ? MergeMeasures(stored, written) : std::move(written));
      shape = family == Store::kHot ? ShapeOf(next.measures) : nullptr;
      if (shape != nullptr) {
        EncodeCompactRow(next, &values_);
      } else {
        EncodeRow(next, &values_);
      }
    }
    const size_t value_size = values_.size() - value_offset;
    if (t.pending->state->last_points().active()) {
      written_points_.push_back({t.pending->state.get(), DecodeSeries(t.hot_key()),
                                 r.record.time_nanos, version, value_offset, value_size,
                                 shape != nullptr ? shape->second : nullptr});
    }
    puts_.push_back({family, t.hot_key(), value_offset, value_size, shape});
    if (family != Store::kHot) {
      // A conversion of the bucket deletes its late writes with it: it must
      // read this one. (Rows for the head are told apart by their log
      // sequence instead, and stay in the head.)
      auto watched = buckets_->watched.find({t.pending->state->table_id(),
                                             keys::BucketOf(r.record.time_nanos)});
      if (watched != buckets_->watched.end()) watched->second = true;
    }
    auto& cache = t.pending->state->newest_cache();
    if (auto newest = cache.find(DecodeSeries(t.hot_key()));
        newest != cache.end() && newest->second.bucket == keys::BucketOf(r.record.time_nanos)) {
      newest->second.time_nanos = std::max(newest->second.time_nanos, r.record.time_nanos);
      newest->second.in_cold |= family == Store::kColdDelta;
    }
    // Kept as its bytes: a later record at the same point reads it back
    // (ReadBackWritten).
    written_[t.hot_key()] = puts_.size() - 1;
    Count(t);
    return absl::OkStatus();
  }

  static uint64_t DecodeSeries(std::string_view key) {
    keys::PointKey k;
    keys::DecodePointKey(key, &k);
    return k.series;
  }

  void Count(const Target& t) {
    if (t.prepared->magnetic) {
      ++t.pending->result.magnetic_store;
    } else {
      ++t.pending->result.memory_store;
    }
  }

  Store* const store_;
  MemoryHead* const head_;
  const std::vector<Pending*>& group_;
  const int64_t now_;
  const int64_t seal_after_nanos_;
  BucketActivity* const buckets_;
  BucketId last_bucket_{UINT32_MAX, UINT32_MAX};  // the last record's
  rocksdb::WriteBatch batch_;  // registry and schema entries, then the ordered puts_
  std::vector<Put> puts_;
  std::string values_;  // the encoded rows of puts_, back to back
  std::string compact_;  // scratch: a record's compact row, for a row encoded whole
  absl::flat_hash_map<TableState*, TableChanges> changes_;
  std::vector<Target> targets_;
  absl::flat_hash_set<std::pair<Store::Family, std::string>> to_read_;
  // What a point key holds in each family that may have it: read, or
  // written by an earlier record of this group.
  struct StoredAt {
    std::optional<StoredRow> hot, cold_delta, cold;
    std::optional<StoredRow>& in(Store::Family family) {
      return family == Store::kHot ? hot : family == Store::kColdDelta ? cold_delta : cold;
    }
  };
  // By point key: views of targets_' keys (reserved, so they stay put) and
  // of to_read_'s (not changed once read).
  PointKeyMap<StoredAt> rows_;
  // The row this group last wrote at a point: its put (puts_ is ordered only
  // once every record is applied), by point key as rows_.
  PointKeyMap<size_t> written_;
};

absl::StatusOr<std::shared_ptr<TableState>> Writer::State(uint32_t table_id) {
  absl::MutexLock lock(&states_mu_);
  auto it = states_.find(table_id);
  if (it != states_.end()) return it->second;
  ASSIGN_OR_RETURN(std::shared_ptr<TableState> state, TableState::Load(store_, table_id));
  states_.emplace(table_id, state);
  return state;
}

void Writer::ForgetStatesExcept(const absl::flat_hash_set<uint32_t>& live) {
  std::vector<std::shared_ptr<TableState>> forgotten;  // freed outside the lock
  absl::MutexLock lock(&states_mu_);
  for (auto it = states_.begin(); it != states_.end();) {
    if (live.contains(it->first)) {
      ++it;
      continue;
    }
    forgotten.push_back(std::move(it->second));
    states_.erase(it++);
  }
}

Writer::Writer(Store* store, MemoryHead* head, Catalog* catalog, const Clock* clock, int64_t seal_after_nanos,
               int max_queued_requests, int64_t memory_limit_bytes)
    : store_(store), head_(head), catalog_(catalog), clock_(clock), seal_after_nanos_(seal_after_nanos),
      started_nanos_(clock->NowNanos()),
      max_queued_requests_(static_cast<size_t>(std::max(1, max_queued_requests))),
      memory_limit_bytes_(memory_limit_bytes),
      committer_([this] { CommitLoop(); }) {}

Writer::~Writer() {
  {
    absl::MutexLock lock(&queue_mu_);
    stopping_ = true;
  }
  committer_.join();
}

absl::StatusOr<WriteResult> Writer::Write(WriteRequest request) {
  absl::Notification finished;
  absl::StatusOr<WriteResult> out;
  WriteAsync(std::move(request), [&](absl::StatusOr<WriteResult> result) {
    out = std::move(result);
    finished.Notify();
  });
  finished.WaitForNotification();
  return out;
}

void Writer::WriteAsync(WriteRequest request, WriteDone done) {
  InputWriteSource source(request);
  WriteAsync(source, std::move(done));
}

absl::Status Writer::CheckAdmission() {
  if (const int64_t held = head_->bytes();
      memory_limit_bytes_ > 0 && held > memory_limit_bytes_) {
    return absl::ResourceExhaustedError(StrCat(
        "the memory store holds ", held >> 20, " MB, over twice its budget, while older hours "
        "are sealed into blocks; nothing of this request was written. Retry with backoff, or "
        "raise the server's --memory-store-budget-mb"));
  }
  if (queued_slots_.load(std::memory_order_relaxed) < max_queued_requests_) {
    return absl::OkStatus();
  }
  absl::MutexLock lock(&queue_mu_);  // for the count the refusal names
  if (queued_slots_ >= max_queued_requests_) return QueueFull(queue_.size());
  return absl::OkStatus();
}

void Writer::WriteAsync(WriteSource& source, WriteOptions options, WriteDone done) {
  // Refused before it is read: under overload a refusal must cost next to nothing (reading a
  // request it then refused for the queue cost the server as much as writing it).
  if (!options.must_apply) {
    if (absl::Status admitted = CheckAdmission(); !admitted.ok()) {
      done(admitted);
      return;
    }
  }
  auto pending = std::make_unique<Pending>();
  pending->done = std::move(done);
  pending->catalog_puts = std::move(options.catalog_puts);
  const int64_t now = options.now_nanos != 0 ? options.now_nanos : clock_->NowNanos();
  if (absl::Status prepared = Prepare(source, now, options, pending.get()); !prepared.ok()) {
    Complete(std::move(pending), prepared);
    return;
  }
  if (pending->records.empty() && pending->catalog_puts.empty()) {
    Complete(std::move(pending), absl::OkStatus());
    return;
  }
  Enqueue(std::move(pending), options.must_apply);
}

void Writer::CommitAsync(WriteOptions options, WriteDone done) {
  auto pending = std::make_unique<Pending>();
  pending->done = std::move(done);
  pending->catalog_puts = std::move(options.catalog_puts);
  Enqueue(std::move(pending), options.must_apply);
}

void Writer::Enqueue(std::unique_ptr<Pending> pending, bool must_apply) {
  size_t queued = 0;
  const size_t slots = Slots(pending->records.size());
  {
    absl::MutexLock lock(&queue_mu_);
    queued = queue_.size();
    // An empty queue takes any request: a bulk write larger than the whole
    // queue (a small --write-queue) waits alone instead of never fitting.
    if (must_apply || queue_.empty() || queued_slots_ + slots <= max_queued_requests_) {
      queued_slots_ += slots;
      queue_.push_back(std::move(pending));
      return;
    }
  }
  Complete(std::move(pending), QueueFull(queued));
}

absl::Status Writer::Prepare(WriteSource& source, int64_t now, const WriteOptions& options,
                             Pending* pending) {
  ASSIGN_OR_RETURN(pending->table, catalog_->FindTable(source.database_name(), source.table_name()));
  RETURN_IF_ERROR(source.ValidateShape());
  ASSIGN_OR_RETURN(pending->state, State(pending->table->id));
  const TableInfo& table = *pending->table;
  // The windows the records' times are judged by: the caller's, else the catalog's now.
  TableInfo judged_by;
  if (options.windows.has_value()) {
    judged_by = table;
    judged_by.set_windows(*options.windows);
  }
  const TableInfo& windows = options.windows.has_value() ? judged_by : table;
  std::vector<RejectedRecord>& rejected = pending->result.rejected;
  const int count = source.record_count();
  pending->records.reserve(count);
  std::vector<Prepared>& records = pending->records;
  for (int i = 0; i < count; ++i) {
    // Each record is normalized in the slot that keeps it: it holds its
    // dimensions and values inline (~300 bytes), which moving copied. The
    // slots were reserved, so `previous` stays where it is.
    const Prepared* previous = records.empty() ? nullptr : &records.back();
    Prepared& prepared = records.emplace_back();
    NormalizedRecord& record = prepared.record;
    if (absl::Status normalized = source.NormalizeInto(i, table.partition_key, &record);
        !normalized.ok()) {
      records.pop_back();
      rejected.push_back({i, std::string(normalized.message())});
      continue;
    }
    auto magnetic = IsMagnetic(windows, record.time_nanos, now, options.copying);
    if (!magnetic.ok()) {
      records.pop_back();
      rejected.push_back(
          {i, std::string(magnetic.status().message()), std::nullopt, RejectionClass::kTimeWindow});
      continue;
    }
    prepared.index = i;
    prepared.pk_hash = PartitionHash(record.measure_name, record.dimensions, table.partition_key);
    prepared.magnetic = *magnetic;
    // Records of a request mostly share their measure name and attributes.
    prepared.conforms =
        (previous != nullptr && previous->conforms && SameShape(previous->record, record)) ||
        pending->state->Conforms(record);
  }
  pending->state->FindEachSeries(
      records.size(), [&](size_t i) { return SeriesKeyView::Of(records[i].record); },
      [&](size_t i, uint64_t id) { records[i].registered = id; });
  return absl::OkStatus();
}

int Writer::QueuedRequests() {
  absl::MutexLock lock(&queue_mu_);
  return static_cast<int>(queue_.size());
}

void Writer::CommitLoop() {
  // RocksDB counts every memtable insert and WAL step in thread-local perf
  // counters by default; nothing reads them (as in ScanTable).
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  while (true) {
    std::vector<std::unique_ptr<Pending>> requests;
    {
      absl::MutexLock lock(&queue_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
        return stopping_ || !queue_.empty();
      };
      queue_mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // stopping, and everything queued is committed
      // Everything that queued while the last group committed is one group.
      size_t slots = 0;
      while (!queue_.empty() && (requests.empty() || slots < kMaxGroupSlots)) {
        const size_t taken = Slots(queue_.front()->records.size());
        slots += taken;
        queued_slots_ -= taken;
        requests.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    std::vector<Pending*> group;
    for (auto& p : requests) group.push_back(p.get());
    absl::Status status;
    try {
      absl::MutexLock commit(&commit_mu_);
      // A disk below its reserve, or stopped by a failed write, takes no
      // more writes (and resumes them once it can).
      status = store_->CheckWritable();
      if (status.ok()) {
        status = GroupCommit(store_, head_, group, clock_->NowNanos(), seal_after_nanos_, &buckets_)
                     .Run();
      }
    } catch (const std::exception& e) {  // e.g. bad_alloc: the group fails, the server stays
      status = absl::InternalError(StrCat("unexpected error while writing: ", e.what()));
    }
    for (auto& p : requests) Complete(std::move(p), status);
  }
}

void Writer::Complete(std::unique_ptr<Pending> pending, const absl::Status& status) {
  absl::StatusOr<WriteResult> outcome(std::move(pending->result));
  if (!status.ok()) {
    outcome = status;
  } else {
    std::sort(outcome->rejected.begin(), outcome->rejected.end(),
              [](const RejectedRecord& a, const RejectedRecord& b) {
                return a.record_index < b.record_index;
              });
  }
  // The caller goes on the moment `done` runs, and may drop the table: the
  // request's hold on the table's state must be gone by then, not released
  // later on this thread.
  WriteDone done = std::move(pending->done);
  pending.reset();
  done(std::move(outcome));
}

void Writer::WatchBucket(uint32_t table_id, uint32_t bucket) {
  commit_mu_.AssertHeld();
  buckets_.watched[{table_id, bucket}] = false;
}

bool Writer::UnwatchBucket(uint32_t table_id, uint32_t bucket) {
  commit_mu_.AssertHeld();
  auto it = buckets_.watched.find({table_id, bucket});
  if (it == buckets_.watched.end()) return true;
  const bool changed = it->second;
  buckets_.watched.erase(it);
  return changed;
}

void Writer::BucketChanged(uint32_t table_id, uint32_t bucket) {
  commit_mu_.AssertHeld();
  auto it = buckets_.watched.find({table_id, bucket});
  if (it != buckets_.watched.end()) it->second = true;
}

int64_t Writer::LastWriteNanos(uint32_t table_id, uint32_t bucket) {
  commit_mu_.AssertHeld();
  auto it = buckets_.last_write.find({table_id, bucket});
  return it == buckets_.last_write.end() ? started_nanos_ : it->second;
}

void Writer::BucketConverted(uint32_t table_id, uint32_t bucket) {
  commit_mu_.AssertHeld();
  buckets_.last_write.erase({table_id, bucket});
  // Only a loaded table has cached newest times to correct; one not loaded
  // reads the block's header on its first write.
  std::shared_ptr<TableState> state;
  {
    absl::MutexLock lock(&states_mu_);
    auto it = states_.find(table_id);
    if (it != states_.end()) state = it->second;
  }
  if (state == nullptr) return;
  ++state->bucket_conversions()[bucket];  // NewestStored reads it per series
}

}  // namespace strata
