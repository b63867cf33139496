// `strata import`: wires the command line to a RecordParser and RunImport,
// then prints the summary.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/command.h"
#include "client/importer.h"
#include "client/interrupt.h"
#include "client/text_values.h"

namespace strata::cli {
namespace {

// BulkWriteRecords' limit (proto/strata/v1/write.proto).
constexpr int kMaxBulkWriteRecords = 10'000;

struct ImportArgs {
  std::string database;
  std::string table;
  std::string file;
  std::string format;
  std::string time_column = "time";
  std::string measure_name_column = "measure_name";
  std::string measure_name;
  std::string dimensions;
  std::string measures;
  std::string ignore;
  std::string time_unit;
  // Records per BulkWriteRecords request: a request's fixed cost (the call,
  // a group commit's sync) spread over ten times WriteRecords' 100 halved the
  // server's CPU per row (docs/benchmarks.md, "Ingest paths"); beyond 1,000 it
  // gained nothing measurable, and a rejected request would resend more.
  int batch_size = 1000;
  // Enough requests in flight for the server to commit several in one group
  // (one sync): on 2 cores 16 imported 11-25 % faster than 4 (docs/benchmarks.md).
  int parallel = 16;
  std::string on_reject = "skip";
  std::string reject_log;
  std::string progress = "auto";
  bool create = false;
  int retry_seconds = 60;
};

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

absl::StatusOr<std::string> ResolveInputFormat(const ImportArgs& args) {
  if (!args.format.empty()) {
    if (args.format == "csv" || args.format == "jsonl" || args.format == "lp") return args.format;
    return absl::InvalidArgumentError(
        absl::StrCat("unknown input format \"", args.format, "\": use csv, jsonl or lp"));
  }
  if (EndsWith(args.file, ".csv")) return std::string("csv");
  if (EndsWith(args.file, ".jsonl") || EndsWith(args.file, ".ndjson") ||
      EndsWith(args.file, ".json")) {
    return std::string("jsonl");
  }
  if (EndsWith(args.file, ".lp") || EndsWith(args.file, ".line")) return std::string("lp");
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot tell the format of \"", args.file, "\": give --format csv, jsonl or lp"));
}

absl::StatusOr<ImportColumns> ResolveColumns(const ImportArgs& args, const std::string& format) {
  ImportColumns columns;
  columns.time_field = args.time_column;
  columns.measure_name_field = args.measure_name_column;
  columns.measure_name = args.measure_name.empty() ? args.table : args.measure_name;
  columns.time_unit = format == "lp" ? v1::TIME_UNIT_NANOSECONDS : v1::TIME_UNIT_MILLISECONDS;
  if (!args.time_unit.empty()) {
    auto unit = ParseTimeUnit(args.time_unit);
    if (!unit.ok()) return unit.status();
    columns.time_unit = *unit;
  }
  for (absl::string_view name : absl::StrSplit(args.dimensions, ',', absl::SkipEmpty())) {
    columns.dimensions.insert(std::string(name));
  }
  for (absl::string_view name : absl::StrSplit(args.ignore, ',', absl::SkipEmpty())) {
    columns.ignored.insert(std::string(name));
  }
  for (absl::string_view spec : absl::StrSplit(args.measures, ',', absl::SkipEmpty())) {
    std::string name(spec);
    v1::MeasureValueType type = v1::MEASURE_VALUE_TYPE_UNSPECIFIED;
    if (size_t colon = name.rfind(':'); colon != std::string::npos) {
      auto parsed = ParseMeasureType(name.substr(colon + 1));
      if (!parsed.ok()) return parsed.status();
      type = *parsed;
      name.resize(colon);
    }
    columns.measures[name] = type;
  }
  return columns;
}

absl::StatusOr<ImportOptions> ResolveOptions(const ImportArgs& args) {
  ImportOptions options{.database = args.database,
                        .table = args.table,
                        .source_name = args.file == "-" ? "stdin" : args.file,
                        .batch_size = args.batch_size,
                        .in_flight = args.parallel,
                        .retry_seconds = args.retry_seconds};
  if (args.batch_size < 1 || args.batch_size > kMaxBulkWriteRecords) {
    return absl::InvalidArgumentError(absl::StrCat("--batch-size must be 1..", kMaxBulkWriteRecords,
                                                   " (BulkWriteRecords takes ",
                                                   kMaxBulkWriteRecords, " at most)"));
  }
  if (args.parallel < 1 || args.parallel > 64) {
    return absl::InvalidArgumentError("--parallel must be 1..64");
  }
  if (args.retry_seconds < 0 || args.retry_seconds > 86400) {
    return absl::InvalidArgumentError("--retry-seconds must be 0..86400");
  }
  if (args.on_reject == "fail") {
    options.on_reject = OnReject::kFail;
  } else if (args.on_reject == "skip") {
    options.on_reject = OnReject::kSkip;
  } else if (args.on_reject == "log") {
    options.on_reject = OnReject::kLog;
  } else {
    return absl::InvalidArgumentError("--on-reject takes fail, skip or log");
  }
  if (!args.reject_log.empty()) {
    options.on_reject = OnReject::kLog;
    options.reject_log_path = args.reject_log;
  } else if (options.on_reject == OnReject::kLog) {
    return absl::InvalidArgumentError("--on-reject log needs --reject-log FILE");
  }
  if (args.progress == "auto") {
    options.progress = isatty(STDERR_FILENO) ? ImportOptions::Progress::kBar
                                             : ImportOptions::Progress::kLines;
  } else if (args.progress == "bar") {
    options.progress = ImportOptions::Progress::kBar;
  } else if (args.progress == "lines") {
    options.progress = ImportOptions::Progress::kLines;
  } else if (args.progress == "none") {
    options.progress = ImportOptions::Progress::kNone;
  } else {
    return absl::InvalidArgumentError("--progress takes auto, bar, lines or none");
  }
  return options;
}

void PrintSummary(const ImportSummary& summary, const ImportOptions& options) {
  double rate = summary.seconds > 0 ? summary.ingested / summary.seconds : 0;
  std::cout << "imported " << summary.ingested << (summary.ingested == 1 ? " record" : " records")
            << " from " << options.source_name << " in "
            << absl::StrFormat("%.1f", summary.seconds) << " s ("
            << static_cast<int64_t>(rate) << " records/s); " << summary.rejected << " rejected";
  if (summary.interrupted) std::cout << "; interrupted after line " << summary.lines_read;
  if (summary.resent > 0) {
    std::cout << "; requests sent again " << summary.resent
              << (summary.resent == 1 ? " time" : " times") << " while the server was away";
  }
  std::cout << "\n";
  for (const auto& [line, reason] : summary.first_rejections) {
    std::cout << "  line " << line << ": " << reason << "\n";
  }
  if (summary.rejected > static_cast<int64_t>(summary.first_rejections.size())) {
    std::cout << "  ... and " << summary.rejected - summary.first_rejections.size() << " more"
              << (options.on_reject == OnReject::kLog ? " in " + options.reject_log_path : "")
              << "\n";
  }
  if (summary.nothing_sent) {
    std::cout << "nothing was stored: the first request failed, and no other was sent\n";
    if (summary.fatal->error_code() == grpc::StatusCode::NOT_FOUND &&
        summary.fatal->error_message().find("table") != std::string::npos) {
      std::cout << "create the table with `strata table create " << options.database << " "
                << options.table << "`, or import with --create\n";
    }
  } else if (summary.fatal || summary.interrupted) {
    // Batches go out in parallel, so what was stored is not a prefix of the file.
    std::cout << "the import stopped early: records after the ones counted above may or may not "
                 "be stored; running the same import again is safe (a record written twice "
                 "with the same version is accepted once)\n";
  }
  if (options.on_reject == OnReject::kFail && summary.rejected > 0) {
    std::cout << "stopped at the first rejection (--on-reject fail); lines after it were not "
                 "sent\n";
  }
}

}  // namespace

void AddImportCommand(CLI::App& app, CommandContext& context) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* command = app.add_subcommand(
      "import",
      "Import a CSV, JSON Lines or line-protocol file (or - for stdin), 100 records a request");
  command->add_option("database", args->database, "Database name")->required();
  command->add_option("table", args->table, "Table name")->required();
  command->add_option("file", args->file, "File to read, or - for standard input")->required();
  command->add_option("--format", args->format,
                      "csv, jsonl or lp (line protocol); default from the file extension");
  command->add_option("--time-column", args->time_column, "Field holding the time")
      ->capture_default_str();
  command->add_option("--measure-name-column", args->measure_name_column,
                      "Field holding the measure name")
      ->capture_default_str();
  command->add_option("--measure-name", args->measure_name,
                      "Measure name of rows without that field (default: the table name)");
  command->add_option("--dimensions", args->dimensions, "Fields that are dimensions: a,b,c");
  command->add_option("--measures", args->measures,
                      "Fields that are measures, with optional types: cpu:double,procs:bigint");
  command->add_option("--ignore", args->ignore, "Fields to leave out: a,b");
  command->add_option("--time-unit", args->time_unit,
                      "Unit of integer times: s, ms, us, ns (default ms; ns for lp)");
  command->add_option("--batch-size", args->batch_size, "Records per request (1..10000)")
      ->capture_default_str();
  command->add_option("--parallel", args->parallel, "Requests in flight")->capture_default_str();
  command->add_option("--on-reject", args->on_reject,
                      "fail: stop at the first rejected line; skip: go on and summarize; "
                      "log: also write each one to --reject-log")
      ->capture_default_str();
  command->add_option("--reject-log", args->reject_log,
                      "Write rejected lines as line<TAB>reason<TAB>text (implies --on-reject log)");
  command->add_option("--progress", args->progress,
                      "auto (a bar on a terminal, else a line every 5 s), bar, lines or none")
      ->capture_default_str();
  command
      ->add_option("--retry-seconds", args->retry_seconds,
                   "How long to send a request again while the server is away after it "
                   "answered (a restart, a failover); 0: stop at once")
      ->capture_default_str();
  command->add_flag("--create", args->create,
                    "Create the table first if it does not exist (the server's default "
                    "retention), as HTTP line protocol does");
  command->callback([&context, args] {
    auto format = ResolveInputFormat(*args);
    absl::StatusOr<ImportColumns> columns =
        format.ok() ? ResolveColumns(*args, *format) : format.status();
    auto options = ResolveOptions(*args);
    if (!columns.ok() || !options.ok()) {
      std::cerr << "error: " << (columns.ok() ? options.status() : columns.status()).message()
                << "\n";
      return context.set_exit_code(ExitCode::kUsage);
    }
    int fd = 0;  // standard input
    if (args->file != "-") {
      fd = ::open(args->file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        std::cerr << "error: cannot open " << args->file << ": " << std::strerror(errno) << "\n";
        return context.set_exit_code(ExitCode::kUsage);
      }
      struct stat info;
      if (fstat(fd, &info) == 0) options->source_bytes = info.st_size;
    }
    // Closes the file however the import ends.
    std::unique_ptr<int, void (*)(int*)> closer(fd == 0 ? nullptr : &fd,
                                                [](int* f) { ::close(*f); });
    LineReader input(fd);
    std::unique_ptr<RecordParser> parser = *format == "csv"     ? MakeCsvParser(*columns)
                                           : *format == "jsonl" ? MakeJsonLinesParser(*columns)
                                                                : MakeLineProtocolParser(*columns);
    if (args->create) {
      v1::CreateTableRequest request;
      request.set_database_name(args->database);
      request.set_table_name(args->table);
      v1::CreateTableResponse response;
      grpc::Status created = context.connection().catalog().CreateTable(
          context.connection().UnaryContext().get(), request, &response);
      if (!created.ok() && created.error_code() != grpc::StatusCode::ALREADY_EXISTS) {
        return context.set_exit_code(ReportRpcError(created, context.connection()));
      }
      if (created.ok()) std::cout << "created table " << args->database << "." << args->table << "\n";
    }
    InterruptScope interrupt_scope;
    ImportSummary summary = RunImport(context.connection(), input, *parser, *options);
    PrintSummary(summary, *options);
    if (summary.fatal) {
      return context.set_exit_code(ReportRpcError(*summary.fatal, context.connection()));
    }
    if (summary.interrupted) return context.set_exit_code(ExitCode::kInterrupted);
    if (summary.rejected > 0) context.set_exit_code(ExitCode::kPartial);
  });
}

}  // namespace strata::cli
