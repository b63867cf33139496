#include "cluster/log_entry.h"

#include <xxhash.h>

#include "common/coding.h"
#include "common/strings.h"

namespace strata::cluster {

std::string EncodeLogEntry(const LogEntry& entry) {
  std::string out;
  size_t bytes = 64 + entry.id.size();
  for (const LogWrite& w : entry.writes) bytes += w.records.size() + w.database.size() + 32;
  out.reserve(bytes);
  out.push_back(3);
  out.push_back(static_cast<char>(entry.kind));
  PutVarint64(&out, static_cast<uint64_t>(entry.epoch));
  PutVarsint64(&out, entry.leader_nanos);
  PutVarint64(&out, static_cast<uint64_t>(entry.catalog_revision));
  PutFixed64BE(&out, entry.previous_digest);
  PutVarint64(&out, entry.intended_sequence);
  PutLengthPrefixed(&out, entry.id);
  PutVarint64(&out, entry.writes.size());
  for (const LogWrite& w : entry.writes) {
    PutLengthPrefixed(&out, w.database);
    PutLengthPrefixed(&out, w.table);
    PutLengthPrefixed(&out, w.records);
    out.push_back(w.windows.has_value() ? 1 : 0);
    if (w.windows.has_value()) {
      PutVarint64(&out, static_cast<uint64_t>(w.windows->retention.memory_store_retention_hours));
      PutVarint64(&out, static_cast<uint64_t>(w.windows->retention.magnetic_store_retention_days));
      out.push_back(w.windows->enable_magnetic_store_writes ? 1 : 0);
      PutVarsint64(&out, w.windows->memory_store_floor_nanos);
      PutVarsint64(&out, w.windows->retention_floor_nanos);
    }
  }
  return out;
}

absl::StatusOr<LogEntry> DecodeLogEntry(std::string_view bytes) {
  auto malformed = [](std::string_view what) {
    return absl::DataLossError(StrCat("a shard log entry is malformed (", what, ")"));
  };
  Decoder in(bytes);
  uint8_t format = 0, kind = 0;
  if (!in.GetByte(&format) || format < 1 || format > 3) return malformed("format");
  if (!in.GetByte(&kind) ||
      (kind != LogEntry::kBarrier && kind != LogEntry::kWrites && kind != LogEntry::kDeletes)) {
    return malformed("kind");
  }
  LogEntry entry;
  entry.kind = static_cast<LogEntry::Kind>(kind);
  uint64_t epoch = 0, revision = 0, count = 0;
  std::string_view id;
  if (!in.GetVarint64(&epoch) || !in.GetVarsint64(&entry.leader_nanos) ||
      !in.GetVarint64(&revision) || !in.GetFixed64BE(&entry.previous_digest) ||
      (format >= 2 && !in.GetVarint64(&entry.intended_sequence)) || !in.GetLengthPrefixed(&id) ||
      !in.GetVarint64(&count) || count > bytes.size()) {
    return malformed("header");
  }
  entry.epoch = static_cast<int64_t>(epoch);
  entry.catalog_revision = static_cast<int64_t>(revision);
  entry.id = std::string(id);
  entry.writes.resize(count);
  for (LogWrite& w : entry.writes) {
    std::string_view database, table, records;
    if (!in.GetLengthPrefixed(&database) || !in.GetLengthPrefixed(&table) ||
        !in.GetLengthPrefixed(&records)) {
      return malformed("write");
    }
    w = {std::string(database), std::string(table), std::string(records)};
    uint8_t has_windows = 0;
    if (format >= 3 && !in.GetByte(&has_windows)) return malformed("windows");
    if (has_windows == 1) {
      TableWindows windows;
      uint64_t memory = 0, magnetic = 0;
      uint8_t enabled = 0;
      if (!in.GetVarint64(&memory) || !in.GetVarint64(&magnetic) || !in.GetByte(&enabled) ||
          !in.GetVarsint64(&windows.memory_store_floor_nanos) ||
          !in.GetVarsint64(&windows.retention_floor_nanos) || enabled > 1) {
        return malformed("windows");
      }
      windows.retention = {.memory_store_retention_hours = static_cast<int64_t>(memory),
                           .magnetic_store_retention_days = static_cast<int64_t>(magnetic)};
      windows.enable_magnetic_store_writes = enabled == 1;
      w.windows = windows;
    } else if (has_windows != 0) {
      return malformed("windows");
    }
  }
  if (!in.done()) return malformed("trailing bytes");
  return entry;
}

uint64_t ChainDigest(uint64_t previous, std::string_view bytes) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), previous);
}

}  // namespace strata::cluster
