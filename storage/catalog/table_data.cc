#include "storage/catalog/table_data.h"

#include <algorithm>
#include <memory>
#include <string>

#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/convenience.h"
#include "storage/kv/keys.h"

namespace strata {
namespace {

// Data column families whose keys start with the table id.
constexpr Store::Family kTableDataFamilies[] = {Store::kHeadLog, Store::kCold, Store::kColdDelta,
                                                Store::kIndex, Store::kColdHeader};

// Adds to `ids` the table id of each run of keys in `family` that start with
// `prefix` followed by a big-endian table id, hopping from one id to the next.
void CollectIds(const Store& store, Store::Family family, const std::string& prefix,
                std::vector<uint32_t>* ids) {
  std::unique_ptr<rocksdb::Iterator> iter(
      store.db()->NewIterator(rocksdb::ReadOptions(), store.family(family)));
  iter->Seek(prefix);
  while (iter->Valid()) {
    const std::string_view key = iter->key().ToStringView();
    if (!key.starts_with(prefix) || key.size() < prefix.size() + 4) break;
    const uint32_t id = DecodeFixed32BE(key.data() + prefix.size());
    ids->push_back(id);
    if (id == UINT32_MAX) break;
    std::string next = prefix;
    PutFixed32BE(&next, id + 1);
    iter->Seek(next);
  }
}

}  // namespace

void AddTableDataDeletion(const Store& store, uint32_t table_id, rocksdb::WriteBatch* batch) {
  const std::string catalog_prefix = keys::TableCatalogPrefix(table_id);
  batch->DeleteRange(store.family(Store::kCatalog), catalog_prefix,
                     keys::PrefixEnd(catalog_prefix));
  const std::string data_begin = keys::TableDataPrefix(table_id);
  const std::string data_end = keys::PrefixEnd(data_begin);
  for (Store::Family family : kTableDataFamilies) {
    batch->DeleteRange(store.family(family), data_begin, data_end);
  }
}

absl::Status CommitTableDataDeletion(Store& store, MemoryHead& head, uint32_t table_id, rocksdb::WriteBatch* batch) {
  RETURN_IF_ERROR(FromRocks(head.WriteThenDrop(store.db(), store.sync_write_options(),
                                                       batch, table_id, 0, UINT32_MAX),
                            "deleting the table"));
  // Give the space back now rather than at some later compaction. The data is
  // already invisible, so a failure here only delays reclaiming disk.
  const std::string data_begin = keys::TableDataPrefix(table_id);
  const std::string data_end = keys::PrefixEnd(data_begin);
  rocksdb::Slice begin(data_begin), end(data_end);
  for (Store::Family family : kTableDataFamilies) {
    rocksdb::DeleteFilesInRange(store.db(), store.family(family), &begin, &end)
        .PermitUncheckedError();
  }
  return absl::OkStatus();
}

std::vector<uint32_t> StoredTableIds(const Store& store, const MemoryHead& head) {
  std::vector<uint32_t> ids = head.TableIds();
  CollectIds(store, Store::kCatalog, keys::AllTablesCatalogPrefix(), &ids);
  for (Store::Family family : kTableDataFamilies) CollectIds(store, family, "", &ids);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace strata
