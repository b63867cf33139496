#include "server/grpc/row_page_encoder.h"

#include <limits>

#include "gtest/gtest.h"
#include "server/wire/datum_proto.h"
#include "strata/v1/query.pb.h"

namespace strata {
namespace {

using query::DataType;
using query::Datum;

// What the query service sent before the encoder: a message per cell.
std::string ViaMessages(const std::vector<query::Row>& rows) {
  v1::QueryResponse message;
  v1::RowPage* page = message.mutable_page();
  for (const query::Row& row : rows) {
    v1::Row* out = page->add_rows();
    for (const Datum& d : row) DatumToProto(d, out->add_data());
  }
  return message.SerializeAsString();
}

TEST(RowPageEncoderTest, EncodesEveryKindOfValueAsTheMessagesWould) {
  const DataType bigint_array = *query::ArrayOf(DataType::kBigint);
  const DataType pair = *query::RowOf({{"x", DataType::kBigint}, {"y", DataType::kVarchar}});
  const DataType series = *query::TimeseriesOf(DataType::kDouble);
  const DataType map = *query::MapOf(DataType::kVarchar, DataType::kDouble);
  const std::vector<query::Row> rows = {
      {Datum::Double(1.5), Datum::Double(-0.0), Datum::Double(0), Datum::Bigint(0),
       Datum::Bigint(-1), Datum::Bigint(std::numeric_limits<int64_t>::min()),
       Datum::Bigint(std::numeric_limits<int64_t>::max()), Datum::Bool(true), Datum::Bool(false)},
      {Datum::Varchar(""), Datum::Varchar("host_1"), Datum::Varchar(std::string(300, 'v')),
       Datum::Varchar("bad \xff utf-8"), Datum::Timestamp(1'700'000'000'000'000'000),
       Datum::Timestamp(0), Datum::Interval(-5), Datum::Time(86'399'000'000'000),
       Datum::Date(-719'162), Datum::Date(19'000), Datum::Months(-13)},
      {Datum::Null(), Datum::Null(DataType::kDouble), Datum::Null(bigint_array),
       Datum::Composite(bigint_array, {}), Datum::Composite(bigint_array,
                                                            {Datum::Bigint(1), Datum::Null()}),
       Datum::Composite(pair, {Datum::Bigint(7), Datum::Varchar("seven")}),
       Datum::Composite(series, {Datum::Double(1), Datum::Double(2)}, {10, 20}),
       Datum::Map(map, {Datum::Varchar("a"), Datum::Varchar("b")},
                  {Datum::Double(1), Datum::Null(DataType::kDouble)})},
      {},  // a row with no columns
  };
  const std::string encoded = EncodeRowPageResponse(rows);
  EXPECT_EQ(encoded, ViaMessages(rows));
  v1::QueryResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(encoded));
  ASSERT_EQ(parsed.page().rows_size(), 4);
  EXPECT_EQ(parsed.page().rows(1).data(3).varchar_value(), "bad \xef\xbf\xbd utf-8");
  EXPECT_EQ(parsed.page().rows(0).data(5).bigint_value(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parsed.page().rows(1).data(8).date_value(), -719'162);
  EXPECT_TRUE(parsed.page().rows(2).data(0).null_value());
}

// Rows straight from a batch's vectors are the rows the batch makes.
TEST(RowPageEncoderTest, BatchRowsAreEncodedAsTheRowsTheBatchMakes) {
  const DataType bigint_array = *query::ArrayOf(DataType::kBigint);
  const std::vector<std::vector<Datum>> columns = {
      {Datum::Double(1.25), Datum::Null(DataType::kDouble), Datum::Double(-3)},
      {Datum::Bigint(-7), Datum::Bigint(0), Datum::Null(DataType::kBigint)},
      {Datum::Varchar("a"), Datum::Varchar("bad \xfe"), Datum::Varchar("")},
      {Datum::Bool(true), Datum::Bool(false), Datum::Null(DataType::kBoolean)},
      {Datum::Timestamp(5), Datum::Date(-3), Datum::Null(DataType::kTimestamp)},
      {Datum::Composite(bigint_array, {Datum::Bigint(1)}), Datum::Null(bigint_array),
       Datum::Composite(bigint_array, {})},
      {Datum::Null(), Datum::Null(), Datum::Null()},
  };
  query::Batch batch{.rows = 3};
  for (const auto& values : columns) {
    // A column's type is its first non-NULL value's (the DATE in the
    // TIMESTAMP column is stored as that column's integer).
    DataType type = DataType::kUnknown;
    for (const Datum& d : values) {
      if (!d.null) {
        type = d.type;
        break;
      }
    }
    query::Vector v(type);
    v.ResetNull(batch.rows);
    for (size_t i = 0; i < values.size(); ++i) v.Set(i, values[i]);
    batch.columns.push_back(std::move(v));
  }
  batch.columns.push_back(query::Vector(DataType::kDouble));  // not held: NULL in every row

  std::vector<query::Row> made(batch.rows);
  for (size_t r = 0; r < batch.rows; ++r) {
    for (const query::Vector& v : batch.columns) {
      made[r].push_back(v.size() == batch.rows ? v.Get(r) : Datum::Null(v.type));
    }
  }
  std::string rows;
  AppendBatchRows(batch, 0, 1, &rows);
  AppendBatchRows(batch, 1, 2, &rows);
  EXPECT_EQ(RowPageResponse(rows), EncodeRowPageResponse(made));
  EXPECT_EQ(RowPageResponse(rows), ViaMessages(made));

  std::string middle;
  AppendBatchRows(batch, 1, 1, &middle);
  EXPECT_EQ(RowPageResponse(middle), ViaMessages({made[1]}));
}

TEST(RowPageEncoderTest, AnEmptyPageIsAnEmptyRowPage) {
  const std::string encoded = EncodeRowPageResponse({});
  EXPECT_EQ(encoded, ViaMessages({}));
  v1::QueryResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(encoded));
  EXPECT_EQ(parsed.payload_case(), v1::QueryResponse::kPage);
  EXPECT_EQ(parsed.page().rows_size(), 0);
}

TEST(RowPageEncoderTest, TheByteBufferHoldsTheBytes) {
  const std::string encoded = EncodeRowPageResponse({{Datum::Bigint(42)}});
  grpc::ByteBuffer buffer = TakeAsByteBuffer(encoded);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(buffer.Dump(&slices).ok());
  std::string back;
  for (const grpc::Slice& s : slices) back.append(reinterpret_cast<const char*>(s.begin()), s.size());
  EXPECT_EQ(back, encoded);
}

}  // namespace
}  // namespace strata
