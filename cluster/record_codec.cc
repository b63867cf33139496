#include "cluster/record_codec.h"

#include "common/coding.h"
#include "common/strings.h"

namespace strata::cluster {

void EncodeRecord(int index, const NormalizedRecord& record, std::string* out) {
  PutVarint64(out, static_cast<uint64_t>(index));
  PutLengthPrefixed(out, record.measure_name);
  PutVarint64(out, record.dimensions.size());
  PutLengthPrefixed(out, record.dimensions.bytes());
  out->push_back(record.multi ? 1 : 0);
  PutVarsint64(out, record.time_nanos);
  PutVarsint64(out, record.version);
  const size_t measures = record.measures.size();
  PutVarint64(out, measures);
  for (size_t i = 0; i < measures; ++i) {
    PutLengthPrefixed(out, record.measures.name(i));
    out->push_back(static_cast<char>(record.measures.type(i)));
  }
  PutLengthPrefixed(out, record.measures.values());
}

std::string EncodeRecords(int count, std::string_view encoded) {
  std::string out;
  out.reserve(encoded.size() + 5);
  PutVarint64(&out, static_cast<uint64_t>(count));
  out.append(encoded);
  return out;
}

absl::StatusOr<std::vector<IndexedRecord>> DecodeRecords(std::string_view bytes) {
  auto malformed = [](std::string_view what) {
    return absl::DataLossError(StrCat("a forwarded record is malformed (", what, ")"));
  };
  Decoder in(bytes);
  uint64_t count = 0;
  if (!in.GetVarint64(&count) || count > bytes.size()) return malformed("count");
  std::vector<IndexedRecord> out(count);
  std::vector<std::string_view> names;
  std::vector<ValueType> types;
  for (IndexedRecord& r : out) {
    uint64_t index = 0, dimension_count = 0, measure_count = 0;
    std::string_view measure_name, dimensions, values;
    uint8_t multi = 0;
    if (!in.GetVarint64(&index) || !in.GetLengthPrefixed(&measure_name) ||
        !in.GetVarint64(&dimension_count) || !in.GetLengthPrefixed(&dimensions) ||
        !in.GetByte(&multi) || !in.GetVarsint64(&r.record.time_nanos) ||
        !in.GetVarsint64(&r.record.version) || !in.GetVarint64(&measure_count) ||
        measure_count > bytes.size()) {
      return malformed("header");
    }
    r.index = static_cast<int>(index);
    r.record.measure_name = std::string(measure_name);
    r.record.multi = multi != 0;
    // "name\0value\0" pairs, as DimensionList lays them out.
    size_t at = 0;
    for (uint64_t d = 0; d < dimension_count; ++d) {
      const size_t name_end = dimensions.find('\0', at);
      const size_t value_end =
          name_end == std::string_view::npos ? name_end : dimensions.find('\0', name_end + 1);
      if (value_end == std::string_view::npos) return malformed("dimensions");
      r.record.dimensions.emplace_back(dimensions.substr(at, name_end - at),
                                       dimensions.substr(name_end + 1, value_end - name_end - 1));
      at = value_end + 1;
    }
    if (at != dimensions.size()) return malformed("dimensions");
    names.clear();
    types.clear();
    for (uint64_t m = 0; m < measure_count; ++m) {
      std::string_view name;
      uint8_t type = 0;
      if (!in.GetLengthPrefixed(&name) || !in.GetByte(&type) || type < 1 ||
          type > static_cast<uint8_t>(ValueType::kTimestamp)) {
        return malformed("measures");
      }
      names.push_back(name);
      types.push_back(static_cast<ValueType>(type));
    }
    if (!in.GetLengthPrefixed(&values)) return malformed("values");
    r.record.measures =
        MeasureList(MakeRowShape(names, types), MeasureList::Values(values.begin(), values.end()));
  }
  if (!in.done()) return malformed("trailing bytes");
  return out;
}

}  // namespace strata::cluster
