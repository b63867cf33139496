// A fragment's result onto its Scan stream (the node serving another node's fragment,
// cluster/shard_service.cc): the engine's columns, batches and statistics as ScanResponse
// messages, grouped so that a small result costs the asking node one message and one wake-up.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/support/byte_buffer.h"
#include "query/base/relayed_pages.h"
#include "query/base/result.h"
#include "strata/internal/v1/shard.pb.h"

namespace strata::cluster {

// How long a fragment's columns wait for its first page once rows began to come. The asking
// node pushes none of the query's rows on until every fragment has answered (a fragment whose
// columns changed has the query planned again), so its own fragment waits too: on a cluster
// of throttled nodes the first of the client's pages (1 MiB, relayed) took 15 ms to fill,
// all of it the asking node's own scan standing still (session 75). Counted from the first
// rows, not the columns: an aggregation's rows all come at its end, at once, and go with
// the columns as one message.
inline constexpr std::chrono::milliseconds kColumnsWaitForRows{2};

// Where a fragment's answers go (a call on a node, rpc/streaming_call.h; a recorder in tests).
class ScanStream {
 public:
  virtual ~ScanStream() = default;
  // Sends one answer, the serialized ScanResponse (ScanAnswerBytes); `last` ends the stream.
  // False once the asking node went away or cancelled its call: the fragment is to stop.
  virtual bool Write(grpc::ByteBuffer answer, bool last) = 0;
};

// `answer` with `relayed_page` as its relayed_page, as one message's bytes: the page (up to a
// megabyte) is not copied into a message and again into gRPC's buffer, but framed and handed
// on as it is (a fragment's node spent 2 % of its CPU on those copies, session 74).
grpc::ByteBuffer ScanAnswerBytes(const internal::v1::ScanResponse& answer,
                                 std::string relayed_page);

// Each answer is held until the next is ready: the first answer carries the columns, with the
// first page (unless rows go on coming `columns_wait` after the first before a page is made:
// then the columns go alone); the last the statistics, with the last rows. With `columns_first` (a
// hedged read, which times the first answer) the columns go at once. `call_cancelled` says
// the asking node went away; a write that fails marks `*cancelled`, which the fragment's
// scan watches. With `relay` (ScanRequest.relay) and an answer of the client's columns, the
// rows go as the client's pages, made by `encoders`. A page stays under `page_bytes`: a gRPC
// server refuses to send a message over its limit.
class ScanWriterSink final : public query::ResultSink {
 public:
  struct Options {
    bool columns_first = false;
    size_t page_bytes = 4 << 20;
    const internal::v1::RelayPages* relay = nullptr;
    std::chrono::steady_clock::duration columns_wait = kColumnsWaitForRows;
  };
  // `stream` must outlive the sink.
  ScanWriterSink(ScanStream* stream, Options options, const query::PageEncoderFactory& encoders);

  absl::Status Columns(const std::vector<query::ResultColumn>& columns) override;
  bool TakesBatches() const override { return true; }
  absl::Status Batches(const query::Batch& batch) override;
  absl::Status Rows(std::vector<query::Row> rows) override;
  // The last answer: what the fragment's scans read, with the rows held.
  absl::Status Finish(const query::QueryStats& stats);

 private:
  // Where each of the client's columns (the relay's) is among `columns`, or nullopt when one
  // is not there (by name and type): then the rows go as they always do.
  std::optional<std::vector<int>> ClientColumns(const std::vector<query::ResultColumn>& columns);
  // A client's page made here, held as the others.
  query::PageEncoder::Page HoldRelayed();
  absl::Status Hold(internal::v1::ScanResponse page);
  absl::Status SendHeld();

  ScanStream& stream_;
  const Options options_;
  const query::PageEncoderFactory& encoders_;
  std::unique_ptr<query::PageEncoder> encoder_;  // set when the rows go as the client's pages
  std::vector<query::DataType> types_;
  internal::v1::ScanResponse held_;
  std::string held_page_;  // held_'s relayed_page, kept out of the message (ScanAnswerBytes)
  bool has_held_ = false;
  bool columns_only_ = false;  // held_ is the columns' answer, without rows yet
  // When the first rows came while the columns were held for them.
  std::optional<std::chrono::steady_clock::time_point> first_rows_at_;
};

}  // namespace strata::cluster
