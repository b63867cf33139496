#include "server/wire/wire_write_source.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/utf8.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "server/wire/write_convert.h"
#include "storage/write/record_normalizer.h"

namespace strata {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

constexpr uint32_t Tag(uint32_t field, WireType type) { return field << 3 | type; }

// The longest varint protobuf reads; its last byte can only carry bit 63.
constexpr int kMaxVarintBytes = 10;
// The longest tag or length: 32 bits in five bytes.
constexpr int kMaxVarint32Bytes = 5;

}  // namespace

struct WireWriteRequest::Ranges {
  size_t first_dimension = 0;
  size_t dimension_end = 0;
  size_t first_measure = 0;
  size_t measure_end = 0;
};

// One pass over the bytes, by pointer: every read is bounded by the end of
// the message being read, so a field running past it fails where it starts.
// (Through protobuf's CodedInputStream, which keeps positions as counts to be
// recomputed on every call, the reading was ~14 % of a write's server CPU.)
// Every method returns false for bytes it leaves to protobuf's parser.
class WireWriteRequest::Reader {
 public:
  Reader(std::string_view bytes, WireWriteRequest& out)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()), out_(out) {}

  bool Request(std::vector<Ranges>& record_ranges, Ranges& common_ranges) {
    bool seen_common = false;
    return Fields([&](uint32_t tag) {
      switch (tag) {
        case Tag(1, kLength): return String(out_.database_name_);
        case Tag(2, kLength): return String(out_.table_name_);
        case Tag(3, kLength):
          // Given twice, protobuf merges the two; its dimensions would not
          // be contiguous here.
          if (seen_common) return false;
          seen_common = true;
          return Record(out_.common_, common_ranges);
        case Tag(4, kLength): {
          if (out_.records_.size() == static_cast<size_t>(out_.max_records_)) {
            return ReadPastTheLimit();
          }
          const uint8_t* start = p_;
          if (!Record(out_.records_.emplace_back(), record_ranges.emplace_back())) return false;
          if (out_.records_.size() == 1) ReserveLike(p_ - start, end_ - start);
          return true;
        }
        default: return Unknown(tag);
      }
    });
  }

 private:
  // A record past the most a write may carry: the write will be refused,
  // naming the count, so it is read (protobuf must take it too) and counted,
  // not kept. A hostile 16 MB request of millions of empty records otherwise
  // held a WireRecord each while it was read.
  bool ReadPastTheLimit() {
    const size_t dimensions = out_.dimensions_.size();
    const size_t measures = out_.measures_.size();
    WireRecord ignored;
    Ranges ignored_ranges;
    if (!Record(ignored, ignored_ranges)) return false;
    out_.dimensions_.resize(dimensions);
    out_.measures_.resize(measures);
    ++out_.records_past_limit_;
    return true;
  }

  // Room for as many records as the `left` bytes hold if they are like the
  // first (`bytes` long): a request's records mostly are, and its arrays would
  // otherwise grow by copying a dozen times. Never more than a valid write
  // can hold (records, and dimensions and measures per record), so a hostile
  // first record cannot make the guess huge: past that, arrays grow as usual
  // and the write is refused anyway.
  void ReserveLike(ptrdiff_t bytes, ptrdiff_t left) {
    const size_t records = std::min<size_t>(left / std::max<ptrdiff_t>(bytes, 1),
                                            out_.max_records_);
    out_.records_.reserve(records);
    out_.dimensions_.reserve(
        records * std::min<size_t>(out_.dimensions_.size(), 2 * kMaxDimensionsPerRecord));
    out_.measures_.reserve(
        records * std::min<size_t>(out_.measures_.size(), kMaxMeasuresPerRecord));
  }

  // Reads fields up to the end of the current message, giving each tag to
  // `field`, which reads the field's value.
  template <typename Field>
  bool Fields(Field&& field) {
    while (p_ < end_) {
      uint32_t tag = 0;
      if (!ReadTag(tag) || !field(tag)) return false;
    }
    return true;
  }

  // A varint of at most `max_bytes` bytes within the message; `bytes` is
  // how many it took.
  bool RawVarint(uint64_t& value, int max_bytes, int& bytes) {
    uint64_t result = 0;
    for (int i = 0; i < max_bytes && p_ < end_; ++i) {
      const uint8_t byte = *p_++;
      result |= uint64_t{byte & 0x7Fu} << (7 * i);
      if (byte < 0x80) {
        value = result;
        bytes = i + 1;
        return true;
      }
    }
    return false;
  }

  // A tag as protobuf's serializers write one: not zero, in as few bytes as
  // it needs, within 32 bits. A padded tag (protobuf reads one differently
  // past five bytes) and the rest are left to protobuf.
  bool ReadTag(uint32_t& tag) {
    if (*p_ < 0x80) {  // the common case: p_ < end_ (Fields checked)
      tag = *p_++;
      return tag != 0;
    }
    uint64_t value = 0;
    int bytes = 0;
    if (!RawVarint(value, kMaxVarint32Bytes, bytes) || p_[-1] == 0 ||
        value > UINT32_MAX) {
      return false;
    }
    tag = static_cast<uint32_t>(value);
    return true;
  }

  // A field this reader does not know: skipped, as protobuf keeps it aside
  // and Strata ignores it (a newer client's field, or a known number sent
  // with another wire type). Field number 0 and groups go to protobuf.
  bool Unknown(uint32_t tag) {
    if (tag >> 3 == 0) return false;
    switch (tag & 7) {
      case kVarint: {
        uint64_t ignored = 0;
        return Varint(ignored);
      }
      case kFixed64: return Skip(8);
      case kLength: {
        size_t length = 0;
        return Length(length) && Skip(length);
      }
      case kFixed32: return Skip(4);
      default: return false;
    }
  }

  bool Skip(size_t bytes) {
    if (static_cast<size_t>(end_ - p_) < bytes) return false;
    p_ += bytes;
    return true;
  }

  bool Fixed64(uint64_t& value) {
    if (end_ - p_ < 8) return false;
    p_ = google::protobuf::io::CodedInputStream::ReadLittleEndian64FromArray(p_, &value);
    return true;
  }

  // A length-delimited sub-message, its fields read by `field`.
  template <typename Field>
  bool Message(Field&& field) {
    size_t length = 0;
    if (!Length(length)) return false;
    const uint8_t* outer_end = end_;
    end_ = p_ + length;
    if (!Fields(field)) return false;
    end_ = outer_end;
    return true;
  }

  // A length prefix that fits in what is left of the current message.
  // Protobuf reads one in at most five bytes, below 2^31 (a padded one too).
  bool Length(size_t& length) {
    // The common case: a name, a value or a small message, under 128 bytes.
    if (p_ < end_ && *p_ < 0x80) {
      length = *p_++;
      return length <= static_cast<size_t>(end_ - p_);
    }
    uint64_t value = 0;
    int bytes = 0;
    if (!RawVarint(value, kMaxVarint32Bytes, bytes) || value > INT32_MAX ||
        value > static_cast<uint64_t>(end_ - p_)) {
      return false;
    }
    length = static_cast<size_t>(value);
    return true;
  }

  // A proto3 string: well-formed UTF-8, as protobuf's parser requires. Past
  // ASCII (names and values nearly always are; protobuf's validator cost ~4%
  // of a write's CPU on them) with protobuf's own check, so both readers agree
  // on every byte sequence.
  bool String(std::string_view& view) {
    size_t length = 0;
    if (!Length(length)) return false;
    view = std::string_view(reinterpret_cast<const char*>(p_), length);
    p_ += length;  // within the message: Length checked it
    return IsAscii(view) || google::protobuf::internal::IsStructurallyValidUTF8(
                                view.data(), static_cast<int>(length));
  }

  bool Varint(uint64_t& value) {
    if (p_ < end_ && *p_ < 0x80) {  // a type, a unit, a small number
      value = *p_++;
      return true;
    }
    int bytes = 0;
    if (!RawVarint(value, kMaxVarintBytes, bytes)) return false;
    // A tenth byte above 1 has bits past 64, which readers drop differently.
    return bytes < kMaxVarintBytes || p_[-1] <= 1;
  }
  bool Int64(int64_t& value) {
    uint64_t raw = 0;
    if (!Varint(raw)) return false;
    value = static_cast<int64_t>(raw);
    return true;
  }
  bool Int64(std::optional<int64_t>& value) {
    int64_t v = 0;
    if (!Int64(v)) return false;
    value = v;
    return true;
  }
  // An enum's number, as proto3 keeps it: the varint's low 32 bits.
  bool Enum(int32_t& value) {
    uint64_t raw = 0;
    if (!Varint(raw)) return false;
    value = static_cast<int32_t>(static_cast<uint32_t>(raw));
    return true;
  }

  // A MeasureValue, merged into `value` as protobuf merges a repeated
  // occurrence: each field set replaces the oneof's case.
  bool Value(WireValue& value) {
    // The common case first: a message of one double (length 9, tag 1 as
    // fixed64, eight bytes), which the general reading below gives the
    // same meaning.
    if (end_ - p_ >= 10 && p_[0] == 9 && p_[1] == Tag(1, kFixed64)) {
      uint64_t bits = 0;
      google::protobuf::io::CodedInputStream::ReadLittleEndian64FromArray(p_ + 2, &bits);
      std::memcpy(&value.real, &bits, sizeof bits);
      value.kind = v1::MeasureValue::kDoubleValue;
      p_ += 10;
      return true;
    }
    return Message([&](uint32_t tag) {
      switch (tag) {
        case Tag(1, kFixed64): {
          uint64_t bits = 0;
          if (!Fixed64(bits)) return false;
          std::memcpy(&value.real, &bits, sizeof bits);
          value.kind = v1::MeasureValue::kDoubleValue;
          return true;
        }
        case Tag(2, kVarint):
          value.kind = v1::MeasureValue::kBigintValue;
          return Int64(value.number);
        case Tag(3, kLength):
          value.kind = v1::MeasureValue::kVarcharValue;
          return String(value.text);
        case Tag(4, kVarint): {
          uint64_t raw = 0;
          if (!Varint(raw)) return false;
          value.kind = v1::MeasureValue::kBooleanValue;
          value.number = raw != 0 ? 1 : 0;
          return true;
        }
        case Tag(5, kVarint):
          value.kind = v1::MeasureValue::kTimestampValue;
          return Int64(value.number);
        default: return Unknown(tag);
      }
    });
  }

  // The common layouts of a Dimension and a MultiMeasureValue, as
  // protobuf's serializers write them (fields in order, lengths under 128,
  // ASCII names and values, a double's value), read without the general
  // loop over fields: that loop was about half of reading a request. Each
  // returns false, having read nothing, for any other layout; the general
  // reading gives these bytes the same meaning.

  // [length][tag 1][n][name][tag 2][m][value]
  bool ShortDimension(WireDimension& d) {
    const ptrdiff_t left = end_ - p_;
    if (left < 5 || p_[0] >= 0x80 || p_[0] + 1 > left || p_[1] != Tag(1, kLength)) return false;
    const size_t length = p_[0];
    const size_t n = p_[2];
    if (n + 4 > length || p_[3 + n] != Tag(2, kLength)) return false;
    const size_t m = p_[4 + n];
    if (n + m + 4 != length) return false;  // also m < 128, as length is
    const std::string_view name(reinterpret_cast<const char*>(p_ + 3), n);
    const std::string_view value(reinterpret_cast<const char*>(p_ + 5 + n), m);
    // Name and value in one test: the tag and length between them are
    // below 0x80.
    if (!IsAscii(std::string_view(name.data(), n + 2 + m))) return false;
    d.name = name;
    d.value = value;
    p_ += 1 + length;
    return true;
  }

  // [length][tag 1][n][name]([tag 2][type])[tag 3][9][tag 1 of a value][double]
  // (the type is left out by clients that let the value say it).
  bool ShortDoubleMeasure(WireMeasure& m) {
    const ptrdiff_t left = end_ - p_;
    if (left < 3 || p_[0] >= 0x80 || p_[0] + 1 > left || p_[1] != Tag(1, kLength)) return false;
    const size_t length = p_[0];
    const size_t n = p_[2];
    if (n + 13 > length) return false;
    const uint8_t* after = p_ + 3 + n;  // within the message: length >= n + 13
    int32_t type = 0;
    if (after[0] == Tag(2, kVarint)) {
      if (n + 15 != length || after[1] >= 0x80) return false;
      type = after[1];
      after += 2;
    } else if (n + 13 != length) {
      return false;
    }
    if (after[0] != Tag(3, kLength) || after[1] != 9 || after[2] != Tag(1, kFixed64)) {
      return false;
    }
    const std::string_view name(reinterpret_cast<const char*>(p_ + 3), n);
    if (!IsAscii(name)) return false;
    m.name = name;
    m.type = type;
    uint64_t bits = 0;
    google::protobuf::io::CodedInputStream::ReadLittleEndian64FromArray(after + 3, &bits);
    std::memcpy(&m.value.real, &bits, sizeof bits);
    m.value.kind = v1::MeasureValue::kDoubleValue;
    p_ += 1 + length;
    return true;
  }

  bool Dimension() {
    WireDimension& d = out_.dimensions_.emplace_back();
    if (ShortDimension(d)) return true;
    return Message([&](uint32_t tag) {
      switch (tag) {
        case Tag(1, kLength): return String(d.name);
        case Tag(2, kLength): return String(d.value);
        default: return Unknown(tag);
      }
    });
  }

  bool Measure() {
    WireMeasure& m = out_.measures_.emplace_back();
    if (ShortDoubleMeasure(m)) return true;
    return Message([&](uint32_t tag) {
      switch (tag) {
        case Tag(1, kLength): return String(m.name);
        case Tag(2, kVarint): return Enum(m.type);
        case Tag(3, kLength): return Value(m.value);
        default: return Unknown(tag);
      }
    });
  }

  // A Record's fields; its dimensions and measures are appended to the
  // request's, contiguously (a record's bytes are one sub-message).
  bool Record(WireRecord& r, Ranges& ranges) {
    ranges.first_dimension = out_.dimensions_.size();
    ranges.first_measure = out_.measures_.size();
    const bool read = Message([&](uint32_t tag) {
      switch (tag) {
        case Tag(1, kLength): return Dimension();
        case Tag(2, kLength): return String(r.measure_name.emplace());
        case Tag(3, kLength):
          r.has_measure_value = true;
          return Value(r.measure_value);
        case Tag(4, kVarint): return Enum(r.measure_value_type);
        case Tag(5, kLength): return Measure();
        case Tag(6, kVarint): return Int64(r.time);
        case Tag(7, kVarint): return Enum(r.time_unit);
        case Tag(8, kVarint): return Int64(r.version);
        default: return Unknown(tag);
      }
    });
    ranges.dimension_end = out_.dimensions_.size();
    ranges.measure_end = out_.measures_.size();
    return read;
  }

  const uint8_t* p_;    // the next byte to read
  const uint8_t* end_;  // of the message being read
  WireWriteRequest& out_;
};

bool WireWriteRequest::Decode(std::string_view bytes, int max_records) {
  *this = WireWriteRequest();
  max_records_ = max_records;
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  std::vector<Ranges> record_ranges;
  Ranges common_ranges;
  if (!Reader(bytes, *this).Request(record_ranges, common_ranges)) return false;
  // The vectors have stopped growing: point each record at its part.
  auto place = [&](WireRecord& r, const Ranges& ranges) {
    r.dimensions = absl::MakeConstSpan(dimensions_.data() + ranges.first_dimension,
                                       ranges.dimension_end - ranges.first_dimension);
    r.measure_values = absl::MakeConstSpan(measures_.data() + ranges.first_measure,
                                           ranges.measure_end - ranges.first_measure);
  };
  place(common_, common_ranges);
  for (size_t i = 0; i < records_.size(); ++i) place(records_[i], record_ranges[i]);
  return true;
}

namespace {

std::optional<ValueView> ValueFromWire(const WireValue& value) {
  switch (value.kind) {
    case v1::MeasureValue::kDoubleValue: return ValueView::Double(value.real);
    case v1::MeasureValue::kBigintValue: return ValueView::Bigint(value.number);
    case v1::MeasureValue::kVarcharValue: return ValueView::Varchar(value.text);
    case v1::MeasureValue::kBooleanValue: return ValueView::Boolean(value.number != 0);
    case v1::MeasureValue::kTimestampValue: return ValueView::Timestamp(value.number);
    case v1::MeasureValue::VALUE_NOT_SET: break;
  }
  return std::nullopt;
}

std::optional<std::string> UnreadableReason(const WireRecord& r) {
  if (auto reason = UnknownMeasureValueType(r.measure_value_type)) return reason;
  for (const WireMeasure& m : r.measure_values) {
    if (auto reason = UnknownMeasureType(m.name, m.type)) return reason;
  }
  return UnknownTimeUnit(r.time_unit);
}

std::optional<MeasureKind> Kind(int32_t type) {
  return KindFromProto(static_cast<v1::MeasureValueType>(type));
}

// Reads a decoded record for the normalizer (storage/write/record_normalizer.h).
// Nothing is moved: the strings are views of the request's bytes.
struct WireAccess {
  using R = const WireRecord;
  static std::optional<std::string> Unreadable(R& r) { return UnreadableReason(r); }
  static const std::string_view* MeasureName(R& r) {
    return r.measure_name ? &*r.measure_name : nullptr;
  }
  static void TakeMeasureName(R& r, std::string* out) { out->assign(*r.measure_name); }
  static size_t DimensionCount(R& r) { return r.dimensions.size(); }
  static std::string_view DimensionName(R& r, size_t i) { return r.dimensions[i].name; }
  static std::string_view DimensionValue(R& r, size_t i) { return r.dimensions[i].value; }
  static std::optional<MeasureKind> MeasureValueType(R& r) { return Kind(r.measure_value_type); }
  static bool HasMeasureValue(R& r) {
    return r.has_measure_value && r.measure_value.kind != v1::MeasureValue::VALUE_NOT_SET;
  }
  static std::optional<ValueView> MeasureValue(R& r) {
    return r.has_measure_value ? ValueFromWire(r.measure_value) : std::nullopt;
  }
  static size_t MeasureValueCount(R& r) { return r.measure_values.size(); }
  static std::string_view MeasureValueName(R& r, size_t i) { return r.measure_values[i].name; }
  static std::optional<MeasureKind> MeasureValueKind(R& r, size_t i) {
    return Kind(r.measure_values[i].type);
  }
  static std::optional<ValueView> MeasureValueValue(R& r, size_t i) {
    return ValueFromWire(r.measure_values[i].value);
  }
  static std::optional<int64_t> Time(R& r) { return r.time; }
  static std::optional<TimeUnit> Unit(R& r) {
    return UnitFromProto(static_cast<v1::TimeUnit>(r.time_unit));
  }
  static std::optional<int64_t> Version(R& r) { return r.version; }
};

}  // namespace

WireWriteSource::WireWriteSource(const WireWriteRequest& request)
    : request_(request), common_unreadable_(UnreadableReason(request.common_attributes())) {}

namespace {

// The records as ValidateShape reads them: counting those past the limit, for
// which it refuses the write before reading any record.
struct CountedRecords {
  const WireWriteRequest& request;
  size_t size() const { return request.record_count(); }
  const WireRecord& operator[](size_t i) const { return request.records()[i]; }
};

}  // namespace

absl::Status WireWriteSource::ValidateShape() const {
  return normalize_internal::ValidateShape<WireAccess>(
      request_.common_attributes(), CountedRecords{request_}, request_.max_records());
}

absl::Status WireWriteSource::NormalizeInto(int i, const PartitionKey& partition_key,
                                            NormalizedRecord* out) {
  return normalize_internal::NormalizeInto<WireAccess, WireAccess::R>(
      request_.common_attributes(), request_.records()[i], common_unreadable_, partition_key,
      &names_, *out);
}

}  // namespace strata
