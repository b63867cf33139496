// How fast `strata import` turns a file into records, with no server: the
// same block reader and parser the import uses, each record moved into a
// 1,000-record request as the importer does (line protocol: encoded straight
// to bytes, RecordParser::EncodeInto; the others: a v1::Record each), nothing
// sent.
// Usage: import_parse_bench FILE|- --format csv|lp|jsonl [--time-unit ms|ns]
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "CLI/CLI.hpp"
#include "client/line_reader.h"
#include "client/record_parsers.h"
#include "client/text_values.h"
#include "strata/v1/write.pb.h"

int main(int argc, char** argv) {
  CLI::App app{"strata import's parse rate (no server)"};
  std::string file, format = "csv", unit;
  app.add_option("file", file, "Input file, or - for standard input")->required();
  app.add_option("--format", format, "csv, lp or jsonl")->capture_default_str();
  app.add_option("--time-unit", unit, "Unit of integer times (default ms; ns for lp)");
  CLI11_PARSE(app, argc, argv);

  strata::cli::ImportColumns columns;
  columns.time_unit = format == "lp" ? strata::v1::TIME_UNIT_NANOSECONDS
                                     : strata::v1::TIME_UNIT_MILLISECONDS;
  if (!unit.empty()) columns.time_unit = *strata::cli::ParseTimeUnit(unit);
  columns.measure_name = "cpu";
  auto parser = format == "csv"   ? strata::cli::MakeCsvParser(columns)
                : format == "lp"  ? strata::cli::MakeLineProtocolParser(columns)
                                  : strata::cli::MakeJsonLinesParser(columns);
  const int fd = file == "-" ? 0 : ::open(file.c_str(), O_RDONLY);
  if (fd < 0) {
    std::perror(file.c_str());
    return 1;
  }
  const auto started = std::chrono::steady_clock::now();
  const std::clock_t cpu_started = std::clock();
  strata::cli::LineReader reader(fd);
  std::string_view line;
  int64_t rows = 0, errors = 0, bytes = 0;
  strata::v1::WriteRecordsRequest request;
  strata::cli::RecordPool pool;
  strata::cli::EncodedRecords encoded;
  const bool encodes = parser->EncodesRecords();
  while (reader.Next(&line)) {
    bytes += static_cast<int64_t>(line.size()) + 1;
    absl::StatusOr<bool> parsed = encodes ? parser->EncodeInto(line, &encoded)
                                          : parser->ParseInto(line, pool.Add(&request));
    if (!parsed.ok() || !*parsed) {
      if (!encodes) request.mutable_records()->RemoveLast();
      errors += !parsed.ok();
      continue;
    }
    if (++rows % 1000 == 0) {  // as the importer reuses sent requests
      pool.Recycle(&request);
      encoded.Clear();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double cpu = static_cast<double>(std::clock() - cpu_started) / CLOCKS_PER_SEC;
  std::printf("format=%s rows=%lld errors=%lld bytes=%lld seconds=%.2f cpu_seconds=%.2f\n",
              format.c_str(), static_cast<long long>(rows), static_cast<long long>(errors),
              static_cast<long long>(bytes), seconds, cpu);
  std::printf("rows/s=%.0f cpu_us_per_row=%.2f MB/s=%.0f\n", rows / seconds, cpu * 1e6 / rows,
              bytes / seconds / 1e6);
  return 0;
}
