// The committer's encoding of memory-store rows, in-process (Google
// Benchmark): a TSBS devops row (10 doubles) encoded compact, and 100 such
// rows of one bucket written into a head_log entry, as a write group does
// per request. Steadier than an end-to-end run for a change to the encoders.
// Usage: build/bench/row_encoding_bench [--benchmark_repetitions=5]
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "storage/head/head_log.h"
#include "storage/rows/row_codec.h"

namespace strata {
namespace {

constexpr int kRows = 100;

StoredRow TsbsRow(int i) {
  static const char* kFields[] = {"usage_user",    "usage_system", "usage_idle",  "usage_nice",
                                  "usage_iowait",  "usage_irq",    "usage_softirq",
                                  "usage_steal",   "usage_guest",  "usage_guest_nice"};
  StoredRow row{.version = 1};
  for (int f = 0; f < 10; ++f) row.measures.push_back({kFields[f], Value::Double(12.5 + f + i)});
  return row;
}

void BM_EncodeCompactRows(benchmark::State& state) {
  std::vector<StoredRow> rows;
  for (int i = 0; i < kRows; ++i) rows.push_back(TsbsRow(i));
  std::string out;
  for (auto _ : state) {
    out.clear();
    for (const StoredRow& row : rows) EncodeCompactRow(row, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);  // items = rows
}
BENCHMARK(BM_EncodeCompactRows);

void BM_HeadLogEntry(benchmark::State& state) {
  std::string signature;
  EncodeRowSignature(TsbsRow(0).measures, &signature);
  std::vector<std::string> compact(kRows);
  for (int i = 0; i < kRows; ++i) EncodeCompactRow(TsbsRow(i), &compact[i]);
  for (auto _ : state) {
    head_log::EntryBuilder entry;
    for (int i = 0; i < kRows; ++i) {
      const keys::PointKey key{.table_id = 1, .bucket = 7, .pk_hash = 99,
                               .series = static_cast<uint64_t>(i), .time_nanos = 1'000 + i};
      entry.PutCompact(key, signature, compact[i]);
    }
    benchmark::DoNotOptimize(entry.bytes().data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);  // items = rows
}
BENCHMARK(BM_HeadLogEntry);

}  // namespace
}  // namespace strata

BENCHMARK_MAIN();
