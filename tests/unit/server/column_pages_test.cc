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

}  // namespace
}  // namespace strata
