#include "storage/kv/keys.h"

#include "common/coding.h"
#include "common/strings.h"

namespace strata::keys {

using namespace std::string_view_literals;

std::string Database(std::string_view database) { return StrCat("d\0"sv, database); }
std::string DatabasePrefix() { return std::string("d\0"sv); }
std::string Table(std::string_view database, std::string_view table) {
  return StrCat("t\0"sv, database, "\0"sv, table);
}
std::string TablePrefix() { return std::string("t\0"sv); }
std::string Counter(std::string_view name) { return StrCat("n\0"sv, name); }
std::string Token(std::string_view id) { return StrCat("k\0"sv, id); }
std::string TokenPrefix() { return std::string("k\0"sv); }
std::string ScheduledQuery(std::string_view name) { return StrCat("q\0"sv, name); }
std::string ScheduledQueryPrefix() { return std::string("q\0"sv); }
std::string ClusterMembership() { return std::string("m\0"sv); }
std::string ReplicaState(uint32_t shard) {
  std::string key("c\0"sv);
  PutFixed32BE(&key, shard);
  return key;
}
std::string ScheduledQueryRunPrefix(std::string_view name) {
  return StrCat("r\0"sv, name, "\0"sv);
}
std::string ScheduledQueryRun(std::string_view name, uint64_t sequence) {
  std::string key = ScheduledQueryRunPrefix(name);
  PutFixed64BE(&key, sequence);
  return key;
}

std::string AllTablesCatalogPrefix() { return "x"; }

std::string TableCatalogPrefix(uint32_t table_id) {
  std::string key = AllTablesCatalogPrefix();
  PutFixed32BE(&key, table_id);
  return key;
}

std::string TableDataPrefix(uint32_t table_id) {
  std::string key;
  PutFixed32BE(&key, table_id);
  return key;
}

std::string SeriesEntry(uint32_t table_id, std::string_view series_key) {
  return StrCat(TableCatalogPrefix(table_id), "s", series_key);
}

std::string MeasureEntry(uint32_t table_id, std::string_view measure_name) {
  return StrCat(TableCatalogPrefix(table_id), "m", measure_name);
}

std::string AttributeEntry(uint32_t table_id, std::string_view measure_name,
                           std::string_view attribute) {
  return StrCat(TableCatalogPrefix(table_id), "a", measure_name, "\0"sv, attribute);
}

std::string EncodePointKey(const PointKey& key) {
  std::string out(kPointKeySize, '\0');
  EncodePointKeyTo(key, out.data());
  return out;
}

void EncodePointKeyTo(const PointKey& key, char* out) {
  // [table][bucket] as one word: byte-swapped stores, not a byte at a time.
  out = EncodeFixed64BE(out, (uint64_t{key.table_id} << 32) | key.bucket);
  out = EncodeFixed64BE(out, key.pk_hash);
  out = EncodeFixed64BE(out, key.series);
  EncodeOrderedInt64BE(out, key.time_nanos);
}

uint64_t SeriesOfKey(std::string_view key) { return DecodeFixed64BE(key.data() + 16); }

PointKey DecodeSeriesPrefix(std::string_view key) {
  const char* p = key.data();
  return {.table_id = DecodeFixed32BE(p),
          .bucket = DecodeFixed32BE(p + 4),
          .pk_hash = DecodeFixed64BE(p + 8),
          .series = SeriesOfKey(key)};
}

bool DecodePointKey(std::string_view bytes, PointKey* key) {
  if (bytes.size() != kPointKeySize) return false;
  *key = DecodeSeriesPrefix(bytes);
  key->time_nanos = DecodeOrderedInt64BE(bytes.data() + 24);
  return true;
}

std::string SeriesBucketPrefix(uint32_t table_id, uint32_t bucket, uint64_t pk_hash,
                               uint64_t series) {
  std::string out;
  PutFixed32BE(&out, table_id);
  PutFixed32BE(&out, bucket);
  PutFixed64BE(&out, pk_hash);
  PutFixed64BE(&out, series);
  return out;
}

std::string BucketPrefix(uint32_t table_id, uint32_t bucket) {
  std::string out;
  PutFixed32BE(&out, table_id);
  PutFixed32BE(&out, bucket);
  return out;
}

std::string IndexEntry(uint32_t table_id, std::string_view dimension, std::string_view value,
                       uint64_t series) {
  std::string out = StrCat(TableDataPrefix(table_id), dimension, "\0"sv, value, "\0"sv);
  PutFixed64BE(&out, series);
  return out;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last != 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;  // all 0xff: no upper bound; callers treat "" as "to the end"
}

}  // namespace strata::keys
