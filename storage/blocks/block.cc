#include "storage/blocks/block.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "common/coding.h"
#include "common/status.h"
#include "common/strings.h"
#include "storage/blocks/bit_stream.h"
#include "storage/blocks/block_format.h"
#include "storage/blocks/float_codec.h"
#include "storage/blocks/int_codec.h"

namespace strata::format {
namespace {

bool IsNumeric(ValueType t) {
  return t == ValueType::kDouble || t == ValueType::kBigint || t == ValueType::kTimestamp;
}

absl::Status Corrupt(std::string_view what) {
  return absl::DataLossError(StrCat("a magnetic-store block is corrupted (", what,
                                    "); restore the data directory from a backup"));
}

void PutBitmap(const std::vector<bool>& bits, std::string* out) {
  BitWriter writer(out);
  for (bool b : bits) writer.WriteBit(b);
  writer.Flush();
}

bool GetBitmap(std::string_view* in, size_t count, std::vector<bool>* bits) {
  const size_t bytes = (count + 7) / 8;
  if (bytes > in->size()) return false;
  BitReader reader(in->substr(0, bytes));
  bits->resize(count);
  for (size_t i = 0; i < count; ++i) {
    bool b;
    if (!reader.ReadBit(&b)) return false;
    (*bits)[i] = b;
  }
  in->remove_prefix(bytes);
  return true;
}

// Encodes a column's present values (its typed array).
void EncodeValues(const ColumnValues& column, std::string* out) {
  switch (column.type) {
    case ValueType::kDouble: EncodeDoubles(column.reals, out); return;
    case ValueType::kBigint:
    case ValueType::kTimestamp: EncodeInts(Deltas(column.numbers), out); return;
    case ValueType::kVarchar: {
      // Dictionary in order of first appearance, then one index per value.
      absl::flat_hash_map<std::string_view, int64_t> ids;
      std::vector<std::string_view> dictionary;
      std::vector<int64_t> indexes;
      indexes.reserve(column.texts.size());
      for (std::string_view text : column.texts) {
        auto [it, added] = ids.try_emplace(text, static_cast<int64_t>(dictionary.size()));
        if (added) dictionary.push_back(text);
        indexes.push_back(it->second);
      }
      PutVarint64(out, dictionary.size());
      for (std::string_view text : dictionary) PutLengthPrefixed(out, text);
      EncodeInts(indexes, out);
      return;
    }
    case ValueType::kBoolean: {
      std::vector<bool> bits;
      bits.reserve(column.numbers.size());
      for (int64_t n : column.numbers) bits.push_back(n != 0);
      PutBitmap(bits, out);
      return;
    }
  }
}

// Decodes `count` present values into `out`'s typed array (with `needed`, DecodeDoubles').
bool DecodeValues(std::string_view* in, size_t count, const NeededValues* needed,
                  ColumnValues* out) {
  switch (out->type) {
    case ValueType::kDouble:
      return DecodeDoubles(in, count, &out->reals, needed);
    case ValueType::kBigint:
    case ValueType::kTimestamp:
      if (!DecodeInts(in, count, &out->numbers)) return false;
      UndoDeltas(&out->numbers);
      return true;
    case ValueType::kVarchar: {
      Decoder decoder(*in);
      uint64_t size;
      if (!decoder.GetVarint64(&size) || size > count || size > decoder.rest().size()) return false;
      std::vector<std::string_view> dictionary(size);
      for (auto& s : dictionary) {
        if (!decoder.GetLengthPrefixed(&s)) return false;
      }
      std::string_view rest = decoder.rest();
      std::vector<int64_t> indexes;
      if (!DecodeInts(&rest, count, &indexes)) return false;
      out->texts.reserve(count);
      for (int64_t i : indexes) {
        if (i < 0 || static_cast<uint64_t>(i) >= size) return false;
        out->texts.push_back(dictionary[i]);
      }
      *in = rest;
      return true;
    }
    case ValueType::kBoolean: {
      std::vector<bool> bits;
      if (!GetBitmap(in, count, &bits)) return false;
      out->numbers.assign(bits.begin(), bits.end());
      return true;
    }
  }
  return false;
}

// A DOUBLE column whose values are all integers / 10^scale: its min, max and
// sum as those integers (kColumnDecimalStats), a few bytes instead of 24. The
// sum is then exact, rounded once when read.
struct DecimalStats {
  int scale = 0;
  int64_t min = 0, max = 0, sum = 0;
};

// The summary of a column as its header stores it, and its decimal form.
struct ColumnStats {
  ColumnSummary summary;
  std::optional<DecimalStats> decimal;
};

// Integers of the decimal form stay below 2^53 in magnitude, where every
// integer is a double; the sum too, or the column keeps whole doubles.
constexpr int64_t kDecimalLimit = int64_t{1} << 53;

std::optional<DecimalStats> DecimalStatsOf(const std::vector<double>& reals) {
  // The scale: raised until each value is exact at it (values of one column
  // mostly share theirs, so mostly one try a value); the pass below checks
  // every value at the scale found.
  DecimalStats stats;
  for (double v : reals) {
    if (std::isnan(v)) continue;
    while (!Scaled(v, stats.scale)) {
      if (++stats.scale > kMaxDecimalScale) return std::nullopt;
    }
  }
  __int128 sum = 0;
  bool any = false;
  for (double v : reals) {
    if (std::isnan(v)) continue;
    const std::optional<int64_t> r = Scaled(v, stats.scale);
    if (!r) return std::nullopt;  // exact at a smaller scale but not this one
    stats.min = any ? std::min(stats.min, *r) : *r;
    stats.max = any ? std::max(stats.max, *r) : *r;
    any = true;
    sum += *r;
  }
  if (!any || sum <= -kDecimalLimit || sum >= kDecimalLimit) return std::nullopt;
  stats.sum = static_cast<int64_t>(sum);
  return stats;
}

ColumnStats Summarize(std::string_view name, const ColumnValues& column, size_t count) {
  ColumnStats stats;
  ColumnSummary& s = stats.summary;
  s.name = std::string(name);
  s.type = column.type;
  s.null_count = static_cast<uint32_t>(count - column.size());
  if (!IsNumeric(column.type)) return stats;
  const bool is_int = column.type != ValueType::kDouble;
  for (size_t i = 0; i < column.size(); ++i) {
    const int64_t number = is_int ? column.numbers[i] : 0;
    const double d = is_int ? static_cast<double>(number) : column.reals[i];
    if (std::isnan(d)) continue;
    if (!s.has_stats) {
      s.has_stats = true;
      s.min = s.max = d;
      s.int_min = s.int_max = number;
    }
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
    s.int_min = std::min(s.int_min, number);
    s.int_max = std::max(s.int_max, number);
    s.sum += d;
  }
  if (s.has_stats && !is_int) {
    stats.decimal = DecimalStatsOf(column.reals);
    if (stats.decimal) s.sum = Unscaled(stats.decimal->sum, stats.decimal->scale);
  }
  return stats;
}

void PutColumnHeader(const ColumnStats& stats, size_t body_size, std::string* out) {
  const ColumnSummary& s = stats.summary;
  const std::optional<DecimalStats>& decimal = stats.decimal;
  PutLengthPrefixed(out, s.name);
  out->push_back(static_cast<char>(s.type));
  out->push_back(static_cast<char>((s.null_count > 0 ? kColumnHasNulls : 0) |
                                   (s.has_stats ? kColumnHasStats : 0) |
                                   (decimal ? kColumnDecimalStats : 0)));
  if (s.null_count > 0) PutVarint64(out, s.null_count);
  if (decimal) {
    out->push_back(static_cast<char>(decimal->scale));
    PutVarsint64(out, decimal->min);
    PutVarsint64(out, decimal->max);
    PutVarsint64(out, decimal->sum);
  } else if (s.has_stats) {
    if (s.type == ValueType::kDouble) {
      PutDouble(out, s.min);
      PutDouble(out, s.max);
    } else {
      PutVarsint64(out, s.int_min);
      PutVarsint64(out, s.int_max);
    }
    PutDouble(out, s.sum);
  }
  PutVarint64(out, body_size);
}

bool ReadDecimalStats(Decoder* d, ColumnSummary* s) {
  uint8_t scale;
  int64_t min, max, sum;
  if (!d->GetByte(&scale) || scale > kMaxDecimalScale || !d->GetVarsint64(&min) ||
      !d->GetVarsint64(&max) || !d->GetVarsint64(&sum)) {
    return false;
  }
  for (int64_t r : {min, max, sum}) {
    if (r <= -kDecimalLimit || r >= kDecimalLimit) return false;
  }
  s->min = Unscaled(min, scale);
  s->max = Unscaled(max, scale);
  s->sum = Unscaled(sum, scale);
  return true;
}

// The parsed header: the summary and the sizes of the bodies that follow.
struct Header {
  BlockSummary summary;
  std::vector<uint64_t> column_sizes;
  std::string_view bodies;  // time body onwards
};

absl::StatusOr<Header> ParseHeader(std::string_view bytes) {
  Header h;
  if (bytes.size() < 3 || bytes[0] != kBlockMagic[0] || bytes[1] != kBlockMagic[1]) {
    return Corrupt("bad magic");
  }
  const auto version = static_cast<uint8_t>(bytes[2]);
  if (version < kOldestBlockFormatVersion || version > kBlockFormatVersion) {
    return Corrupt(StrCat("unknown format version ", static_cast<int>(version)));
  }
  Decoder d(bytes.substr(3));
  uint64_t count, span, columns;
  int64_t min_time;
  if (!d.GetVarint64(&count) || !d.GetVarsint64(&min_time) || !d.GetVarint64(&span) ||
      !d.GetVarint64(&columns)) {
    return Corrupt("truncated header");
  }
  if (count == 0 || count > kMaxPointsPerBlock) return Corrupt("point count out of range");
  if (columns > kMaxColumnsPerBlock) return Corrupt("column count out of range");
  if (span > static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(min_time)) {
    return Corrupt("time range out of range");
  }
  h.summary.count = static_cast<uint32_t>(count);
  h.summary.min_time = min_time;
  h.summary.max_time = static_cast<int64_t>(static_cast<uint64_t>(min_time) + span);
  // Room for the columns at once (a scan parses every block's header): no more than the
  // bytes left can describe, four at least each (name length, type, flags, size).
  const size_t room = std::min<uint64_t>(columns, d.rest().size() / 4);
  h.summary.columns.reserve(room);
  h.column_sizes.reserve(room);
  for (uint64_t c = 0; c < columns; ++c) {
    ColumnSummary s;
    std::string_view name;
    uint8_t type, flags;
    if (!d.GetLengthPrefixed(&name) || !d.GetByte(&type) || !d.GetByte(&flags)) {
      return Corrupt("truncated column header");
    }
    if (!IsValidValueType(type)) return Corrupt("unknown column type");
    s.name = std::string(name);
    s.type = static_cast<ValueType>(type);
    if (flags & kColumnHasNulls) {
      uint64_t nulls;
      if (!d.GetVarint64(&nulls) || nulls == 0 || nulls > count) return Corrupt("null count");
      s.null_count = static_cast<uint32_t>(nulls);
    }
    if ((flags & kColumnDecimalStats) && !(flags & kColumnHasStats)) {
      return Corrupt("decimal statistics flag without statistics");
    }
    if (flags & kColumnDecimalStats) {
      if (s.type != ValueType::kDouble) return Corrupt("decimal statistics on a non-DOUBLE column");
      s.has_stats = true;
      if (!ReadDecimalStats(&d, &s)) return Corrupt("truncated column statistics");
    } else if (flags & kColumnHasStats) {
      if (!IsNumeric(s.type)) return Corrupt("statistics on a non-numeric column");
      s.has_stats = true;
      bool ok = true;
      if (s.type == ValueType::kDouble) {
        ok = d.GetDouble(&s.min) && d.GetDouble(&s.max);
      } else {
        ok = d.GetVarsint64(&s.int_min) && d.GetVarsint64(&s.int_max);
        s.min = static_cast<double>(s.int_min);
        s.max = static_cast<double>(s.int_max);
      }
      if (!ok || !d.GetDouble(&s.sum)) return Corrupt("truncated column statistics");
    }
    uint64_t size;
    if (!d.GetVarint64(&size)) return Corrupt("truncated column header");
    h.column_sizes.push_back(size);
    h.summary.columns.push_back(std::move(s));
  }
  h.bodies = d.rest();
  return h;
}

// Takes a length-prefixed body off the front of `*in`.
bool TakeBody(std::string_view* in, std::string_view* body) {
  Decoder d(*in);
  if (!d.GetLengthPrefixed(body)) return false;
  *in = d.rest();
  return true;
}

bool DecodeTimes(std::string_view body, const BlockSummary& s, std::vector<int64_t>* times) {
  std::vector<int64_t> dods;
  if (!DecodeInts(&body, s.count - 1, &dods) || !body.empty()) return false;
  times->reserve(s.count);
  times->push_back(s.min_time);
  uint64_t delta = 0;
  for (int64_t dod : dods) {
    delta += static_cast<uint64_t>(dod);
    const auto next = static_cast<int64_t>(static_cast<uint64_t>(times->back()) + delta);
    if (next <= times->back()) return false;  // times strictly increase
    times->push_back(next);
  }
  return times->back() == s.max_time;
}

}  // namespace

size_t ColumnValues::size() const {
  switch (type) {
    case ValueType::kDouble: return reals.size();
    case ValueType::kVarchar: return texts.size();
    default: return numbers.size();
  }
}

absl::StatusOr<std::string> EncodeBlock(const std::vector<BlockPoint>& points) {
  if (points.empty() || points.size() > kMaxPointsPerBlock) {
    return absl::InvalidArgumentError(
        StrCat("a block holds 1 to ", kMaxPointsPerBlock, " points, not ", points.size()));
  }
  const size_t n = points.size();
  std::vector<int64_t> times(n), versions(n);
  std::vector<ColumnToEncode> columns;
  absl::flat_hash_map<std::string_view, size_t> column_of;
  for (size_t i = 0; i < n; ++i) {
    const BlockPoint& p = points[i];
    times[i] = p.time_nanos;
    versions[i] = p.version;
    for (const Measure& m : p.measures) {
      auto [it, added] = column_of.try_emplace(m.name, columns.size());
      if (added) {
        if (columns.size() == kMaxColumnsPerBlock) {
          return absl::InvalidArgumentError("a block holds at most 4096 measure columns");
        }
        columns.push_back({.name = m.name, .values = {.type = m.value.type}});
        columns.back().values.present.resize(n);
      }
      ColumnValues& column = columns[it->second].values;
      if (column.type != m.value.type) {
        return absl::InvalidArgumentError(StrCat("measure \"", m.name, "\" has two types in one block"));
      }
      if (column.present[i]) {
        return absl::InvalidArgumentError(StrCat("measure \"", m.name, "\" appears twice in a point"));
      }
      column.present[i] = true;
      switch (column.type) {
        case ValueType::kDouble: column.reals.push_back(m.value.real); break;
        case ValueType::kVarchar: column.texts.push_back(m.value.text); break;
        default: column.numbers.push_back(m.value.number); break;
      }
    }
  }
  return EncodeBlockColumns(times, versions, columns);
}

absl::StatusOr<std::string> EncodeBlockColumns(const std::vector<int64_t>& times,
                                               const std::vector<int64_t>& versions,
                                               const std::vector<ColumnToEncode>& columns) {
  const size_t n = times.size();
  if (n == 0 || n > kMaxPointsPerBlock) {
    return absl::InvalidArgumentError(
        StrCat("a block holds 1 to ", kMaxPointsPerBlock, " points, not ", n));
  }
  if (versions.size() != n) return absl::InvalidArgumentError("a version per point is needed");
  for (size_t i = 1; i < n; ++i) {
    if (times[i] <= times[i - 1]) {
      return absl::InvalidArgumentError("block points must have strictly increasing times");
    }
  }
  if (columns.size() > kMaxColumnsPerBlock) {
    return absl::InvalidArgumentError("a block holds at most 4096 measure columns");
  }
  for (const ColumnToEncode& column : columns) {
    const ColumnValues& values = column.values;
    // `present` empty: every point has a value.
    const size_t present = values.present.empty()
                               ? n
                               : static_cast<size_t>(std::count(values.present.begin(),
                                                                values.present.end(), true));
    if ((!values.present.empty() && values.present.size() != n) || values.size() != present) {
      return absl::InvalidArgumentError(
          StrCat("column \"", column.name, "\" does not have one value per present point"));
    }
  }

  std::string out(kBlockMagic, sizeof(kBlockMagic));
  out.push_back(static_cast<char>(kBlockFormatVersion));
  PutVarint64(&out, n);
  PutVarsint64(&out, times.front());
  PutVarint64(&out, static_cast<uint64_t>(times.back()) - static_cast<uint64_t>(times.front()));
  PutVarint64(&out, columns.size());

  std::string bodies;
  std::vector<int64_t> deltas = Deltas(times);
  // Delta-of-delta from the second delta on: regular intervals become zeros.
  std::vector<int64_t> dods(deltas.begin() + 1, deltas.end());
  for (size_t i = dods.size(); i-- > 1;) {
    dods[i] = static_cast<int64_t>(static_cast<uint64_t>(dods[i]) - static_cast<uint64_t>(dods[i - 1]));
  }
  std::string body;
  EncodeInts(dods, &body);
  PutLengthPrefixed(&bodies, body);
  body.clear();
  EncodeInts(versions, &body);
  PutLengthPrefixed(&bodies, body);

  for (const ColumnToEncode& column : columns) {
    const ColumnStats stats = Summarize(column.name, column.values, n);
    body.clear();
    if (stats.summary.null_count > 0) PutBitmap(column.values.present, &body);
    EncodeValues(column.values, &body);
    PutColumnHeader(stats, body.size(), &out);
    bodies.append(body);
  }
  out.append(bodies);
  return out;
}

absl::StatusOr<BlockSummary> DecodeBlockSummary(std::string_view bytes) {
  ASSIGN_OR_RETURN(Header h, ParseHeader(bytes));
  return std::move(h.summary);
}

absl::StatusOr<std::string_view> BlockHeaderBytes(std::string_view block) {
  ASSIGN_OR_RETURN(Header h, ParseHeader(block));
  return block.substr(0, block.size() - h.bodies.size());
}

absl::StatusOr<StoredBlock> SplitBlock(std::string_view block) {
  ASSIGN_OR_RETURN(std::string_view header, BlockHeaderBytes(block));
  StoredBlock stored{.header = std::string(header),
                     .bodies = std::string(kBodiesMagic, sizeof(kBodiesMagic))};
  stored.bodies.push_back(block[2]);  // the version
  stored.bodies.append(block.substr(header.size()));
  return stored;
}

bool IsWholeBlock(std::string_view stored) {
  return stored.size() >= 2 && stored[0] == kBlockMagic[0] && stored[1] == kBlockMagic[1];
}

absl::StatusOr<BlockView> ViewBlock(std::string_view header, std::string_view bodies) {
  if (bodies.size() < 3 || bodies[0] != kBodiesMagic[0] || bodies[1] != kBodiesMagic[1]) {
    return Corrupt("bad magic of a block's bodies");
  }
  if (header.size() < 3 || header[2] != bodies[2]) {
    return Corrupt("a block's header and bodies have different versions");
  }
  return BlockView{.header = header, .bodies = bodies};
}

absl::Status JoinBlock(std::string_view header, std::string_view bodies, std::string* block) {
  RETURN_IF_ERROR(ViewBlock(header, bodies).status());
  block->clear();
  block->reserve(header.size() + bodies.size() - 3);
  block->append(header);
  block->append(bodies.substr(3));
  return absl::OkStatus();
}

namespace {

absl::StatusOr<BlockColumns> DecodeColumns(Header h, bool with_versions,
                                           const std::function<bool(const ColumnSummary&)>& wanted,
                                           bool with_times, const NeededValues* needed_points);

}  // namespace

absl::StatusOr<BlockColumns> DecodeBlockColumns(
    std::string_view bytes, bool with_versions,
    const std::function<bool(const ColumnSummary&)>& wanted, bool with_times,
    const NeededValues* needed_points) {
  ASSIGN_OR_RETURN(Header h, ParseHeader(bytes));
  return DecodeColumns(std::move(h), with_versions, wanted, with_times, needed_points);
}

absl::StatusOr<BlockColumns> DecodeBlockColumns(
    const BlockView& block, bool with_versions,
    const std::function<bool(const ColumnSummary&)>& wanted, bool with_times,
    const NeededValues* needed_points) {
  ASSIGN_OR_RETURN(Header h, ParseHeader(block.header));
  if (block.bodies.has_value()) {
    // A stored header is the header alone: the bodies follow the tag of their own value.
    if (!h.bodies.empty()) return Corrupt("bytes after a stored block header");
    RETURN_IF_ERROR(ViewBlock(block.header, *block.bodies).status());
    h.bodies = block.bodies->substr(3);
  }
  return DecodeColumns(std::move(h), with_versions, wanted, with_times, needed_points);
}

namespace {

absl::StatusOr<BlockColumns> DecodeColumns(Header h, bool with_versions,
                                           const std::function<bool(const ColumnSummary&)>& wanted,
                                           bool with_times, const NeededValues* needed_points) {
  BlockColumns out;
  out.summary = std::move(h.summary);
  const BlockSummary& s = out.summary;
  std::string_view rest = h.bodies, body;
  if (!TakeBody(&rest, &body) || (with_times && !DecodeTimes(body, s, &out.times))) {
    return Corrupt("time column");
  }
  if (!TakeBody(&rest, &body)) return Corrupt("version column");
  if (with_versions && (!DecodeInts(&body, s.count, &out.versions) || !body.empty())) {
    return Corrupt("version column");
  }
  out.columns.resize(s.columns.size());
  if (needed_points != nullptr && !WithinCount(*needed_points, s.count)) needed_points = nullptr;
  NeededValues sparse_needed;
  for (size_t c = 0; c < s.columns.size(); ++c) {
    const ColumnSummary& column = s.columns[c];
    if (h.column_sizes[c] > rest.size()) return Corrupt("column body truncated");
    body = rest.substr(0, h.column_sizes[c]);
    rest.remove_prefix(h.column_sizes[c]);
    if (!wanted(column)) continue;
    ColumnValues& values = out.columns[c].emplace();
    values.type = column.type;
    values.present.assign(s.count, true);
    if (column.null_count > 0 && !GetBitmap(&body, s.count, &values.present)) {
      return Corrupt("null bitmap");
    }
    const size_t present_count =
        column.null_count > 0 ? std::count(values.present.begin(), values.present.end(), true)
                              : s.count;
    if (present_count != s.count - column.null_count) return Corrupt("null count");
    // The needed points' values, by position among the present ones: the points' own
    // positions when none is NULL.
    const NeededValues* needed = nullptr;
    if (needed_points != nullptr && column.type == ValueType::kDouble) {
      if (present_count == s.count) {
        needed = needed_points;
      } else {
        sparse_needed.clear();
        size_t k = 0, i = 0;  // value k is point i's
        for (uint32_t point : *needed_points) {
          for (; i < point; ++i) k += values.present[i];
          if (values.present[point]) sparse_needed.push_back(static_cast<uint32_t>(k));
        }
        needed = &sparse_needed;
      }
    }
    if (!DecodeValues(&body, present_count, needed, &values) || !body.empty()) {
      return Corrupt(StrCat("values of column \"", column.name, "\""));
    }
  }
  if (!rest.empty()) return Corrupt("trailing bytes");
  return out;
}

}  // namespace

namespace {

// The column's `n`th value (counting present ones only).
Value NthValue(const ColumnValues& values, size_t n) {
  Value v{.type = values.type};
  switch (values.type) {
    case ValueType::kDouble: v.real = values.reals[n]; break;
    case ValueType::kVarchar: v.text = std::string(values.texts[n]); break;
    default: v.number = values.numbers[n]; break;
  }
  return v;
}

}  // namespace

PointReader::PointReader(const BlockColumns& block)
    : block_(block), positions_(block.columns.size()) {
  for (size_t c = 0; c < block.columns.size(); ++c) {
    const ColumnValues& values = *block.columns[c];
    std::vector<uint32_t>& positions = positions_[c];
    positions.resize(values.present.size());
    uint32_t next = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
      positions[i] = values.present[i] ? next++ : kAbsent;
    }
  }
}

std::vector<Measure> PointReader::MeasuresAt(size_t index) const {
  std::vector<Measure> measures;
  for (size_t c = 0; c < positions_.size(); ++c) {
    const uint32_t at = positions_[c][index];
    if (at == kAbsent) continue;
    measures.push_back({block_.summary.columns[c].name, NthValue(*block_.columns[c], at)});
  }
  return measures;
}

absl::StatusOr<std::vector<BlockPoint>> DecodeBlock(std::string_view bytes) {
  return DecodeBlock(BlockView{.header = bytes});
}

absl::StatusOr<std::vector<BlockPoint>> DecodeBlock(const BlockView& bytes) {
  ASSIGN_OR_RETURN(BlockColumns block,
                   DecodeBlockColumns(bytes, /*with_versions=*/true,
                                      [](const ColumnSummary&) { return true; }));
  const BlockSummary& s = block.summary;
  std::vector<BlockPoint> points(s.count);
  for (size_t i = 0; i < s.count; ++i) {
    points[i].time_nanos = block.times[i];
    points[i].version = block.versions[i];
  }
  for (size_t c = 0; c < s.columns.size(); ++c) {
    const ColumnValues& values = *block.columns[c];
    size_t next = 0;
    for (size_t i = 0; i < s.count; ++i) {
      if (!values.present[i]) continue;
      points[i].measures.push_back({s.columns[c].name, NthValue(values, next++)});
    }
  }
  return points;
}

}  // namespace strata::format
