#include "storage/row_codec.h"

#include <limits>

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(RowCodecTest, RoundTripsEveryType) {
  StoredRow row{.version = 1234567,
                .measures = {{"d", Value::Double(-0.25)},
                             {"b", Value::Bigint(std::numeric_limits<int64_t>::min())},
                             {"v", Value::Varchar("text")},
                             {"t", Value::Boolean(true)},
                             {"f", Value::Boolean(false)},
                             {"ts", Value::Timestamp(1'700'000'000'000'000'000)}}};
  std::string bytes;
  EncodeRow(row, &bytes);
  auto decoded = DecodeRow(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->version, row.version);
  EXPECT_EQ(decoded->measures, row.measures);
}

TEST(RowCodecTest, EveryTruncationOrTrailingGarbageIsCorruption) {
  StoredRow row{.version = 3, .measures = {{"a", Value::Varchar("xyz")}, {"b", Value::Double(1)}}};
  std::string bytes;
  EncodeRow(row, &bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_EQ(DecodeRow(bytes.substr(0, cut)).status().code(), absl::StatusCode::kDataLoss) << cut;
  }
  EXPECT_EQ(DecodeRow(bytes + "x").status().code(), absl::StatusCode::kDataLoss);
  std::string bad_type = bytes;
  bad_type[4] = 9;  // the type byte of the first measure
  EXPECT_FALSE(DecodeRow(bad_type).ok());
}

}  // namespace
}  // namespace strata
