#include "storage/read/last_points.h"

#include "common/status.h"
#include "storage/rows/measure_list.h"
#include "storage/rows/row_codec.h"

namespace strata {
namespace {

// Series filled under one Writer::Exclusive: writes wait for at most one
// chunk's reads.
constexpr size_t kFillChunk = 1024;
// Entries copied under one lock by a scan.
constexpr size_t kCopyChunk = 64;

absl::Status Finished(const ScanStats& local, ScanStats* stats) {
  if (stats != nullptr) *stats = local;
  return absl::OkStatus();
}

}  // namespace

void LastPoints::Written(uint64_t series, int64_t time_nanos, int64_t version,
                         std::string_view row, std::shared_ptr<const RowShape> shape) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(series);
  // Without an entry nothing is known of the series' other rows: it stays
  // unknown until a query fills it.
  if (it == entries_.end() || time_nanos < it->second.time_nanos) return;
  it->second.time_nanos = time_nanos;
  it->second.version = version;
  it->second.row.assign(row.data(), row.size());
  it->second.shape = std::move(shape);
}

void LastPoints::Clear() {
  absl::MutexLock lock(&mu_);
  entries_.clear();
  active_ = false;
}

size_t LastPoints::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

absl::Status LastPoints::Fill(const Store& store, const MemoryHead& head, const TableInfo& table, int64_t now_nanos,
                              const std::vector<SeriesTarget>& series) {
  absl::flat_hash_map<uint64_t, Entry> found;
  for (const SeriesTarget& t : series) found[t.series] = Entry{};
  // Rows are kept as the writer keeps them, without their names: a scan
  // then reads only the values it needs at their offsets. Series with the
  // same names share one shape.
  absl::flat_hash_map<std::string, std::shared_ptr<const RowShape>> shapes;  // by signature
  std::string signature;
  ScanOptions newest{.series = &series, .last_per_series = true};
  RETURN_IF_ERROR(ScanTable(
      store, head, table, now_nanos, newest,
      [&](const ScanRow& row) {
        Entry& e = found[row.series];
        e.time_nanos = row.time_nanos;
        e.version = row.version;
        e.row.clear();
        const StoredRow stored{row.version, row.measures};
        if (row.measures.empty()) {
          e.shape = nullptr;
          EncodeRow(stored, &e.row);
          return true;
        }
        signature.clear();
        EncodeRowSignature(row.measures, &signature);
        auto it = shapes.find(signature);
        if (it == shapes.end()) {
          it = shapes.emplace(signature, MeasureList::Of(row.measures).shape()).first;
        }
        e.shape = it->second;
        EncodeCompactRow(stored, &e.row);
        return true;
      }));
  absl::MutexLock lock(&mu_);
  for (auto& [id, entry] : found) entries_[id] = std::move(entry);
  active_ = true;
  return absl::OkStatus();
}

absl::Status LastPoints::FillMissing(const Store& store, const MemoryHead& head, const RunExclusive& exclusive,
                                     const TableInfo& table,
                                     int64_t now_nanos, const std::vector<SeriesTarget>& series,
                                     const std::function<bool()>& stop) {
  std::vector<SeriesTarget> missing;
  {
    absl::MutexLock lock(&mu_);
    for (const SeriesTarget& t : series) {
      if (!entries_.contains(t.series)) missing.push_back(t);
    }
  }
  for (size_t from = 0; from < missing.size(); from += kFillChunk) {
    if (stop && stop()) return absl::OkStatus();
    std::vector<SeriesTarget> chunk(
        missing.begin() + static_cast<std::ptrdiff_t>(from),
        missing.begin() + static_cast<std::ptrdiff_t>(std::min(missing.size(), from + kFillChunk)));
    RETURN_IF_ERROR(exclusive([&] { return Fill(store, head, table, now_nanos, chunk); }));
  }
  return absl::OkStatus();
}

absl::Status LastPoints::Scan(const Store& store, const MemoryHead& head, const RunExclusive& exclusive,
                              const TableInfo& table,
                              int64_t now_nanos, const ScanOptions& options,
                              const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  if (options.series == nullptr) {
    return absl::InvalidArgumentError("a last-point scan needs the list of series");
  }
  const std::vector<SeriesTarget>& targets = *options.series;
  RETURN_IF_ERROR(FillMissing(store, head, exclusive, table, now_nanos, targets));

  ScanStats local;
  const int64_t low = std::max({options.start_nanos, table.RetentionStartNanos(now_nanos),
                                int64_t{0}});
  // Entries are copied out a chunk at a time: one lock per chunk, and none
  // held while the rows are emitted (the committer waits on it).
  std::vector<Entry> entries(std::min(targets.size(), kCopyChunk));
  std::vector<bool> known(entries.size());
  ScanRow row;
  StoredRow decoded;
  for (size_t from = 0; from < targets.size(); from += kCopyChunk) {
    if (options.cancelled != nullptr && options.cancelled->load(std::memory_order_relaxed)) {
      return absl::CancelledError("the query was cancelled");
    }
    const size_t count = std::min(kCopyChunk, targets.size() - from);
    {
      absl::MutexLock lock(&mu_);
      for (size_t k = 0; k < count; ++k) {
        auto it = entries_.find(targets[from + k].series);
        known[k] = it != entries_.end();
        if (known[k]) entries[k] = it->second;  // reuses the row's storage
      }
    }
    for (size_t k = 0; k < count; ++k) {
      const SeriesTarget& t = targets[from + k];
      const Entry& entry = entries[k];
      if (known[k] && (entry.time_nanos == INT64_MIN || entry.time_nanos < low)) {
        continue;  // no row in range
      }
      if (!known[k] || entry.time_nanos >= options.end_nanos) {
        // The newest row is past the range's end (or was dropped meanwhile):
        // the newest one before it comes from storage.
        ScanOptions one = options;
        const std::vector<SeriesTarget> series{t};
        one.series = &series;
        ScanStats scanned;
        bool go_on = true;
        RETURN_IF_ERROR(ScanTable(store, head, table, now_nanos, one, [&](const ScanRow& r) {
          go_on = emit(r);
          return go_on;
        }, &scanned));
        local.rows_scanned += scanned.rows_scanned;
        local.bytes_scanned += scanned.bytes_scanned;
        if (!go_on) return Finished(local, stats);
        continue;
      }
      row.series = t.series;
      row.time_nanos = entry.time_nanos;
      row.version = entry.version;
      row.measures.clear();
      row.encoded = {};
      // Alive while the row is emitted (entries[k] holds it); a reader that
      // caches per shape keys by RowShape::serial, not the address.
      row.shape = entry.shape.get();
      if (options.encoded_rows) {
        row.encoded = entry.row;
      } else {
        RETURN_IF_ERROR(DecodeRowInto(entry.row, row.shape, &decoded));
        row.measures = std::move(decoded.measures);
      }
      ++local.rows_scanned;
      local.bytes_scanned += static_cast<int64_t>(entry.row.size());
      if (!emit(row)) return Finished(local, stats);
    }
  }
  return Finished(local, stats);
}

}  // namespace strata
