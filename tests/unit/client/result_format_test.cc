#include "client/result_format.h"

#include <limits>
#include <sstream>

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

// One DOUBLE column "v" holding `values`, written in `format`.
std::string Written(OutputFormat format, const std::vector<double>& values) {
  v1::QueryMetadata metadata;
  v1::ColumnInfo* column = metadata.add_columns();
  column->set_name("v");
  column->mutable_type()->set_scalar_type(v1::SCALAR_TYPE_DOUBLE);
  v1::RowPage page;
  for (double v : values) page.add_rows()->add_data()->set_double_value(v);
  std::ostringstream out;
  std::unique_ptr<ResultWriter> writer = MakeResultWriter(format, out);
  writer->Begin(metadata);
  writer->Page(page);
  writer->Finish();
  return out.str();
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// NaN and infinity as the server prints them (Presto's and PostgreSQL's spellings), and in
// JSON, which has no such numbers, as strings: "nan" unquoted made the output unparsable.
TEST(ResultFormatTest, NaNAndInfinityArePrintedAsTheServerPrintsThem) {
  struct Case {
    OutputFormat format;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {OutputFormat::kCsv, "v\n1.5\nNaN\nInfinity\n-Infinity\n"},
           {OutputFormat::kJsonl,
            "{\"v\":1.5}\n{\"v\":\"NaN\"}\n{\"v\":\"Infinity\"}\n{\"v\":\"-Infinity\"}\n"},
       }) {
    EXPECT_EQ(Written(c.format, {1.5, kNaN, kInf, -kInf}), c.expected);
  }
  v1::ColumnType type;
  type.set_scalar_type(v1::SCALAR_TYPE_DOUBLE);
  v1::Datum datum;
  datum.set_double_value(-kNaN);  // 0/0's NaN has its sign bit set
  EXPECT_EQ(DatumText(datum, type), "NaN");
}

// A statement that answers no columns (DROP TABLE): nothing in CSV and the table, an empty
// array in JSON (it printed a lone "[").
TEST(ResultFormatTest, AStatementWithoutColumnsPrintsNothingOrAnEmptyArray) {
  struct Case {
    OutputFormat format;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{{OutputFormat::kCsv, ""},
                                         {OutputFormat::kTable, ""},
                                         {OutputFormat::kJson, "[]\n"},
                                         {OutputFormat::kJsonl, ""},
                                         {OutputFormat::kExpanded, ""}}) {
    std::ostringstream out;
    std::unique_ptr<ResultWriter> writer = MakeResultWriter(c.format, out);
    writer->Begin(v1::QueryMetadata());
    writer->Page(v1::RowPage());
    writer->Finish();
    EXPECT_EQ(out.str(), c.expected) << static_cast<int>(c.format);
  }
}

}  // namespace
}  // namespace strata::cli
