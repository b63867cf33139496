// ORDER BY over batches (query/exec/batch_sort.cc) against the row sort
// (MakeSort): the same rows in the same order for every key direction, NULL
// placement and LIMIT, ties in arrival order, over many batches whose strings
// are gone once each Push returns, with the top n cut back as rows come.
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "gtest/gtest.h"
#include "query/exec/operators.h"

namespace strata::query {
namespace {

constexpr size_t kRows = 5000;

// Column 0: VARCHAR (few values, some NULL); 1: BIGINT (ties, some NULL);
// 2: DOUBLE; 3: the row's arrival number; 4: VARCHAR, mostly distinct.
std::vector<Row> MakeRows() {
  std::mt19937 random(7);
  std::vector<Row> rows;
  for (size_t i = 0; i < kRows; ++i) {
    const uint32_t r = random();
    rows.push_back({r % 9 == 0 ? Datum::Null(DataType::kVarchar)
                               : Datum::Varchar("host_" + std::to_string(r % 13)),
                    r % 11 == 0 ? Datum::Null(DataType::kBigint) : Datum::Bigint((r >> 8) % 5),
                    Datum::Double(static_cast<double>((r >> 4) % 100) / 4),
                    Datum::Bigint(static_cast<int64_t>(i)),
                    Datum::Varchar("v" + std::to_string((r >> 3) % 4000))});
  }
  return rows;
}

class Lines : public BatchSink, public RowSink {
 public:
  absl::Status Push(const Batch& batch) override {
    for (size_t i = 0; i < batch.rows; ++i) {
      Row row;
      for (const Vector& c : batch.columns) row.push_back(c.Get(i));
      RETURN_IF_ERROR(Push(std::move(row)));
    }
    return absl::OkStatus();
  }
  absl::Status Push(Row row) override {
    std::string line;
    for (const Datum& d : row) line += d.ToString() + "|";
    lines.push_back(line);
    return absl::OkStatus();
  }
  absl::Status Finish() override { return absl::OkStatus(); }
  std::vector<std::string> lines;
};

// The rows as the batch sort sees them: batches of 1 to 1,024 rows whose
// strings live in a buffer overwritten after each Push.
std::vector<std::string> SortBatches(const std::vector<Row>& rows, std::vector<SortKey> keys,
                                     std::optional<int64_t> limit) {
  QueryContext context;
  Lines out;
  std::unique_ptr<BatchSink> sort = MakeBatchSort(std::move(keys), limit, &context, &out);
  std::mt19937 random(3);
  for (size_t start = 0; start < rows.size();) {
    const size_t n = std::min<size_t>(rows.size() - start, 1 + random() % kBatchRows);
    Batch batch = NewBatch({DataType::kVarchar, DataType::kBigint, DataType::kDouble,
                            DataType::kBigint, DataType::kVarchar},
                           n);
    std::vector<std::string> strings(2 * n);
    for (size_t i = 0; i < n; ++i) {
      const Row& row = rows[start + i];
      for (size_t c = 0; c < row.size(); ++c) {
        if (row[c].type != DataType::kVarchar) {
          batch.columns[c].Set(i, row[c]);
        } else if (!row[c].null) {
          std::string& kept = strings[2 * i + (c == 0 ? 0 : 1)];
          kept = row[c].s;
          batch.columns[c].strings[i] = kept;
          batch.columns[c].nulls[i] = 0;
        }
      }
    }
    EXPECT_TRUE(sort->Push(batch).ok());
    for (std::string& s : strings) s.assign(s.size(), '#');  // the views die with the Push
    start += n;
  }
  EXPECT_TRUE(sort->Finish().ok());
  return out.lines;
}

std::vector<std::string> SortRows(const std::vector<Row>& rows, std::vector<SortKey> keys,
                                  std::optional<int64_t> limit) {
  QueryContext context;
  Lines out;
  std::unique_ptr<RowSink> sort = MakeSort(std::move(keys), limit, &context, &out);
  for (const Row& row : rows) EXPECT_TRUE(sort->Push(row).ok());
  EXPECT_TRUE(sort->Finish().ok());
  return out.lines;
}

TEST(BatchSortTest, SortsAsTheRowSortDoesWithTiesInArrivalOrder) {
  const std::vector<Row> rows = MakeRows();
  const std::vector<std::vector<SortKey>> orders = {
      {{.column = 0}},
      {{.column = 0, .descending = true, .nulls_first = true}},
      {{.column = 1, .descending = true}, {.column = 0, .nulls_first = true}},
      {{.column = 2}, {.column = 1, .nulls_first = true}},
      {{.column = 4, .descending = true}, {.column = 0}},
  };
  for (size_t o = 0; o < orders.size(); ++o) {
    for (std::optional<int64_t> limit :
         {std::optional<int64_t>(), std::optional<int64_t>(0), std::optional<int64_t>(1),
          std::optional<int64_t>(7), std::optional<int64_t>(1500),
          std::optional<int64_t>(kRows + 1),
          std::optional<int64_t>(std::numeric_limits<int64_t>::max())}) {
      SCOPED_TRACE(::testing::Message() << "order " << o << " limit " << limit.value_or(-1));
      const std::vector<std::string> expected = SortRows(rows, orders[o], limit);
      EXPECT_EQ(expected.size(), limit ? std::min<size_t>(*limit, kRows) : kRows);
      EXPECT_EQ(SortBatches(rows, orders[o], limit), expected);
    }
  }
}

TEST(BatchSortTest, TheRowTopNKeepsTiesInArrivalOrder) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 20; ++i) rows.push_back({Datum::Bigint(i % 2), Datum::Bigint(i)});
  std::vector<std::string> top = SortRows(rows, {{.column = 0}}, 6);
  EXPECT_EQ(top, (std::vector<std::string>{"0|0|", "0|2|", "0|4|", "0|6|", "0|8|", "0|10|"}));
}

}  // namespace
}  // namespace strata::query
