#include "storage/read/table_state.h"

#include <algorithm>
#include <bit>

#include "common/coding.h"
#include "common/status.h"
#include "common/strings.h"
#include "storage/kv/keys.h"
#include "xxhash.h"

namespace strata {

using namespace std::string_view_literals;

uint64_t PartitionHash(std::string_view measure_name, std::string_view key_value,
                       const PartitionKey& key) {
  const std::string_view bytes = key.type == PartitionKeyType::kMeasure ? measure_name : key_value;
  return XXH3_64bits(bytes.data(), bytes.size());
}

uint64_t PartitionHash(std::string_view measure_name,
                       const std::vector<std::pair<std::string, std::string>>& dimensions,
                       const PartitionKey& key) {
  for (const auto& [name, value] : dimensions) {
    if (name == key.name) return PartitionHash(measure_name, value, key);
  }
  return PartitionHash(measure_name, "", key);
}

uint64_t PartitionHash(std::string_view measure_name, const DimensionList& dimensions,
                       const PartitionKey& key) {
  if (key.type == PartitionKeyType::kMeasure) return PartitionHash(measure_name, "", key);
  return PartitionHash(measure_name, dimensions.Find(key.name).value_or(""), key);
}

uint64_t RoutingHash(std::string_view measure_name, std::string_view dimension_bytes,
                     uint64_t partition_hash, const PartitionKey& key) {
  if (key.type == PartitionKeyType::kDimension) return partition_hash;
  // The series key's two parts, hashed without joining them.
  const uint64_t measure = XXH3_64bits(measure_name.data(), measure_name.size());
  return XXH3_64bits_withSeed(dimension_bytes.data(), dimension_bytes.size(), measure);
}

uint64_t RoutingHash(const NormalizedRecord& record, const PartitionKey& key) {
  const uint64_t partition = key.type == PartitionKeyType::kDimension
                                 ? PartitionHash(record.measure_name, record.dimensions, key)
                                 : 0;
  return RoutingHash(record.measure_name, record.dimensions.bytes(), partition, key);
}

uint32_t ShardOf(uint64_t routing_hash, uint32_t shards) {
  if (shards <= 1) return 0;
  return static_cast<uint32_t>(routing_hash >> (64 - std::countr_zero(shards)));
}

std::vector<SeriesTarget> SeriesTargetsOf(
    const std::vector<std::shared_ptr<const SeriesInfo>>& series, const PartitionKey& key,
    std::vector<uint32_t>* order) {
  std::vector<std::pair<SeriesTarget, uint32_t>> sorted;
  sorted.reserve(series.size());
  std::string dimension_bytes;  // DimensionList's layout: "name\0value\0" each
  for (size_t i = 0; i < series.size(); ++i) {
    const SeriesInfo& s = *series[i];
    const uint64_t partition = PartitionHash(s.measure_name, s.dimensions, key);
    dimension_bytes.clear();
    for (const auto& [name, value] : s.dimensions) {
      dimension_bytes.append(name).push_back('\0');
      dimension_bytes.append(value).push_back('\0');
    }
    sorted.push_back(
        {{partition, s.id, RoutingHash(s.measure_name, dimension_bytes, partition, key)},
         static_cast<uint32_t>(i)});
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<SeriesTarget> targets;
  targets.reserve(sorted.size());
  for (const auto& [target, index] : sorted) {
    targets.push_back(target);
    if (order != nullptr) order->push_back(index);
  }
  return targets;
}

std::string SeriesKey(const NormalizedRecord& record) {
  std::string key;
  key.reserve(record.measure_name.size() + 1 + record.dimensions.bytes().size());
  key.append(record.measure_name).push_back('\0');
  key.append(record.dimensions.bytes());
  return key;
}

bool ParseSeriesKey(std::string_view key, SeriesInfo* info) {
  auto next = [&key](std::string* out) {
    size_t end = key.find('\0');
    if (end == std::string_view::npos) return false;
    out->assign(key.substr(0, end));
    key.remove_prefix(end + 1);
    return true;
  };
  if (!next(&info->measure_name)) return false;
  info->dimensions.clear();
  while (!key.empty()) {
    std::pair<std::string, std::string> d;
    if (!next(&d.first) || !next(&d.second)) return false;
    info->dimensions.push_back(std::move(d));
  }
  return true;
}

absl::StatusOr<std::unique_ptr<TableState>> TableState::Load(Store* store, uint32_t table_id) {
  auto state = std::unique_ptr<TableState>(new TableState(table_id));
  absl::MutexLock lock(&state->mu_);
  const std::string prefix = keys::TableCatalogPrefix(table_id);
  std::unique_ptr<rocksdb::Iterator> it(
      store->db()->NewIterator(rocksdb::ReadOptions(), store->family(Store::kCatalog)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string_view key = it->key().ToStringView().substr(prefix.size());
    std::string_view value = it->value().ToStringView();
    if (key.empty()) return CorruptionError("table catalog entry");
    char kind = key.front();
    key.remove_prefix(1);
    if (kind == 's') {
      SeriesInfo info;
      if (value.size() != 8 || !ParseSeriesKey(key, &info)) return CorruptionError("series entry");
      info.id = DecodeFixed64BE(value.data());
      for (const auto& [name, value] : info.dimensions) state->dimension_names_.insert(name);
      state->Register(std::string(key), std::move(info));
    } else if (kind == 'm') {
      if (value.size() != 1) return CorruptionError("measure entry");
      state->measures_[std::string(key)].kind = static_cast<MeasureKind>(value[0]);
    } else if (kind == 'a') {
      size_t split = key.find('\0');
      if (value.size() != 1 || split == std::string_view::npos ||
          !IsValidValueType(static_cast<uint8_t>(value[0]))) {
        return CorruptionError("attribute entry");
      }
      const auto type = static_cast<ValueType>(value[0]);
      const std::string attribute(key.substr(split + 1));
      state->measures_[std::string(key.substr(0, split))].attributes[attribute] = type;
      // Entries come in measure-name order: the first measure's type wins.
      state->attribute_types_.emplace(attribute, type);
    }
  }
  RETURN_IF_ERROR(FromRocks(it->status(), "loading the series registry"));
  state->legacy_conflicts_ = !state->LegacyConflictsLocked().empty();
  return state;
}

std::vector<std::string> TableState::LegacyConflicts() const {
  absl::ReaderMutexLock lock(&mu_);
  return LegacyConflictsLocked();
}

std::vector<std::string> TableState::LegacyConflictsLocked() const {
  std::vector<std::string> out;
  for (const auto& [measure, schema] : measures_) {
    for (const auto& [attribute, type] : schema.attributes) {
      const ValueType table_type = attribute_types_.at(attribute);
      if (type != table_type) {
        out.push_back(StrCat("attribute \"", attribute, "\" of measure \"", measure, "\" is ",
                             TypeName(type), " but the table reads it as ", TypeName(table_type),
                             ": its values read as NULL"));
      }
    }
  }
  for (const auto& [attribute, type] : attribute_types_) {
    if (dimension_names_.contains(attribute)) {
      out.push_back(StrCat("\"", attribute, "\" is both a dimension and a MULTI attribute: the "
                           "dimension is the column, the attribute's values are not readable"));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<uint64_t> TableState::FindSeries(const SeriesKeyView& series_key) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = series_by_key_.find(series_key);
  if (it == series_by_key_.end()) return std::nullopt;
  return it->second;
}

void TableState::FindEachSeries(size_t n, absl::FunctionRef<SeriesKeyView(size_t)> key,
                                absl::FunctionRef<void(size_t, uint64_t)> found) const {
  absl::ReaderMutexLock lock(&mu_);
  for (size_t i = 0; i < n; ++i) {
    auto it = series_by_key_.find(key(i));
    if (it != series_by_key_.end()) found(i, it->second);
  }
}

std::optional<SeriesInfo> TableState::DescribeSeries(uint64_t series) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = series_by_id_.find(series);
  if (it == series_by_id_.end()) return std::nullopt;
  return *registered_[it->second];
}

bool TableState::SeriesIdTaken(uint64_t id) const {
  absl::ReaderMutexLock lock(&mu_);
  return series_by_id_.contains(id);
}

std::optional<MeasureSchema> TableState::FindMeasure(std::string_view measure_name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = measures_.find(absl::string_view(measure_name.data(), measure_name.size()));
  if (it == measures_.end()) return std::nullopt;
  return it->second;
}

std::optional<ValueType> TableState::AttributeType(std::string_view name) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = attribute_types_.find(absl::string_view(name.data(), name.size()));
  if (it == attribute_types_.end()) return std::nullopt;
  return it->second;
}

bool TableState::IsDimension(std::string_view name) const {
  absl::ReaderMutexLock lock(&mu_);
  return dimension_names_.contains(absl::string_view(name.data(), name.size()));
}

bool TableState::Conforms(const NormalizedRecord& record) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = measures_.find(absl::string_view(record.measure_name.data(),
                                             record.measure_name.size()));
  if (it == measures_.end()) return false;
  const MeasureSchema& schema = it->second;
  if (!record.multi) {
    return schema.kind == static_cast<MeasureKind>(record.measures.type(0));
  }
  if (schema.kind != MeasureKind::kMulti || legacy_conflicts_) return false;
  for (size_t i = 0; i < record.measures.size(); ++i) {
    const std::string_view name = record.measures.name(i);
    // Known for this measure with this type; with no conflicts at load, the
    // measure's type is the table-wide one and the name is no dimension.
    auto attribute = schema.attributes.find(absl::string_view(name.data(), name.size()));
    if (attribute == schema.attributes.end() || attribute->second != record.measures.type(i)) {
      return false;
    }
  }
  return true;
}

int TableState::measure_count() const {
  absl::ReaderMutexLock lock(&mu_);
  return static_cast<int>(measures_.size());
}

int TableState::attribute_count() const {
  absl::ReaderMutexLock lock(&mu_);
  return static_cast<int>(attribute_types_.size());
}

std::vector<std::pair<std::string, ValueType>> TableState::AttributeTypes() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::pair<std::string, ValueType>> out(attribute_types_.begin(),
                                                     attribute_types_.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, MeasureSchema>> TableState::Measures() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::pair<std::string, MeasureSchema>> out(measures_.begin(), measures_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<std::shared_ptr<const SeriesInfo>> TableState::AllSeries() const {
  return SeriesAfter(0).series;
}

TableState::SeriesAdded TableState::SeriesAfter(size_t count) const {
  absl::ReaderMutexLock lock(&mu_);
  SeriesAdded added;
  added.schema_generation = schema_generation_;
  if (count < registered_.size()) {
    added.series.assign(registered_.begin() + count, registered_.end());
  }
  return added;
}

void TableState::Register(std::string key, SeriesInfo info) {
  if (!series_by_key_.emplace(std::move(key), info.id).second) return;
  series_by_id_.emplace(info.id, registered_.size());
  registered_.push_back(std::make_shared<const SeriesInfo>(std::move(info)));
}

void TableState::Apply(const TableChanges& changes) {
  absl::MutexLock lock(&mu_);
  for (const auto& [key, info] : changes.new_series) Register(key, info);
  if (!changes.dimension_names.empty() || !changes.attribute_types.empty() ||
      !changes.schema.empty()) {
    ++schema_generation_;
  }
  dimension_names_.insert(changes.dimension_names.begin(), changes.dimension_names.end());
  attribute_types_.insert(changes.attribute_types.begin(), changes.attribute_types.end());
  for (const auto& [name, schema] : changes.schema) {
    MeasureSchema& current = measures_[name];
    current.kind = schema.kind;
    current.attributes.insert(schema.attributes.begin(), schema.attributes.end());
  }
  if (!changes.new_series.empty() || !changes.schema.empty()) {
    generation_.fetch_add(1, std::memory_order_release);
  }
}

}  // namespace strata
