// `strata scheduled-query ...`: ScheduledQueryService (docs/scheduled-queries.md).
// `create` takes the common shape (MULTI records from named columns) as
// flags, or any definition as the JSON of a ScheduledQuery message.
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "client/command.h"
#include "client/listing.h"
#include "client/text_values.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"

namespace strata::cli {
namespace {

using ScheduledQueryStub = v1::ScheduledQueryService::Stub;
using google::protobuf::util::TimeUtil;

bool Fail(CommandContext& context, const std::string& message) {
  std::cerr << "error: " << message << "\n";
  context.set_exit_code(ExitCode::kUsage);
  return false;
}

std::string Time(const google::protobuf::Timestamp& t, bool set) {
  return set ? TimeUtil::ToString(t) : "-";
}

struct CreateArgs {
  std::string name, query, schedule, database, table, time_column, measure_name,
      measure_name_column, from_json;
  std::vector<std::string> dimensions, measures, params;
  bool disabled = false;
  int max_rejected_rows = 0;
};

// "COLUMN:TYPE[:ATTRIBUTE]" -> an attribute mapping.
bool AddMeasure(CommandContext& context, const std::string& spec, v1::MultiMeasureMappings* out) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty()) {
    return Fail(context, "--measure \"" + spec + "\": write COLUMN:TYPE or COLUMN:TYPE:ATTRIBUTE, "
                         "e.g. avg_cpu:double");
  }
  auto type = ParseMeasureType(parts[1]);
  if (!type.ok()) return Fail(context, "--measure \"" + spec + "\": " + std::string(type.status().message()));
  auto* a = out->add_multi_measure_attribute_mappings();
  a->set_source_column(parts[0]);
  a->set_measure_value_type(*type);
  if (parts.size() == 3) a->set_target_multi_measure_attribute_name(parts[2]);
  return true;
}

// "name=value" -> a named parameter (the value's type inferred as `write` does).
bool AddParameter(CommandContext& context, const std::string& spec, v1::ScheduledQuery* out) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Fail(context, "--param \"" + spec + "\": write NAME=VALUE, e.g. min_samples=10");
  }
  auto value = ParseMeasureValue(spec.substr(eq + 1), std::nullopt);
  if (!value.ok()) return Fail(context, "--param \"" + spec + "\": " + std::string(value.status().message()));
  auto* p = out->add_parameters();
  p->set_name(spec.substr(0, eq));
  v1::Datum* d = p->mutable_value();
  switch (value->value_case()) {
    case v1::MeasureValue::kDoubleValue: d->set_double_value(value->double_value()); break;
    case v1::MeasureValue::kBigintValue: d->set_bigint_value(value->bigint_value()); break;
    case v1::MeasureValue::kBooleanValue: d->set_boolean_value(value->boolean_value()); break;
    default: d->set_varchar_value(value->varchar_value()); break;
  }
  return true;
}

bool BuildDefinition(CommandContext& context, const CreateArgs& args, v1::ScheduledQuery* q) {
  if (!args.from_json.empty()) {
    std::ifstream in(args.from_json);
    if (!in) return Fail(context, "cannot read " + args.from_json);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = google::protobuf::util::JsonStringToMessage(text.str(), q);
    if (!parsed.ok()) {
      return Fail(context, args.from_json + " is not a ScheduledQuery in JSON: " +
                               std::string(parsed.message()));
    }
    if (!args.name.empty()) q->set_name(args.name);
    return true;
  }
  if (args.query.empty() || args.schedule.empty() || args.database.empty() || args.table.empty() ||
      args.time_column.empty() || args.measures.empty()) {
    return Fail(context, "give --query, --schedule, --database, --table, --time-column and at "
                         "least one --measure (or --from-json FILE)");
  }
  q->set_name(args.name);
  q->set_query_string(args.query);
  q->set_schedule_expression(args.schedule);
  if (args.disabled) q->set_state(v1::SCHEDULED_QUERY_STATE_DISABLED);
  if (args.max_rejected_rows > 0) {
    q->mutable_error_report_configuration()->set_max_rejected_rows(args.max_rejected_rows);
  }
  auto* target = q->mutable_target_configuration();
  target->set_database_name(args.database);
  target->set_table_name(args.table);
  target->set_time_column(args.time_column);
  for (const std::string& d : args.dimensions) target->add_dimension_mappings()->set_name(d);
  target->set_measure_name_column(args.measure_name_column);
  auto* multi = target->mutable_multi_measure_mappings();
  multi->set_target_multi_measure_name(args.measure_name);
  for (const std::string& m : args.measures) {
    if (!AddMeasure(context, m, multi)) return false;
  }
  for (const std::string& p : args.params) {
    if (!AddParameter(context, p, q)) return false;
  }
  return true;
}

void PrintRun(const v1::ScheduledQueryRunSummary& run) {
  const v1::ExecutionStats& s = run.execution_stats();
  std::cout << v1::ScheduledQueryRunStatus_Name(run.run_status()) << " for "
            << TimeUtil::ToString(run.invocation_time()) << " (attempt " << run.attempt() << "): "
            << s.query_result_rows() << " result rows, " << s.records_ingested()
            << " records written, " << s.records_rejected() << " rejected, "
            << s.execution_time_in_millis() << " ms\n";
  if (!run.failure_reason().empty()) std::cout << "  error: " << run.failure_reason() << "\n";
  for (const v1::RejectedRow& r : run.rejected_rows()) {
    std::cout << "  row " << r.row() << ": " << r.reason() << "\n";
  }
}

std::string TypeName(v1::MeasureValueType type) {
  std::string name = v1::MeasureValueType_Name(type);
  if (name.rfind("MEASURE_VALUE_TYPE_", 0) == 0) name = name.substr(19);
  return absl::AsciiStrToLower(name);
}

// `strata scheduled-query describe`: the definition and its runs as text.
void PrintDescription(const v1::ScheduledQuery& q) {
  const v1::TargetConfiguration& t = q.target_configuration();
  std::cout << "name:             " << q.name() << "\n"
            << "state:            "
            << (q.state() == v1::SCHEDULED_QUERY_STATE_DISABLED ? "DISABLED" : "ENABLED") << "\n"
            << "schedule:         " << q.schedule_expression() << " (UTC)\n"
            << "created:          " << Time(q.creation_time(), q.has_creation_time())
            << (q.owner().empty() ? " (authentication off: no token)" : " by token " + q.owner())
            << "\n"
            << "previous run for: "
            << Time(q.previous_invocation_time(), q.has_previous_invocation_time()) << "\n"
            << "next run for:     " << Time(q.next_invocation_time(), q.has_next_invocation_time())
            << "\n"
            << "query:\n";
  for (absl::string_view line : absl::StrSplit(q.query_string(), '\n')) {
    std::cout << "  " << line << "\n";
  }
  for (const v1::QueryParameter& p : q.parameters()) {
    std::cout << "parameter:        @" << p.name() << "\n";
  }
  std::cout << "target:           " << t.database_name() << "." << t.table_name()
            << ", time from " << t.time_column() << "\n";
  for (const v1::DimensionMapping& d : t.dimension_mappings()) {
    std::cout << "  dimension       " << d.name() << "\n";
  }
  if (!t.measure_name_column().empty()) {
    std::cout << "  measure name from column " << t.measure_name_column() << "\n";
  }
  auto attributes = [](const auto& mappings, const std::string& indent) {
    for (const v1::MultiMeasureAttributeMapping& a : mappings) {
      std::cout << indent << a.source_column() << " -> "
                << (a.target_multi_measure_attribute_name().empty()
                        ? a.source_column()
                        : a.target_multi_measure_attribute_name())
                << " (" << TypeName(a.measure_value_type()) << ")\n";
    }
  };
  if (t.has_multi_measure_mappings()) {
    const v1::MultiMeasureMappings& m = t.multi_measure_mappings();
    std::cout << "  MULTI measure   "
              << (m.target_multi_measure_name().empty() ? "(from the column)"
                                                        : m.target_multi_measure_name())
              << "\n";
    attributes(m.multi_measure_attribute_mappings(), "    ");
  }
  for (const v1::MixedMeasureMapping& m : t.mixed_measure_mappings()) {
    std::cout << "  measure         "
              << (m.target_measure_name().empty()
                      ? (m.measure_name().empty() ? m.source_column() : m.measure_name())
                      : m.target_measure_name())
              << " (" << TypeName(m.measure_value_type()) << ")"
              << (m.source_column().empty() ? "" : " from " + m.source_column()) << "\n";
    attributes(m.multi_measure_attribute_mappings(), "    ");
  }
  std::cout << "last run:         ";
  if (q.has_last_run_summary()) {
    PrintRun(q.last_run_summary());
  } else {
    std::cout << "none yet\n";
  }
  if (!q.recently_failed_runs().empty()) std::cout << "recent failures:\n";
  for (const v1::ScheduledQueryRunSummary& run : q.recently_failed_runs()) {
    std::cout << "  ";
    PrintRun(run);
  }
}

void PrintList(const std::vector<v1::ScheduledQuery>& queries, OutputFormat format) {
  Listing listing({{"name", v1::SCALAR_TYPE_VARCHAR},
                   {"state", v1::SCALAR_TYPE_VARCHAR},
                   {"schedule", v1::SCALAR_TYPE_VARCHAR},
                   {"target", v1::SCALAR_TYPE_VARCHAR},
                   {"next_invocation", v1::SCALAR_TYPE_VARCHAR},
                   {"last_run", v1::SCALAR_TYPE_VARCHAR}});
  for (const v1::ScheduledQuery& q : queries) {
    listing.AddRow(
        {Listing::Text(q.name()),
         Listing::Text(q.state() == v1::SCHEDULED_QUERY_STATE_DISABLED ? "DISABLED" : "ENABLED"),
         Listing::Text(q.schedule_expression()),
         Listing::Text(q.target_configuration().database_name() + "." +
                       q.target_configuration().table_name()),
         Listing::Text(Time(q.next_invocation_time(), q.has_next_invocation_time())),
         Listing::Text(q.has_last_run_summary()
                           ? v1::ScheduledQueryRunStatus_Name(q.last_run_summary().run_status())
                           : "-")});
  }
  listing.Print(format, std::cout);
}

void PrintJson(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  std::cout << json;
}

}  // namespace

void AddScheduledQueryCommands(CLI::App& app, CommandContext& context) {
  CLI::App* sq = app.add_subcommand(
      "scheduled-query",
      "Queries the server runs on a schedule, writing their results into a table (rollups)");
  sq->require_subcommand(1);

  auto args = std::make_shared<CreateArgs>();
  CLI::App* create = sq->add_subcommand(
      "create", "Create a scheduled query; each result row becomes one MULTI record");
  create->add_option("name", args->name, "1..64 of [a-zA-Z0-9_.-]")->required();
  create->add_option("--query", args->query,
                     "The SELECT; @scheduled_runtime is each run's invocation time");
  create->add_option("--schedule", args->schedule,
                     "rate(5 minutes), rate(1 hour), or cron(0 * * * ? *) (UTC)");
  create->add_option("--database", args->database, "Target database");
  create->add_option("--table", args->table, "Target table (must exist)");
  create->add_option("--time-column", args->time_column, "Result column with the records' time");
  create->add_option("--dimension", args->dimensions, "Result column written as a dimension (repeat)");
  create->add_option("--measure-name", args->measure_name, "The records' measure name");
  create->add_option("--measure-name-column", args->measure_name_column,
                     "Result column holding each record's measure name instead");
  create->add_option("--measure", args->measures,
                     "COLUMN:TYPE[:ATTRIBUTE], a MULTI attribute (double, bigint, varchar, "
                     "boolean, timestamp; repeat)");
  create->add_option("--param", args->params, "NAME=VALUE for @NAME in the query (repeat)");
  create->add_flag("--disabled", args->disabled, "Create it disabled");
  create->add_option("--max-rejected-rows", args->max_rejected_rows,
                     "Rejected rows kept per run (0..1000; 0: 100)");
  create->add_option("--from-json", args->from_json,
                     "A ScheduledQuery message in JSON (scheduled_query.proto) instead of the "
                     "flags, e.g. for mixed measure mappings");
  create->callback([&context, args] {
    v1::CreateScheduledQueryRequest request;
    if (!BuildDefinition(context, *args, request.mutable_scheduled_query())) return;
    v1::CreateScheduledQueryResponse response;
    if (!CallUnary(context, context.connection().scheduled_queries(),
                   &ScheduledQueryStub::CreateScheduledQuery, request, response)) {
      return;
    }
    const v1::ScheduledQuery& q = response.scheduled_query();
    std::cout << "created scheduled query " << q.name() << "; next run at "
              << Time(q.next_invocation_time(), q.has_next_invocation_time()) << "\n";
  });

  auto describe_name = std::make_shared<std::string>();
  auto describe_json = std::make_shared<bool>(false);
  CLI::App* describe = sq->add_subcommand(
      "describe", "Show a scheduled query, its next invocation, last run and recent failures");
  describe->add_option("name", *describe_name)->required();
  describe->add_flag("--json", *describe_json,
                     "The ScheduledQuery message as JSON (what create --from-json takes)");
  describe->callback([&context, describe_name, describe_json] {
    v1::DescribeScheduledQueryRequest request;
    request.set_name(*describe_name);
    v1::DescribeScheduledQueryResponse response;
    if (CallUnary(context, context.connection().scheduled_queries(),
                  &ScheduledQueryStub::DescribeScheduledQuery, request, response)) {
      if (*describe_json) {
        PrintJson(response.scheduled_query());
      } else {
        PrintDescription(response.scheduled_query());
      }
    }
  });

  auto format = std::make_shared<std::string>();
  CLI::App* list = sq->add_subcommand("list", "List scheduled queries");
  AddFormatOption(*list, *format);
  list->callback([&context, format] {
    auto resolved = ResolveFormat(*format);
    if (!resolved) return context.set_exit_code(ExitCode::kUsage);
    std::vector<v1::ScheduledQuery> all;
    v1::ListScheduledQueriesRequest request;
    request.set_max_results(1000);
    do {
      v1::ListScheduledQueriesResponse response;
      if (!CallUnary(context, context.connection().scheduled_queries(),
                     &ScheduledQueryStub::ListScheduledQueries, request, response)) {
        return;
      }
      all.insert(all.end(), response.scheduled_queries().begin(),
                 response.scheduled_queries().end());
      request.set_next_token(response.next_token());
    } while (!request.next_token().empty());
    PrintList(all, *resolved);
  });

  for (const auto& [verb, state] :
       {std::pair{"enable", v1::SCHEDULED_QUERY_STATE_ENABLED},
        std::pair{"disable", v1::SCHEDULED_QUERY_STATE_DISABLED}}) {
    auto name = std::make_shared<std::string>();
    CLI::App* command = sq->add_subcommand(
        verb, state == v1::SCHEDULED_QUERY_STATE_ENABLED
                  ? "Enable a scheduled query (from its next invocation; no catch-up)"
                  : "Disable a scheduled query");
    command->add_option("name", *name)->required();
    // Copies named, not the bindings: clang before 16 cannot capture a structured binding.
    command->callback([&context, name, state = state, verb = verb] {
      v1::UpdateScheduledQueryRequest request;
      request.set_name(*name);
      request.set_state(state);
      v1::UpdateScheduledQueryResponse response;
      if (CallUnary(context, context.connection().scheduled_queries(),
                    &ScheduledQueryStub::UpdateScheduledQuery, request, response)) {
        std::cout << verb << "d scheduled query " << *name << "\n";
      }
    });
  }

  struct DeleteArgs {
    std::string name;
    bool if_exists = false;
  };
  auto delete_args = std::make_shared<DeleteArgs>();
  CLI::App* remove = sq->add_subcommand(
      "delete", "Delete a scheduled query and its run history (not what it wrote)");
  remove->add_option("name", delete_args->name)->required();
  remove->add_flag("--if-exists", delete_args->if_exists, "No error when it does not exist");
  remove->callback([&context, delete_args] {
    v1::DeleteScheduledQueryRequest request;
    request.set_name(delete_args->name);
    v1::DeleteScheduledQueryResponse response;
    bool missing = false;
    if (CallUnary(
            context, context.connection().scheduled_queries(),
            &ScheduledQueryStub::DeleteScheduledQuery, request, response,
            delete_args->if_exists ? std::optional(grpc::StatusCode::NOT_FOUND) : std::nullopt,
            &missing)) {
      std::cout << "deleted scheduled query " << delete_args->name << "\n";
    }
  });

  struct ExecuteArgs {
    std::string name, at;
  };
  auto execute_args = std::make_shared<ExecuteArgs>();
  CLI::App* execute = sq->add_subcommand(
      "execute", "Run a scheduled query now, as if invoked at --at (backfills, re-runs)");
  execute->add_option("name", execute_args->name)->required();
  execute->add_option("--at", execute_args->at,
                      "The invocation time (@scheduled_runtime): ISO 8601, e.g. "
                      "2026-01-01T10:00:00Z, or milliseconds since the epoch")
      ->required();
  execute->callback([&context, execute_args] {
    auto at = ParseRecordTime(execute_args->at, v1::TIME_UNIT_MILLISECONDS);
    if (!at.ok()) {
      Fail(context, "--at: " + std::string(at.status().message()));
      return;
    }
    int64_t nanos = at->value;
    switch (at->unit) {
      case v1::TIME_UNIT_SECONDS: nanos *= 1'000'000'000; break;
      case v1::TIME_UNIT_MICROSECONDS: nanos *= 1'000; break;
      case v1::TIME_UNIT_NANOSECONDS: break;
      default: nanos *= 1'000'000; break;
    }
    v1::ExecuteScheduledQueryRequest request;
    request.set_name(execute_args->name);
    *request.mutable_invocation_time() = TimeUtil::NanosecondsToTimestamp(nanos);
    v1::ExecuteScheduledQueryResponse response;
    if (!CallUnary(context, context.connection().scheduled_queries(),
                   &ScheduledQueryStub::ExecuteScheduledQuery, request, response)) {
      return;
    }
    PrintRun(response.run());
    if (response.run().run_status() == v1::MANUAL_TRIGGER_FAILURE) {
      context.set_exit_code(ExitCode::kRequestFailed);
    }
  });
}

}  // namespace strata::cli
