#include "client/record_parsers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace strata::cli {
namespace {

using ::testing::HasSubstr;

// "name=value" of each dimension and "name:value" of each measure, in order.
std::string Describe(const v1::Record& record) {
  std::string out = record.measure_name() + "@" + std::to_string(record.time()) + " ";
  for (const auto& d : record.dimensions()) out += d.name() + "=" + d.value() + " ";
  for (const auto& m : record.measure_values()) {
    out += m.name() + ":";
    const auto& v = m.value();
    if (v.has_double_value()) out += std::to_string(v.double_value()) + "d";
    if (v.has_bigint_value()) out += std::to_string(v.bigint_value()) + "i";
    if (v.has_boolean_value()) out += v.boolean_value() ? "true" : "false";
    if (v.has_varchar_value()) out += "'" + v.varchar_value() + "'";
    out += " ";
  }
  return out;
}

std::string ParseOk(RecordParser& parser, const std::string& line) {
  auto record = parser.Parse(line);
  EXPECT_TRUE(record.ok()) << line << ": " << record.status();
  if (!record.ok() || !record->has_value()) return "<none>";
  EXPECT_EQ((*record)->measure_value_type(), v1::MEASURE_VALUE_TYPE_MULTI);
  return Describe(**record);
}

std::string ParseError(RecordParser& parser, const std::string& line) {
  auto record = parser.Parse(line);
  EXPECT_FALSE(record.ok()) << line;
  return record.ok() ? "" : std::string(record.status().message());
}

TEST(SplitCsvTest, QuotesAndEdges) {
  struct Case {
    const char* line;
    std::vector<std::string> cells;
  };
  for (const Case& c : std::vector<Case>{{"a,b,c", {"a", "b", "c"}},
                                         {"a,,c", {"a", "", "c"}},
                                         {"\"a,b\",c", {"a,b", "c"}},
                                         {"\"say \"\"hi\"\"\",x", {"say \"hi\"", "x"}},
                                         {"\"two\nlines\"", {"two\nlines"}},
                                         {"a,b\r", {"a", "b"}},
                                         {"", {""}}}) {
    auto cells = SplitCsv(c.line);
    ASSERT_TRUE(cells.ok()) << c.line;
    EXPECT_EQ(*cells, c.cells) << c.line;
  }
  EXPECT_FALSE(SplitCsv("\"open").ok());
  EXPECT_FALSE(SplitCsv("\"a\"b,c").ok());
}

TEST(CsvParserTest, HeaderAnnotationsFlagsAndInference) {
  ImportColumns columns{.measure_name = "metrics"};
  columns.dimensions = {"zone"};
  columns.ignored = {"junk"};
  auto parser = MakeCsvParser(columns);
  EXPECT_EQ(ParseOk(*parser, "time,host,zone,cpu,procs:bigint,up,label:varchar,junk"), "<none>");
  EXPECT_EQ(ParseOk(*parser, "1000,a,7,0.5,3,true,x,zzz"),
            "metrics@1000 host=a zone=7 cpu:0.500000d procs:3i up:true label:'x' ");
  // Empty cells are absent values, not empty strings.
  EXPECT_EQ(ParseOk(*parser, "2000,b,,1,,,,"), "metrics@2000 host=b cpu:1.000000d ");
  EXPECT_THAT(ParseError(*parser, "3000,c,1,x,1,true,y,z"), HasSubstr("measure \"cpu\""));
  EXPECT_THAT(ParseError(*parser, "3000,c"), HasSubstr("expected 8 fields"));
  EXPECT_THAT(ParseError(*parser, ",c,1,1,1,true,y,z"), HasSubstr("no time"));
  EXPECT_THAT(ParseError(*parser, "3000,c,1,,,,,"), HasSubstr("no measure values"));
  EXPECT_TRUE(parser->NeedsMoreLines("1,\"open"));
  EXPECT_FALSE(parser->NeedsMoreLines("1,\"closed\""));
}

TEST(CsvParserTest, MeasureNameColumnAndBadHeader) {
  auto parser = MakeCsvParser(ImportColumns{.measure_name = "t"});
  ParseOk(*parser, "time:time,measure_name,v");
  EXPECT_EQ(ParseOk(*parser, "2024-05-01T00:00:00Z,cpu,1"),
            "cpu@1714521600000000000 v:1.000000d ");
  auto bad = MakeCsvParser(ImportColumns{});
  EXPECT_THAT(ParseError(*bad, "time,v:float"), HasSubstr("unknown kind"));
  // Every row after a bad header says why, instead of being read wrongly.
  EXPECT_THAT(ParseError(*bad, "1,2"), HasSubstr("the header is invalid: header column"));
  EXPECT_THAT(ParseError(*MakeCsvParser(ImportColumns{}), "time,host,host"),
              HasSubstr("names column \"host\" twice"));
  EXPECT_THAT(ParseError(*MakeCsvParser(ImportColumns{}), "time,,v"),
              HasSubstr("header column 2 has no name"));
}

TEST(CsvParserTest, AnUntypedMeasureKeepsTheTypeOfItsFirstValue) {
  ImportColumns columns{.measure_name = "m"};
  columns.measures = {{"state", v1::MEASURE_VALUE_TYPE_UNSPECIFIED}};
  auto parser = MakeCsvParser(columns);
  ParseOk(*parser, "time,state");
  EXPECT_EQ(ParseOk(*parser, "1,idle"), "m@1 state:'idle' ");
  // "7" would be inferred as a double on its own; the column is varchar now.
  EXPECT_EQ(ParseOk(*parser, "2,7"), "m@2 state:'7' ");
}

TEST(JsonLinesParserTest, TypesAndContradictions) {
  ImportColumns columns{.measure_name = "m"};
  columns.measures = {{"procs", v1::MEASURE_VALUE_TYPE_BIGINT}};
  auto parser = MakeJsonLinesParser(columns);
  EXPECT_EQ(ParseOk(*parser, "{\"time\": 5, \"host\": \"a\", \"procs\": 3, \"on\": false, \"x\": null}"),
            "m@5 host=a on:false procs:3i ");
  EXPECT_EQ(ParseOk(*parser, "   "), "<none>");
  EXPECT_THAT(ParseError(*parser, "{\"time\": 5, \"host\": 1, \"procs\": 3}"),
              HasSubstr("field \"host\" is a number but is a dimension"));
  EXPECT_THAT(ParseError(*parser, "{\"time\": 5, \"procs\": 1.5}"),
              HasSubstr("not an exact integer"));
  EXPECT_THAT(ParseError(*parser, "{\"time\": 5, \"a\": [1]}"), HasSubstr("object or array"));
  EXPECT_THAT(ParseError(*parser, "[1, 2]"), HasSubstr("not a JSON object"));
  EXPECT_THAT(ParseError(*parser, "{\"time\": 1.5, \"procs\": 1}"), HasSubstr("exact integer"));
  // Doubles keep every digit, also for a measure declared without a type.
  ImportColumns untyped{.measure_name = "m"};
  untyped.measures = {{"v", v1::MEASURE_VALUE_TYPE_UNSPECIFIED},
                      {"s", v1::MEASURE_VALUE_TYPE_VARCHAR}};
  auto precise = MakeJsonLinesParser(untyped);
  auto record = precise->Parse("{\"time\": 1, \"v\": 1.2345678901, \"s\": 0.1234567891}");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ((*record)->measure_values(0).value().varchar_value(), "0.1234567891");
  EXPECT_EQ((*record)->measure_values(1).value().double_value(), 1.2345678901);
}

TEST(LineProtocolParserTest, InfluxSyntax) {
  ImportColumns columns{.time_unit = v1::TIME_UNIT_NANOSECONDS};
  auto parser = MakeLineProtocolParser(columns);
  EXPECT_EQ(ParseOk(*parser, "cpu,host=a,region=eu usage=1.5,procs=3i,up=t,name=\"x, y\" 99"),
            "cpu@99 host=a region=eu usage:1.500000d procs:3i up:true name:'x, y' ");
  EXPECT_EQ(ParseOk(*parser, "my\\ cpu,ho\\,st=a\\ b v=1u 7"), "my cpu@7 ho,st=a b v:1i ");
  EXPECT_EQ(ParseOk(*parser, "# comment"), "<none>");
  EXPECT_EQ(ParseOk(*parser, ""), "<none>");
  auto no_time = parser->Parse("cpu v=1");
  ASSERT_TRUE(no_time.ok());
  EXPECT_GT((*no_time)->time(), 0);  // now
  EXPECT_THAT(ParseError(*parser, "cpu"), HasSubstr("expected a space"));
  EXPECT_THAT(ParseError(*parser, "cpu,host usage=1"), HasSubstr("tag must be key=value"));
  EXPECT_THAT(ParseError(*parser, "cpu usage=abc 1"), HasSubstr("field \"usage\""));
  EXPECT_THAT(ParseError(*parser, "cpu s=\"open 1"), HasSubstr("unterminated string"));
  EXPECT_THAT(ParseError(*parser, "cpu v=1 12:00"), HasSubstr("not an integer"));
  EXPECT_THAT(ParseError(*parser, "cpu v=1.5i 1"), HasSubstr("not a valid integer"));
}

// Line protocol's direct encoding (what `strata import` sends) against the
// record ParseInto builds, encoded: the same bytes for every field type,
// escape and unit; the same errors; `out` untouched by a line without a record.
TEST(LineProtocolParserTest, EncodeIntoWritesTheBytesOfParseIntosRecord) {
  for (v1::TimeUnit unit : {v1::TIME_UNIT_NANOSECONDS, v1::TIME_UNIT_SECONDS}) {
    ImportColumns columns{.time_unit = unit};
    auto parser = MakeLineProtocolParser(columns);
    ASSERT_TRUE(parser->EncodesRecords());
    EncodedRecords encoded;
    std::string expected;
    size_t expected_used = 0;
    for (const char* line :
         {"cpu,host=a,region=eu usage=1.5,procs=3i,up=t,name=\"x, y\" 99",
          "my\\ cpu,ho\\,st=a\\ b v=1u,neg=-12i,f=F,e=\"\",big=1e300 7",
          "m,t=x s=\"q\\\"uote\" -5", "m v=0 0", "m v=-0.25 1700000000000000000"}) {
      absl::StatusOr<bool> encoded_ok = parser->EncodeInto(line, &encoded);
      ASSERT_TRUE(encoded_ok.ok() && *encoded_ok) << line << ": " << encoded_ok.status();
      v1::Record record;
      ASSERT_TRUE(parser->ParseInto(line, &record).value()) << line;
      WireWriter writer(&expected, expected_used);
      writer.Nested(4, WireWriter::kRecordLengthGuess, [&] { writer.Record(record); });
      expected_used = writer.used();
      ASSERT_EQ(encoded.used, expected_used) << line;
      EXPECT_EQ(encoded.bytes.substr(0, encoded.used), expected.substr(0, expected_used)) << line;
    }
    EXPECT_EQ(encoded.count, 5);

    // The bytes read back as a request with those records.
    v1::WriteRecordsRequest request;
    ASSERT_TRUE(request.ParseFromArray(encoded.bytes.data(), static_cast<int>(encoded.used)));
    ASSERT_EQ(request.records_size(), 5);
    EXPECT_EQ(Describe(request.records(0)),
              "cpu@99 host=a region=eu usage:1.500000d procs:3i up:true name:'x, y' ");
    EXPECT_EQ(request.records(0).time_unit(), unit);

    const size_t used = encoded.used;
    for (const char* line : {"", "# comment", "cpu", "cpu usage=abc 1", "cpu v=1.5i 1"}) {
      absl::StatusOr<bool> direct = parser->EncodeInto(line, &encoded);
      absl::StatusOr<bool> built = parser->Parse(line).status().ok()
                                       ? absl::StatusOr<bool>(false)
                                       : absl::StatusOr<bool>(parser->Parse(line).status());
      EXPECT_EQ(direct.ok(), built.ok()) << line;
      if (!direct.ok()) {
        EXPECT_EQ(direct.status(), built.status()) << line;
      }
      EXPECT_EQ(encoded.used, used) << line;
      EXPECT_EQ(encoded.count, 5) << line;
    }
  }
  // The other formats build records.
  EXPECT_FALSE(MakeCsvParser({})->EncodesRecords());
}

// The importers parse into records kept from sent requests: each line must
// leave exactly its own dimensions and attributes, whatever the record held
// (more of them, other types, other names, fields the line does not set).
TEST(RecordReuseTest, ARecycledRecordHoldsOnlyTheNewLine) {
  ImportColumns columns{.time_unit = v1::TIME_UNIT_NANOSECONDS};
  auto lp = MakeLineProtocolParser(columns);
  auto csv = MakeCsvParser(columns);
  RecordPool pool;
  v1::WriteRecordsRequest request;
  auto parse = [&](RecordParser& parser, const std::string& line) {
    v1::Record* record = pool.Add(&request);
    absl::StatusOr<bool> parsed = parser.ParseInto(line, record);
    EXPECT_TRUE(parsed.ok() && *parsed) << line;
    std::string text = Describe(*record);
    record->set_version(7);  // a field no parser sets: it must not survive either
    pool.Recycle(&request);
    return text;
  };
  EXPECT_EQ(parse(*lp, "cpu,host=a,region=eu usage=1.5,procs=3i,up=t 9"),
            "cpu@9 host=a region=eu usage:1.500000d procs:3i up:true ");
  EXPECT_EQ(parse(*lp, "mem,dc=x free=\"low\" 10"), "mem@10 dc=x free:'low' ");
  v1::Record* reused = pool.Add(&request);
  ASSERT_TRUE(lp->ParseInto("disk used=2 11", reused).value());
  EXPECT_EQ(Describe(*reused), "disk@11 used:2.000000d ");
  EXPECT_EQ(reused->version(), 0);
  EXPECT_EQ(reused->measure_values(0).type(), v1::MEASURE_VALUE_TYPE_DOUBLE);
  pool.Recycle(&request);
  EXPECT_EQ(request.records_size(), 0);
  ASSERT_TRUE(csv->ParseInto("time,host,v", pool.Add(&request)).ok());  // the header
  request.mutable_records()->RemoveLast();
  EXPECT_EQ(parse(*csv, "5,b,2.5"), "@5 host=b v:2.500000d ");
}

}  // namespace
}  // namespace strata::cli
