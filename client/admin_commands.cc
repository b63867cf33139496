// `strata db ...` and `strata table ...`: the catalog RPCs, one subcommand each.
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "client/command.h"
#include "client/listing.h"
#include "client/text_values.h"

namespace strata::cli {
namespace {

// The defaults of RetentionProperties (catalog.proto).
constexpr int64_t kDefaultMemoryHours = 6;
constexpr int64_t kDefaultMagneticDays = 73000;

using CatalogStub = v1::CatalogService::Stub;
template <typename Request, typename Response>
using CatalogMethod = grpc::Status (CatalogStub::*)(grpc::ClientContext*, const Request&,
                                                    Response*);

template <typename Request, typename Response>
bool Call(CommandContext& context, CatalogMethod<Request, Response> method,
          const Request& request, Response& response,
          std::optional<grpc::StatusCode> tolerated = std::nullopt, bool* tolerated_hit = nullptr) {
  return CallUnary(context, context.connection().catalog(), method, request, response, tolerated,
                   tolerated_hit);
}

// --if-not-exists on create, --if-exists on delete: the status that is then no error.
std::optional<grpc::StatusCode> Tolerate(bool flag, grpc::StatusCode code) {
  return flag ? std::optional(code) : std::nullopt;
}

// Follows next_token until the list ends; nullopt after a failed call.
template <typename Item, typename Request, typename Response, typename Items>
std::optional<std::vector<Item>> ListAll(CommandContext& context,
                                         CatalogMethod<Request, Response> method,
                                         Request request, Items items) {
  std::vector<Item> all;
  request.set_max_results(1000);
  do {
    Response response;
    if (!Call(context, method, request, response)) return std::nullopt;
    all.insert(all.end(), items(response).begin(), items(response).end());
    request.set_next_token(response.next_token());
  } while (!request.next_token().empty());
  return all;
}

bool Fail(CommandContext& context, const absl::Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  context.set_exit_code(ExitCode::kUsage);
  return false;
}

std::string PartitionKeyText(const v1::Schema& schema) {
  if (schema.composite_partition_key().empty()) return "measure_name";
  const v1::PartitionKey& key = schema.composite_partition_key(0);
  if (key.type() != v1::PARTITION_KEY_TYPE_DIMENSION) return "measure_name";
  return absl::StrCat("dimension ", key.name(),
                      key.enforcement_in_record() == v1::PARTITION_KEY_ENFORCEMENT_REQUIRED
                          ? " (required)"
                          : " (optional)");
}

void PrintDatabases(const std::vector<v1::Database>& databases, OutputFormat format) {
  Listing listing({{"database", v1::SCALAR_TYPE_VARCHAR},
                   {"tables", v1::SCALAR_TYPE_BIGINT},
                   {"description", v1::SCALAR_TYPE_VARCHAR},
                   {"created", v1::SCALAR_TYPE_TIMESTAMP},
                   {"updated", v1::SCALAR_TYPE_TIMESTAMP}});
  for (const auto& db : databases) {
    listing.AddRow({Listing::Text(db.database_name()), Listing::Int(db.table_count()),
                    Listing::Text(db.description()), Listing::Time(db.creation_time()),
                    Listing::Time(db.last_updated_time())});
  }
  listing.Print(format, std::cout);
}

void PrintTables(const std::vector<v1::Table>& tables, OutputFormat format) {
  Listing listing({{"database", v1::SCALAR_TYPE_VARCHAR},
                   {"table", v1::SCALAR_TYPE_VARCHAR},
                   {"memory_retention_hours", v1::SCALAR_TYPE_BIGINT},
                   {"magnetic_retention_days", v1::SCALAR_TYPE_BIGINT},
                   {"magnetic_writes", v1::SCALAR_TYPE_BOOLEAN},
                   {"partition_key", v1::SCALAR_TYPE_VARCHAR},
                   {"created", v1::SCALAR_TYPE_TIMESTAMP},
                   {"updated", v1::SCALAR_TYPE_TIMESTAMP}});
  for (const auto& t : tables) {
    listing.AddRow({Listing::Text(t.database_name()), Listing::Text(t.table_name()),
                    Listing::Int(t.retention_properties().memory_store_retention_hours()),
                    Listing::Int(t.retention_properties().magnetic_store_retention_days()),
                    Listing::Bool(t.magnetic_store_write_properties().enable_magnetic_store_writes()),
                    Listing::Text(PartitionKeyText(t.schema())), Listing::Time(t.creation_time()),
                    Listing::Time(t.last_updated_time())});
  }
  listing.Print(format, std::cout);
}

// Where a table's data lives: one row per tier, then what the last
// maintenance run did (docs/cli.md).
void PrintStorage(const v1::TableStorage& s, OutputFormat format) {
  Listing listing({{"tier", v1::SCALAR_TYPE_VARCHAR},
                   {"bytes", v1::SCALAR_TYPE_BIGINT},
                   {"entries", v1::SCALAR_TYPE_BIGINT}});
  listing.AddRow({Listing::Text("memory-store rows (unsealed hours)"), Listing::Int(s.memory_store().bytes()),
                  Listing::Int(s.memory_store().entries())});
  listing.AddRow({Listing::Text("blocks (sealed and magnetic hours)"),
                  Listing::Int(s.magnetic_store().bytes()),
                  Listing::Int(s.magnetic_store().entries())});
  listing.AddRow({Listing::Text("late writes and block updates (rows)"),
                  Listing::Int(s.magnetic_late_writes().bytes()),
                  Listing::Int(s.magnetic_late_writes().entries())});
  listing.Print(format, std::cout);
  Listing jobs({{"last_maintenance", v1::SCALAR_TYPE_TIMESTAMP},
                {"rows_tiered", v1::SCALAR_TYPE_BIGINT},
                {"late_writes_merged", v1::SCALAR_TYPE_BIGINT},
                {"rows_expired", v1::SCALAR_TYPE_BIGINT},
                {"rows_tiered_total", v1::SCALAR_TYPE_BIGINT},
                {"rows_expired_total", v1::SCALAR_TYPE_BIGINT}});
  jobs.AddRow({s.has_last_maintenance_time() ? Listing::Time(s.last_maintenance_time())
                                             : v1::Datum(),
               Listing::Int(s.last_rows_tiered()), Listing::Int(s.last_late_writes_merged()),
               Listing::Int(s.last_rows_expired()), Listing::Int(s.rows_tiered_total()),
               Listing::Int(s.rows_expired_total())});
  jobs.Print(format, std::cout);
}

// The retention / magnetic-write / partition-key flags shared by create and update.
struct TableFlags {
  std::string memory;
  std::string magnetic;
  std::string magnetic_writes;  // create: flag; update: true|false
  std::string partition_key;    // "measure" | "dimension:NAME"
  std::string enforcement;      // "required" | "optional"

  void AddRetention(CLI::App& command) {
    command.add_option("--memory", memory,
                       "Memory store retention, e.g. 12h or 2d (1h..1y; default 6h)");
    command.add_option("--magnetic", magnetic,
                       "Magnetic store retention, e.g. 365d or 10y (1d..200y; default 200y)");
    command.add_option("--magnetic-writes", magnetic_writes,
                       "Accept records older than the memory retention: true or false");
    command.add_option("--partition-key-enforcement", enforcement,
                       "For a dimension partition key: required or optional");
  }

  bool gives_retention() const { return !memory.empty() || !magnetic.empty(); }
  bool gives_magnetic_writes() const { return !magnetic_writes.empty(); }
  bool gives_schema() const { return !partition_key.empty() || !enforcement.empty(); }

  // Fills a Create- or UpdateTableRequest from the flags that were given;
  // the parts no flag names stay unset.
  template <typename Request>
  absl::Status ApplyTo(Request& request) const {
    if (!memory.empty()) {
      auto hours = ParseDurationHours(memory);
      if (!hours.ok()) return hours.status();
      request.mutable_retention_properties()->set_memory_store_retention_hours(*hours);
    }
    if (!magnetic.empty()) {
      auto days = ParseDurationDays(magnetic);
      if (!days.ok()) return days.status();
      request.mutable_retention_properties()->set_magnetic_store_retention_days(*days);
    }
    if (gives_magnetic_writes()) {
      std::string value = absl::AsciiStrToLower(magnetic_writes);
      if (value != "true" && value != "false") {
        return absl::InvalidArgumentError("--magnetic-writes takes true or false");
      }
      request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(
          value == "true");
    }
    if (gives_schema()) {
      v1::PartitionKey* key = request.mutable_schema()->add_composite_partition_key();
      if (partition_key.empty() || partition_key == "measure" || partition_key == "measure_name") {
        key->set_type(v1::PARTITION_KEY_TYPE_MEASURE);
      } else if (partition_key.rfind("dimension:", 0) == 0 && partition_key.size() > 10) {
        key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
        key->set_name(partition_key.substr(10));
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "invalid --partition-key \"", partition_key, "\": use measure or dimension:NAME"));
      }
      if (enforcement == "required") {
        key->set_enforcement_in_record(v1::PARTITION_KEY_ENFORCEMENT_REQUIRED);
      } else if (enforcement == "optional") {
        key->set_enforcement_in_record(v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL);
      } else if (!enforcement.empty()) {
        return absl::InvalidArgumentError("--partition-key-enforcement takes required or optional");
      }
    }
    return absl::OkStatus();
  }
};

struct DatabaseArgs {
  std::string name;
  std::string description;
  std::string format;
  bool if_not_exists = false;
  bool if_exists = false;
};

struct TableArgs {
  std::string database;
  std::string table;
  std::string format;
  bool storage = false;
  bool if_not_exists = false;
  bool if_exists = false;
  TableFlags flags;
};

}  // namespace

void AddDatabaseCommands(CLI::App& app, CommandContext& context) {
  CLI::App* db = app.add_subcommand("db", "Create, list, describe, update and delete databases");
  db->require_subcommand(1);
  auto args = std::make_shared<DatabaseArgs>();

  CLI::App* create = db->add_subcommand("create", "Create a database");
  create->add_option("name", args->name, "Database name (3..256 of a-z A-Z 0-9 _ . -)")->required();
  create->add_option("--description", args->description, "Free text, up to 2048 bytes");
  create->add_flag("--if-not-exists", args->if_not_exists, "An existing database is no error");
  create->callback([&context, args] {
    v1::CreateDatabaseRequest request;
    request.set_database_name(args->name);
    request.set_description(args->description);
    v1::CreateDatabaseResponse response;
    bool existed = false;
    if (Call(context, &CatalogStub::CreateDatabase, request, response,
             Tolerate(args->if_not_exists, grpc::StatusCode::ALREADY_EXISTS), &existed)) {
      std::cout << "created database " << response.database().database_name() << "\n";
    } else if (existed) {
      std::cout << "database " << args->name << " exists already\n";
    }
  });

  CLI::App* list = db->add_subcommand("list", "List databases");
  AddFormatOption(*list, args->format);
  list->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    auto databases = ListAll<v1::Database>(
        context, &CatalogStub::ListDatabases, v1::ListDatabasesRequest(),
        [](const v1::ListDatabasesResponse& r) -> const auto& { return r.databases(); });
    if (!databases) return;
    PrintDatabases(*databases, *format);
  });

  CLI::App* describe = db->add_subcommand("describe", "Show one database");
  describe->add_option("name", args->name, "Database name")->required();
  AddFormatOption(*describe, args->format);
  describe->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    v1::DescribeDatabaseRequest request;
    request.set_database_name(args->name);
    v1::DescribeDatabaseResponse response;
    if (Call(context, &CatalogStub::DescribeDatabase, request, response)) {
      PrintDatabases({response.database()}, *format);
    }
  });

  CLI::App* update = db->add_subcommand("update", "Change a database's description");
  update->add_option("name", args->name, "Database name")->required();
  update->add_option("--description", args->description, "The new description")->required();
  update->callback([&context, args] {
    v1::UpdateDatabaseRequest request;
    request.set_database_name(args->name);
    request.set_description(args->description);
    v1::UpdateDatabaseResponse response;
    if (Call(context, &CatalogStub::UpdateDatabase, request, response)) {
      std::cout << "updated database " << args->name << "\n";
    }
  });

  CLI::App* remove = db->add_subcommand("delete", "Delete an empty database");
  remove->add_option("name", args->name, "Database name")->required();
  remove->add_flag("--if-exists", args->if_exists, "A missing database is no error");
  remove->callback([&context, args] {
    v1::DeleteDatabaseRequest request;
    request.set_database_name(args->name);
    v1::DeleteDatabaseResponse response;
    bool missing = false;
    if (Call(context, &CatalogStub::DeleteDatabase, request, response,
             Tolerate(args->if_exists, grpc::StatusCode::NOT_FOUND), &missing)) {
      std::cout << "deleted database " << args->name << "\n";
    } else if (missing) {
      std::cout << "database " << args->name << " does not exist\n";
    }
  });
}

void AddTableCommands(CLI::App& app, CommandContext& context) {
  CLI::App* table = app.add_subcommand("table", "Create, list, describe, update and delete tables");
  table->require_subcommand(1);
  auto args = std::make_shared<TableArgs>();
  auto add_names = [&](CLI::App* command) {
    command->add_option("database", args->database, "Database name")->required();
    command->add_option("table", args->table, "Table name")->required();
  };

  CLI::App* create = table->add_subcommand("create", "Create a table");
  add_names(create);
  args->flags.AddRetention(*create);
  create->add_option("--partition-key", args->flags.partition_key,
                     "measure (default) or dimension:NAME; fixed once created");
  create->add_flag("--if-not-exists", args->if_not_exists,
                   "An existing table is no error (its properties are left as they are)");
  create->callback([&context, args] {
    v1::CreateTableRequest request;
    request.set_database_name(args->database);
    request.set_table_name(args->table);
    if (absl::Status flags = args->flags.ApplyTo(request); !flags.ok()) {
      return (void)Fail(context, flags);
    }
    // Unset parts take the server's defaults. The server reads retention
    // whole (as Timestream does), so a retention given alone gets the
    // other's default (catalog.proto).
    if (args->flags.gives_retention()) {
      auto* retention = request.mutable_retention_properties();
      if (args->flags.memory.empty()) {
        retention->set_memory_store_retention_hours(kDefaultMemoryHours);
      }
      if (args->flags.magnetic.empty()) {
        retention->set_magnetic_store_retention_days(kDefaultMagneticDays);
      }
    }
    v1::CreateTableResponse response;
    bool existed = false;
    if (Call(context, &CatalogStub::CreateTable, request, response,
             Tolerate(args->if_not_exists, grpc::StatusCode::ALREADY_EXISTS), &existed)) {
      const auto& retention = response.table().retention_properties();
      std::cout << "created table " << args->database << "." << args->table << " (memory "
                << retention.memory_store_retention_hours() << "h, magnetic "
                << retention.magnetic_store_retention_days() << "d)\n";
    } else if (existed) {
      std::cout << "table " << args->database << "." << args->table << " exists already\n";
    }
  });

  CLI::App* list = table->add_subcommand("list", "List tables (of one database, or of all)");
  list->add_option("database", args->database, "Database name (default: every database)");
  AddFormatOption(*list, args->format);
  list->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    v1::ListTablesRequest request;
    request.set_database_name(args->database);
    auto tables = ListAll<v1::Table>(
        context, &CatalogStub::ListTables, request,
        [](const v1::ListTablesResponse& r) -> const auto& { return r.tables(); });
    if (!tables) return;
    PrintTables(*tables, *format);
  });

  CLI::App* describe = table->add_subcommand("describe", "Show one table");
  add_names(describe);
  AddFormatOption(*describe, args->format);
  describe->add_flag("--storage", args->storage,
                     "Show bytes and entries per tier and the last tiering/retention run");
  describe->callback([&context, args] {
    auto format = ResolveFormat(args->format);
    if (!format) return context.set_exit_code(ExitCode::kUsage);
    v1::DescribeTableRequest request;
    request.set_database_name(args->database);
    request.set_table_name(args->table);
    v1::DescribeTableResponse response;
    if (!Call(context, &CatalogStub::DescribeTable, request, response)) return;
    if (args->storage) {
      PrintStorage(response.storage(), *format);
    } else {
      PrintTables({response.table()}, *format);
    }
  });

  CLI::App* update = table->add_subcommand(
      "update", "Change retention, magnetic writes or partition-key enforcement");
  add_names(update);
  args->flags.AddRetention(*update);
  update->callback([&context, args] {
    v1::UpdateTableRequest request;
    request.set_database_name(args->database);
    request.set_table_name(args->table);
    if (absl::Status flags = args->flags.ApplyTo(request); !flags.ok()) {
      return (void)Fail(context, flags);
    }
    const bool set_retention = args->flags.gives_retention();
    const bool set_schema = args->flags.gives_schema();
    if (!set_retention && !set_schema && !args->flags.gives_magnetic_writes()) {
      return (void)Fail(context, absl::InvalidArgumentError(
                                     "nothing to update: give --memory, --magnetic, "
                                     "--magnetic-writes or --partition-key-enforcement"));
    }
    const bool partial_retention = set_retention && (args->flags.memory.empty() ||
                                                      args->flags.magnetic.empty());
    const bool enforcement_only = set_schema && args->flags.partition_key.empty();
    v1::DescribeTableResponse current;
    if (partial_retention || enforcement_only) {
      // The server replaces retention and schema whole: start from what is there.
      v1::DescribeTableRequest describe;
      describe.set_database_name(args->database);
      describe.set_table_name(args->table);
      if (!Call(context, &CatalogStub::DescribeTable, describe, current)) {
        return;
      }
    }
    if (partial_retention) {
      const auto& was = current.table().retention_properties();
      auto* retention = request.mutable_retention_properties();
      if (args->flags.memory.empty()) {
        retention->set_memory_store_retention_hours(was.memory_store_retention_hours());
      }
      if (args->flags.magnetic.empty()) {
        retention->set_magnetic_store_retention_days(was.magnetic_store_retention_days());
      }
    }
    if (enforcement_only) {
      auto enforcement = request.schema().composite_partition_key(0).enforcement_in_record();
      *request.mutable_schema() = current.table().schema();
      if (request.schema().composite_partition_key().empty()) {
        return (void)Fail(context, absl::InvalidArgumentError(
                                       "--partition-key-enforcement applies to a table "
                                       "partitioned by a dimension; this one uses measure_name"));
      }
      request.mutable_schema()->mutable_composite_partition_key(0)->set_enforcement_in_record(
          enforcement);
    }
    v1::UpdateTableResponse response;
    if (Call(context, &CatalogStub::UpdateTable, request, response)) {
      std::cout << "updated table " << args->database << "." << args->table << "\n";
    }
  });

  CLI::App* remove = table->add_subcommand("delete", "Delete a table and all its data");
  add_names(remove);
  remove->add_flag("--if-exists", args->if_exists, "A missing table is no error");
  remove->callback([&context, args] {
    v1::DeleteTableRequest request;
    request.set_database_name(args->database);
    request.set_table_name(args->table);
    v1::DeleteTableResponse response;
    bool missing = false;
    if (Call(context, &CatalogStub::DeleteTable, request, response,
             Tolerate(args->if_exists, grpc::StatusCode::NOT_FOUND), &missing)) {
      std::cout << "deleted table " << args->database << "." << args->table << "\n";
    } else if (missing) {
      std::cout << "table " << args->database << "." << args->table << " does not exist\n";
    }
  });
}

}  // namespace strata::cli
