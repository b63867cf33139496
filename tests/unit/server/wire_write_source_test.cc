// WireWriteRequest reads WriteRecords requests straight from their bytes and
// leaves every encoding it does not take to protobuf. These cases are built
// byte by byte: for each, what the reader decoded must mean what protobuf's
// parse means (the same names, records and rejections), and the bytes
// protobuf refuses must never be decoded.
#include "server/wire/wire_write_source.h"

#include <string>
#include <vector>

#include "common/strings.h"
#include "gtest/gtest.h"
#include "server/wire/write_convert.h"

namespace strata {
namespace {

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Tag(int field, int wire_type) { return Varint(field << 3 | wire_type); }
std::string VarintField(int field, uint64_t v) { return Tag(field, 0) + Varint(v); }
std::string Bytes(int field, const std::string& bytes) {
  return Tag(field, 2) + Varint(bytes.size()) + bytes;
}
std::string DoubleField(int field, double v) {
  std::string out = Tag(field, 1);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);  // little-endian here
  return out;
}

std::string Dimension(const std::string& name, const std::string& value) {
  return Bytes(1, Bytes(1, name) + Bytes(2, value));
}
// A MULTI record's measure with a double value.
std::string DoubleMeasure(const std::string& name, double v) {
  return Bytes(5, Bytes(1, name) + VarintField(2, v1::MEASURE_VALUE_TYPE_DOUBLE) +
                      Bytes(3, DoubleField(1, v)));
}
std::string Names() { return Bytes(1, "db") + Bytes(2, "tbl"); }
// A record's fields (without its own tag and length).
std::string CpuFields(const std::string& host, int64_t time) {
  return Dimension("host", host) + Bytes(2, "cpu") + DoubleMeasure("usage", 1.5) +
         VarintField(6, static_cast<uint64_t>(time));
}
std::string RecordField(const std::string& fields) { return Bytes(4, fields); }

std::string Show(const Value& v) {
  std::string out = std::string(TypeName(v.type)) + " ";
  if (v.type == ValueType::kDouble) return out + std::to_string(v.real);
  if (v.type == ValueType::kVarchar) return out + v.text;
  return out + std::to_string(v.number);
}

// What the bytes mean to each reader, as text: the names, then each record
// normalized (or its rejection), or the request's refusal.
std::vector<std::string> Meaning(WriteSource& source) {
  std::vector<std::string> out = {std::string(source.database_name()) + "." +
                                  std::string(source.table_name())};
  if (absl::Status shape = source.ValidateShape(); !shape.ok()) {
    out.emplace_back(shape.message());
    return out;
  }
  const PartitionKey partition_key;
  for (int i = 0; i < source.record_count(); ++i) {
    absl::StatusOr<NormalizedRecord> r = source.Normalize(i, partition_key);
    if (!r.ok()) {
      out.emplace_back(r.status().message());
      continue;
    }
    std::string text = r->measure_name + " t=" + std::to_string(r->time_nanos) +
                       " v=" + std::to_string(r->version);
    for (const auto& [name, value] : r->dimensions) text += StrCat(" ", name, "=", value);
    for (const Measure& m : r->measures.ToVector()) text += " " + m.name + ":" + Show(m.value);
    out.push_back(text);
  }
  return out;
}

enum class Expect { kDecoded, kLeftToProtobuf };

struct Case {
  std::string name;
  std::string bytes;
  Expect expect;
  bool protobuf_parses = true;
};

TEST(WireWriteRequestTest, DecodesWhatProtobufMeansAndLeavesTheRestToIt) {
  const std::string record = RecordField(CpuFields("h1", 5));
  const std::string ten_byte_minus_one = Varint(~uint64_t{0});
  const std::vector<Case> cases = {
      {"as protobuf serializes it", Names() + record + RecordField(CpuFields("h2", 6)),
       Expect::kDecoded},
      {"fields in reverse order, inside records too",
       RecordField(VarintField(6, 7) + DoubleMeasure("usage", 2) + Bytes(2, "cpu") +
                   Dimension("host", "h1")) +
           Bytes(2, "tbl") + Bytes(1, "db"),
       Expect::kDecoded},
      {"a record's dimensions between its other fields",
       Names() + RecordField(Dimension("b", "2") + Bytes(2, "cpu") + Dimension("a", "1") +
                             DoubleMeasure("usage", 1) + Dimension("c", "3") + VarintField(6, 1)),
       Expect::kDecoded},
      {"common_attributes after the records, and empty records",
       Names() + record + RecordField("") + Bytes(3, Dimension("region", "eu") + VarintField(8, 4)),
       Expect::kDecoded},
      {"a string or scalar given twice: the last wins",
       Names() + Bytes(1, "other_db") +
           RecordField(Bytes(1, Bytes(1, "x") + Bytes(2, "1") + Bytes(1, "host")) +
                       Bytes(2, "first") + CpuFields("h1", 5) + VarintField(6, 9)),
       Expect::kDecoded},
      {"measure_value given twice: merged, the later case wins",
       Names() + RecordField(Bytes(2, "m") + VarintField(6, 1) + Bytes(3, DoubleField(1, 1)) +
                             Bytes(3, VarintField(2, 42))),
       Expect::kDecoded},
      {"measure_value given twice, the second empty: the first stays",
       Names() + RecordField(Bytes(2, "m") + VarintField(6, 1) + Bytes(3, Bytes(3, "text")) +
                             Bytes(3, "")),
       Expect::kDecoded},
      {"a measure's value given twice, and a boolean of 7",
       Names() + RecordField(Bytes(2, "m") + VarintField(6, 1) +
                             Bytes(5, Bytes(1, "ok") + Bytes(3, VarintField(2, 1)) +
                                          Bytes(3, VarintField(4, 7)))),
       Expect::kDecoded},
      {"ten-byte varints: a negative time, version and enum",
       Names() + RecordField(Bytes(2, "m") + Bytes(3, DoubleField(1, 1)) + Tag(6, 0) +
                             ten_byte_minus_one + Tag(8, 0) + ten_byte_minus_one + Tag(7, 0) +
                             ten_byte_minus_one),
       Expect::kDecoded},
      {"no bytes at all", "", Expect::kDecoded},
      // The reader's direct paths for a dimension and a DOUBLE measure as
      // serializers write them, at their edges: each other layout is read
      // field by field.
      {"a dimension's fields in reverse order, one with only a name, one with an empty name",
       Names() + RecordField(Bytes(1, Bytes(2, "1") + Bytes(1, "a")) + Bytes(1, Bytes(1, "b")) +
                             Bytes(1, Bytes(1, "") + Bytes(2, "x")) + CpuFields("h1", 5)),
       Expect::kDecoded},
      {"a dimension with an unknown field after its value, and one of 127 and 128 bytes",
       Names() + RecordField(Bytes(1, Bytes(1, "a") + Bytes(2, "1") + VarintField(9, 1)) +
                             Dimension("b", std::string(123, 'x')) +
                             Dimension("c", std::string(124, 'y')) + CpuFields("h1", 5)),
       Expect::kDecoded},
      {"DOUBLE measures in other layouts: fields reversed, a BIGINT value, a two-byte type, "
       "a value with an unknown field, names of 112 and 113 bytes",
       Names() +
           RecordField(
               Bytes(2, "cpu") + VarintField(6, 1) +
               Bytes(5, Bytes(3, DoubleField(1, 2)) + VarintField(2, 1) + Bytes(1, "r")) +
               Bytes(5, Bytes(1, "b") + VarintField(2, 1) + Bytes(3, VarintField(2, 3))) +
               Bytes(5, Bytes(1, "t") + VarintField(2, 200) + Bytes(3, DoubleField(1, 2))) +
               Bytes(5, Bytes(1, "u") + VarintField(2, 1) +
                            Bytes(3, DoubleField(1, 2) + VarintField(9, 1))) +
               DoubleMeasure(std::string(112, 'n'), 4) + DoubleMeasure(std::string(113, 'o'), 5) +
               // Without a type (the value says it), named with 114 and 115 bytes.
               Bytes(5, Bytes(1, std::string(114, 'p')) + Bytes(3, DoubleField(1, 6))) +
               Bytes(5, Bytes(1, std::string(115, 'q')) + Bytes(3, DoubleField(1, 7)))) +
           // In the direct layout, but declared BIGINT: rejected by both readers.
           RecordField(Bytes(2, "cpu") + VarintField(6, 1) +
                       Bytes(5, Bytes(1, "k") + VarintField(2, v1::MEASURE_VALUE_TYPE_BIGINT) +
                                    Bytes(3, DoubleField(1, 2)))),
       Expect::kDecoded},
      {"UTF-8 beyond ASCII, in the first eight bytes of a string and past them",
       Names() + RecordField(CpuFields("h\xc3\xa9\xe2\x82\xac", 5) +
                             Dimension("region", "eu-central-\xc3\xa9")),
       Expect::kDecoded},
      {"common_attributes twice (protobuf merges them)",
       Names() + Bytes(3, Dimension("a", "1")) + record + Bytes(3, Dimension("b", "2")),
       Expect::kLeftToProtobuf},
      {"an unknown field (a newer client's): skipped", Names() + VarintField(15, 1) + record,
       Expect::kDecoded},
      {"unknown fields of every wire type, with two-byte tags, in every message",
       Names() + Bytes(3, VarintField(99, 1) + Dimension("region", "eu")) +
           RecordField(CpuFields("h1", 5) + Bytes(20, "\xff\xfe") + DoubleField(21, 1) +
                       Tag(22, 5) + "abcd" +
                       Bytes(5, Bytes(1, "x") + VarintField(30, 7) +
                             Bytes(3, DoubleField(1, 2) + Bytes(31, "?")))),
       Expect::kDecoded},
      {"a known field with another wire type: skipped as protobuf does",
       Names() + RecordField(CpuFields("h1", 5) + Bytes(6, "x") + Bytes(3, VarintField(1, 5))),
       Expect::kDecoded},
      {"an unknown group", Names() + Tag(15, 3) + VarintField(1, 1) + Tag(15, 4) + record,
       Expect::kLeftToProtobuf},
      {"field number 0", Names() + VarintField(0, 1) + record, Expect::kLeftToProtobuf, false},
      {"an unknown field running past its message",
       Names() + Tag(4, 2) + Varint(4) + Tag(20, 5) + "abcd", Expect::kLeftToProtobuf, false},
      {"a tag padded to two bytes", std::string("\x8a\x00", 2) + Varint(2) + "db" + record,
       Expect::kLeftToProtobuf},
      {"a varint's tenth byte past bit 63",
       Names() + RecordField(CpuFields("h1", 5) + Tag(8, 0) +
                             std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10)),
       Expect::kLeftToProtobuf},
      {"a string that is not UTF-8", Names() + RecordField(CpuFields("h\xc3\x28", 5)),
       Expect::kLeftToProtobuf, false},
      {"a long string that is not UTF-8 past its eighth byte",
       Names() + RecordField(CpuFields("host-number-\xed\xa0\x80-surrogate", 5)),
       Expect::kLeftToProtobuf, false},
      {"cut short", (Names() + record).substr(0, Names().size() + record.size() - 1),
       Expect::kLeftToProtobuf, false},
      {"a string running past its message",
       Names() + Tag(4, 2) + Varint(3) + Tag(2, 2) + Varint(5) + "cpu12",
       Expect::kLeftToProtobuf, false},
      {"a length prefix running past its message (found by libFuzzer: an overflow)",
       Names() + Tag(4, 2) + Varint(1) + Tag(1, 2) + std::string("\xff\xff\xff\xff\x07", 5) +
           std::string(100, '\x10'),
       Expect::kLeftToProtobuf, false},
      {"a varint running past its message",
       Names() + Tag(4, 2) + Varint(2) + Tag(6, 0) + std::string("\x81\x01", 2),
       Expect::kLeftToProtobuf, false},
      {"a length whose fifth byte is past 2^31 (an overflow to 0 if truncated)",
       Names() + Tag(1, 2) + std::string("\x80\x80\x80\x80\x10", 5) + record,
       Expect::kLeftToProtobuf, false},
      {"a length padded to five bytes", Names() + Tag(1, 2) +
                                            std::string("\x82\x80\x80\x80\x00", 5) + "db" + record,
       Expect::kDecoded},
      {"a zero tag", Names() + std::string("\x00\x00", 2) + record, Expect::kLeftToProtobuf,
       false},
      {"an unknown field of the highest number: a five-byte tag",
       Names() + Varint(uint64_t{(1u << 29) - 1} << 3) + Varint(1) + record, Expect::kDecoded},
      {"a tag whose fifth byte carries bits past 32",
       Names() + std::string("\x80\x80\x80\x80\x1f", 5) + Varint(1) + record,
       Expect::kLeftToProtobuf, true},
      {"a tag running past the request", Names() + record + std::string("\x80\x80", 2),
       Expect::kLeftToProtobuf, false},
      {"a double cut short", Names() + RecordField(Bytes(2, "m") + Bytes(3, Tag(1, 1) + "1234")),
       Expect::kLeftToProtobuf, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::WriteRecordsRequest message;
    ASSERT_EQ(message.ParseFromString(c.bytes), c.protobuf_parses);
    WireWriteRequest wire;
    const bool decoded = wire.Decode(c.bytes);
    EXPECT_EQ(decoded, c.expect == Expect::kDecoded);
    if (!decoded || !c.protobuf_parses) continue;
    ProtoWriteSource from_message(message);
    WireWriteSource from_bytes(wire);
    EXPECT_EQ(Meaning(from_bytes), Meaning(from_message));
  }
}

TEST(WireWriteRequestTest, RecordsPastTheLimitAreCountedNotKept) {
  std::string bytes = Names();
  for (int i = 0; i < 250; ++i) bytes += RecordField(CpuFields("h" + std::to_string(i), i));
  WireWriteRequest wire;
  ASSERT_TRUE(wire.Decode(bytes));
  EXPECT_EQ(wire.records().size(), static_cast<size_t>(kMaxRecordsPerWrite));
  EXPECT_EQ(wire.record_count(), 250u);
  EXPECT_EQ(wire.records().back().dimensions[0].value, "h99");
  WireWriteSource source(wire);
  EXPECT_EQ(source.record_count(), 250);
  EXPECT_EQ(source.ValidateShape().message(),
            "a write carries 1..100 records, this one has 250; split it into several requests");
  // Read all the same: one that protobuf refuses past the limit is left to it.
  const std::string refused = bytes + RecordField(CpuFields("h\xc3\x28", 1));
  EXPECT_FALSE(wire.Decode(refused));
  v1::WriteRecordsRequest message;
  EXPECT_FALSE(message.ParseFromString(refused));
}

TEST(WireWriteRequestTest, ARequestDecodedAgainForgetsTheLastOne) {
  const std::string first =
      Names() + RecordField(CpuFields("h1", 5)) + RecordField(CpuFields("h2", 6));
  const std::string second = Bytes(2, "other") + RecordField(CpuFields("h3", 7));
  WireWriteRequest wire;
  ASSERT_TRUE(wire.Decode(first));
  ASSERT_TRUE(wire.Decode(second));
  EXPECT_EQ(wire.database_name(), "");
  EXPECT_EQ(wire.table_name(), "other");
  ASSERT_EQ(wire.records().size(), 1u);
  ASSERT_EQ(wire.records()[0].dimensions.size(), 1u);
  EXPECT_EQ(wire.records()[0].dimensions[0].value, "h3");
}

}  // namespace
}  // namespace strata
