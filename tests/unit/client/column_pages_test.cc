#include "client/column_pages.h"

#include "gtest/gtest.h"

namespace strata::cli {
namespace {

v1::QueryMetadata Metadata(std::vector<v1::ScalarType> types) {
  v1::QueryMetadata m;
  for (v1::ScalarType t : types) m.add_columns()->mutable_type()->set_scalar_type(t);
  return m;
}

// host VARCHAR, v DOUBLE, t TIMESTAMP, ok BOOLEAN over 2 rows; row 2's v is NULL.
v1::ColumnPage GoodPage() {
  v1::ColumnPage p;
  p.set_row_count(2);
  auto* host = p.add_columns();
  host->set_string_data("ab");
  host->add_string_ends(1);
  host->add_string_ends(2);
  auto* v = p.add_columns();
  v->add_doubles(1.5);
  v->add_doubles(0);
  v->set_nulls(std::string(1, '\x02'));
  auto* t = p.add_columns();
  t->add_ints(10);
  t->add_ints(20);
  auto* ok = p.add_columns();
  ok->add_booleans(true);
  ok->add_booleans(false);
  return p;
}

const v1::QueryMetadata kMetadata =
    Metadata({v1::SCALAR_TYPE_VARCHAR, v1::SCALAR_TYPE_DOUBLE, v1::SCALAR_TYPE_TIMESTAMP,
              v1::SCALAR_TYPE_BOOLEAN});

TEST(ColumnPagesTest, RowsComeBackTyped) {
  auto rows = RowsFromColumns(kMetadata, GoodPage());
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->rows_size(), 2);
  EXPECT_EQ(rows->rows(0).ShortDebugString(),
            "data { varchar_value: \"a\" } data { double_value: 1.5 } data { timestamp_value: 10 } "
            "data { boolean_value: true }");
  EXPECT_EQ(rows->rows(1).ShortDebugString(),
            "data { varchar_value: \"b\" } data { null_value: true } data { timestamp_value: 20 } "
            "data { boolean_value: false }");
}

// An array (or row, or timeseries) column holds a Datum per row in `values`.
TEST(ColumnPagesTest, NestedColumnsCarryADatumPerRow) {
  v1::QueryMetadata metadata;
  metadata.add_columns()->mutable_type()->mutable_array_column_info()->mutable_type()
      ->set_scalar_type(v1::SCALAR_TYPE_BIGINT);
  v1::ColumnPage page;
  page.set_row_count(2);
  v1::ColumnValues* column = page.add_columns();
  column->add_values()->mutable_array_value()->add_values()->set_bigint_value(7);
  column->add_values()->set_null_value(true);
  column->set_nulls(std::string(1, '\x02'));
  auto rows = RowsFromColumns(metadata, page);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->rows(0).ShortDebugString(),
            "data { array_value { values { bigint_value: 7 } } }");
  EXPECT_EQ(rows->rows(1).ShortDebugString(), "data { null_value: true }");

  column->mutable_values()->RemoveLast();
  EXPECT_FALSE(RowsFromColumns(metadata, page).ok());  // 1 value for 2 rows
}

TEST(ColumnPagesTest, APageThatDoesNotMatchItsColumnsIsAnError) {
  const std::pair<std::function<void(v1::ColumnPage&)>, const char*> cases[] = {
      {[](v1::ColumnPage& p) { p.mutable_columns()->RemoveLast(); }, "3 columns; the result has 4"},
      {[](v1::ColumnPage& p) { p.mutable_columns(1)->mutable_doubles()->RemoveLast(); },
       "column 2 holds 1 values for 2 rows"},
      {[](v1::ColumnPage& p) { p.mutable_columns(0)->set_string_ends(1, 9); },
       "column 1 row 2 ends outside its text"},
      {[](v1::ColumnPage& p) { p.mutable_columns(0)->mutable_string_ends()->RemoveLast(); },
       "column 1 holds 1 values"},
      {[](v1::ColumnPage& p) { p.mutable_columns(2)->set_nulls("xx"); }, "null map of 2 bytes"},
      {[](v1::ColumnPage& p) { p.set_row_count(-1); }, "has -1 rows"},
  };
  for (const auto& [change, message] : cases) {
    v1::ColumnPage page = GoodPage();
    change(page);
    auto rows = RowsFromColumns(kMetadata, page);
    ASSERT_FALSE(rows.ok()) << message;
    EXPECT_NE(std::string(rows.status().message()).find(message), std::string::npos)
        << rows.status().message();
  }
}

TEST(ColumnPagesTest, UnknownColumnsAreNullAndOtherTypesAreRefused) {
  v1::ColumnPage page;
  page.set_row_count(2);
  page.add_columns();  // UNKNOWN: no values at all
  auto rows = RowsFromColumns(Metadata({v1::SCALAR_TYPE_UNKNOWN}), page);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->rows(1).ShortDebugString(), "data { null_value: true }");
  auto refused = RowsFromColumns(Metadata({v1::SCALAR_TYPE_UNSPECIFIED}), page);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "column 1 has a type columnar pages do not carry (SCALAR_TYPE_UNSPECIFIED)");
}

// DATE, TIME and both intervals travel as ints: days, nanoseconds, months.
TEST(ColumnPagesTest, CalendarColumnsAreIntsOfTheirUnits) {
  v1::ColumnPage page;
  page.set_row_count(1);
  for (int64_t v : {19'723LL, 36'000'000'000'000LL, 14LL, 90'000'000'000LL}) {
    page.add_columns()->add_ints(v);
  }
  auto rows = RowsFromColumns(Metadata({v1::SCALAR_TYPE_DATE, v1::SCALAR_TYPE_TIME,
                                        v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH,
                                        v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND}),
                               page);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->rows(0).ShortDebugString(),
            "data { date_value: 19723 } data { interval_nanos_value: 36000000000000 } "
            "data { interval_months_value: 14 } data { interval_nanos_value: 90000000000 }");
}

}  // namespace
}  // namespace strata::cli
