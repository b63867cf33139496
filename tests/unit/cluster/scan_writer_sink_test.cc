#include "cluster/scan_writer_sink.h"

#include <string>
#include <vector>

#include "cluster/scan_pages.h"
#include "gtest/gtest.h"

namespace strata::cluster {
namespace {

using query::DataType;
using std::chrono::hours;

const std::vector<query::ResultColumn> kColumns = {{"hostname", DataType::kVarchar},
                                                   {"usage", DataType::kDouble}};

// The messages a fragment's stream carried, parsed from its bytes; `fail_from`: the write that
// fails (0: none), as when the asking node went away.
class RecordingStream final : public ScanStream {
 public:
  bool Write(grpc::ByteBuffer answer, bool last_answer) override {
    if (fail_from > 0 && static_cast<int>(sent.size()) + 1 >= fail_from) return false;
    std::vector<grpc::Slice> slices;
    EXPECT_TRUE(answer.Dump(&slices).ok());
    std::string bytes;
    for (const grpc::Slice& slice : slices) {
      bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    EXPECT_TRUE(sent.emplace_back().ParseFromString(bytes));
    last.push_back(last_answer);
    return true;
  }
  std::vector<internal::v1::ScanResponse> sent;
  std::vector<bool> last;
  int fail_from = 0;
};

query::Batch Rows(size_t n, double first) {
  query::Batch batch = query::NewBatch({DataType::kVarchar, DataType::kDouble}, n);
  for (size_t i = 0; i < n; ++i) {
    batch.columns[0].Set(i, query::Datum::Varchar("host_" + std::to_string(i)));
    batch.columns[1].Set(i, query::Datum::Double(first + static_cast<double>(i)));
  }
  return batch;
}

// A message's columns as "name type" each, or of kColumns.
std::vector<std::string> Named(const std::vector<query::ResultColumn>& columns) {
  std::vector<std::string> out;
  for (const query::ResultColumn& c : columns)
    out.push_back(c.name + " " + std::string(query::TypeName(c.type)));
  return out;
}
std::vector<std::string> ColumnsOf(const internal::v1::ScanResponse& message) {
  return Named(DecodeColumns(message));
}

// Rows a message holds, as its decoded batch's row count.
size_t RowsIn(const internal::v1::ScanResponse& message) {
  if (message.rows() == 0) return 0;
  absl::StatusOr<query::Batch> batch =
      DecodeBatch(message, {DataType::kVarchar, DataType::kDouble});
  EXPECT_TRUE(batch.ok()) << batch.status();
  return batch.ok() ? batch->rows : 0;
}

struct Fragment {
  RecordingStream writer;
  query::PageEncoderFactory encoders;
  ScanWriterSink Sink(ScanWriterSink::Options options) {
    return ScanWriterSink(&writer, options, encoders);
  }
};

TEST(ScanWriterSinkTest, ASmallResultIsOneMessageOfColumnsRowsAndStatistics) {
  Fragment f;
  ScanWriterSink sink = f.Sink({.columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  ASSERT_TRUE(sink.Batches(Rows(3, 0)).ok());
  query::QueryStats stats;
  stats.rows_scanned = 42;
  ASSERT_TRUE(sink.Finish(stats).ok());
  ASSERT_EQ(f.writer.sent.size(), 1u);
  EXPECT_EQ(ColumnsOf(f.writer.sent[0]), Named(kColumns));
  EXPECT_EQ(RowsIn(f.writer.sent[0]), 3u);
  EXPECT_EQ(DecodeStats(f.writer.sent[0]).rows_scanned, 42);
  EXPECT_TRUE(f.writer.last[0]);
}

TEST(ScanWriterSinkTest, ColumnsFirstGoAtOnce) {
  Fragment f;
  ScanWriterSink sink = f.Sink({.columns_first = true, .columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  ASSERT_EQ(f.writer.sent.size(), 1u);  // before any row
  EXPECT_EQ(ColumnsOf(f.writer.sent[0]), Named(kColumns));
  EXPECT_EQ(f.writer.sent[0].rows(), 0);
  ASSERT_TRUE(sink.Batches(Rows(2, 0)).ok());
  ASSERT_TRUE(sink.Finish({}).ok());
  ASSERT_EQ(f.writer.sent.size(), 2u);
  EXPECT_EQ(RowsIn(f.writer.sent[1]), 2u);
}

TEST(ScanWriterSinkTest, EachPageIsHeldUntilTheNextAndTheLastCarriesTheStatistics) {
  Fragment f;
  // Pages of about one row: each batch makes several.
  ScanWriterSink sink = f.Sink({.page_bytes = 16, .columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  ASSERT_TRUE(sink.Batches(Rows(3, 0)).ok());
  ASSERT_EQ(f.writer.sent.size(), 2u);                      // the third page is held
  EXPECT_EQ(ColumnsOf(f.writer.sent[0]), Named(kColumns));  // with the first rows
  size_t rows = RowsIn(f.writer.sent[0]) + RowsIn(f.writer.sent[1]);
  ASSERT_TRUE(sink.Finish({}).ok());
  ASSERT_EQ(f.writer.sent.size(), 3u);
  rows += RowsIn(f.writer.sent[2]);
  EXPECT_EQ(rows, 3u);
  EXPECT_TRUE(f.writer.sent[2].has_stats());
  EXPECT_FALSE(f.writer.sent[1].has_stats());
}

TEST(ScanWriterSinkTest, AFailedWriteEndsTheFragment) {
  Fragment f;
  f.writer.fail_from = 1;
  ScanWriterSink sink = f.Sink({.page_bytes = 16, .columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  EXPECT_TRUE(absl::IsCancelled(sink.Batches(Rows(3, 0))));
}

TEST(ScanWriterSinkTest, ACallerThatWentAwayEndsTheFragmentAtItsColumns) {
  Fragment f;
  f.writer.fail_from = 1;
  ScanWriterSink sink = f.Sink({.columns_first = true});
  EXPECT_TRUE(absl::IsCancelled(sink.Columns(kColumns)));
  EXPECT_TRUE(f.writer.sent.empty());
}

// The bytes of an answer and its relayed page are the message's: the page goes as a slice of
// its own (not copied), after the rest; a page of 300 bytes takes a two-byte length.
TEST(ScanAnswerBytesTest, AnAnswerWithARelayedPageParsesAsTheMessage) {
  internal::v1::ScanResponse answer;
  EncodeColumns(kColumns, &answer);
  answer.set_rows(300);
  query::QueryStats stats;
  stats.rows_scanned = 9;
  EncodeStats(stats, &answer);
  for (const std::string& page : {std::string(300, 'p'), std::string("x"), std::string()}) {
    SCOPED_TRACE(page.size());
    grpc::ByteBuffer bytes = ScanAnswerBytes(answer, page);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(bytes.Dump(&slices).ok());
    ASSERT_EQ(slices.size(), page.empty() ? 1u : 2u);
    if (!page.empty()) EXPECT_EQ(slices[1].size(), page.size());
    RecordingStream stream;
    ASSERT_TRUE(stream.Write(std::move(bytes), false));
    internal::v1::ScanResponse expected = answer;
    expected.set_relayed_page(page);
    EXPECT_EQ(stream.sent[0].SerializeAsString(), expected.SerializeAsString());
  }
}

// Makes one page per batch, its bytes the batch's row count as text.
class CountingEncoder final : public query::PageEncoder {
 public:
  absl::Status Add(const query::Batch& batch, const Page& page) override {
    return page(std::to_string(batch.rows), batch.rows);
  }
  absl::Status Flush(const Page& /*page*/) override { return absl::OkStatus(); }
};

// Makes one page of every row it was given, when flushed (a page larger than the rows read).
class FlushedEncoder final : public query::PageEncoder {
 public:
  absl::Status Add(const query::Batch& batch, const Page& /*page*/) override {
    rows_ += batch.rows;
    return absl::OkStatus();
  }
  absl::Status Flush(const Page& page) override { return page(std::to_string(rows_), rows_); }

 private:
  size_t rows_ = 0;
};

// The client asks for `columns` in its own pages.
internal::v1::RelayPages RelayOf(const std::vector<query::ResultColumn>& columns) {
  internal::v1::RelayPages relay;
  for (const query::ResultColumn& c : columns) {
    internal::v1::ScanColumn* column = relay.add_columns();
    column->set_name(c.name);
    column->set_type(static_cast<int32_t>(c.type));
  }
  return relay;
}

template <class Encoder>
query::PageEncoderFactory Making() {
  return [](std::vector<DataType>, std::vector<int>, query::RelayForm) {
    return std::make_unique<Encoder>();
  };
}

// Two batches of relayed rows that make no page until the end. Past the wait (a read whose first
// page is slow to fill: the client's pages are large) the columns go alone, as the second batch
// comes: the asking node holds every fragment's rows, its own too, until each fragment has
// answered. Within it (rows that all come at once, an aggregation's at its end) they go with
// the page, one message.
TEST(ScanWriterSinkTest, ColumnsGoAloneOnlyWhenRowsKeepComingPastTheWait) {
  struct Case {
    std::chrono::steady_clock::duration wait;
    bool columns_alone;
  };
  for (const Case& c : {Case{std::chrono::nanoseconds(0), true}, Case{hours(1), false}}) {
    SCOPED_TRACE(c.columns_alone ? "past the wait" : "within the wait");
    Fragment f;
    f.encoders = Making<FlushedEncoder>();
    internal::v1::RelayPages relay = RelayOf(kColumns);
    ScanWriterSink sink = f.Sink({.relay = &relay, .columns_wait = c.wait});
    ASSERT_TRUE(sink.Columns(kColumns).ok());
    ASSERT_TRUE(sink.Batches(Rows(3, 0)).ok());
    EXPECT_TRUE(f.writer.sent.empty());  // the first rows: the columns wait for more
    ASSERT_TRUE(sink.Batches(Rows(4, 3)).ok());
    ASSERT_EQ(f.writer.sent.size(), c.columns_alone ? 1u : 0u);
    ASSERT_TRUE(sink.Finish({}).ok());
    ASSERT_EQ(f.writer.sent.size(), c.columns_alone ? 2u : 1u);
    EXPECT_EQ(ColumnsOf(f.writer.sent.front()), Named(kColumns));
    EXPECT_EQ(f.writer.sent.front().rows(), c.columns_alone ? 0 : 7);
    EXPECT_EQ(f.writer.sent.back().relayed_page(), "7");
    EXPECT_TRUE(f.writer.sent.back().has_stats());
    EXPECT_TRUE(f.writer.last.back());
  }
}

TEST(ScanWriterSinkTest, TheClientsPagesGoAsTheyAreTheFirstWithTheColumns) {
  Fragment f;
  std::vector<int> picked;
  f.encoders = [&picked](std::vector<DataType>, std::vector<int> columns, query::RelayForm) {
    picked = columns;
    return std::make_unique<CountingEncoder>();
  };
  internal::v1::RelayPages relay = RelayOf({kColumns[1]});  // the client asked for usage only
  ScanWriterSink sink = f.Sink({.relay = &relay, .columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  EXPECT_EQ(picked, std::vector<int>{1});
  ASSERT_TRUE(sink.Batches(Rows(3, 0)).ok());
  ASSERT_TRUE(sink.Batches(Rows(5, 0)).ok());
  ASSERT_TRUE(sink.Finish({}).ok());
  ASSERT_EQ(f.writer.sent.size(), 2u);
  EXPECT_EQ(ColumnsOf(f.writer.sent[0]), Named(kColumns));
  EXPECT_EQ(f.writer.sent[0].relayed_page(), "3");
  EXPECT_EQ(f.writer.sent[1].relayed_page(), "5");
  EXPECT_EQ(f.writer.sent[1].rows(), 5);
  EXPECT_TRUE(f.writer.sent[1].has_stats());
}

TEST(ScanWriterSinkTest, AColumnTheClientAskedForThatIsNotHereSendsRowsAsTheyAre) {
  Fragment f;
  bool made = false;
  f.encoders = [&made](std::vector<DataType>, std::vector<int>, query::RelayForm) {
    made = true;
    return std::make_unique<CountingEncoder>();
  };
  internal::v1::RelayPages relay = RelayOf({{"region", DataType::kVarchar}});
  ScanWriterSink sink = f.Sink({.relay = &relay, .columns_wait = hours(1)});
  ASSERT_TRUE(sink.Columns(kColumns).ok());
  EXPECT_FALSE(made);
  ASSERT_TRUE(sink.Batches(Rows(2, 0)).ok());
  ASSERT_TRUE(sink.Finish({}).ok());
  ASSERT_EQ(f.writer.sent.size(), 1u);
  EXPECT_TRUE(f.writer.sent[0].relayed_page().empty());
  EXPECT_EQ(RowsIn(f.writer.sent[0]), 2u);
}

}  // namespace
}  // namespace strata::cluster
