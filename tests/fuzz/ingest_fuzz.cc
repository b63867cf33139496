// Fuzz target: arbitrary bytes as the body of the HTTP ingest endpoints, into
// a real data directory through what the server does with one. The first
// byte picks the door: even, InfluxDB line protocol (fed to the writer in
// chunks cut where the second byte says, as a streamed body arrives); odd,
// Prometheus remote write (the rest snappy-compressed, as Prometheus sends
// it). Every line must be written or rejected, never a crash.
#include <snappy.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "prometheus/remote.pb.h"
#include "server/http/influx_write.h"
#include "server/http/prometheus_write.h"
#include "server/http/remote_write_size.h"
#include "storage/engine.h"
#include "tests/fuzz/engine_fixture.h"

namespace {

using namespace strata;

struct Fixture : fuzz::EngineFixture {
  Fixture()
      : EngineFixture("ingest"),
        metrics(std::make_unique<ServerMetrics>(engine.get())),
        ingest(std::make_unique<Ingest>(engine.get(), metrics.get())) {}
  std::unique_ptr<ServerMetrics> metrics;
  std::unique_ptr<Ingest> ingest;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  if (size < 2) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  if (data[0] % 2 == 0) {
    LineProtocolWriter writer(*fixture.ingest, Principal::Unrestricted(),
                              {.database = "mydb", .nanos_per_unit = data[0] % 4 == 0 ? 1 : 1'000'000'000});
    const size_t cut = body.empty() ? 0 : data[1] % (body.size() + 1);
    writer.Feed(body.substr(0, cut));
    writer.Feed(body.substr(cut));
    LineWriteSummary summary = writer.Finish();
    if (summary.fatal.ok() && summary.points_written > summary.lines) {
      Fixture::Fail("more points written than lines read");
    }
  } else {
    // The size a parse would hold, found before parsing: never below what
    // protobuf's parse holds, and none only for bytes protobuf refuses (or
    // that hold groups, which the walk refuses). (Bytes protobuf refuses
    // for a string that is not UTF-8 get a size: the parse after refuses them.)
    prometheus::WriteRequest parsed;
    const bool parses = parsed.ParseFromArray(body.data(), static_cast<int>(body.size()));
    const std::optional<size_t> estimate = ParsedWriteRequestBytes(body);
    if (parses && estimate && *estimate < parsed.SpaceUsedLong()) {
      Fixture::Fail("a parse holds more than its estimated size");
    }
    auto unknown = [](const google::protobuf::Message& m) {
      return !m.GetReflection()->GetUnknownFields(m).empty();
    };
    auto any_unknown = [&] {
      if (unknown(parsed)) return true;
      for (const prometheus::TimeSeries& series : parsed.timeseries()) {
        if (unknown(series)) return true;
        for (const prometheus::Label& label : series.labels()) {
          if (unknown(label)) return true;
        }
        for (const prometheus::Sample& sample : series.samples()) {
          if (unknown(sample)) return true;
        }
      }
      return false;
    };
    if (!estimate && parses && !any_unknown()) {
      Fixture::Fail("no size for a request protobuf parses");
    }
    std::string compressed;
    snappy::Compress(body.data(), body.size(), &compressed);
    auto summary = WriteRemoteSamples(*fixture.ingest, Principal::Unrestricted(),
                                      {.database = "mydb", .table = "metrics"}, compressed);
    if (summary.ok() && summary->written + summary->rejected + summary->dropped_non_finite >
                            summary->samples) {
      Fixture::Fail("more samples accounted for than sent");
    }
    // And the raw bytes, which are rarely snappy: refused, never a crash.
    (void)WriteRemoteSamples(*fixture.ingest, Principal::Unrestricted(),
                             {.database = "mydb", .table = "metrics"}, body);
  }
  return 0;
}
