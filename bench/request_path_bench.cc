// The write request path on a handler thread, in-process (Google Benchmark):
// a serialized 100-record WriteRecords request of TSBS devops rows (10 tags,
// 10 doubles, as ingest_bench sends) is read (straight from its bytes, or
// parsed on an arena) and each record normalized with its series
// key and partition hash, which is what stratad does per record before the
// committer sees it. No gRPC, no storage: the per-record CPU of that path
// alone, steadier than an end-to-end run on a shared 2-core machine.
// Usage: build/bench/request_path_bench [--benchmark_repetitions=5]
#include <string>

#include "benchmark/benchmark.h"
#include "google/protobuf/arena.h"
#include "server/wire/wire_write_source.h"
#include "server/wire/write_convert.h"
#include "storage/read/table_state.h"
#include "storage/write/record_validation.h"
#include "strata/v1/write.pb.h"

namespace strata {
namespace {

constexpr int kRecords = 100;

std::string TsbsRequest() {
  static const char* kTags[][2] = {
      {"hostname", "host_"},       {"region", "eu-central-1"}, {"datacenter", "eu-central-1b"},
      {"rack", "42"},              {"os", "Ubuntu16.04LTS"},   {"arch", "x64"},
      {"team", "NYC"},             {"service", "11"},          {"service_version", "1"},
      {"service_environment", "production"}};
  static const char* kFields[] = {"usage_user",    "usage_system", "usage_idle",  "usage_nice",
                                  "usage_iowait",  "usage_irq",    "usage_softirq",
                                  "usage_steal",   "usage_guest",  "usage_guest_nice"};
  v1::WriteRecordsRequest request;
  request.set_database_name("benchmark");
  request.set_table_name("cpu");
  for (int i = 0; i < kRecords; ++i) {
    v1::Record* r = request.add_records();
    for (const auto& [name, value] : kTags) {
      v1::Dimension* d = r->add_dimensions();
      d->set_name(name);
      d->set_value(std::string(value) + (std::string(name) == "hostname" ? std::to_string(i) : ""));
    }
    r->set_measure_name("cpu");
    r->set_time(1'700'000'000'000 + i);
    for (int f = 0; f < 10; ++f) {
      v1::MultiMeasureValue* m = r->add_measure_values();
      m->set_name(kFields[f]);
      m->set_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
      m->mutable_value()->set_double_value(12.5 + f + i);
    }
  }
  return request.SerializeAsString();
}

// Normalizes every record of `source`, each with its series key and hash.
void NormalizeAll(benchmark::State& state, WriteSource& source) {
  const PartitionKey partition_key;
  for (int i = 0; i < source.record_count(); ++i) {
    auto normalized = source.Normalize(i, partition_key);
    if (!normalized.ok()) state.SkipWithError("a record was rejected");
    benchmark::DoNotOptimize(SeriesKey(*normalized));
    benchmark::DoNotOptimize(
        PartitionHash(normalized->measure_name, normalized->dimensions, partition_key));
  }
}

// Parses the request with protobuf and normalizes its records from `Source`
// (a WriteSource over the parsed message).
template <typename MakeSource>
void RunRequestPath(benchmark::State& state, MakeSource make_source) {
  const std::string bytes = TsbsRequest();
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* request = google::protobuf::Arena::CreateMessage<v1::WriteRecordsRequest>(&arena);
    if (!request->ParseFromString(bytes)) state.SkipWithError("parse failed");
    make_source(*request, [&](WriteSource& source) { NormalizeAll(state, source); });
  }
  state.SetItemsProcessed(state.iterations() * kRecords);  // items = records
}

// What stratad does: records read straight from the request's bytes.
void BM_RequestPath(benchmark::State& state) {
  const std::string bytes = TsbsRequest();
  for (auto _ : state) {
    WireWriteRequest request;
    if (!request.Decode(bytes)) state.SkipWithError("decode failed");
    WireWriteSource source(request);
    NormalizeAll(state, source);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);  // items = records
}
BENCHMARK(BM_RequestPath);

// The reading alone: the request's fields found in its bytes.
void BM_DecodeRequest(benchmark::State& state) {
  const std::string bytes = TsbsRequest();
  WireWriteRequest request;
  for (auto _ : state) {
    if (!request.Decode(bytes)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(request.records().data());
  }
  state.SetItemsProcessed(state.iterations() * kRecords);  // items = records
}
BENCHMARK(BM_DecodeRequest);

// Normalized from a parsed message, as stratad does when the request uses
// an encoding the wire reader leaves to protobuf (and did until 2026-11-26).
void BM_RequestPathViaMessage(benchmark::State& state) {
  RunRequestPath(state, [](v1::WriteRecordsRequest& request, auto use) {
    ProtoWriteSource source(request);
    use(source);
  });
}
BENCHMARK(BM_RequestPathViaMessage);

// Through an engine WriteRequest (FromProto), as stratad did until 2026-11-26.
void BM_RequestPathViaWriteRequest(benchmark::State& state) {
  RunRequestPath(state, [](v1::WriteRecordsRequest& request, auto use) {
    WriteRequest converted = FromProto(request);
    InputWriteSource source(converted);
    use(source);
  });
}
BENCHMARK(BM_RequestPathViaWriteRequest);

}  // namespace
}  // namespace strata

BENCHMARK_MAIN();
