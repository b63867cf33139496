#include "server/http/prometheus_write.h"

#include <snappy.h>

#include <cmath>
#include <deque>
#include <future>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "prometheus/remote.pb.h"
#include "server/http/remote_write_size.h"
#include "server/http/remote_write_source.h"

namespace strata {
namespace {

// Larger bodies are refused before decompressing. Prometheus sends well under
// 1 MB (2,000 samples by default, max_samples_per_send). Parsed, a body takes
// up to ~40 times its bytes (an empty series is 2 bytes on the wire and a
// TimeSeries object in memory): 256 MB allowed ~10 GB for one request.
constexpr size_t kMaxUncompressedBytes = 32 << 20;
// And a body whose parse would hold more is refused before it is parsed
// (server/http/remote_write_size.h): 2,000 series of 20 labels take ~5 MB, a
// hostile 32 MB body of empty series ~1.3 GB.
constexpr size_t kMaxParsedBytes = 256 << 20;

std::string DescribeSeries(const prometheus::TimeSeries& series) {
  std::string out = "{";
  for (const prometheus::Label& label : series.labels()) {
    if (out.size() > 1) out += ",";
    out += StrCat(label.name(), "=\"", label.value(), "\"");
  }
  return out + "}";
}

}  // namespace

absl::StatusOr<RemoteWriteSummary> WriteRemoteSamples(Ingest& ingest,
                                                      const Principal& caller,
                                                      const RemoteWriteOptions& options,
                                                      std::string_view compressed_body) {
  size_t length = 0;
  if (!snappy::GetUncompressedLength(compressed_body.data(), compressed_body.size(), &length)) {
    return absl::InvalidArgumentError(
        "the body is not snappy-compressed (remote write sends Content-Encoding: snappy)");
  }
  if (length > kMaxUncompressedBytes) {
    return absl::InvalidArgumentError(StrCat("the body uncompresses to ", length,
                                             " bytes; the limit is ", kMaxUncompressedBytes,
                                             " (lower queue_config.max_samples_per_send)"));
  }
  std::string body;
  if (!snappy::Uncompress(compressed_body.data(), compressed_body.size(), &body)) {
    return absl::InvalidArgumentError(
        "the body is not snappy-compressed (remote write sends Content-Encoding: snappy)");
  }
  const std::optional<size_t> parsed_bytes = ParsedWriteRequestBytes(body);
  if (!parsed_bytes) {
    return absl::InvalidArgumentError("the body is not a prometheus.WriteRequest protobuf");
  }
  if (*parsed_bytes > kMaxParsedBytes) {
    return absl::InvalidArgumentError(StrCat(
        "the request would take ", *parsed_bytes >> 20, " MB of memory parsed; the limit is ",
        kMaxParsedBytes >> 20, " MB (send fewer series per request: lower "
        "queue_config.max_samples_per_send)"));
  }
  prometheus::WriteRequest request;
  if (!request.ParseFromString(body)) {
    return absl::InvalidArgumentError("the body is not a prometheus.WriteRequest protobuf");
  }
  RETURN_IF_ERROR(
      ingest.PrepareTable(caller, options.database, options.table, options.auto_create_tables));

  RemoteWriteSummary summary;
  const int64_t version = ingest.NowNanos();
  // A batch of up to kRecordsPerBodyWrite samples of any series, the series of each, and the
  // labels of those series, which its records point at (a batch's own, so
  // that a request of a million series holds only the labels in flight).
  struct Batch {
    Batch() { labels.reserve(kRecordsPerBodyWrite); }  // never moved while pointed at
    std::vector<SampleRecord> records;
    std::vector<int> series;
    std::vector<SeriesLabels> labels;
    std::future<absl::StatusOr<WriteResult>> result;
  };
  std::deque<Batch> in_flight;  // oldest first
  absl::Status failed;          // the first write that failed as a whole
  Batch batch;
  auto collect = [&] {
    Batch& oldest = in_flight.front();
    absl::StatusOr<WriteResult> result = oldest.result.get();
    if (!result.ok()) {
      if (failed.ok()) failed = result.status();
    } else {
      summary.written += result->total();
      summary.rejected += static_cast<int64_t>(result->rejected.size());
      for (const RejectedRecord& rejected : result->rejected) {
        if (summary.errors.size() >= kMaxReportedErrors) break;
        const int i = rejected.record_index;
        summary.errors.push_back(StrCat("series ",
                                        DescribeSeries(request.timeseries(oldest.series[i])),
                                        " at ", oldest.records[i].time_ms, " ms: ",
                                        rejected.reason));
      }
    }
    in_flight.pop_front();
  };
  // Up to kWritesInFlight batches at once share the writer's group commits.
  auto flush = [&] {
    if (batch.records.empty()) return;
    if (in_flight.size() >= kWritesInFlight) collect();
    RemoteWriteSource source(options.database, options.table, batch.records);
    batch.result = ingest.WriteInBackground(caller, source);
    in_flight.push_back(std::move(batch));
    batch = Batch{};
  };
  for (int s = 0; s < request.timeseries_size() && failed.ok(); ++s) {
    const prometheus::TimeSeries& series = request.timeseries(s);
    SeriesLabels series_labels;
    bool named = false;
    for (const prometheus::Label& label : series.labels()) {
      if (label.name() == "__name__") {
        series_labels.name = label.value();
        named = true;
      } else if (!label.value().empty()) {
        series_labels.dimensions.emplace_back(label.name(), label.value());
      }
    }
    summary.samples += series.samples_size();
    if (!named) {
      summary.rejected += series.samples_size();
      if (summary.errors.size() < kMaxReportedErrors) {
        summary.errors.push_back(StrCat("series ", DescribeSeries(series), " has no __name__"));
      }
      continue;
    }
    for (const prometheus::Sample& sample : series.samples()) {
      if (!std::isfinite(sample.value())) {
        ++summary.dropped_non_finite;
        continue;
      }
      if (batch.series.empty() || batch.series.back() != s) batch.labels.push_back(series_labels);
      batch.records.push_back({.series = &batch.labels.back(), .value = sample.value(),
                               .time_ms = sample.timestamp(), .version = version});
      batch.series.push_back(s);
      if (batch.records.size() == kRecordsPerBodyWrite) flush();
    }
  }
  if (failed.ok()) flush();
  while (!in_flight.empty()) collect();
  RETURN_IF_ERROR(failed);
  return summary;
}

}  // namespace strata
