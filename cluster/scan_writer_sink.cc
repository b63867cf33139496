#include "cluster/scan_writer_sink.h"

#include <algorithm>
#include <utility>

#include "cluster/scan_pages.h"
#include "common/status.h"
#include "google/protobuf/io/coded_stream.h"

namespace strata::cluster {

grpc::ByteBuffer ScanAnswerBytes(const internal::v1::ScanResponse& answer,
                                 std::string relayed_page) {
  using google::protobuf::io::CodedOutputStream;
  const size_t size = answer.ByteSizeLong();
  // relayed_page's key: field 4, length-delimited. A message's fields may come in any order,
  // and a field after the others is the same message.
  constexpr uint8_t kRelayedPageKey =
      (internal::v1::ScanResponse::kRelayedPageFieldNumber << 3) | 2;
  const auto page_size = static_cast<uint32_t>(relayed_page.size());
  const size_t frame = relayed_page.empty() ? 0 : 1 + CodedOutputStream::VarintSize32(page_size);
  grpc::Slice head(size + frame);  // not zeroed: every byte is written below
  auto* out = const_cast<uint8_t*>(head.begin());
  out = answer.SerializeWithCachedSizesToArray(out);
  if (relayed_page.empty()) return grpc::ByteBuffer(&head, 1);
  *out++ = kRelayedPageKey;
  CodedOutputStream::WriteVarint32ToArray(page_size, out);
  auto* owned = new std::string(std::move(relayed_page));
  grpc::Slice page(
      owned->data(), owned->size(), [](void* p) { delete static_cast<std::string*>(p); }, owned);
  grpc::Slice slices[] = {std::move(head), std::move(page)};
  return grpc::ByteBuffer(slices, 2);
}

ScanWriterSink::ScanWriterSink(ScanStream* stream, Options options,
                               const query::PageEncoderFactory& encoders)
    : stream_(*stream), options_(options), encoders_(encoders) {}

absl::Status ScanWriterSink::Columns(const std::vector<query::ResultColumn>& columns) {
  EncodeColumns(columns, &held_);
  for (const query::ResultColumn& c : columns) types_.push_back(c.type);
  if (const internal::v1::RelayPages* relay = options_.relay; relay != nullptr && encoders_) {
    if (std::optional<std::vector<int>> picks = ClientColumns(columns)) {
      encoder_ =
          encoders_(types_, *std::move(picks),
                    {.page_size = std::max(1, relay->page_size()),
                     .page_bytes = std::min<int64_t>(std::max<int64_t>(1, relay->page_bytes()),
                                                     static_cast<int64_t>(options_.page_bytes)),
                     .row_pages = relay->row_pages()});
    }
  }
  has_held_ = true;
  columns_only_ = !options_.columns_first;
  return options_.columns_first ? SendHeld() : absl::OkStatus();
}

absl::Status ScanWriterSink::Batches(const query::Batch& batch) {
  if (columns_only_ && batch.rows > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (!first_rows_at_) {
      first_rows_at_ = now;
    } else if (now - *first_rows_at_ >= options_.columns_wait) {
      RETURN_IF_ERROR(SendHeld());  // rows go on coming: the asking node hears the columns now
    }
  }
  if (encoder_ != nullptr) return encoder_->Add(batch, HoldRelayed());
  return EncodePages(batch, types_, options_.page_bytes,
                     [this](const internal::v1::ScanResponse& page) { return Hold(page); });
}

absl::Status ScanWriterSink::Rows(std::vector<query::Row> rows) {
  return Batches(RowsAsBatch(types_, rows));
}

absl::Status ScanWriterSink::Finish(const query::QueryStats& stats) {
  if (encoder_ != nullptr) RETURN_IF_ERROR(encoder_->Flush(HoldRelayed()));
  EncodeStats(stats, &held_);
  if (!stream_.Write(ScanAnswerBytes(held_, std::move(held_page_)), /*last=*/true)) {
    return absl::CancelledError("the node that asked for the fragment went away");
  }
  return absl::OkStatus();
}

std::optional<std::vector<int>> ScanWriterSink::ClientColumns(
    const std::vector<query::ResultColumn>& columns) {
  std::vector<int> picks;
  for (const internal::v1::ScanColumn& wanted : options_.relay->columns()) {
    auto found = std::find_if(columns.begin(), columns.end(), [&](const query::ResultColumn& c) {
      return c.name == wanted.name() && static_cast<int32_t>(c.type) == wanted.type();
    });
    if (found == columns.end()) return std::nullopt;
    picks.push_back(static_cast<int>(found - columns.begin()));
  }
  return picks;
}

query::PageEncoder::Page ScanWriterSink::HoldRelayed() {
  return [this](std::string bytes, size_t rows) {
    if (columns_only_) {  // the first rows join the columns' answer
      columns_only_ = false;
      held_.set_rows(static_cast<int32_t>(rows));
      held_page_ = std::move(bytes);
      return absl::OkStatus();
    }
    internal::v1::ScanResponse page;
    page.set_rows(static_cast<int32_t>(rows));
    RETURN_IF_ERROR(Hold(std::move(page)));
    held_page_ = std::move(bytes);
    return absl::OkStatus();
  };
}

absl::Status ScanWriterSink::Hold(internal::v1::ScanResponse page) {
  if (columns_only_ && page.columns_size() == held_.columns_size()) {
    // The first rows join the columns' answer.
    columns_only_ = false;
    internal::v1::ScanResponse first = std::move(page);
    for (int c = 0; c < first.columns_size(); ++c) {
      first.mutable_columns(c)->set_name(held_.columns(c).name());
      first.mutable_columns(c)->set_type(held_.columns(c).type());
    }
    held_ = std::move(first);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(SendHeld());
  held_ = std::move(page);
  has_held_ = true;
  return absl::OkStatus();
}

absl::Status ScanWriterSink::SendHeld() {
  if (!has_held_) return absl::OkStatus();
  if (!stream_.Write(ScanAnswerBytes(held_, std::move(held_page_)), /*last=*/false)) {
    return absl::CancelledError("the node that asked for the fragment went away");
  }
  held_.Clear();
  held_page_.clear();
  has_held_ = false;
  columns_only_ = false;
  return absl::OkStatus();
}

}  // namespace strata::cluster
