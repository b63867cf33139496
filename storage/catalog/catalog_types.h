// Plain descriptions of databases and tables, as the catalog stores and
// returns them. Values, no behaviour beyond the derived retention windows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

// Not a name for a new database: SQL's "system"."<table>" are the server's
// own tables (query/exec/system_tables.h). A data directory that already has
// such a database keeps it.
inline constexpr std::string_view kSystemDatabaseName = "system";
inline constexpr int64_t kDefaultMemoryRetentionHours = 6;
inline constexpr int64_t kDefaultMagneticRetentionDays = 73000;
inline constexpr int64_t kMaxMemoryRetentionHours = 8766;
inline constexpr int64_t kMaxMagneticRetentionDays = 73000;

struct RetentionProperties {
  int64_t memory_store_retention_hours = kDefaultMemoryRetentionHours;
  int64_t magnetic_store_retention_days = kDefaultMagneticRetentionDays;

  int64_t MemoryNanos() const;
  // Memory + magnetic retention: how long a record lives at all.
  int64_t TotalNanos() const;
  bool operator==(const RetentionProperties&) const = default;
};

enum class PartitionKeyType { kMeasure, kDimension };
enum class Enforcement { kOptional, kRequired };

// What a table is partitioned by: measure_name (the default), or the value
// of one dimension.
struct PartitionKey {
  PartitionKeyType type = PartitionKeyType::kMeasure;
  std::string name;  // the dimension name; empty for kMeasure
  Enforcement enforcement = Enforcement::kOptional;
  bool operator==(const PartitionKey&) const = default;
};

struct DatabaseInfo {
  uint32_t id = 0;
  std::string name;
  std::string description;
  int64_t creation_time_nanos = 0;
  int64_t last_updated_time_nanos = 0;
  int64_t table_count = 0;  // filled in by the catalog on read
};

struct TableSpec {
  std::string database_name;
  std::string table_name;
  RetentionProperties retention;
  bool enable_magnetic_store_writes = false;
  PartitionKey partition_key;
};

// Unset members are left unchanged.
struct TableUpdate {
  std::optional<RetentionProperties> retention;
  std::optional<bool> enable_magnetic_store_writes;
  std::optional<PartitionKey> partition_key;
};

// What of a table decides whether a record's time is accepted, and into which store: its
// retention, whether it takes magnetic-store writes, and the floors a grown retention left
// (TableInfo's fields of the same names). A cluster's log entry carries them as its leader
// saw them, so every replica judges a record alike whatever its catalog says by then.
struct TableWindows {
  RetentionProperties retention;
  bool enable_magnetic_store_writes = false;
  int64_t memory_store_floor_nanos = INT64_MIN;
  int64_t retention_floor_nanos = INT64_MIN;
  bool operator==(const TableWindows&) const = default;
};

struct TableInfo {
  uint32_t id = 0;  // never reused, so stale data of a dropped table can't alias
  std::string database_name;
  std::string name;
  RetentionProperties retention;
  bool enable_magnetic_store_writes = false;
  PartitionKey partition_key;
  int64_t creation_time_nanos = 0;
  int64_t last_updated_time_nanos = 0;
  // Retention increases apply forward only. When a retention grows at time t,
  // data older than t - old_retention was already outside that window (moved
  // out of the memory store, or expired); these floors keep it there.
  int64_t memory_store_floor_nanos = INT64_MIN;
  int64_t retention_floor_nanos = INT64_MIN;

  TableWindows windows() const {
    return {retention, enable_magnetic_store_writes, memory_store_floor_nanos,
            retention_floor_nanos};
  }
  void set_windows(const TableWindows& w) {
    retention = w.retention;
    enable_magnetic_store_writes = w.enable_magnetic_store_writes;
    memory_store_floor_nanos = w.memory_store_floor_nanos;
    retention_floor_nanos = w.retention_floor_nanos;
  }
  // The oldest time the memory store holds at `now_nanos`.
  int64_t MemoryStoreStartNanos(int64_t now_nanos) const;
  // Buckets that ended before this time may be (partly) in columnar blocks:
  // the tiering job converts every bucket past the memory store's window
  // and, with sealing on (`seal_after_nanos` > 0), every memory-store hour
  // that ended at least `seal_after_nanos` ago (docs/storage.md,
  // "Sealed hours").
  int64_t BlocksBeforeNanos(int64_t now_nanos, int64_t seal_after_nanos) const;
  // The oldest time the table holds at all at `now_nanos`; older rows are
  // expired and never returned.
  int64_t RetentionStartNanos(int64_t now_nanos) const;
};

template <typename T>
struct Page {
  std::vector<T> items;
  std::string next_token;  // empty on the last page
};

}  // namespace strata
