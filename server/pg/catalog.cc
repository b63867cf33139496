#include "server/pg/catalog.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "common/byte_size_text.h"
#include "common/sql_quoting.h"
#include "common/strings.h"
#include "common/version.h"
#include "query/exec/pg_catalog.h"
#include "query/functions/functions.h"
#include "re2/re2.h"
#include "server/pg/time_zone_setting.h"
#include "server/pg/types.h"

namespace strata::pg {
namespace {

using query::DataType;
using query::Datum;
using query::ResultColumn;
using query::Row;

// Session settings kept (any name is accepted, as drivers set parameters
// Strata does not use): so many, of at most this much each, that SET in a
// loop cannot grow a session without bound.
constexpr size_t kMaxSettings = 256;
constexpr size_t kMaxSettingBytes = 8 << 10;
// A parameter's name in SET, RESET and SHOW: PostgreSQL's identifiers, dotted
// for custom ones (`my.s0`).
constexpr std::string_view kParameter = R"([a-z_][a-z0-9_$]*(?:\.[a-z_][a-z0-9_$]*)*)";

// Lower case (unless not `fold`), runs of whitespace as one space, no trailing semicolon: the
// same length either way, so a part found in the folded text is at the same place unfolded.
std::string Normalize(std::string_view sql, bool fold = true) {
  std::string out;
  bool space = false;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(fold ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c);
  }
  while (!out.empty() && (out.back() == ';' || out.back() == ' ')) out.pop_back();
  return out;
}

// A call of one of the engine's functions whose names start with pg_, or of one it refuses
// saying what to write instead (query/functions), or of any of them (and version()) by its
// pg_catalog name, as a pattern over a statement's lower-cased words:
// `\b(pg_catalog\.(lower|...|version)|pg_size_pretty|pg_typeof|...) ?\(`.
std::string EngineFunctionCalls() {
  std::vector<std::string> qualified = {"version"};
  for (std::string_view name : query::FunctionRegistry::Get().Names()) {
    qualified.emplace_back(name);
  }
  std::vector<std::string> calls = {StrCat("pg_catalog\\.(", absl::StrJoin(qualified, "|"), ")")};
  for (std::string_view name : query::FunctionRegistry::Get().Names()) {
    if (name.starts_with("pg_")) calls.emplace_back(name);
  }
  for (const query::RefusedFunction& refused : query::RefusedFunctions()) {
    if (refused.name.starts_with("pg_")) calls.emplace_back(refused.name);
  }
  return StrCat("\\b(", absl::StrJoin(calls, "|"), ") ?\\(");
}

// The engine's pg_catalog tables (query/exec/pg_catalog.h), by either name, as a pattern over
// a statement's lower-cased words: `\b(pg_catalog\.)?(pg_attribute|pg_class|...)\b`.
std::string EngineCatalogTables() {
  return StrCat("\\b(pg_catalog\\.)?(", absl::StrJoin(query::PgCatalogTables(), "|"), ")\\b");
}

// `text` with what its quotes hold ('...' and "...") left out, the quotes kept: what is
// left are the statement's own words.
std::string WithoutQuotedText(std::string_view text) {
  std::string out;
  char quote = 0;  // the quote the text is inside, or 0
  for (char c : text) {
    if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
      out.push_back(c);
    } else if (c == quote) {
      quote = 0;  // a doubled quote closes and opens again
      out.push_back(c);
    } else if (quote == 0) {
      out.push_back(c);
    }
  }
  return out;
}

// The text of the SQL string literal starting at `pos` ('' is a quote).
std::string StringLiteralAt(std::string_view sql, size_t pos) {
  std::string out;
  for (size_t i = pos + 1; i < sql.size(); ++i) {
    if (sql[i] == '\'') {
      if (i + 1 < sql.size() && sql[i + 1] == '\'') {
        out.push_back('\'');
        ++i;
        continue;
      }
      break;
    }
    out.push_back(sql[i]);
  }
  return out;
}

// The literal after the first case-insensitive occurrence of `prefix`
// (which ends just before its opening quote); nullopt when absent.
std::optional<std::string> LiteralAfter(std::string_view sql, std::string_view prefix) {
  // Search the original text (quoted names keep their case).
  for (size_t i = 0; i + prefix.size() <= sql.size(); ++i) {
    bool match = true;
    for (size_t j = 0; j < prefix.size() && match; ++j) {
      match = std::tolower(static_cast<unsigned char>(sql[i + j])) == prefix[j];
    }
    if (!match) continue;
    size_t quote = i + prefix.size();
    while (quote < sql.size() && sql[quote] == ' ') ++quote;
    if (quote < sql.size() && sql[quote] == '\'') return StringLiteralAt(sql, quote);
  }
  return std::nullopt;
}

// psql's name patterns: `c.relname OPERATOR(pg_catalog.~) '^(cpu)$'`.
std::optional<std::string> PsqlPattern(std::string_view sql, std::string_view column) {
  return LiteralAfter(sql, StrCat(column, " operator(pg_catalog.~) "));
}

bool MatchesPattern(const std::optional<std::string>& pattern, const std::string& name) {
  if (!pattern) return true;
  RE2 re(*pattern);
  return re.ok() && RE2::PartialMatch(name, re);
}

ResultColumn Text(std::string name) { return {std::move(name), DataType::kVarchar}; }

// The column names of a statement's select list, as PostgreSQL names them: an item's alias (AS
// "Name" keeps its case, AS name and a bare name are lower case), else the last name of a
// column reference (e.extversion is extversion) or the function called (count(*) is count),
// else ?column?; each as text. A catalog probe answered with no rows keeps the columns it asked
// for (psql prints their heads: \dx, \dT). None for a statement that does not start with
// SELECT.
std::vector<ResultColumn> SelectListColumns(std::string_view sql) {
  auto starts_word = [](std::string_view text, size_t at, std::string_view word) {
    if (text.size() - at < word.size()) return false;
    for (size_t j = 0; j < word.size(); ++j) {
      if (std::tolower(static_cast<unsigned char>(text[at + j])) != word[j]) return false;
    }
    return at + word.size() == text.size() ||
           !std::isalnum(static_cast<unsigned char>(text[at + word.size()]));
  };
  size_t start = 0;
  while (start < sql.size() && std::isspace(static_cast<unsigned char>(sql[start]))) ++start;
  if (!starts_word(sql, start, "select")) return {};
  const std::string_view rest = sql.substr(start + 6);
  std::vector<std::string> items(1);
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (depth == 0 && c == ',') {
      items.emplace_back();
      continue;
    } else if (depth == 0 && std::isspace(static_cast<unsigned char>(rest[i == 0 ? 0 : i - 1])) &&
               starts_word(rest, i, "from")) {
      break;
    }
    items.back().push_back(c);
  }
  static const RE2 kDistinct(R"((?is)\s*distinct\s+(.*))");
  RE2::FullMatch(items[0], kDistinct, &items[0]);
  static const RE2 kQuotedAlias(R"re((?is).*(?:\bas\s+|\s)"([^"]+)"\s*)re");
  static const RE2 kAlias(R"((?is).*\bas\s+([a-z_][a-z0-9_$]*)\s*)");
  static const RE2 kColumn(R"((?is)\s*(?:[a-z_][a-z0-9_$]*\.)*([a-z_][a-z0-9_$]*)\s*)");
  static const RE2 kCall(R"((?is)\s*(?:[a-z_][a-z0-9_$]*\.)?([a-z_][a-z0-9_$]*)\s*\(.*\)\s*)");
  std::vector<ResultColumn> columns;
  for (const std::string& item : items) {
    std::string name;
    if (RE2::FullMatch(item, kQuotedAlias, &name)) {
      columns.push_back(Text(name));
    } else if (RE2::FullMatch(item, kAlias, &name) || RE2::FullMatch(item, kColumn, &name) ||
               RE2::FullMatch(item, kCall, &name)) {
      columns.push_back(Text(absl::AsciiStrToLower(name)));
    } else {
      columns.push_back(Text("?column?"));
    }
  }
  return columns;
}
ResultColumn Int(std::string name) { return {std::move(name), DataType::kBigint}; }
ResultColumn Bool(std::string name) { return {std::move(name), DataType::kBoolean}; }
Datum T(std::string_view v) { return Datum::Varchar(std::string(v)); }

CannedResult Command(std::string tag) { return {.tag = std::move(tag)}; }

CannedResult OneValue(std::string column, std::string value) {
  return {.columns = {Text(std::move(column))}, .rows = {{T(value)}}};
}

}  // namespace

std::map<std::string, std::string> DefaultSettings() {
  return {{"server_version", "15.0"},
          {"server_version_num", "150000"},
          {"server_encoding", "UTF8"},
          {"client_encoding", "UTF8"},
          {"datestyle", "ISO, MDY"},
          {"intervalstyle", "postgres"},
          {"timezone", "UTC"},
          {"integer_datetimes", "on"},
          {"standard_conforming_strings", "on"},
          {"is_superuser", "off"},
          {"search_path", "\"$user\", public"},
          {"application_name", ""},
          {"extra_float_digits", "1"},
          {"max_identifier_length", "63"},
          {"transaction_isolation", "read committed"},
          {"default_transaction_read_only", "off"},
          {"statement_timeout", "0"},
          {"lc_messages", "C"}};
}

void CatalogAnswers::CatchUpOnce() const {
  if (caught_up_ || !catch_up_) return;
  caught_up_ = true;
  catch_up_();
}

std::vector<CatalogAnswers::TableRef> CatalogAnswers::Tables() const {
  CatchUpOnce();
  std::vector<TableRef> out;
  for (const auto& t : catalog_.AllTables()) {
    if (caller_.MaySee(t->database_name, t->name)) out.push_back({t->database_name, t->name, t->id});
  }
  std::sort(out.begin(), out.end(), [](const TableRef& a, const TableRef& b) {
    return std::tie(a.database, a.table) < std::tie(b.database, b.table);
  });
  return out;
}

std::vector<std::string> CatalogAnswers::Databases() const {
  CatchUpOnce();
  std::vector<std::string> out;
  std::string token;
  do {
    auto page = catalog_.ListDatabases(kMaxPageSize, token);
    if (!page.ok()) break;
    for (const DatabaseInfo& db : page->items) {
      if (caller_.MaySee(db.name)) out.push_back(db.name);
    }
    token = page->next_token;
  } while (!token.empty());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<CatalogAnswers::TableRef> CatalogAnswers::TableByOid(int64_t oid) const {
  for (const TableRef& t : Tables()) {
    if (query::PgTableOid(t.id) == oid) return t;
  }
  return std::nullopt;
}

std::optional<absl::StatusOr<CannedResult>> CatalogAnswers::Answer(
    std::string_view sql, std::map<std::string, std::string>& settings) {
  const std::string text = Normalize(sql);
  static const RE2 kTransaction(
      R"((begin|start transaction|commit|end|rollback|abort)( (transaction|work).*)?( isolation level .*| read (only|write))*)");
  std::string word;
  if (RE2::FullMatch(text, kTransaction, &word)) {
    if (word == "begin" || word == "start transaction") return Command("BEGIN");
    if (word == "commit" || word == "end") return Command("COMMIT");
    return Command("ROLLBACK");
  }
  static const RE2 kSet(StrCat("set (?:session |local )?(", kParameter, ")(?: to | ?= ?)(.+)"));
  static const RE2 kSetTimeZone(R"(set (?:session |local )?time zone (.+))");
  std::string name, value;
  if (RE2::FullMatch(text, kSet, &name, &value) ||
      (RE2::FullMatch(text, kSetTimeZone, &value) && (name = "timezone", true))) {
    // A quoted value keeps its case (SET application_name = 'MyApp'), as PostgreSQL's does; a
    // bare one is an identifier, folded.
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      const std::string kept = Normalize(sql, false);
      value = kept.substr(kept.size() - value.size() + 1, value.size() - 2);
    }
    if (value.size() > kMaxSettingBytes) {
      return absl::StatusOr<CannedResult>(absl::InvalidArgumentError(
          StrCat("the value for \"", name, "\" is ", value.size(), " bytes; the limit is ",
                 kMaxSettingBytes, " bytes")));
    }
    if (name == "timezone") {  // checked and named as the engine reads it
      std::optional<std::string> zone = ZoneForSetting(value);
      if (!zone) {
        return absl::StatusOr<CannedResult>(absl::InvalidArgumentError(InvalidZoneMessage(value)));
      }
      value = *std::move(zone);
    }
    if (settings.size() >= kMaxSettings && !settings.contains(name)) {
      return absl::StatusOr<CannedResult>(absl::ResourceExhaustedError(
          StrCat("this session has ", settings.size(), " settings, the most it may keep; "
                 "RESET one first")));
    }
    settings[name] = value;
    return Command("SET");
  }
  if (text.rfind("set ", 0) == 0) return Command("SET");
  // Prepared statements are the protocol's (Parse / Close); the SQL forms that
  // drivers send to drop them all (psycopg after a rollback, poolers) are
  // answered here and acted on by the session.
  if (text.rfind("deallocate ", 0) == 0) return Command("DEALLOCATE");
  if (text == "discard all") return Command("DISCARD ALL");  // SET TRANSACTION ..., SET SESSION CHARACTERISTICS
  static const RE2 kReset(StrCat("reset (all|", kParameter, ")"));
  if (RE2::FullMatch(text, kReset, &name)) {
    const auto defaults = DefaultSettings();
    if (name == "all") {
      settings = defaults;
    } else if (auto it = defaults.find(name); it != defaults.end()) {
      settings[name] = it->second;
    } else {
      settings.erase(name);  // one without a default is gone (SHOW: unrecognized)
    }
    return Command("RESET");
  }
  static const RE2 kShow(StrCat("show (", kParameter, "|transaction isolation level)"));
  if (RE2::FullMatch(text, kShow, &name)) {
    if (name == "transaction isolation level") name = "transaction_isolation";
    auto it = settings.find(name);
    if (it == settings.end() && (name == "databases" || name == "tables" ||
                                 name == "measures" || name == "queries")) {
      return std::nullopt;  // Strata's own SHOW (query/parse/parser.cc), for the engine
    }
    if (it == settings.end()) {
      return absl::StatusOr<CannedResult>(absl::NotFoundError(
          StrCat("unrecognized configuration parameter \"", name, "\"")));
    }
    return OneValue(name, it->second);
  }
  if (text == "select version()" || text == "select pg_catalog.version()") {
    return OneValue("version", std::string(VersionText()));
  }
  static const RE2 kCurrentSetting(
      R"re(select (?:pg_catalog\.)?current_setting\('([a-z_]+)'\)(::int(?:eger)?)?( ?/ ?100)?(?: as "?([a-z_]+)"?)?)re");
  std::string as_int, divided, alias;
  if (RE2::FullMatch(text, kCurrentSetting, &name, &as_int, &divided, &alias)) {
    auto it = settings.find(name);
    if (it == settings.end()) {
      return absl::StatusOr<CannedResult>(absl::NotFoundError(
          StrCat("unrecognized configuration parameter \"", name, "\"")));
    }
    const std::string column = alias.empty() ? "current_setting" : alias;
    if (as_int.empty()) return OneValue(column, it->second);
    int64_t number = std::atoll(it->second.c_str());
    if (!divided.empty()) number /= 100;
    return CannedResult{.columns = {Int(column)}, .rows = {{Datum::Bigint(number)}}};
  }
  // The session's server process, as tools ask (pgAdmin leaves its own session out of its
  // activity lists by it; the same number as the BackendKeyData a cancel names), and whether
  // the server is a read-only standby: none is (every node of a cluster takes writes).
  static const RE2 kSessionProbe(
      R"re(select (?:pg_catalog\.)?(pg_backend_pid|pg_is_in_recovery)\(\)(?: as "?([a-z_]+)"?)?)re");
  if (RE2::FullMatch(text, kSessionProbe, &name, &alias)) {
    const std::string column = alias.empty() ? name : alias;
    if (name == "pg_is_in_recovery") {
      return CannedResult{.columns = {{column, DataType::kBoolean}},
                          .rows = {{Datum::Bool(false)}}};
    }
    return CannedResult{.columns = {Int(column)}, .rows = {{Datum::Bigint(backend_pid_)}}};
  }
  // current_user, current_database() and the like are the engine's (query/parse/parser.cc);
  // PostgreSQL's bare `user` is not, as it is a common column name.
  if (text == "select user") {
    return OneValue("user", caller_.name().empty() ? "strata" : caller_.name());
  }
  if (Contains(text, "from pg_extension") || Contains(text, "from pg_catalog.pg_extension")) {
    return CannedResult{.columns = SelectListColumns(sql)};  // none installed (\dx)
  }
  // Grafana's table and column pickers test each schema against the session's
  // search_path (generate_series over string_to_array(current_setting(...)));
  // Strata has no search path, so those two statements are answered here.
  const bool search_path = Contains(text, "current_setting('search_path')");
  if (search_path && Contains(text, "from information_schema.tables")) return GrafanaTables(sql);
  if (search_path && Contains(text, "from information_schema.columns")) return GrafanaColumns(sql);
  // Any other statement over the engine's information_schema tables
  // (query/exec/information_schema.h) is the engine's.
  static const RE2 kInformationSchema(R"(\binformation_schema\.(schemata|tables|columns)\b)");
  if (RE2::PartialMatch(text, kInformationSchema)) return std::nullopt;
  if (Contains(text, "from pg_catalog.pg_namespace n") && Contains(text, "as \"name\"")) {
    return PsqlSchemas(sql);
  }
  if (Contains(text, "from pg_catalog.pg_database d") && Contains(text, "as \"name\"")) {
    return PsqlDatabases();
  }
  if (Contains(text, "from pg_catalog.pg_roles r") && Contains(text, "r.rolsuper")) {
    return PsqlRoles(sql);
  }
  // (\dT reads pg_class in a subquery of its pg_type's WHERE: no relation list.)
  if (Contains(text, "from pg_catalog.pg_class c") &&
      !Contains(text, "from pg_catalog.pg_type t")) {
    if (Contains(text, "(c.relname) like ")) return PsqlCompletion(sql);
    if (Contains(text, "as \"schema\"") && Contains(text, "as \"name\"")) return PsqlRelations(sql);
    if (Contains(text, "c.relchecks")) return PsqlRelationDetails(sql);
    if (Contains(text, "select c.oid, n.nspname, c.relname")) return PsqlFindRelation(sql);
  }
  if (Contains(text, "from pg_catalog.pg_attribute a") && Contains(text, "a.attrelid = '")) {
    return PsqlAttributes(sql);
  }
  // SQLAlchemy's reflection of a table's columns (Inspector.get_columns, Table(autoload_with=),
  // pandas' to_sql): correlated subqueries of defaults and identity sequences Strata has not.
  if (Contains(text, "from pg_catalog.pg_attribute a") && Contains(text, "as identity_options")) {
    return SqlAlchemyColumns(sql);
  }
  // Another tool's probe of a catalog the engine does not have: an empty answer rather than
  // a failure. Those the engine has (query/exec/pg_catalog.h) it answers.
  if (ProbesUnknownCatalog(text)) return EmptyAnswer(sql);
  return std::nullopt;
}

bool CatalogAnswers::ReadsCatalog(std::string_view sql) {
  // A relation after FROM or JOIN, not a call: pg_total_relation_size('t') is the engine's
  // to refuse with what to write instead.
  static const RE2 kCatalogRelation(
      R"(\b(from|join)\s+(pg_catalog\.\w+|information_schema\.\w+|pg_\w+)\b\s*([^\s(]|$))");
  return RE2::PartialMatch(WithoutQuotedText(Normalize(sql)), kCatalogRelation);
}

// A probe names a catalog relation or calls a pg_ function; a name, an alias or a text that
// only starts with pg_ (host = 'pg_primary', AS pg_count) is the user's, for the engine, and
// so are the engine's own pg_ functions (pg_typeof, pg_table_is_visible) and pg_catalog
// tables (pg_class).
bool CatalogAnswers::ProbesUnknownCatalog(std::string_view lowered) {
  static const RE2 kCatalog(
      R"(\b(pg_catalog\.|information_schema\.)|\b(from|join) pg_[a-z_]+\b|\bpg_[a-z_]+ ?\()");
  static const RE2 kEngineFunctions(EngineFunctionCalls());
  static const RE2 kEngineTables(EngineCatalogTables());
  std::string words = WithoutQuotedText(lowered);
  RE2::GlobalReplace(&words, kEngineFunctions, "engine_function(");
  RE2::GlobalReplace(&words, kEngineTables, "engine_table");
  return RE2::PartialMatch(words, kCatalog);
}

CannedResult CatalogAnswers::EmptyAnswer(std::string_view sql) {
  return CannedResult{.columns = SelectListColumns(sql)};
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlRelations(std::string_view sql) const {
  CannedResult out{.columns = {Text("Schema"), Text("Name"), Text("Type"), Text("Owner")}};
  const std::string text = Normalize(sql);
  // \dt, \d: relkind lists holding 'r' ask for tables; \dv, \di, \ds ask for none we have.
  static const RE2 kKinds(R"(c\.relkind in \(([^)]*)\))");
  std::string kinds;
  if (RE2::PartialMatch(text, kKinds, &kinds) && !Contains(kinds, "'r'")) return out;
  // \dt+ and \d+ ask for more: persistence, access method, size and description. \dp asks for
  // privileges instead, none granted in PostgreSQL's terms (Strata's are its tokens').
  const bool verbose = Contains(text, "as \"size\"");
  const bool privileges = Contains(text, "as \"access privileges\"");
  if (privileges) out.columns = SelectListColumns(sql);
  if (verbose) {
    for (std::string_view column : {"Persistence", "Access method", "Size", "Description"}) {
      out.columns.push_back(Text(std::string(column)));
    }
  }
  const auto relname = PsqlPattern(sql, "c.relname");
  const auto nspname = PsqlPattern(sql, "n.nspname");
  for (const TableRef& t : Tables()) {
    if (!MatchesPattern(relname, t.table) || !MatchesPattern(nspname, t.database)) continue;
    std::vector<Datum>& row = out.rows.emplace_back();
    row = {T(t.database), T(t.table), T("table"), T("strata")};
    if (privileges) {
      row.resize(3);
      row.resize(out.columns.size(), Datum::Null(DataType::kVarchar));
    }
    if (!verbose) continue;
    const std::optional<int64_t> bytes =
        table_bytes_ ? table_bytes_(t.database, t.table) : std::nullopt;
    row.insert(row.end(), {T("permanent"), T("strata"),
                           bytes ? T(PrettyByteSize(*bytes)) : Datum::Null(DataType::kVarchar),
                           Datum::Null(DataType::kVarchar)});
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlSchemas(std::string_view sql) const {
  // \dn [pattern]: Strata's databases are the schemas PostgreSQL clients see.
  CannedResult out{.columns = {Text("Name"), Text("Owner")}};
  const auto nspname = PsqlPattern(sql, "n.nspname");
  for (const std::string& db : Databases()) {
    if (MatchesPattern(nspname, db)) out.rows.push_back({T(db), T("strata")});
  }
  return out;
}

CannedResult CatalogAnswers::PsqlRoles(std::string_view sql) const {
  // \du [pattern]: the session's own role, the token it signed in with (Strata's tokens are
  // its roles; others' names are not listed), or "strata" with authentication off. An admin
  // token (or none) is a superuser that creates databases; every role logs in.
  CannedResult out{.columns = {Text("rolname"),
                               {"rolsuper", DataType::kBoolean},
                               {"rolinherit", DataType::kBoolean},
                               {"rolcreaterole", DataType::kBoolean},
                               {"rolcreatedb", DataType::kBoolean},
                               {"rolcanlogin", DataType::kBoolean},
                               {"rolconnlimit", DataType::kBigint},
                               {"rolvaliduntil", DataType::kTimestamp},
                               {"memberof", *ArrayOf(DataType::kVarchar)},
                               {"rolreplication", DataType::kBoolean},
                               {"rolbypassrls", DataType::kBoolean}}};
  const std::string name = caller_.name().empty() ? "strata" : caller_.name();
  const bool admin = caller_.admin();
  Row row = {T(name),
             Datum::Bool(admin),
             Datum::Bool(true),
             Datum::Bool(admin),
             Datum::Bool(admin),
             Datum::Bool(true),
             Datum::Bigint(-1),
             Datum::Null(DataType::kTimestamp),
             Datum::Composite(*ArrayOf(DataType::kVarchar), {}),
             Datum::Bool(false),
             Datum::Bool(admin)};
  // \du+ asks for each role's description after memberof: none.
  if (Contains(Normalize(sql), "as description")) {
    out.columns.insert(out.columns.begin() + 9, Text("description"));
    row.insert(row.begin() + 9, Datum::Null(DataType::kVarchar));
  }
  if (MatchesPattern(PsqlPattern(sql, "r.rolname"), name)) out.rows.push_back(std::move(row));
  return out;
}

CannedResult CatalogAnswers::PsqlDatabases() {
  // \l: one PostgreSQL database, the server (any name connects to it).
  return {.columns = {Text("Name"), Text("Owner"), Text("Encoding"), Text("Collate"),
                      Text("Ctype"), Text("Access privileges")},
          .rows = {{T("strata"), T("strata"), T("UTF8"), T("C"), T("C"),
                    Datum::Null(DataType::kVarchar)}}};
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlCompletion(std::string_view sql) const {
  // psql's Tab after FROM: `... (c.relname) LIKE 'pre%' [AND n.nspname = 'db']`,
  // answered as (relname, nspname). A bare prefix finds no table (Strata has
  // no search path) but the databases it starts, which psql completes to "db.".
  CannedResult out{.columns = {Text("relname"), Text("nspname")}};
  auto prefix = [](std::optional<std::string> like) {
    std::string out;
    if (!like) return out;
    for (size_t i = 0; i < like->size(); ++i) {
      const char c = (*like)[i];
      if (c == '%') break;
      if (c == '\\' && i + 1 < like->size()) {
        out.push_back((*like)[++i]);
      } else {
        out.push_back(c);
      }
    }
    return out;
  };
  const std::string table = prefix(LiteralAfter(sql, "(c.relname) like "));
  const std::optional<std::string> database = LiteralAfter(sql, "n.nspname = ");
  if (database) {
    for (const TableRef& t : Tables()) {
      if (t.database == *database && t.table.rfind(table, 0) == 0) {
        out.rows.push_back({T(t.table), T(t.database)});
      }
    }
    return out;
  }
  const std::string schema = prefix(LiteralAfter(sql, "n.nspname like "));
  for (const std::string& db : Databases()) {
    if (db.rfind(schema, 0) == 0) out.rows.push_back({Datum::Null(DataType::kVarchar), T(db)});
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlFindRelation(std::string_view sql) const {
  CannedResult out{.columns = {Int("oid"), Text("nspname"), Text("relname")}};
  const auto relname = PsqlPattern(sql, "c.relname");
  const auto nspname = PsqlPattern(sql, "n.nspname");
  for (const TableRef& t : Tables()) {
    if (!MatchesPattern(relname, t.table) || !MatchesPattern(nspname, t.database)) continue;
    out.rows.push_back({Datum::Bigint(query::PgTableOid(t.id)), T(t.database), T(t.table)});
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlRelationDetails(std::string_view sql) const {
  CannedResult out{.columns = {Int("relchecks"), Text("relkind"), Bool("relhasindex"),
                               Bool("relhasrules"), Bool("relhastriggers"),
                               Bool("relrowsecurity"), Bool("relforcerowsecurity"),
                               Bool("relhasoids"), Bool("relispartition"), Text("reloptions"),
                               Int("reltablespace"), Text("reloftype"), Text("relpersistence"),
                               Text("relreplident"), Text("amname")}};
  const auto oid = LiteralAfter(sql, "c.oid = ");
  if (!oid || !TableByOid(std::atoll(oid->c_str()))) return out;
  out.rows.push_back({Datum::Bigint(0), T("r"), Datum::Bool(false), Datum::Bool(false),
                      Datum::Bool(false), Datum::Bool(false), Datum::Bool(false),
                      Datum::Bool(false), Datum::Bool(false), T(""), Datum::Bigint(0), T(""),
                      T("p"), T("d"), T("strata")});
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::PsqlAttributes(std::string_view sql) const {
  const std::string text = Normalize(sql);
  CannedResult out{.columns = {Text("attname"), Text("format_type"), Text("attrdef"),
                               Bool("attnotnull"), Text("attcollation"), Text("attidentity"),
                               Text("attgenerated")}};
  // \d+ asks for more: storage, compression, statistics target, description.
  const bool storage = Contains(text, "a.attstorage");
  const bool compression = Contains(text, "attcompression");
  const bool stattarget = Contains(text, "attstattarget");
  const bool description = Contains(text, "col_description");
  if (storage) out.columns.push_back(Text("attstorage"));
  if (compression) out.columns.push_back(Text("attcompression"));
  if (stattarget) out.columns.push_back(Int("attstattarget"));
  if (description) out.columns.push_back(Text("description"));
  const auto oid = LiteralAfter(sql, "a.attrelid = ");
  const auto table = oid ? TableByOid(std::atoll(oid->c_str())) : std::nullopt;
  if (!table) return out;
  auto columns = columns_of_(table->database, table->table);
  if (!columns.ok()) return columns.status();
  for (const ResultColumn& c : *columns) {
    Row row = {T(c.name),
               T(PgTypeName(c.type)),
               Datum::Null(DataType::kVarchar),
               Datum::Bool(query::IsAlwaysSet(c.name)),
               Datum::Null(DataType::kVarchar),
               T(""),
               T("")};
    if (storage) row.push_back(T(c.type == DataType::kVarchar ? "x" : "p"));
    if (compression) row.push_back(T(""));
    if (stattarget) row.push_back(Datum::Bigint(-1));
    if (description) row.push_back(Datum::Null(DataType::kVarchar));
    out.rows.push_back(std::move(row));
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::SqlAlchemyColumns(std::string_view sql) const {
  CannedResult out{.columns = {Text("attname"), Text("format_type"), Text("default"),
                               Bool("attnotnull"), Int("table_oid"), Text("comment"),
                               Text("generated"), Text("identity_options")}};
  static const RE2 kTable(R"(a\.attrelid = (\d+))");
  int64_t oid = 0;
  std::optional<TableRef> table;
  if (RE2::PartialMatch(Normalize(sql), kTable, &oid)) table = TableByOid(oid);
  if (!table) return out;
  auto columns = columns_of_(table->database, table->table);
  if (!columns.ok()) return columns.status();
  for (const ResultColumn& c : *columns) {
    out.rows.push_back({T(c.name), T(PgTypeName(c.type)), Datum::Null(DataType::kVarchar),
                        Datum::Bool(query::IsAlwaysSet(c.name)), Datum::Bigint(oid),
                        Datum::Null(DataType::kVarchar), T(""), Datum::Null(DataType::kVarchar)});
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::GrafanaTables(std::string_view sql) const {
  CannedResult out{.columns = {Text("table")}};
  // showTables(schema): WHERE quote_ident(table_schema) = 'db'.
  const auto schema = LiteralAfter(sql, "quote_ident(table_schema) = ");
  for (const TableRef& t : Tables()) {
    if (schema) {
      if (QuoteIdentIfNeeded(t.database) == *schema)
        out.rows.push_back({T(QuoteIdentIfNeeded(t.table))});
    } else {
      // No Strata database is on the search path ("$user", public): names are qualified.
      out.rows.push_back(
          {T(StrCat(QuoteIdentIfNeeded(t.database), ".", QuoteIdentIfNeeded(t.table)))});
    }
  }
  return out;
}

absl::StatusOr<CannedResult> CatalogAnswers::GrafanaColumns(std::string_view sql) const {
  CannedResult out{.columns = {Text("column"), Text("type")}};
  const auto name = LiteralAfter(sql, "parse_ident(");
  if (!name) return out;
  // parse_ident: dot-separated names, each bare (folded to lower case) or "quoted".
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < name->size(); ++i) {
    const char c = (*name)[i];
    if (c == '"') {
      if (quoted && i + 1 < name->size() && (*name)[i + 1] == '"') {
        parts.back().push_back('"');
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back().push_back(quoted ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (parts.size() != 2) return out;  // a bare name is looked up on the search path: none of ours
  bool found = false;
  for (const TableRef& t : Tables()) found = found || (t.database == parts[0] && t.table == parts[1]);
  if (!found) return out;
  auto columns = columns_of_(parts[0], parts[1]);
  if (!columns.ok()) return columns.status();
  for (const ResultColumn& c : *columns) {
    out.rows.push_back({T(QuoteIdentIfNeeded(c.name)), T(PgTypeName(c.type))});
  }
  return out;
}

}  // namespace strata::pg
