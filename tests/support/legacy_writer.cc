#include "tests/support/legacy_writer.h"

#include "common/coding.h"
#include "common/status.h"
#include "rocksdb/write_batch.h"
#include "storage/catalog/catalog_codec.h"
#include "storage/kv/keys.h"
#include "storage/kv/store.h"
#include "storage/read/table_state.h"
#include "storage/rows/row_codec.h"
#include "storage/write/record_validation.h"
#include "xxhash.h"

namespace strata::testing {

absl::Status LegacyWrite(const std::string& data_dir, const TableInfo& table,
                         const WriteRequest& request) {
  ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open({.data_dir = data_dir}));
  rocksdb::WriteBatch batch;
  auto put = [&](Store::Family family, const std::string& key, const std::string& value) {
    batch.Put(store->family(family), key, value);
  };
  for (const InputRecord& input : request.records) {
    ASSIGN_OR_RETURN(NormalizedRecord record,
                     NormalizeRecord(request.common_attributes, input, table.partition_key));
    const std::string series_key = SeriesKey(record);
    const uint64_t series = XXH3_64bits(series_key.data(), series_key.size());
    std::string id;
    PutFixed64BE(&id, series);
    put(Store::kCatalog, keys::SeriesEntry(table.id, series_key), id);
    for (const auto& [name, value] : record.dimensions) {
      put(Store::kIndex, keys::IndexEntry(table.id, name, value, series), "");
    }
    put(Store::kCatalog, keys::MeasureEntry(table.id, record.measure_name),
        std::string(1, static_cast<char>(record.kind())));
    const std::vector<Measure> measures = record.measures.ToVector();
    if (record.multi) {
      for (const Measure& m : measures) {
        put(Store::kCatalog, keys::AttributeEntry(table.id, record.measure_name, m.name),
            std::string(1, static_cast<char>(m.value.type)));
      }
    }
    const keys::PointKey key{
        .table_id = table.id, .bucket = keys::BucketOf(record.time_nanos),
        .pk_hash = PartitionHash(record.measure_name, record.dimensions, table.partition_key),
        .series = series, .time_nanos = record.time_nanos};
    std::string row;
    EncodeRow({record.version, measures}, &row);
    put(Store::kHot, keys::EncodePointKey(key), row);
  }
  RETURN_IF_ERROR(FromRocks(store->db()->Write(store->write_options(), &batch), "legacy write"));
  return store->Close();
}

absl::Status LegacyRename(const std::string& data_dir, const DatabaseInfo& database,
                          const TableInfo& table, const std::string& new_database,
                          const std::string& new_table) {
  ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open({.data_dir = data_dir}));
  rocksdb::WriteBatch batch;
  auto* family = store->family(Store::kCatalog);
  DatabaseInfo renamed_database = database;
  renamed_database.name = new_database;
  TableInfo renamed_table = table;
  renamed_table.database_name = new_database;
  renamed_table.name = new_table;
  batch.Delete(family, keys::Database(database.name));
  batch.Delete(family, keys::Table(table.database_name, table.name));
  batch.Put(family, keys::Database(new_database), EncodeDatabase(renamed_database));
  batch.Put(family, keys::Table(new_database, new_table), EncodeTable(renamed_table));
  RETURN_IF_ERROR(FromRocks(store->db()->Write(store->write_options(), &batch), "legacy rename"));
  return store->Close();
}

}  // namespace strata::testing
