// Everything a table stores, as one unit to delete: its catalog entries
// (series registry, schema) and its keys in every data family and in the
// memory head. Used by DROP TABLE, and by the sweep that removes what a
// write group or a conversion racing a drop wrote after it
// (Catalog::SweepDroppedTables, docs/storage.md "Dropping a table").
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "rocksdb/write_batch.h"
#include "storage/head/memory_head.h"
#include "storage/kv/store.h"

namespace strata {

// Adds the deletion of table `table_id`'s catalog entries and data to `batch`.
void AddTableDataDeletion(const Store& store, uint32_t table_id, rocksdb::WriteBatch* batch);

// Writes `batch` (with AddTableDataDeletion's deletions) and drops the
// table's rows from the memory head as one step for readers, then gives the
// table's files back to the disk.
absl::Status CommitTableDataDeletion(Store& store, MemoryHead& head, uint32_t table_id, rocksdb::WriteBatch* batch);

// The ids of the tables that have anything stored: catalog entries, keys in
// a data family, or rows in the memory head. One seek per table id and
// family, not a scan of the data.
std::vector<uint32_t> StoredTableIds(const Store& store, const MemoryHead& head);

}  // namespace strata
