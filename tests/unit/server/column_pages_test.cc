#include "server/wire/column_pages.h"

#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "gtest/gtest.h"

namespace strata {
namespace {

using query::DataType;

// Rows of a VARCHAR column as the page carries them.
std::vector<std::string> Texts(const v1::ColumnValues& column) {
  std::vector<std::string> out;
  uint32_t start = 0;
  for (uint32_t end : column.string_ends()) {
    out.push_back(column.string_data().substr(start, end - start));
    start = end;
  }
  return out;
}

// Text that is not UTF-8 is made well formed in every row, whether a row
// views the same bytes as the row before (a series' rows share their
// dimension values' views, checked once) or equal bytes elsewhere.
TEST(ColumnPageTest, TextThatIsNotUtf8IsMadeWellFormedInEveryRow) {
  const std::string bad = "bad \xff utf-8";
  const std::string bad_copy = bad;
  const std::string good = "host_1";
  const std::string good_copy = good;
  query::Batch batch;
  batch.rows = 7;
  query::Vector& text = batch.columns.emplace_back(DataType::kVarchar);
  text.ResetNull(batch.rows);
  text.strings = {bad, bad, good, good, bad_copy, std::string_view(), good_copy};
  for (size_t i : {0, 1, 2, 3, 4, 6}) text.nulls[i] = 0;
  v1::ColumnPage page;
  AppendToColumnPage({DataType::kVarchar}, batch, 0, batch.rows, &page);
  ASSERT_EQ(page.columns_size(), 1);
  const std::string fixed = ToValidUtf8(bad);
  ASSERT_NE(fixed, bad);
  EXPECT_EQ(Texts(page.columns(0)),
            (std::vector<std::string>{fixed, fixed, good, good, fixed, "", good}));
  EXPECT_EQ(page.columns(0).nulls(), std::string(1, '\x20'));  // row 5
}

// Numbers come out alike whether a run of rows has no NULL (copied as one array) or some,
// appended after rows already in the page and from the middle of a batch; a column the batch
// does not hold is NULL.
TEST(ColumnPageTest, RunsOfNumbersWithAndWithoutNullsAppendAlike) {
  query::Batch batch;
  batch.rows = 6;
  query::Vector& doubles = batch.columns.emplace_back(DataType::kDouble);
  doubles.doubles = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
  doubles.nulls = {0, 0, 0, 1, 0, 0};
  query::Vector& ints = batch.columns.emplace_back(DataType::kTimestamp);
  ints.ints = {10, 11, 12, 13, 14, 15};
  ints.nulls = {0, 0, 0, 0, 0, 1};
  batch.columns.emplace_back(DataType::kBigint);  // not read: size 0
  const std::vector<DataType> types = {DataType::kDouble, DataType::kTimestamp, DataType::kBigint};
  v1::ColumnPage page;
  AppendToColumnPage(types, batch, 1, 2, &page);  // rows 1-2: no NULL in either column
  AppendToColumnPage(types, batch, 0, 6, &page);  // rows 0-5: a NULL in each
  ASSERT_EQ(page.row_count(), 8);
  const v1::ColumnValues& d = page.columns(0);
  EXPECT_EQ(std::vector<double>(d.doubles().begin(), d.doubles().end()),
            (std::vector<double>{1.5, 2.5, 0.5, 1.5, 2.5, 0, 4.5, 5.5}));
  EXPECT_EQ(d.nulls(), std::string(1, '\x20'));  // page row 5 (batch row 3)
  const v1::ColumnValues& t = page.columns(1);
  EXPECT_EQ(std::vector<int64_t>(t.ints().begin(), t.ints().end()),
            (std::vector<int64_t>{11, 12, 10, 11, 12, 13, 14, 0}));
  EXPECT_EQ(t.nulls(), std::string(1, '\x80'));  // page row 7 (batch row 5)
  EXPECT_EQ(page.columns(2).nulls(), std::string(1, '\xff'));
  EXPECT_EQ(page.columns(2).ints_size(), 8);  // a NULL's place holds 0

  // The first run alone, none NULL: no null map at all.
  v1::ColumnPage first;
  AppendToColumnPage(types, batch, 1, 2, &first);
  EXPECT_TRUE(first.columns(0).nulls().empty());
  EXPECT_EQ(first.columns(0).doubles_size(), 2);
  EXPECT_TRUE(first.columns(1).nulls().empty());
}

}  // namespace
}  // namespace strata
