#include "server/wire/column_pages.h"

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "gtest/gtest.h"
#include "server/grpc/row_page_encoder.h"

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

// The pages a cluster's fragment makes for a client (relayed as they are), columnar or rows
// (NewResultPageEncoder): cut at the page size across batches, or once their values reach the
// page's bytes (a row longer than that alone), holding the chosen columns in the client's
// order; Flush sends what is left.
TEST(ColumnPageTest, EncodedPagesAreCutAsTheClientsAndHoldItsColumns) {
  auto batch_of = [](std::vector<int64_t> ids, std::vector<std::string> texts) {
    query::Batch batch;
    batch.rows = ids.size();
    query::Vector& id = batch.columns.emplace_back(DataType::kBigint);
    id.ints = std::move(ids);
    id.nulls.assign(batch.rows, 0);
    query::Vector& text = batch.columns.emplace_back(DataType::kVarchar);
    text.arena = std::make_shared<std::deque<std::string>>(texts.begin(), texts.end());
    text.strings.assign(text.arena->begin(), text.arena->end());
    text.nulls.assign(batch.rows, 0);
    return batch;
  };
  struct Case {
    std::string name;
    query::RelayForm form;
    std::vector<int64_t> first_ids;
    std::vector<int64_t> second_ids;
    size_t text_bytes;                  // each row's text
    std::vector<size_t> rows_per_page;  // as sent, Flush's last
  };
  const std::vector<Case> cases = {
      {"page size across batches",
       {.page_size = 3, .page_bytes = 1 << 20},
       {1, 2},
       {3, 4, 5, 6, 7},
       1,
       {3, 3, 1}},
      {"bytes", {.page_size = 1000, .page_bytes = 130}, {1, 2, 3}, {4, 5}, 40, {2, 2, 1}},
      {"a row longer than a page", {.page_size = 1000, .page_bytes = 10}, {1}, {2}, 50, {1, 1}},
  };
  for (const Case& base : cases) {
    for (bool row_pages : {false, true}) {
      Case c = base;
      c.form.row_pages = row_pages;
      if (row_pages) c.name += " (row pages)";
      std::unique_ptr<query::PageEncoder> encoder =
          NewResultPageEncoder({DataType::kBigint, DataType::kVarchar}, {1, 0}, c.form);
      std::vector<size_t> rows;
      std::vector<int64_t> ids;
      std::vector<std::string> texts;
      const query::PageEncoder::Page take = [&](std::string bytes, size_t n) {
        v1::QueryResponse page;
        EXPECT_TRUE(page.ParseFromString(bytes)) << c.name;
        rows.push_back(n);
        if (row_pages) {
          EXPECT_EQ(page.page().rows_size(), static_cast<int>(n)) << c.name;
          for (const v1::Row& row : page.page().rows()) {
            EXPECT_EQ(row.data_size(), 2) << c.name;
            texts.push_back(row.data(0).varchar_value());
            ids.push_back(row.data(1).bigint_value());
          }
          return absl::OkStatus();
        }
        EXPECT_EQ(page.column_page().row_count(), static_cast<int>(n)) << c.name;
        EXPECT_EQ(page.column_page().columns_size(), 2) << c.name;
        for (const std::string& t : Texts(page.column_page().columns(0))) texts.push_back(t);
        const auto& column = page.column_page().columns(1).ints();
        ids.insert(ids.end(), column.begin(), column.end());
        return absl::OkStatus();
      };
      std::vector<int64_t> all;
      for (const std::vector<int64_t>* part : {&c.first_ids, &c.second_ids}) {
        std::vector<std::string> part_texts;
        for (int64_t id : *part) part_texts.push_back(std::string(c.text_bytes, 'a' + id));
        ASSERT_TRUE(encoder->Add(batch_of(*part, part_texts), take).ok()) << c.name;
        all.insert(all.end(), part->begin(), part->end());
      }
      ASSERT_TRUE(encoder->Flush(take).ok()) << c.name;
      ASSERT_TRUE(encoder->Flush(take).ok()) << c.name;  // nothing left: no page
      EXPECT_EQ(rows, c.rows_per_page) << c.name;
      EXPECT_EQ(ids, all) << c.name;
      ASSERT_EQ(texts.size(), all.size()) << c.name;
      for (size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(texts[i], std::string(c.text_bytes, 'a' + all[i])) << c.name;
      }
    }
  }
}

}  // namespace
}  // namespace strata
