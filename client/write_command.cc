// `strata write`: a few records from the command line, either one record from
// flags (--dimension, --measure, --time) or line-protocol lines as arguments.
#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/command.h"
#include "client/record_parsers.h"
#include "client/text_values.h"

namespace strata::cli {
namespace {

struct WriteArgs {
  std::string database;
  std::string table;
  std::vector<std::string> lines;
  std::vector<std::string> dimensions;
  std::vector<std::string> measures;
  std::string measure_name;
  std::string time;
  std::string time_unit;
  int64_t version = 0;
};

// "name=value" or "name:type=value".
struct MeasureArg {
  std::string name;
  std::optional<v1::MeasureValueType> type;
  std::string value;
};

absl::StatusOr<MeasureArg> ParseMeasureArg(const std::string& text) {
  size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--measure \"", text, "\": use name=value or name:type=value (e.g. cpu:double=0.5)"));
  }
  MeasureArg arg{.name = text.substr(0, equals), .value = text.substr(equals + 1)};
  if (size_t colon = arg.name.rfind(':'); colon != std::string::npos) {
    auto type = ParseMeasureType(arg.name.substr(colon + 1));
    if (!type.ok()) return type.status();
    arg.type = *type;
    arg.name.resize(colon);
  }
  return arg;
}

absl::StatusOr<v1::Record> RecordFromFlags(const WriteArgs& args) {
  v1::Record record;
  for (const std::string& dimension : args.dimensions) {
    size_t equals = dimension.find('=');
    if (equals == std::string::npos || equals == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dimension \"", dimension, "\": use name=value (e.g. host=web-1)"));
    }
    v1::Dimension* d = record.add_dimensions();
    d->set_name(dimension.substr(0, equals));
    d->set_value(dimension.substr(equals + 1));
  }
  if (args.measures.empty()) {
    return absl::InvalidArgumentError("give at least one --measure name=value");
  }
  std::vector<MeasureArg> measures;
  for (const std::string& text : args.measures) {
    auto measure = ParseMeasureArg(text);
    if (!measure.ok()) return measure.status();
    measures.push_back(std::move(*measure));
  }
  auto unit = args.time_unit.empty() ? v1::TIME_UNIT_MILLISECONDS : ParseTimeUnit(args.time_unit);
  if (!unit.ok()) return unit.status();
  if (args.time.empty()) {
    record.set_time(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count());
    record.set_time_unit(v1::TIME_UNIT_NANOSECONDS);
  } else {
    auto time = ParseRecordTime(args.time, *unit);
    if (!time.ok()) return time.status();
    record.set_time(time->value);
    record.set_time_unit(time->unit);
  }
  if (args.version > 0) record.set_version(args.version);

  // One measure without --measure-name is a classic single-measure record.
  if (measures.size() == 1 && args.measure_name.empty()) {
    auto value = ParseMeasureValue(measures[0].value, measures[0].type);
    if (!value.ok()) return value.status();
    record.set_measure_name(measures[0].name);
    record.set_measure_value_type(TypeOf(*value));
    *record.mutable_measure_value() = std::move(*value);
    return record;
  }
  if (args.measure_name.empty()) {
    return absl::InvalidArgumentError(
        "several measures make one MULTI record: name it with --measure-name");
  }
  record.set_measure_name(args.measure_name);
  record.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  for (const MeasureArg& measure : measures) {
    auto value = ParseMeasureValue(measure.value, measure.type);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("measure \"", measure.name, "\": ", value.status().message()));
    }
    v1::MultiMeasureValue* multi = record.add_measure_values();
    multi->set_name(measure.name);
    multi->set_type(TypeOf(*value));
    *multi->mutable_value() = std::move(*value);
  }
  return record;
}

absl::Status BuildRequest(const WriteArgs& args, v1::WriteRecordsRequest& request) {
  request.set_database_name(args.database);
  request.set_table_name(args.table);
  if (args.lines.empty()) {
    auto record = RecordFromFlags(args);
    if (!record.ok()) return record.status();
    *request.add_records() = std::move(*record);
    return absl::OkStatus();
  }
  if (!args.dimensions.empty() || !args.measures.empty()) {
    return absl::InvalidArgumentError(
        "give either line-protocol lines or --dimension/--measure flags, not both");
  }
  ImportColumns columns;
  columns.time_unit = v1::TIME_UNIT_NANOSECONDS;
  if (!args.time_unit.empty()) {
    auto unit = ParseTimeUnit(args.time_unit);
    if (!unit.ok()) return unit.status();
    columns.time_unit = *unit;
  }
  auto parser = MakeLineProtocolParser(columns);
  for (size_t i = 0; i < args.lines.size(); ++i) {
    auto record = parser->Parse(args.lines[i]);
    if (!record.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", i + 1, " (\"", args.lines[i], "\"): ", record.status().message()));
    }
    if (!record->has_value()) continue;
    if (args.version > 0) (*record)->set_version(args.version);
    *request.add_records() = std::move(**record);
  }
  return absl::OkStatus();
}

}  // namespace

void AddWriteCommand(CLI::App& app, CommandContext& context) {
  auto args = std::make_shared<WriteArgs>();
  CLI::App* write = app.add_subcommand(
      "write",
      "Write a record from flags, or records given as line protocol\n"
      "  strata write db cpu -D host=web-1 -m usage:double=0.5 --time 2024-05-01T12:00:00Z\n"
      "  strata write db cpu 'cpu,host=web-1 usage=0.5,procs=12i 1714564800000000000'");
  write->add_option("database", args->database, "Database name")->required();
  write->add_option("table", args->table, "Table name")->required();
  write->add_option("lines", args->lines, "Records in InfluxDB line protocol (time in ns)");
  write->add_option("--dimension,-D", args->dimensions, "A dimension name=value (repeatable)");
  write->add_option("--measure,-m", args->measures,
                    "A measure name=value or name:type=value, type one of double, bigint, "
                    "varchar, boolean, timestamp (repeatable; inferred when omitted)");
  write->add_option("--measure-name", args->measure_name,
                    "Makes one MULTI record of the measures under this name");
  write->add_option("--time,-t", args->time,
                    "ISO 8601 time or an integer in --time-unit (default: now)");
  write->add_option("--time-unit", args->time_unit, "s, ms (default), us or ns");
  write->add_option("--version", args->version, "Record version (default 1)");
  write->callback([&context, args] {
    v1::WriteRecordsRequest request;
    if (absl::Status built = BuildRequest(*args, request); !built.ok()) {
      std::cerr << "error: " << built.message() << "\n";
      return context.set_exit_code(ExitCode::kUsage);
    }
    Connection& connection = context.connection();
    v1::WriteRecordsResponse response;
    grpc::Status status =
        connection.write().WriteRecords(connection.UnaryContext().get(), request, &response);
    if (!status.ok()) return context.set_exit_code(ReportRpcError(status, connection));
    const auto& ingested = response.records_ingested();
    std::cout << "wrote " << ingested.total() << " of " << request.records_size()
              << (request.records_size() == 1 ? " record" : " records") << " (memory store "
              << ingested.memory_store() << ", magnetic store " << ingested.magnetic_store()
              << ")\n";
    for (const auto& rejected : response.rejected_records()) {
      std::cerr << "rejected record " << rejected.record_index() + 1 << ": "
                << CliRejectionHint(rejected.reason(), request.database_name(), request.table_name())
                << "\n";
    }
    if (!response.rejected_records().empty()) context.set_exit_code(ExitCode::kPartial);
  });
}

}  // namespace strata::cli
