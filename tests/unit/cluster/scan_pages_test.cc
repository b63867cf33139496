#include "cluster/scan_pages.h"

#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

using query::DataType;

const std::vector<DataType> kTypes = {DataType::kVarchar, DataType::kTimestamp, DataType::kDouble,
                                      DataType::kBoolean, DataType::kBigint};

query::Batch SampleBatch() {
  query::Batch batch = query::NewBatch(kTypes, 3);
  batch.columns[0].Set(0, query::Datum::Varchar("web-1"));
  batch.columns[0].Set(2, query::Datum::Varchar(""));
  batch.columns[1].Set(1, query::Datum::Timestamp(1700000000000000000));
  batch.columns[2].Set(0, query::Datum::Double(-0.5));
  batch.columns[3].Set(2, query::Datum::Bool(true));
  batch.columns[4] = query::Vector(DataType::kBigint);  // not read: size 0, sent as NULL
  return batch;
}

std::string Text(const query::Batch& batch) {
  std::string out;
  for (size_t r = 0; r < batch.rows; ++r) {
    for (const query::Vector& v : batch.columns) out += v.Get(r).ToString() + "|";
    out += "\n";
  }
  return out;
}

TEST(ScanPagesTest, ABatchComesBackAsItWasSent) {
  internal::v1::ScanResponse page;
  ASSERT_TRUE(EncodeBatch(SampleBatch(), kTypes, &page).ok());
  absl::StatusOr<query::Batch> back = DecodeBatch(page, kTypes);
  ASSERT_TRUE(back.ok()) << back.status();
  query::Batch expected = SampleBatch();
  expected.columns[4].ResetNull(3);
  EXPECT_EQ(Text(*back), Text(expected));
  EXPECT_EQ(back->columns[0].strings[2], "");
  EXPECT_FALSE(back->columns[0].null(2));

  internal::v1::ScanResponse first;
  EncodeColumns({{"host", DataType::kVarchar}, {"time", DataType::kTimestamp}}, &first);
  const std::vector<query::ResultColumn> columns = DecodeColumns(first);
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[1].name, "time");
  EXPECT_EQ(columns[1].type, DataType::kTimestamp);
}

TEST(ScanPagesTest, ALargeBatchGoesInPagesUnderTheLimitInOrder) {
  query::Batch batch = query::NewBatch({DataType::kVarchar, DataType::kBigint}, 100);
  for (int r = 0; r < 100; ++r) {
    batch.columns[0].SetOwnedString(r, std::string(1000, static_cast<char>('a' + r % 26)));
    batch.columns[1].Set(r, query::Datum::Bigint(r));
  }
  const std::vector<DataType> types = {DataType::kVarchar, DataType::kBigint};
  std::vector<int64_t> seen;
  int pages = 0;
  ASSERT_TRUE(EncodePages(batch, types, 10'000, [&](const internal::v1::ScanResponse& page) {
                ++pages;
                EXPECT_LE(page.ByteSizeLong(), 10'000u);
                absl::StatusOr<query::Batch> back = DecodeBatch(page, types);
                EXPECT_TRUE(back.ok());
                for (size_t r = 0; back.ok() && r < back->rows; ++r) {
                  seen.push_back(back->columns[1].ints[r]);
                  EXPECT_EQ(back->columns[0].strings[r].size(), 1000u);
                }
                return absl::OkStatus();
              }).ok());
  EXPECT_GE(pages, 10);
  ASSERT_EQ(seen.size(), 100u);
  for (int r = 0; r < 100; ++r) EXPECT_EQ(seen[r], r);
  // Under the limit: one page.
  pages = 0;
  ASSERT_TRUE(EncodePages(batch, types, 1 << 20, [&](const internal::v1::ScanResponse&) {
                ++pages;
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(pages, 1);
}

TEST(ScanPagesTest, AMalformedPageIsRefused) {
  internal::v1::ScanResponse good;
  ASSERT_TRUE(EncodeBatch(SampleBatch(), kTypes, &good).ok());
  struct Case {
    const char* what;
    std::function<void(internal::v1::ScanResponse*)> spoil;
  };
  const Case cases[] = {
      {"a column fewer", [](auto* p) { p->mutable_columns()->RemoveLast(); }},
      {"nulls of another length", [](auto* p) { p->mutable_columns(0)->set_nulls("\1"); }},
      {"a string past the data", [](auto* p) { p->mutable_columns(0)->set_string_ends(2, 1000); }},
      {"strings ending before they begin",
       [](auto* p) { p->mutable_columns(0)->set_string_ends(1, 0); }},
      {"doubles missing", [](auto* p) { p->mutable_columns(2)->mutable_doubles()->RemoveLast(); }},
      {"integers missing", [](auto* p) { p->mutable_columns(1)->mutable_ints()->RemoveLast(); }},
      {"a negative row count", [](auto* p) { p->set_rows(-1); }},
  };
  for (const Case& c : cases) {
    internal::v1::ScanResponse page = good;
    c.spoil(&page);
    EXPECT_FALSE(DecodeBatch(page, kTypes).ok()) << c.what;
  }
  // A composite column is neither sent nor read.
  EXPECT_FALSE(DecodeBatch(good, {DataType::kVarchar, DataType::kTimestamp, DataType::kDouble,
                                  DataType::kBoolean, *query::ArrayOf(DataType::kDouble)})
                   .ok());
  internal::v1::ScanResponse composite;
  EXPECT_FALSE(EncodeBatch(query::NewBatch({*query::ArrayOf(DataType::kDouble)}, 1),
                           {*query::ArrayOf(DataType::kDouble)}, &composite)
                   .ok());
}

}  // namespace
}  // namespace strata::cluster
