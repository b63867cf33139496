// The block codecs on their own: for each column kind of the TSBS data and
// of the seed workloads (../shared/reference/seed-workloads.md), a block of
// one column and 360 points (an hour at 10 s) encoded and decoded many times:
// its bytes per point (the whole block: header, times, versions and the
// column) and encode and decode speed in millions of values a second. Then the
// integer sequences alone (DecodeInts, which every column's numbers go through):
// uniform values over a span, the form the encoder chose, and the fastest of
// seven decode passes in ns a value (the fastest, as other work on the machine
// only ever adds time).
// Usage: codec_bench [--blocks N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "storage/blocks/block.h"
#include "storage/blocks/block_format.h"
#include "storage/blocks/int_codec.h"

namespace {

using strata::ValueType;
using strata::format::ColumnToEncode;
using strata::format::ColumnValues;
using Steady = std::chrono::steady_clock;

constexpr int kPoints = 360;
constexpr int64_t kStart = 1'700'006'400'000'000'000;
constexpr int64_t kInterval = 10'000'000'000;

struct Kind {
  const char* name;
  // Fills one block's values; called once per block with its own generator.
  std::function<void(std::mt19937_64&, ColumnValues*)> fill;
};

double Walk(double value, double step, double low, double high) {
  return std::clamp(value + step, low, high);
}

std::vector<Kind> Kinds() {
  static const char* const kQualities[] = {"Excellent", "Good", "Fair"};
  return {
      {"TSBS cpu, two decimals, steps uniform in ±1.73 (DOUBLE)",
       [](std::mt19937_64& random, ColumnValues* c) {
         long hundredths = static_cast<long>(random() % 10001);
         for (int i = 0; i < kPoints; ++i) {
           hundredths =
               std::clamp(hundredths + static_cast<long>(random() % 347) - 173, 0L, 10000L);
           c->reals.push_back(static_cast<double>(hundredths) / 100);
         }
       }},
      {"TSBS cpu, full precision, steps uniform in ±1 (DOUBLE)",
       [](std::mt19937_64& random, ColumnValues* c) {
         std::uniform_real_distribution<double> step(-1, 1);
         double v = static_cast<double>(random() % 100);
         for (int i = 0; i < kPoints; ++i) c->reals.push_back(v = Walk(v, step(random), 0, 100));
       }},
      {"IoT value, whole readings 30..40 with a NaN an hour (DOUBLE)",
       [](std::mt19937_64& random, ColumnValues* c) {
         for (int i = 0; i < kPoints; ++i) {
           c->reals.push_back(i == 100 ? std::nan("") : static_cast<double>(30 + random() % 11));
         }
       }},
      {"IoT quality, uniform 24..98 (BIGINT)",
       [](std::mt19937_64& random, ColumnValues* c) {
         for (int i = 0; i < kPoints; ++i) c->numbers.push_back(24 + random() % 75);
       }},
      {"a counter, +0..100 a point (BIGINT)",
       [](std::mt19937_64& random, ColumnValues* c) {
         int64_t n = 1'000'000'000;
         for (int i = 0; i < kPoints; ++i) c->numbers.push_back(n += random() % 101);
       }},
      {"video playback_quality, 3 values (VARCHAR)",
       [](std::mt19937_64& random, ColumnValues* c) {
         for (int i = 0; i < kPoints; ++i) c->texts.push_back(kQualities[random() % 3]);
       }},
      {"video start_time, time - 5 min (TIMESTAMP)",
       [](std::mt19937_64&, ColumnValues* c) {
         for (int i = 0; i < kPoints; ++i) {
           c->numbers.push_back(kStart + i * kInterval - 300'000'000'000);
         }
       }},
      {"a flag, random (BOOLEAN)",
       [](std::mt19937_64& random, ColumnValues* c) {
         for (int i = 0; i < kPoints; ++i) c->numbers.push_back(static_cast<int64_t>(random() & 1));
       }},
  };
}

ValueType TypeOf(const std::string& name) {
  if (name.find("(DOUBLE)") != std::string::npos) return ValueType::kDouble;
  if (name.find("(BIGINT)") != std::string::npos) return ValueType::kBigint;
  if (name.find("(VARCHAR)") != std::string::npos) return ValueType::kVarchar;
  if (name.find("(TIMESTAMP)") != std::string::npos) return ValueType::kTimestamp;
  return ValueType::kBoolean;
}

const char* EncodingName(char encoding) {
  switch (static_cast<strata::format::IntEncoding>(encoding)) {
    case strata::format::IntEncoding::kRunLength:
      return "run-length";
    case strata::format::IntEncoding::kBitPacked:
      return "bit-packed";
    case strata::format::IntEncoding::kRangePacked:
      return "range-packed";
  }
  return "?";
}

// Sequences of 360 values uniform over [0, span] (after the first, as a delta
// transform leaves them), decoded whole.
bool PrintIntSequences(int blocks) {
  std::printf("\n%-22s %14s %10s %12s\n", "integers, span", "form", "bits/value", "decode ns");
  for (uint64_t span : {1, 2, 10, 99, 346, 1000, 10'000, 100'000, 1'000'000'000}) {
    std::mt19937_64 random(7);
    std::vector<std::string> encoded(blocks);
    size_t bytes = 0;
    for (std::string& sequence : encoded) {
      std::vector<int64_t> values(kPoints);
      values[0] = kStart;
      for (int i = 1; i < kPoints; ++i) values[i] = static_cast<int64_t>(random() % (span + 1));
      strata::format::EncodeInts(values, &sequence);
      bytes += sequence.size();
    }
    std::vector<int64_t> decoded;
    double fastest = 1e18;
    for (int pass = 0; pass < 7; ++pass) {
      const Steady::time_point start = Steady::now();
      for (const std::string& sequence : encoded) {
        std::string_view in = sequence;
        if (!strata::format::DecodeInts(&in, kPoints, &decoded)) return false;
      }
      fastest = std::min(fastest, std::chrono::duration<double>(Steady::now() - start).count());
    }
    const double values = static_cast<double>(blocks) * kPoints;
    std::printf("%-22llu %14s %10.2f %12.2f\n", static_cast<unsigned long long>(span),
                EncodingName(encoded[0][0]), static_cast<double>(bytes) * 8 / values,
                fastest / values * 1e9);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Strata block codec benchmark"};
  int blocks = 2000;
  app.add_option("--blocks", blocks, "Blocks of 360 points per column kind")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::vector<int64_t> times(kPoints), versions(kPoints, 1);
  for (int i = 0; i < kPoints; ++i) times[i] = kStart + i * kInterval;
  std::printf("%-62s %10s %12s %12s\n", "column", "B/point", "encode M/s", "decode M/s");
  for (const Kind& kind : Kinds()) {
    std::mt19937_64 random(42);
    std::vector<std::vector<ColumnToEncode>> columns(blocks);
    for (auto& block : columns) {
      block.push_back({.name = "m", .values = {.type = TypeOf(kind.name)}});
      kind.fill(random, &block[0].values);
    }
    std::vector<std::string> encoded(blocks);
    const Steady::time_point encode_start = Steady::now();
    for (int b = 0; b < blocks; ++b) {
      encoded[b] = strata::format::EncodeBlockColumns(times, versions, columns[b]).value();
    }
    const double encode_seconds =
        std::chrono::duration<double>(Steady::now() - encode_start).count();
    size_t bytes = 0, decoded_values = 0;
    const Steady::time_point decode_start = Steady::now();
    for (const std::string& block : encoded) {
      bytes += block.size();
      auto decoded = strata::format::DecodeBlockColumns(
          block, /*with_versions=*/false,
          [](const strata::format::ColumnSummary&) { return true; });
      decoded_values += decoded.value().columns[0]->size();
    }
    const double decode_seconds =
        std::chrono::duration<double>(Steady::now() - decode_start).count();
    const double values = static_cast<double>(blocks) * kPoints;
    if (static_cast<double>(decoded_values) != values) return 1;
    std::printf("%-62s %10.3f %12.1f %12.1f\n", kind.name, static_cast<double>(bytes) / values,
                values / encode_seconds / 1e6, values / decode_seconds / 1e6);
  }
  return PrintIntSequences(blocks) ? 0 : 1;
}
