#include "storage/catalog/catalog_types.h"

#include <algorithm>

#include "common/clock.h"

namespace strata {

int64_t RetentionProperties::MemoryNanos() const {
  return memory_store_retention_hours * kNanosPerHour;
}

int64_t RetentionProperties::TotalNanos() const {
  // 8766 h + 73000 d is about 2.0e17 ns: far inside int64.
  return MemoryNanos() + magnetic_store_retention_days * kNanosPerDay;
}

int64_t TableInfo::MemoryStoreStartNanos(int64_t now_nanos) const {
  return std::max(now_nanos - retention.MemoryNanos(), memory_store_floor_nanos);
}

int64_t TableInfo::BlocksBeforeNanos(int64_t now_nanos, int64_t seal_after_nanos) const {
  const int64_t memory_start = MemoryStoreStartNanos(now_nanos);
  if (seal_after_nanos <= 0) return memory_start;
  return std::max(memory_start, now_nanos - seal_after_nanos);
}

int64_t TableInfo::RetentionStartNanos(int64_t now_nanos) const {
  return std::max(now_nanos - retention.TotalNanos(), retention_floor_nanos);
}

}  // namespace strata
