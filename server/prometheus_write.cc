#include "server/prometheus_write.h"

#include <snappy.h>

#include <cmath>

#include "common/status.h"
#include "common/strings.h"
#include "prometheus/remote.pb.h"
#include "server/ingest_target.h"

namespace strata {
namespace {

// Larger bodies are refused before decompressing (Prometheus sends a few MB).
constexpr size_t kMaxUncompressedBytes = 256 << 20;
constexpr size_t kMaxReportedErrors = 10;

std::string DescribeSeries(const prometheus::TimeSeries& series) {
  std::string out = "{";
  for (const prometheus::Label& label : series.labels()) {
    if (out.size() > 1) out += ",";
    out += StrCat(label.name(), "=\"", label.value(), "\"");
  }
  return out + "}";
}

}  // namespace

absl::StatusOr<RemoteWriteSummary> WriteRemoteSamples(Engine& engine, ServerMetrics& metrics,
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
  prometheus::WriteRequest request;
  if (!request.ParseFromString(body)) {
    return absl::InvalidArgumentError("the body is not a prometheus.WriteRequest protobuf");
  }
  RETURN_IF_ERROR(
      PrepareIngestTable(engine, caller, options.database, options.table, options.auto_create_tables));

  RemoteWriteSummary summary;
  const int64_t version = engine.clock().NowNanos();
  WriteRequest write{.database_name = options.database, .table_name = options.table};
  for (const prometheus::TimeSeries& series : request.timeseries()) {
    InputRecord& common = write.common_attributes;
    common = InputRecord{};
    for (const prometheus::Label& label : series.labels()) {
      if (label.name() == "__name__") {
        common.measure_name = label.value();
      } else if (!label.value().empty()) {
        common.dimensions.push_back({label.name(), label.value()});
      }
    }
    summary.samples += series.samples_size();
    if (!common.measure_name.has_value()) {
      summary.rejected += series.samples_size();
      if (summary.errors.size() < kMaxReportedErrors) {
        summary.errors.push_back(StrCat("series ", DescribeSeries(series), " has no __name__"));
      }
      continue;
    }
    common.measure_value_type = MeasureKind::kDouble;
    common.time_unit = TimeUnit::kMilliseconds;
    common.version = version;
    write.records.clear();
    auto flush = [&]() -> absl::Status {
      if (write.records.empty()) return absl::OkStatus();
      // A copy: the rejected records' times are reported below.
      ASSIGN_OR_RETURN(WriteResult result, engine.Write(write));
      metrics.CountWrite(result);
      summary.written += result.total();
      summary.rejected += static_cast<int64_t>(result.rejected.size());
      for (const RejectedRecord& rejected : result.rejected) {
        if (summary.errors.size() >= kMaxReportedErrors) break;
        summary.errors.push_back(StrCat("series ", DescribeSeries(series), " at ",
                                        *write.records[rejected.record_index].time, " ms: ",
                                        rejected.reason));
      }
      write.records.clear();
      return absl::OkStatus();
    };
    for (const prometheus::Sample& sample : series.samples()) {
      if (!std::isfinite(sample.value())) {
        ++summary.dropped_non_finite;
        continue;
      }
      InputRecord& record = write.records.emplace_back();
      record.time = sample.timestamp();
      record.measure_value = Value::Double(sample.value());
      if (write.records.size() == static_cast<size_t>(kMaxRecordsPerWrite)) RETURN_IF_ERROR(flush());
    }
    RETURN_IF_ERROR(flush());
  }
  return summary;
}

}  // namespace strata
