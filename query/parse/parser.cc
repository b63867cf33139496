#include "query/parse/parser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "common/stack_room.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/suggest.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "common/version.h"
#include "query/base/interval_text.h"
#include "query/base/postgres_array_text.h"
#include "query/base/regex_cache.h"
#include "query/base/time_zone.h"
#include "query/functions/functions.h"
#include "query/functions/window_functions.h"
#include "query/parse/grouping_sets.h"
#include "query/parse/lexer.h"
#include "query/parse/session_zone.h"
#include "query/parse/set_returning.h"

namespace strata::query {
namespace {

// Words that end an expression or a clause: never read as column names.
bool IsReserved(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "select", "from", "where", "group", "by", "having", "order", "limit", "and", "or", "not",
      "as", "on", "join", "union", "with", "distinct", "case", "when", "then", "else", "end",
      "in", "between", "like", "is", "null", "true", "false", "asc", "desc", "nulls", "all",
      // The rest of Presto's reserved words (Timestream's list): never a bare alias.
      "alter", "cast", "constraint", "create", "cross", "cube", "current_date", "current_time",
      "current_timestamp", "current_user", "deallocate", "delete", "describe", "drop", "escape",
      "except", "execute", "exists", "extract", "for", "full", "grouping", "inner", "insert",
      "intersect", "into", "left", "localtime", "localtimestamp", "natural", "normalize",
      "outer", "prepare", "recursive", "right", "rollup", "table", "uescape", "unnest", "using",
      "values"};
  for (std::string_view k : kWords) {
    if (EqualsIgnoreCase(word, k)) return true;
  }
  return false;
}

// PostgreSQL's set-returning functions a FROM item may call (Parser::ParseRowsFunction), each
// read as UNNEST of the array a function of Strata's makes, with the columns PostgreSQL names
// (none: one column named after the alias or the function).
struct RowsFunction {
  std::string_view name, array_function;
  std::vector<std::string_view> columns;
};

const RowsFunction* FindRowsFunction(std::string_view name) {
  static const std::vector<RowsFunction> kFunctions = {
      {"generate_series", "generate_series", {}},
      {"json_array_elements", "json_array_elements", {"value"}},
      {"json_array_elements_text", "json_array_elements_text", {"value"}},
      {"jsonb_array_elements", "jsonb_array_elements", {"value"}},
      {"jsonb_array_elements_text", "jsonb_array_elements_text", {"value"}},
      {"json_each", "json_each", {"key", "value"}},
      {"json_each_text", "json_each_text", {"key", "value"}},
      {"jsonb_each", "jsonb_each", {"key", "value"}},
      {"jsonb_each_text", "jsonb_each_text", {"key", "value"}},
      {"json_object_keys", "json_object_keys", {}},
      {"jsonb_object_keys", "jsonb_object_keys", {}},
      {"string_to_table", "string_to_array", {}},
      {"regexp_split_to_table", "regexp_split_to_array", {}},
  };
  for (const RowsFunction& f : kFunctions) {
    if (EqualsIgnoreCase(f.name, name)) return &f;
  }
  return nullptr;
}

std::optional<DataType> TypeFromName(std::string_view name) {
  struct Entry {
    std::string_view name;
    DataType type;
  };
  static constexpr Entry kTypes[] = {
      {"bigint", DataType::kBigint},
      {"int", DataType::kBigint},
      {"integer", DataType::kBigint},
      {"double", DataType::kDouble},
      {"real", DataType::kDouble},
      {"varchar", DataType::kVarchar},
      {"boolean", DataType::kBoolean},
      {"timestamp", DataType::kTimestamp},
      {"date", DataType::kDate},
      {"time", DataType::kTime},
      // PostgreSQL's names, for `x::type` from PostgreSQL clients and Grafana.
      {"int2", DataType::kBigint},
      {"int4", DataType::kBigint},
      {"int8", DataType::kBigint},
      {"smallint", DataType::kBigint},
      {"float", DataType::kDouble},
      {"float4", DataType::kDouble},
      {"float8", DataType::kDouble},
      {"numeric", DataType::kDouble},
      {"decimal", DataType::kDouble},
      {"text", DataType::kVarchar},
      {"char", DataType::kVarchar},  // char(n), character(n), character varying(n): text
      {"character", DataType::kVarchar},
      {"bpchar", DataType::kVarchar},
      {"bool", DataType::kBoolean},
      {"timestamptz", DataType::kTimestamp},
      // A bare `x::json` is json(x) (JsonCast); the names serve json[] and ARRAY(JSON).
      {"json", DataType::kJson},
      {"jsonb", DataType::kJson},
      // PostgreSQL's object identifiers (pg_catalog's oid columns) are numbers here; a
      // regclass or regtype is its OID's number, not the object's name.
      {"oid", DataType::kBigint},
      {"regclass", DataType::kBigint},
      {"regtype", DataType::kBigint},
      {"regproc", DataType::kBigint},
      {"regnamespace", DataType::kBigint}};
  for (const Entry& e : kTypes) {
    if (EqualsIgnoreCase(name, e.name)) return e.type;
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view sql, std::vector<Token> tokens, const QueryParameters& parameters)
      : sql_(sql),
        tokens_(std::move(tokens)),
        parameters_(parameters),
        zone_(MakeSessionZone(parameters.time_zone)) {}

  absl::StatusOr<Statement> ParseStatement() {
    Statement stmt;
    RETURN_IF_ERROR(RefuseUnsupported());
    if (AcceptWord("show")) {
      RETURN_IF_ERROR(ParseShow(&stmt));
    } else if (AcceptWord("describe") || AcceptWord("desc")) {
      stmt.kind = Statement::Kind::kDescribe;
      RETURN_IF_ERROR(ParseTableName(&stmt.database, &stmt.table, &stmt.table_pos));
    } else if (AcceptWord("delete")) {
      // DELETE FROM db.tbl [WHERE condition]: the rows SELECT * would return.
      stmt.kind = Statement::Kind::kDelete;
      RETURN_IF_ERROR(ExpectWord("from"));
      RETURN_IF_ERROR(ParseTableName(&stmt.database, &stmt.table, &stmt.table_pos));
      std::unique_ptr<SelectStmt> select = SelectAllFrom(stmt.table_pos);
      select->from->database = stmt.database;
      select->from->table = stmt.table;
      if (AcceptWord("where")) {
        ASSIGN_OR_RETURN(select->where, ParseExpr());
      }
      stmt.select = std::move(select);
    } else if (IsWord(Peek(), "create") || IsWord(Peek(), "alter") || IsWord(Peek(), "drop")) {
      RETURN_IF_ERROR(ParseCatalogChange(&stmt));
    } else if (AcceptWord("insert")) {
      RETURN_IF_ERROR(ParseInsert(&stmt));
    } else if (AcceptWord("copy")) {
      RETURN_IF_ERROR(ParseCopyFrom(&stmt));
    } else if (AcceptWord("kill")) {
      stmt.kind = Statement::Kind::kKillQuery;
      RETURN_IF_ERROR(ExpectWord("query"));
      if (Peek().kind != TokenKind::kString) {
        return Error(Peek(), "KILL QUERY needs the query id as a 'string' (SHOW QUERIES lists them)");
      }
      stmt.query_id = Next().text;
    } else if (AcceptWord("explain")) {
      stmt.kind = Statement::Kind::kExplain;
      RETURN_IF_ERROR(ParseExplainOptions(&stmt));
      ASSIGN_OR_RETURN(stmt.select, ParseQuery());
    } else {
      ASSIGN_OR_RETURN(stmt.select, ParseQuery());
    }
    AcceptSymbol(";");
    if (Peek().kind != TokenKind::kEnd) {
      // `SELECT cpu FORM t`: FORM was read as an alias; the mistake is there.
      if (pos_ > 0 && tokens_[pos_ - 1].kind == TokenKind::kIdentifier) {
        const Token& previous = tokens_[pos_ - 1];
        const std::string keyword = NearestName(previous.text, {"from", "where", "group", "order",
                                                                "limit", "having", "offset"});
        if (!keyword.empty()) {
          return Error(previous, StrCat("unexpected ", Describe(Peek()), " after \"", previous.text,
                                        "\"; did you mean ", absl::AsciiStrToUpper(keyword), "?"));
        }
      }
      return Error(Peek(), StrCat("unexpected ", Describe(Peek()), " after the end of the statement"));
    }
    if (!window_uses_.empty()) {
      return Error(*window_uses_.front().name,
                   "a named window is for the select list and HAVING of its SELECT; write "
                   "OVER (...) in full here");
    }
    RETURN_IF_ERROR(CheckParametersUsed());
    stmt.expressions = expressions_;
    return stmt;
  }

 private:
  const Token& Peek(int ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool IsWord(const Token& t, std::string_view word) const {
    return t.kind == TokenKind::kIdentifier && EqualsIgnoreCase(t.text, word);
  }
  bool AcceptWord(std::string_view word) {
    if (!IsWord(Peek(), word)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(std::string_view symbol) {
    if (Peek().kind != TokenKind::kSymbol || Peek().text != symbol) return false;
    Next();
    return true;
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd: return "end of input";
      case TokenKind::kString: return StrCat("'", t.text, "'");
      case TokenKind::kQuotedIdentifier: return StrCat("\"", t.text, "\"");
      case TokenKind::kDuration: return StrCat("\"", t.text, t.unit, "\"");
      default: return StrCat("\"", t.text, "\"");
    }
  }
  absl::Status Error(const Token& at, std::string_view message) {
    return SqlError(sql_, at.pos, message);
  }

  // Statements other databases take and Strata does not: UNIMPLEMENTED
  // (SQLSTATE 0A000 on the PostgreSQL wire) saying what to do instead.
  absl::Status RefuseUnsupported() {
    const Token& t = Peek();
    if (t.kind != TokenKind::kIdentifier) return absl::OkStatus();
    std::string_view instead;
    if (IsWord(t, "upsert") || IsWord(t, "merge") || IsWord(t, "update")) {
      instead =
          " is not supported: a row changes when it is written again (an INSERT of the same "
          "time, measure_name and dimensions: the later write wins, Timestream's upsert); write "
          "with INSERT, `strata write`, `strata import`, InfluxDB line protocol (POST /write on "
          "the HTTP port), Prometheus remote write or the client packages (docs/clients.md)";
    } else if (IsWord(t, "copy") && !IsCopyFromStdin()) {
      instead =
          " is a PostgreSQL client's: psql's \\copy to or from a file, COPY ... TO STDOUT and "
          "COPY table FROM STDIN on the PostgreSQL port; elsewhere export with `strata query -f "
          "csv` and import with `strata import`";
    } else if (IsWord(t, "truncate")) {
      instead =
          " is not supported: DELETE FROM db.tbl removes a table's rows (up to 5,000,000 a "
          "statement: narrower time ranges for more), DROP TABLE the table and its rows";
    } else if (IsWord(t, "vacuum") || IsWord(t, "analyze") || IsWord(t, "analyse") ||
               IsWord(t, "reindex") || IsWord(t, "checkpoint") || IsWord(t, "cluster")) {
      instead =
          " is not needed: Strata's own jobs seal, compact and drop its data (docs/storage.md), "
          "its writes are durable when acknowledged, and its planner gathers no statistics "
          "(EXPLAIN ANALYZE shows what a query read)";
    } else if (IsWord(t, "grant") || IsWord(t, "revoke")) {
      instead =
          " is not supported: a token's grants say what it may read and write (`strata token "
          "create NAME --grant read:db`, docs/security.md)";
    } else if (IsWord(t, "prepare") || IsWord(t, "execute")) {
      instead =
          " is not supported in SQL: drivers prepare statements through the PostgreSQL "
          "extended protocol (psql's \\bind), and QueryRequest takes `?` and `@name` "
          "parameters";
    } else if (IsWord(t, "listen") || IsWord(t, "notify") || IsWord(t, "unlisten") ||
               IsWord(t, "lock") || IsWord(t, "call") || IsWord(t, "do") || IsWord(t, "comment")) {
      instead =
          " is not supported: Strata has no notifications, locks, procedures or comments; "
          "SQL reads with SELECT and writes with INSERT";
    } else {
      return absl::OkStatus();
    }
    return SqlError(absl::StatusCode::kUnimplemented, sql_, t.pos,
                    StrCat(absl::AsciiStrToUpper(std::string(t.text)), instead));
  }
  // After EXPLAIN: ANALYZE [VERBOSE], or PostgreSQL's option list `(ANALYZE, BUFFERS, COSTS
  // off, ...)`, each option with an optional TRUE/FALSE/ON/OFF; only ANALYZE changes what is
  // shown (the others are PostgreSQL's details of its own plans), FORMAT only TEXT.
  absl::Status ParseExplainOptions(Statement* stmt) {
    if (AcceptWord("analyze") || AcceptWord("analyse")) {
      stmt->analyze = true;
      AcceptWord("verbose");
      return absl::OkStatus();
    }
    static constexpr std::string_view kOptions[] = {"analyze", "analyse", "verbose", "costs",
                                                    "buffers", "timing",  "summary", "settings",
                                                    "wal",     "format"};
    // A query in parentheses starts (SELECT, (WITH, (VALUES or ((.
    const bool option_list = Peek().kind == TokenKind::kSymbol && Peek().text == "(" &&
                             Peek(1).kind == TokenKind::kIdentifier && !IsWord(Peek(1), "select") &&
                             !IsWord(Peek(1), "with") && !IsWord(Peek(1), "values");
    if (!option_list) return absl::OkStatus();
    Next();  // (
    do {
      const Token option = Next();
      if (IsWord(option, "format")) {
        if (!AcceptWord("text")) {
          return Error(Peek(), "EXPLAIN's FORMAT is TEXT: its lines are the plan's nodes");
        }
        continue;
      }
      if (option.kind != TokenKind::kIdentifier ||
          std::none_of(std::begin(kOptions), std::end(kOptions),
                       [&](std::string_view o) { return IsWord(option, o); })) {
        return Error(option, StrCat("unknown EXPLAIN option ", Describe(option),
                                    "; EXPLAIN takes ANALYZE (and PostgreSQL's VERBOSE, COSTS, "
                                    "BUFFERS, TIMING, SUMMARY, SETTINGS, WAL, FORMAT TEXT)"));
      }
      bool on = true;
      if (AcceptWord("false") || AcceptWord("off")) {
        on = false;
      } else if (!AcceptWord("true")) {
        AcceptWord("on");
      }
      if (IsWord(option, "analyze") || IsWord(option, "analyse")) stmt->analyze = on;
    } while (AcceptSymbol(","));
    return ExpectSymbol(")");
  }

  absl::Status ExpectWord(std::string_view word) {
    if (AcceptWord(word)) return absl::OkStatus();
    // Keywords are matched in lower case and shown as SQL is written.
    return Error(Peek(), StrCat("expected ", absl::AsciiStrToUpper(std::string(word)), " but found ",
                                Describe(Peek())));
  }
  absl::Status ExpectSymbol(std::string_view symbol) {
    if (AcceptSymbol(symbol)) return absl::OkStatus();
    return Error(Peek(), StrCat("expected '", symbol, "' but found ", Describe(Peek())));
  }

  absl::StatusOr<std::string> ParseName(std::string_view what) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kQuotedIdentifier ||
        (t.kind == TokenKind::kIdentifier && !IsReserved(t.text))) {
      return Next().text;
    }
    if (t.kind == TokenKind::kString) {
      return Error(t, StrCat("expected ", what, " but found the string ", Describe(t),
                             "; names are written with double quotes: \"", t.text, "\""));
    }
    return Error(t, StrCat("expected ", what, " but found ", Describe(t)));
  }

  // `db.table`, or `table` alone (`database` empty: the default database's).
  absl::Status ParseTableName(std::string* database, std::string* table, Position* pos) {
    *pos = Peek().pos;
    ASSIGN_OR_RETURN(std::string first, ParseName("a table name"));
    if (AcceptSymbol(".")) {
      *database = std::move(first);
      ASSIGN_OR_RETURN(*table, ParseName("a table name"));
    } else {
      database->clear();
      *table = std::move(first);
    }
    return absl::OkStatus();
  }

  // CREATE, ALTER and DROP of a DATABASE (or SCHEMA, PostgreSQL's name for what a database
  // is here) or a TABLE; docs/sql.md, "Databases and tables".
  absl::Status ParseCatalogChange(Statement* stmt) {
    const Token& verb = Next();
    const std::string action = absl::AsciiStrToUpper(verb.text);
    bool of_table = false;
    if (AcceptWord("table")) {
      of_table = true;
    } else if (!AcceptWord("database") && !AcceptWord("schema")) {
      return SqlError(
          absl::StatusCode::kUnimplemented, sql_, Peek().pos,
          StrCat(action,
                 Peek().kind == TokenKind::kIdentifier
                     ? StrCat(" ", absl::AsciiStrToUpper(Peek().text))
                     : "",
                 " is not supported: SQL creates, changes and drops databases and tables (", action,
                 " DATABASE name, ", action, " TABLE db.tbl; SCHEMA is DATABASE)"));
    }
    using Kind = Statement::Kind;
    if (action == "CREATE") {
      stmt->kind = of_table ? Kind::kCreateTable : Kind::kCreateDatabase;
      if (IsWord(Peek(), "if") && IsWord(Peek(1), "not")) {
        Next();
        Next();
        RETURN_IF_ERROR(ExpectWord("exists"));
        stmt->if_exists = true;
      }
    } else if (action == "DROP") {
      stmt->kind = of_table ? Kind::kDropTable : Kind::kDropDatabase;
      if (IsWord(Peek(), "if") && IsWord(Peek(1), "exists")) {
        Next();
        Next();
        stmt->if_exists = true;
      }
    } else {
      stmt->kind = of_table ? Kind::kAlterTable : Kind::kAlterDatabase;
    }
    if (of_table) {
      RETURN_IF_ERROR(ParseTableName(&stmt->database, &stmt->table, &stmt->table_pos));
    } else {
      stmt->table_pos = Peek().pos;
      ASSIGN_OR_RETURN(stmt->database, ParseName("a database name"));
    }
    if (action == "CREATE") {
      if (of_table && Peek().kind == TokenKind::kSymbol && Peek().text == "(") {
        return SqlError(absl::StatusCode::kUnimplemented, sql_, Peek().pos,
                        "CREATE TABLE takes no column list: a table's columns are the dimensions "
                        "and measures of the rows written to it; write CREATE TABLE db.tbl "
                        "[WITH (property = value, ...)]");
      }
      if (AcceptWord("with")) RETURN_IF_ERROR(ParseCatalogProperties(stmt));
    } else if (action == "ALTER") {
      if (!AcceptWord("set")) {
        return Error(
            Peek(),
            StrCat("ALTER ", of_table ? "TABLE" : "DATABASE", " changes properties: write ALTER ",
                   of_table ? "TABLE db.tbl" : "DATABASE name", " SET (property = value, ...)"));
      }
      RETURN_IF_ERROR(ParseCatalogProperties(stmt));
    } else if (IsWord(Peek(), "cascade")) {
      return SqlError(absl::StatusCode::kUnimplemented, sql_, Peek().pos,
                      "DROP ... CASCADE is not supported: drop a database's tables first "
                      "(SHOW TABLES FROM db lists them)");
    } else {
      AcceptWord("restrict");  // what DROP does anyway
    }
    return absl::OkStatus();
  }

  // INSERT INTO db.tbl [(column, ...)] VALUES ... | SELECT ... (after INSERT).
  absl::Status ParseInsert(Statement* stmt) {
    stmt->kind = Statement::Kind::kInsert;
    RETURN_IF_ERROR(ExpectWord("into"));
    RETURN_IF_ERROR(ParseTableName(&stmt->database, &stmt->table, &stmt->table_pos));
    // `(` then a name: a column list; `(SELECT ...)`, `(VALUES ...)`, `(WITH ...)`: the query.
    if (Peek().kind == TokenKind::kSymbol && Peek().text == "(" && !IsWord(Peek(1), "select") &&
        !IsWord(Peek(1), "values") && !IsWord(Peek(1), "with")) {
      Next();
      RETURN_IF_ERROR(ParseColumnList(stmt));
    }
    if (IsWord(Peek(), "default")) {
      return SqlError(absl::StatusCode::kUnimplemented, sql_, Peek().pos,
                      "INSERT ... DEFAULT VALUES is not supported: a row needs its time and a "
                      "measure");
    }
    ASSIGN_OR_RETURN(stmt->select, ParseQuery());
    return absl::OkStatus();
  }

  // `column, ...)` (after its parenthesis) into stmt->columns, each with where it is written.
  absl::Status ParseColumnList(Statement* stmt) {
    do {
      const Position at = Peek().pos;
      ASSIGN_OR_RETURN(std::string name, ParseName("a column name"));
      stmt->columns.emplace_back(std::move(name), at);
    } while (AcceptSymbol(","));
    return ExpectSymbol(")");
  }

  // True at `COPY name[.name] [(...)] FROM STDIN`.
  bool IsCopyFromStdin() {
    size_t k = 1;
    while (Peek(k).kind == TokenKind::kIdentifier && Peek(k + 1).kind == TokenKind::kSymbol &&
           Peek(k + 1).text == ".") {
      k += 2;
    }
    if (Peek(k).kind != TokenKind::kIdentifier) return false;
    ++k;
    if (Peek(k).kind == TokenKind::kSymbol && Peek(k).text == "(") {
      while (Peek(k).kind != TokenKind::kEnd &&
             !(Peek(k).kind == TokenKind::kSymbol && Peek(k).text == ")")) {
        ++k;
      }
      ++k;
    }
    return IsWord(Peek(k), "from") && IsWord(Peek(k + 1), "stdin");
  }

  // COPY db.tbl [(column, ...)] FROM STDIN (after COPY): the rows come from the client of the
  // front door that runs it (QueryOptions::copy_rows), which reads COPY's options itself.
  absl::Status ParseCopyFrom(Statement* stmt) {
    stmt->kind = Statement::Kind::kCopyFrom;
    RETURN_IF_ERROR(ParseTableName(&stmt->database, &stmt->table, &stmt->table_pos));
    if (AcceptSymbol("(")) RETURN_IF_ERROR(ParseColumnList(stmt));
    RETURN_IF_ERROR(ExpectWord("from"));
    return ExpectWord("stdin");
  }

  // `(name = value, ...)`: each value a whole number, a 'string', TRUE or FALSE.
  absl::Status ParseCatalogProperties(Statement* stmt) {
    RETURN_IF_ERROR(ExpectSymbol("("));
    do {
      CatalogProperty property;
      property.pos = Peek().pos;
      ASSIGN_OR_RETURN(std::string name, ParseName("a property name"));
      property.name = absl::AsciiStrToLower(name);
      RETURN_IF_ERROR(ExpectSymbol("="));
      property.value_pos = Peek().pos;
      const bool negative = AcceptSymbol("-");
      const Token& value = Peek();
      int64_t number = 0;
      if (value.kind == TokenKind::kInteger && absl::SimpleAtoi(value.text, &number)) {
        property.value = Datum::Bigint(negative ? -number : number);
      } else if (!negative && value.kind == TokenKind::kString) {
        property.value = Datum::Varchar(value.text);
      } else if (!negative && (IsWord(value, "true") || IsWord(value, "false"))) {
        property.value = Datum::Bool(IsWord(value, "true"));
      } else {
        return Error(
            value, StrCat("the value of ", property.name,
                          " is a whole number, a 'string', TRUE or FALSE, not ", Describe(value)));
      }
      Next();
      stmt->properties.push_back(std::move(property));
    } while (AcceptSymbol(","));
    return ExpectSymbol(")");
  }

  absl::Status ParseLike(Statement* stmt) {
    if (!AcceptWord("like")) return absl::OkStatus();
    if (Peek().kind != TokenKind::kString) return Error(Peek(), "LIKE needs a 'pattern' string");
    stmt->like = Next().text;
    return absl::OkStatus();
  }

  absl::Status ParseShow(Statement* stmt) {
    // SCHEMAS and COLUMNS are Presto's names: its schema is a database here, and its
    // SHOW COLUMNS is DESCRIBE.
    if (AcceptWord("databases") || AcceptWord("schemas")) {
      stmt->kind = Statement::Kind::kShowDatabases;
      return ParseLike(stmt);
    }
    if (AcceptWord("tables")) {
      stmt->kind = Statement::Kind::kShowTables;
      if (AcceptWord("from") || AcceptWord("in")) {
        stmt->table_pos = Peek().pos;
        ASSIGN_OR_RETURN(stmt->database, ParseName("a database name"));
      }
      return ParseLike(stmt);
    }
    if (AcceptWord("measures")) {
      stmt->kind = Statement::Kind::kShowMeasures;
      RETURN_IF_ERROR(ExpectWord("from"));
      RETURN_IF_ERROR(ParseTableName(&stmt->database, &stmt->table, &stmt->table_pos));
      return ParseLike(stmt);
    }
    if (AcceptWord("functions")) {
      stmt->kind = Statement::Kind::kShowFunctions;
      return ParseLike(stmt);
    }
    if (AcceptWord("queries")) {
      stmt->kind = Statement::Kind::kShowQueries;
      return absl::OkStatus();
    }
    if (AcceptWord("columns")) {
      stmt->kind = Statement::Kind::kDescribe;
      if (!AcceptWord("from")) RETURN_IF_ERROR(ExpectWord("in"));
      return ParseTableName(&stmt->database, &stmt->table, &stmt->table_pos);
    }
    return Error(Peek(), StrCat("expected DATABASES, TABLES, MEASURES, COLUMNS, FUNCTIONS or "
                                "QUERIES after SHOW, found ",
                                Describe(Peek())));
  }

  // [WITH ...] set expression [ORDER BY ...] [LIMIT n].
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseQuery() {
    Nesting nesting(&query_depth_);
    RETURN_IF_ERROR(CheckNesting(query_depth_, kMaxQueryDepth, "subqueries"));
    std::vector<WithQuery> with;
    bool recursive = false;
    if (AcceptWord("with")) {
      recursive = AcceptWord("recursive");
      do {
        WithQuery& w = with.emplace_back();
        w.pos = Peek().pos;
        ASSIGN_OR_RETURN(w.name, ParseName("a name for the WITH query"));
        if (AcceptSymbol("(")) RETURN_IF_ERROR(ParseColumnNames(&w.columns));
        RETURN_IF_ERROR(ExpectWord("as"));
        // PostgreSQL's [NOT] MATERIALIZED, a hint of how to run it: the answer is the same.
        if (IsWord(Peek(), "not") && IsWord(Peek(1), "materialized")) {
          Next();
          Next();
          w.materialize = WithQuery::Materialize::kNever;
        } else if (AcceptWord("materialized")) {
          w.materialize = WithQuery::Materialize::kAlways;
        }
        RETURN_IF_ERROR(ExpectSymbol("("));
        ASSIGN_OR_RETURN(w.query, ParseQuery());
        RETURN_IF_ERROR(ExpectSymbol(")"));
      } while (AcceptSymbol(","));
    }
    ASSIGN_OR_RETURN(auto select, ParseSetExpression());
    if (IsWord(Peek(), "order") || IsWord(Peek(), "limit") || AtOffsetClause() || AtFetchClause()) {
      if (!select->order_by.empty() || select->limit || select->offset) {
        // `(SELECT ... ORDER BY a) ORDER BY b`: the outer clause orders the result.
        auto outer = std::make_unique<SelectStmt>();
        outer->set_operation = SetOperation::kUnion;
        outer->set_all = true;
        outer->set_left = std::move(select);
        select = std::move(outer);
      }
      RETURN_IF_ERROR(ParseOrderAndLimit(select.get()));
    }
    if (!with.empty()) {
      for (auto& w : select->with) with.push_back(std::move(w));
      select->with = std::move(with);
      select->with_recursive = select->with_recursive || recursive;
    }
    return select;
  }

  // UNION and EXCEPT of INTERSECT terms, left to right (INTERSECT binds
  // tighter, as in Presto).
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseSetExpression() {
    ASSIGN_OR_RETURN(auto left, ParseIntersectTerm());
    while (IsWord(Peek(), "union") || IsWord(Peek(), "except")) {
      const SetOperation op = IsWord(Next(), "union") ? SetOperation::kUnion : SetOperation::kExcept;
      ASSIGN_OR_RETURN(left, ParseSetRight(std::move(left), op, &Parser::ParseIntersectTerm));
    }
    return left;
  }
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseIntersectTerm() {
    ASSIGN_OR_RETURN(auto left, ParseSetPrimary());
    while (AcceptWord("intersect")) {
      ASSIGN_OR_RETURN(left, ParseSetRight(std::move(left), SetOperation::kIntersect,
                                           &Parser::ParseSetPrimary));
    }
    return left;
  }
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseSetRight(
      std::unique_ptr<SelectStmt> left, SetOperation op,
      absl::StatusOr<std::unique_ptr<SelectStmt>> (Parser::*operand)()) {
    Nesting nesting(&query_depth_);
    RETURN_IF_ERROR(CheckNesting(query_depth_, kMaxQueryDepth, "set operations"));
    auto node = std::make_unique<SelectStmt>();
    node->set_operation = op;
    node->set_all = AcceptWord("all");
    if (!node->set_all) AcceptWord("distinct");
    node->set_left = std::move(left);
    ASSIGN_OR_RETURN(node->set_right, (this->*operand)());
    return node;
  }
  // SELECT ..., VALUES ... or ( query ).
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseSetPrimary() {
    if (Peek().kind == TokenKind::kSymbol && Peek().text == "(") {
      Next();
      ASSIGN_OR_RETURN(auto inner, ParseQuery());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return inner;
    }
    if (IsWord(Peek(), "values")) return ParseValues();
    return ParseSelect();
  }

  // VALUES row, ...: a row is (expr, ...), ROW(expr, ...) or one expression. It is made
  // `SELECT * FROM <the rows>`, whose columns are named _col0, _col1, ... as Presto names
  // them; `(VALUES ...) AS t(a, b)` names them in FROM.
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseValues() {
    std::unique_ptr<SelectStmt> select = SelectAllFrom(Next().pos);
    TableRef& from = *select->from;
    do {
      std::vector<ExprPtr>& row = from.values.emplace_back();
      if (AcceptSymbol("(")) {
        do {
          ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
          row.push_back(std::move(e));
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol(")"));
      } else {
        ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        if (e->kind == ExprKind::kCall && EqualsIgnoreCase(e->name, "row") && !e->args.empty()) {
          row = std::move(e->args);
        } else {
          row.push_back(std::move(e));
        }
      }
    } while (AcceptSymbol(","));
    return select;
  }

  // How many names come before `.*` at this point of a select list (t.* 1, db.t.* 2), or 0.
  size_t QualifiedStarNames() {
    auto name = [this](size_t at) {
      const Token& t = Peek(at);
      return t.kind == TokenKind::kQuotedIdentifier ||
             (t.kind == TokenKind::kIdentifier && !IsReserved(t.text));
    };
    auto symbol = [this](size_t at, std::string_view text) {
      return Peek(at).kind == TokenKind::kSymbol && Peek(at).text == text;
    };
    for (size_t names = 1; names <= 2; ++names) {
      const size_t at = 2 * names - 2;  // the last name
      if (!name(at) || !symbol(at + 1, ".")) return 0;
      if (symbol(at + 2, "*")) return names;
    }
    return 0;
  }

  // SELECT ... [FROM ...] [WHERE] [GROUP BY] [HAVING]; ORDER BY and LIMIT
  // belong to the query around it (ParseQuery).
  absl::StatusOr<std::unique_ptr<SelectStmt>> ParseSelect() {
    RETURN_IF_ERROR(ExpectWord("select"));
    const size_t first_window_use = window_uses_.size();
    auto s = std::make_unique<SelectStmt>();
    if (AcceptWord("distinct")) {
      if (AcceptWord("on")) {
        RETURN_IF_ERROR(ExpectSymbol("("));
        RETURN_IF_ERROR(ParseExprList(&s->distinct_on));
        RETURN_IF_ERROR(ExpectSymbol(")"));
      } else {
        s->distinct = true;
      }
    } else {
      AcceptWord("all");
    }
    do {
      SelectItem item;
      if (Peek().kind == TokenKind::kSymbol && Peek().text == "*") {
        item.expr = std::make_unique<Expr>();
        item.expr->kind = ExprKind::kStar;
        item.expr->pos = Next().pos;
      } else if (const size_t dots = QualifiedStarNames(); dots > 0) {
        // t.* (or db.t.*): the columns of one table of FROM, named by its alias or name.
        item.expr = std::make_unique<Expr>();
        item.expr->kind = ExprKind::kStar;
        item.expr->pos = Peek().pos;
        for (size_t i = 0; i < dots; ++i) {
          item.expr->qualifier = Next().text;
          Next();  // .
        }
        Next();  // *
      } else {
        ASSIGN_OR_RETURN(item.expr, ParseExpr());
        if (AcceptWord("as")) {
          ASSIGN_OR_RETURN(item.alias, ParseName("a column alias"));
        } else if (Peek().kind == TokenKind::kQuotedIdentifier ||
                   AtBareAliasWord()) {
          item.alias = Next().text;
        }
      }
      s->items.push_back(std::move(item));
    } while (AcceptSymbol(","));

    if (AcceptWord("from")) {
      ASSIGN_OR_RETURN(TableRef from, ParseFrom());
      s->from = std::move(from);
    }
    if (AcceptWord("where")) {
      ASSIGN_OR_RETURN(s->where, ParseExpr());
    }
    if (AcceptWord("group")) {
      const Position at = Peek().pos;
      RETURN_IF_ERROR(ExpectWord("by"));
      const bool distinct = AcceptWord("distinct");
      if (!distinct) AcceptWord("all");
      bool plain = true;
      std::vector<ExprPtr> keys;
      ASSIGN_OR_RETURN(std::vector<std::vector<GroupingSet>> elements,
                       ParseGroupingElements(&keys, &plain));
      if (plain) {
        s->group_by = std::move(keys);
      } else {
        ASSIGN_OR_RETURN(std::vector<GroupingSet> sets,
                         CrossGroupingSets(std::move(elements), keys, distinct, at, sql_));
        SetGroupingSets(*s, std::move(keys), std::move(sets));
      }
    }
    if (AcceptWord("having")) {
      ASSIGN_OR_RETURN(s->having, ParseExpr());
    }
    RETURN_IF_ERROR(ParseWindowClause(first_window_use));
    return ExpandSetReturningItems(std::move(s), sql_);
  }

  // WINDOW name AS (spec) [, ...] after HAVING: the windows `OVER name` in this SELECT (its
  // calls from `first_use` in window_uses_) stand for.
  absl::Status ParseWindowClause(size_t first_use) {
    std::map<std::string, std::shared_ptr<WindowSpec>> named;
    if (AtWindowClause()) {
      Next();
      do {
        const Token& at = Peek();
        ASSIGN_OR_RETURN(std::string name, ParseName("a window name"));
        RETURN_IF_ERROR(ExpectWord("as"));
        ASSIGN_OR_RETURN(std::shared_ptr<WindowSpec> spec, ParseWindow());
        if (!named.emplace(name, std::move(spec)).second) {
          return Error(at, StrCat("window \"", name, "\" is defined twice"));
        }
      } while (AcceptSymbol(","));
    }
    for (size_t i = first_use; i < window_uses_.size(); ++i) {
      const WindowUse& use = window_uses_[i];
      auto it = named.find(use.name->text);
      if (it == named.end()) {
        return Error(*use.name, StrCat("window \"", use.name->text,
                                       "\" is not defined; name "
                                       "it after HAVING: WINDOW ",
                                       use.name->text, " AS (PARTITION BY ... ORDER BY ...)"));
      }
      const bool ignore_nulls = use.call->window->ignore_nulls;
      use.call->window = it->second->Clone();
      use.call->window->ignore_nulls = ignore_nulls;
    }
    window_uses_.resize(first_use);
    return absl::OkStatus();
  }

  // GROUP BY's elements, each as its grouping sets: a key (one set of it), ROLLUP (k, ...),
  // CUBE (k, ...) or GROUPING SETS (set, ...), where a set is (k, ...), () or k. Every key
  // written goes to `keys`, and a set holds positions there. `*plain`: every element a key.
  absl::StatusOr<std::vector<std::vector<GroupingSet>>> ParseGroupingElements(
      std::vector<ExprPtr>* keys, bool* plain) {
    // Keys up to `)`, appended to `keys`: their positions.
    auto key_list = [&]() -> absl::StatusOr<GroupingSet> {
      const size_t first = keys->size();
      RETURN_IF_ERROR(ParseExprList(keys));
      GroupingSet set;
      for (size_t k = first; k < keys->size(); ++k) set.push_back(static_cast<uint32_t>(k));
      return set;
    };
    std::vector<std::vector<GroupingSet>> elements;
    do {
      const Token& t = Peek();
      const bool opens = Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(";
      if ((IsWord(t, "rollup") || IsWord(t, "cube")) && opens) {
        const Token& word = Next();
        Next();
        ASSIGN_OR_RETURN(GroupingSet listed, key_list());
        RETURN_IF_ERROR(ExpectSymbol(")"));
        if (IsWord(word, "rollup")) {
          elements.push_back(RollupSets(listed));
        } else {
          std::optional<std::vector<GroupingSet>> cube = CubeSets(listed);
          if (!cube) {
            return Error(
                word, StrCat("CUBE of ", listed.size(), " keys makes more than ", kMaxGroupingSets,
                             " grouping sets; name the sets you need with GROUPING SETS"));
          }
          elements.push_back(*std::move(cube));
        }
        *plain = false;
      } else if (IsWord(t, "grouping") && IsWord(Peek(1), "sets")) {
        Next();
        Next();
        RETURN_IF_ERROR(ExpectSymbol("("));
        std::vector<GroupingSet> sets;
        do {
          if (AcceptSymbol("(")) {
            GroupingSet& set = sets.emplace_back();
            if (!AcceptSymbol(")")) {
              ASSIGN_OR_RETURN(set, key_list());
              RETURN_IF_ERROR(ExpectSymbol(")"));
            }
          } else {
            ASSIGN_OR_RETURN(ExprPtr key, ParseExpr());
            sets.push_back({static_cast<uint32_t>(keys->size())});
            keys->push_back(std::move(key));
          }
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol(")"));
        elements.push_back(std::move(sets));
        *plain = false;
      } else if (t.kind == TokenKind::kSymbol && t.text == "(" &&
                 Peek(1).kind == TokenKind::kSymbol && Peek(1).text == ")") {
        Next();  // (): the grand total's set
        Next();
        elements.push_back({GroupingSet()});
        *plain = false;
      } else {
        ASSIGN_OR_RETURN(ExprPtr key, ParseExpr());
        if (key->written_as_list) {
          // (a, b): the keys a and b, as Presto reads a parenthesized list here (not a row).
          for (ExprPtr& k : key->args) {
            elements.push_back({{static_cast<uint32_t>(keys->size())}});
            keys->push_back(std::move(k));
          }
          continue;
        }
        elements.push_back({{static_cast<uint32_t>(keys->size())}});
        keys->push_back(std::move(key));
      }
    } while (AcceptSymbol(","));
    return elements;
  }

  // expr [, expr ...] (GROUP BY, PARTITION BY).
  absl::Status ParseExprList(std::vector<ExprPtr>* out) {
    do {
      ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
      out->push_back(std::move(e));
    } while (AcceptSymbol(","));
    return absl::OkStatus();
  }

  absl::Status ParseOrderItems(std::vector<OrderItem>* items) {
    do {
      OrderItem item;
      ASSIGN_OR_RETURN(item.expr, ParseExpr());
      if (AcceptWord("desc")) {
        item.descending = true;
      } else {
        AcceptWord("asc");
      }
      if (AcceptWord("nulls")) {
        if (AcceptWord("first")) {
          item.nulls_first = true;
        } else {
          RETURN_IF_ERROR(ExpectWord("last"));
          item.nulls_first = false;
        }
      }
      items->push_back(std::move(item));
    } while (AcceptSymbol(","));
    return absl::OkStatus();
  }

  // OFFSET is not reserved (a column may be named so): `offset` followed by
  // a number is the clause, not an alias.
  bool AtOffsetClause() {
    return IsWord(Peek(), "offset") &&
           (Peek(1).kind == TokenKind::kInteger ||
            (Peek(1).kind == TokenKind::kSymbol && (Peek(1).text == "-" || Peek(1).text == "+")));
  }
  // At `trim (`: whether FROM follows the first argument, trim('x' FROM s). A scan over
  // the tokens to the call's closing parenthesis, at its own depth.
  bool TrimHasFrom() const {
    int depth = 0;
    for (size_t i = pos_ + 1; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::kEnd) return false;
      if (t.kind == TokenKind::kSymbol && t.text == "(") ++depth;
      if (t.kind == TokenKind::kSymbol && t.text == ")" && --depth == 0) return false;
      if (depth == 1 && IsWord(t, "from")) return true;
    }
    return false;
  }
  // FETCH is not reserved either: `fetch first` or `fetch next` is the clause.
  bool AtFetchClause() {
    return IsWord(Peek(), "fetch") && (IsWord(Peek(1), "first") || IsWord(Peek(1), "next"));
  }
  // A word that may be an alias written without AS.
  bool AtBareAliasWord() {
    return Peek().kind == TokenKind::kIdentifier && !IsReserved(Peek().text) && !AtOffsetClause() &&
           !AtFetchClause() && !AtWindowClause();
  }
  // WINDOW is not reserved either: `window name AS` is the clause.
  bool AtWindowClause() {
    return IsWord(Peek(), "window") &&
           (Peek(1).kind == TokenKind::kIdentifier ||
            Peek(1).kind == TokenKind::kQuotedIdentifier) &&
           IsWord(Peek(2), "as");
  }

  absl::Status ParseOrderAndLimit(SelectStmt* s) {
    if (AcceptWord("order")) {
      RETURN_IF_ERROR(ExpectWord("by"));
      RETURN_IF_ERROR(ParseOrderItems(&s->order_by));
    }
    // LIMIT n and OFFSET m, in either order (PostgreSQL takes both).
    bool limited = false;
    bool offset = false;
    while (true) {
      if (!limited && AcceptWord("limit")) {
        limited = true;
        if (AcceptWord("all")) continue;
        ASSIGN_OR_RETURN(s->limit, ParseRowCount("LIMIT"));
      } else if (!offset && AcceptWord("offset")) {
        offset = true;
        ASSIGN_OR_RETURN(std::optional<int64_t> skip, ParseRowCount("OFFSET"));
        if (!AcceptWord("rows")) AcceptWord("row");
        if (skip.value_or(0) > 0) s->offset = skip;
      } else if (!limited && AtFetchClause()) {
        // The standard's FETCH {FIRST | NEXT} [n] {ROW | ROWS} {ONLY | WITH TIES}: LIMIT n (1
        // without n), and with ties the rows equal to the last in the ORDER BY keys.
        limited = true;
        Next();
        Next();
        s->limit = 1;
        if (Peek().kind == TokenKind::kInteger || AtPlaceholder()) {
          ASSIGN_OR_RETURN(s->limit, ParseRowCount("FETCH FIRST"));
        }
        if (!AcceptWord("rows") && !AcceptWord("row")) {
          return Error(
              Peek(), StrCat("expected ROWS in FETCH FIRST n ROWS ONLY, found ", Describe(Peek())));
        }
        if (IsWord(Peek(), "with")) {
          if (s->order_by.empty()) {
            return Error(Peek(),
                         "FETCH FIRST ... WITH TIES needs ORDER BY: the rows it adds are "
                         "those equal to the last in its keys");
          }
          Next();
          RETURN_IF_ERROR(ExpectWord("ties"));
          s->limit_with_ties = true;
        } else {
          RETURN_IF_ERROR(ExpectWord("only"));
        }
      } else {
        return absl::OkStatus();
      }
    }
  }

  // Whether the next token is a placeholder: ? or @name.
  bool AtPlaceholder() const {
    const Token& t = Peek();
    return (t.kind == TokenKind::kSymbol && t.text == "?") ||
           (t.kind == TokenKind::kIdentifier && t.text.size() > 1 && t.text[0] == '@');
  }

  // LIMIT's, OFFSET's and FETCH FIRST's count: a whole number, or a placeholder's value
  // (psycopg's `LIMIT %s` arrives as LIMIT $1): a BIGINT, a whole number's text sent untyped,
  // or NULL (as PostgreSQL: no limit, no offset: nullopt).
  absl::StatusOr<std::optional<int64_t>> ParseRowCount(std::string_view clause) {
    const Token& t = Peek();
    if (AtPlaceholder()) {
      const std::string name = t.text;
      ASSIGN_OR_RETURN(ExprPtr value, ParsePrimary());
      const Datum& d = value->literal;
      if (d.null) return std::nullopt;
      int64_t n = -1;
      if (d.type == DataType::kBigint) {
        n = d.i;
      } else if (d.type == DataType::kVarchar) {
        const std::string_view text = StripWhitespace(d.s);
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (error != std::errc() || end != text.data() + text.size()) n = -1;
      }
      if (n < 0) {
        return Error(t, StrCat(clause, " needs a whole number >= 0; the parameter ", name, " is ",
                               EchoInput(d.ToString())));
      }
      return n;
    }
    int64_t n = -1;
    if (t.kind == TokenKind::kInteger) std::from_chars(t.text.data(), t.text.data() + t.text.size(), n);
    if (n < 0) return Error(t, StrCat(clause, " needs a whole number, found ", Describe(t)));
    Next();
    return n;
  }

  // FROM items joined left to right: `a, b` and `a CROSS JOIN b` are cross
  // joins, `a [INNER|LEFT|RIGHT|FULL [OUTER]] JOIN b ON ...|USING (...)`.
  absl::StatusOr<TableRef> ParseFrom() {
    ASSIGN_OR_RETURN(TableRef left, ParseFromPrimary());
    int joins = 0;
    while (true) {
      // NATURAL [INNER | LEFT | RIGHT | FULL [OUTER]] JOIN: no ON or USING.
      const bool natural = AcceptWord("natural");
      const Token& t = Peek();
      JoinKind kind = JoinKind::kNone;
      if (natural && !IsWord(t, "join") && !IsWord(t, "inner") && !IsWord(t, "left") &&
          !IsWord(t, "right") && !IsWord(t, "full")) {
        return Error(t, StrCat("expected JOIN after NATURAL, found ", Describe(t)));
      }
      if (!natural && AcceptSymbol(",")) {
        kind = JoinKind::kCross;
      } else if (IsWord(t, "cross")) {
        Next();
        RETURN_IF_ERROR(ExpectWord("join"));
        kind = JoinKind::kCross;
      } else if (IsWord(t, "join") || IsWord(t, "inner")) {
        if (AcceptWord("inner")) RETURN_IF_ERROR(ExpectWord("join"));
        else Next();
        kind = JoinKind::kInner;
      } else if (IsWord(t, "left") || IsWord(t, "right") || IsWord(t, "full")) {
        kind = IsWord(t, "left") ? JoinKind::kLeft
               : IsWord(t, "right") ? JoinKind::kRight : JoinKind::kFull;
        Next();
        AcceptWord("outer");
        RETURN_IF_ERROR(ExpectWord("join"));
      } else {
        break;
      }
      if (++joins > kMaxJoins) {
        return Error(t, StrCat("a query joins at most ", kMaxJoins, " tables"));
      }
      TableRef join;
      join.pos = t.pos;
      join.join = kind;
      join.left = std::make_unique<TableRef>(std::move(left));
      ASSIGN_OR_RETURN(TableRef right, ParseFromPrimary());
      join.right = std::make_unique<TableRef>(std::move(right));
      join.natural = natural;
      if (natural && (IsWord(Peek(), "on") || IsWord(Peek(), "using"))) {
        return Error(Peek(), "a NATURAL JOIN joins on the columns both sides have: it takes no "
                             "ON or USING");
      }
      if (kind != JoinKind::kCross && !natural) {
        if (AcceptWord("using")) {
          RETURN_IF_ERROR(ExpectSymbol("("));
          do {
            ASSIGN_OR_RETURN(std::string name, ParseName("a column name"));
            join.using_columns.push_back(std::move(name));
          } while (AcceptSymbol(","));
          RETURN_IF_ERROR(ExpectSymbol(")"));
        } else if (AcceptWord("on")) {
          ASSIGN_OR_RETURN(join.on, ParseExpr());
        } else {
          return Error(Peek(), StrCat("expected ON or USING after the joined table, found ",
                                      Describe(Peek())));
        }
      }
      left = std::move(join);
    }
    return left;
  }

  // A table, a WITH query, ( query ) or ( joins ), with an optional alias.
  absl::StatusOr<TableRef> ParseFromPrimary() {
    TableRef ref;
    ref.pos = Peek().pos;
    // LATERAL before UNNEST or a set-returning function says what they are anyway: they read
    // the FROM items before them.
    const auto rows_call = [this](int at) {
      return Peek(at).kind == TokenKind::kIdentifier && Peek(at + 1).kind == TokenKind::kSymbol &&
             Peek(at + 1).text == "(" &&
             (IsWord(Peek(at), "unnest") || FindRowsFunction(Peek(at).text) != nullptr);
    };
    if (IsWord(Peek(), "lateral") && rows_call(1)) Next();
    if (IsWord(Peek(), "lateral")) {
      const Token& lateral = Next();
      if (!(Peek().kind == TokenKind::kSymbol && Peek().text == "(" &&
            (IsWord(Peek(1), "select") || IsWord(Peek(1), "with")))) {
        return Error(lateral,
                     "LATERAL goes before a subquery, UNNEST or a set-returning "
                     "function");
      }
      ref.lateral = true;
    }
    if (IsWord(Peek(), "unnest") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      return ParseUnnest();
    }
    if (rows_call(0)) return ParseRowsFunction(*FindRowsFunction(Peek().text));
    if (AcceptSymbol("(")) {
      if (IsWord(Peek(), "select") || IsWord(Peek(), "with") || IsWord(Peek(), "values") ||
          (Peek().kind == TokenKind::kSymbol && Peek().text == "(")) {
        ASSIGN_OR_RETURN(ref.subquery, ParseQuery());
      } else {
        Nesting nesting(&query_depth_);
        RETURN_IF_ERROR(CheckNesting(query_depth_, kMaxQueryDepth, "parenthesized joins"));
        ASSIGN_OR_RETURN(ref, ParseFrom());
      }
      RETURN_IF_ERROR(ExpectSymbol(")"));
    } else {
      ASSIGN_OR_RETURN(std::string first, ParseName("a table"));
      if (AcceptSymbol(".")) {
        ref.database = std::move(first);
        ASSIGN_OR_RETURN(ref.table, ParseName("a table name"));
      } else {
        ref.table = std::move(first);
      }
    }
    RETURN_IF_ERROR(ParseAlias(ref, "a table alias"));
    if (!ref.alias.empty() && ref.join != JoinKind::kNone) {
      return Error(Peek(), "a parenthesized join cannot have an alias; alias its tables");
    }
    return ref;
  }

  // UNNEST(expr, ...) [WITH ORDINALITY] [AS] alias [(column, ...)].
  absl::StatusOr<TableRef> ParseUnnest() {
    TableRef ref;
    ref.pos = Next().pos;
    Next();  // (
    do {
      ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
      ref.unnest.push_back(std::move(e));
    } while (AcceptSymbol(","));
    RETURN_IF_ERROR(ExpectSymbol(")"));
    if (IsWord(Peek(), "with")) {
      Next();
      RETURN_IF_ERROR(ExpectWord("ordinality"));
      ref.with_ordinality = true;
    }
    RETURN_IF_ERROR(ParseAlias(ref, "an alias for UNNEST"));
    return ref;
  }

  // PostgreSQL's set-returning functions in FROM (RowsFunction), read as UNNEST of the array
  // their counterpart makes: `FROM t, json_array_elements(t.j) AS e` is `FROM t CROSS JOIN
  // UNNEST(json_array_elements(t.j)) AS e(value)`. [WITH ORDINALITY] [AS] alias [(column, ...)].
  absl::StatusOr<TableRef> ParseRowsFunction(const RowsFunction& function) {
    TableRef ref;
    ref.pos = Next().pos;
    Next();  // (
    ExprPtr call = Make(ExprKind::kCall, ref.pos, std::string(function.array_function));
    if (!(Peek().kind == TokenKind::kSymbol && Peek().text == ")")) {
      do {
        ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        RETURN_IF_ERROR(Adopt(*call, std::move(e)));
      } while (AcceptSymbol(","));
    }
    RETURN_IF_ERROR(ExpectSymbol(")"));
    ref.unnest.push_back(std::move(call));
    if (IsWord(Peek(), "with") && IsWord(Peek(1), "ordinality")) {
      Next();
      Next();
      ref.with_ordinality = true;
    }
    RETURN_IF_ERROR(ParseAlias(ref, StrCat("an alias for ", function.name)));
    if (ref.column_aliases.empty()) {
      // Columns PostgreSQL names (json_each's key and value) keep their names; a function's one
      // column without a name is named after the alias, or the function.
      for (std::string_view column : function.columns) ref.column_aliases.emplace_back(column);
      if (function.columns.empty()) {
        ref.column_aliases.push_back(ref.alias.empty() ? std::string(function.name) : ref.alias);
      }
      if (ref.with_ordinality) ref.column_aliases.emplace_back("ordinality");
    }
    if (ref.alias.empty()) ref.alias = function.name;
    return ref;
  }

  // [AS] alias [(column, ...)] after a FROM item; the planner refuses column names for a
  // table (they rename a subquery's, a WITH query's, VALUES' or UNNEST's columns).
  absl::Status ParseAlias(TableRef& ref, std::string_view what) {
    if (AcceptWord("as")) {
      ASSIGN_OR_RETURN(ref.alias, ParseName(what));
    } else if (AtBareAliasWord()) {
      ref.alias = Next().text;
    }
    if (!ref.alias.empty() && AcceptSymbol("(")) {
      RETURN_IF_ERROR(ParseColumnNames(&ref.column_aliases));
    }
    return absl::OkStatus();
  }

  // name, ...) after the "(" of a column list: t(a, b), WITH t(a, b).
  absl::Status ParseColumnNames(std::vector<std::string>* names) {
    do {
      ASSIGN_OR_RETURN(std::string name, ParseName("a column name"));
      names->push_back(std::move(name));
    } while (AcceptSymbol(","));
    return ExpectSymbol(")");
  }

  // OVER ( [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE frame] ).
  absl::StatusOr<std::shared_ptr<WindowSpec>> ParseWindow() {
    RETURN_IF_ERROR(ExpectSymbol("("));
    auto window = std::make_shared<WindowSpec>();
    if (AcceptWord("partition")) {
      RETURN_IF_ERROR(ExpectWord("by"));
      RETURN_IF_ERROR(ParseExprList(&window->partition_by));
    }
    if (AcceptWord("order")) {
      RETURN_IF_ERROR(ExpectWord("by"));
      RETURN_IF_ERROR(ParseOrderItems(&window->order_by));
    }
    if (IsWord(Peek(), "rows") || IsWord(Peek(), "range") || IsWord(Peek(), "groups")) {
      WindowFrame frame;
      const Token& unit = Next();
      frame.unit = IsWord(unit, "rows")     ? WindowFrame::Unit::kRows
                   : IsWord(unit, "groups") ? WindowFrame::Unit::kGroups
                                            : WindowFrame::Unit::kRange;
      if (AcceptWord("between")) {
        ASSIGN_OR_RETURN(frame.start, ParseFrameBound());
        RETURN_IF_ERROR(ExpectWord("and"));
        ASSIGN_OR_RETURN(frame.end, ParseFrameBound());
      } else {
        ASSIGN_OR_RETURN(frame.start, ParseFrameBound());
        frame.end.kind = FrameBound::Kind::kCurrentRow;
      }
      ASSIGN_OR_RETURN(frame.exclude, ParseFrameExclusion());
      window->frame = frame;
    }
    RETURN_IF_ERROR(ExpectSymbol(")"));
    return window;
  }

  // [EXCLUDE CURRENT ROW | GROUP | TIES | NO OTHERS] after a frame.
  absl::StatusOr<WindowFrame::Exclude> ParseFrameExclusion() {
    if (!AcceptWord("exclude")) return WindowFrame::Exclude::kNoOthers;
    if (AcceptWord("current")) {
      RETURN_IF_ERROR(ExpectWord("row"));
      return WindowFrame::Exclude::kCurrentRow;
    }
    if (AcceptWord("group")) return WindowFrame::Exclude::kGroup;
    if (AcceptWord("ties")) return WindowFrame::Exclude::kTies;
    if (AcceptWord("no")) {
      RETURN_IF_ERROR(ExpectWord("others"));
      return WindowFrame::Exclude::kNoOthers;
    }
    return Error(Peek(), StrCat("expected CURRENT ROW, GROUP, TIES or NO OTHERS after EXCLUDE, "
                                "found ",
                                Describe(Peek())));
  }

  absl::StatusOr<FrameBound> ParseFrameBound() {
    FrameBound b;
    b.pos = Peek().pos;
    // PRECEDING or FOLLOWING after the bound's amount.
    auto direction = [&](FrameBound::Kind preceding, FrameBound::Kind following) -> absl::Status {
      if (AcceptWord("preceding")) {
        b.kind = preceding;
        return absl::OkStatus();
      }
      b.kind = following;
      return ExpectWord("following");
    };
    if (AcceptWord("unbounded")) {
      RETURN_IF_ERROR(direction(FrameBound::Kind::kUnboundedPreceding,
                                FrameBound::Kind::kUnboundedFollowing));
      return b;
    }
    if (AcceptWord("current")) {
      RETURN_IF_ERROR(ExpectWord("row"));
      b.kind = FrameBound::Kind::kCurrentRow;
      return b;
    }
    // A row count (ROWS), or a distance in the ORDER BY key's units (RANGE):
    // 10, 2.5, 5m, INTERVAL '5' MINUTE.
    const Token& t = Peek();
    const bool literal = t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat ||
                         t.kind == TokenKind::kDuration || IsWord(t, "interval");
    if (!literal) {
      return Error(t, StrCat("expected UNBOUNDED, CURRENT ROW, a row count or a distance in the "
                             "window frame, found ", Describe(t)));
    }
    ASSIGN_OR_RETURN(ExprPtr value, ParsePrimary());
    if (value->kind != ExprKind::kLiteral) return Error(t, "the frame offset must be a constant");
    b.value = value->literal;
    if (b.value.type == DataType::kBigint) b.offset = b.value.i;
    RETURN_IF_ERROR(direction(FrameBound::Kind::kPreceding, FrameBound::Kind::kFollowing));
    return b;
  }

  ExprPtr Make(ExprKind kind, Position pos, std::string name = "") {
    ++expressions_;
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    e->name = std::move(name);
    e->session_zone = zone_;
    return e;
  }

  // Makes `child` an argument of `parent`. Every pass over an expression
  // (binding, planning, evaluation, printing, destruction) recurses once per
  // level, so a tree taller than kMaxExpressionDepth is refused here, before
  // it is built, with an error rather than a stack overflow later.
  absl::Status Adopt(Expr& parent, ExprPtr child) {
    parent.height = std::max(parent.height, child->height + 1);
    parent.args.push_back(std::move(child));
    if (parent.height > kMaxExpressionDepth) {
      return SqlError(sql_, parent.pos,
                      StrCat("the expression nests more than ", kMaxExpressionDepth,
                             " levels deep; split it (a long chain of AND/OR or + can often be "
                             "an IN list or a sum of fewer terms)"));
    }
    return absl::OkStatus();
  }

  // Counts the parser's own recursion (parentheses, NOT and sign chains,
  // subqueries); past the limit the statement is refused.
  class Nesting {
   public:
    explicit Nesting(int* depth) : depth_(depth) { ++*depth_; }
    ~Nesting() { --*depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    int* depth_;
  };
  absl::Status CheckNesting(int depth, int limit, std::string_view what) {
    if (depth > limit) {
      return Error(Peek(), StrCat("the query nests ", what, " more than ", limit,
                                  " levels deep; flatten it"));
    }
    // The limits leave room to spare on a query worker's stack in a release
    // build; this holds where frames are larger or the stack smaller.
    if (StackBytesLeft() < kParserStackReserveBytes) {
      return Error(Peek(), StrCat("the query nests ", what,
                                  " too deeply for the server's stack (", depth,
                                  " levels here); flatten it"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ExprPtr> ParseExpr() {
    Nesting nesting(&expression_depth_);
    RETURN_IF_ERROR(CheckNesting(expression_depth_, kMaxExpressionDepth, "expressions"));
    return ParseOr();
  }

  // One left-associative precedence level: operands parsed by `operand`,
  // joined by any of `ops` (keywords, matched case-insensitively and named in
  // upper case, or symbols).
  absl::StatusOr<ExprPtr> ParseLevel(std::initializer_list<std::string_view> ops,
                                     absl::StatusOr<ExprPtr> (Parser::*operand)()) {
    ASSIGN_OR_RETURN(ExprPtr left, (this->*operand)());
    while (true) {
      const Token& t = Peek();
      std::string op;
      for (std::string_view candidate : ops) {
        if (std::isalpha(static_cast<unsigned char>(candidate[0])) ? IsWord(t, candidate)
                                                                   : (t.kind == TokenKind::kSymbol &&
                                                                      t.text == candidate)) {
          op = candidate;
          break;
        }
      }
      if (op.empty()) return left;
      Position pos = Next().pos;
      ASSIGN_OR_RETURN(ExprPtr right, (this->*operand)());
      if (const std::string_view function = OperatorFunction(op); !function.empty()) {
        ASSIGN_OR_RETURN(left, OperatorCall(pos, op, function, std::move(left), std::move(right)));
        continue;
      }
      ExprPtr e = Make(ExprKind::kBinary, pos, op);
      RETURN_IF_ERROR(Adopt(*e, std::move(left)));
      RETURN_IF_ERROR(Adopt(*e, std::move(right)));
      left = std::move(e);
    }
  }

  // The function PostgreSQL's operator `op` is a call of, or empty for the operators the
  // expression evaluates itself.
  static std::string_view OperatorFunction(std::string_view op) {
    if (op == "->" || op == "#>") return "json_extract_path";
    if (op == "->>" || op == "#>>") return "json_extract_path_text";
    if (op == "#-") return "jsonb_delete_path";
    if (op == "^") return "power";
    if (op == "^@") return "starts_with";
    if (op == "&") return "bitwise_and";
    if (op == "|") return "bitwise_or";
    if (op == "#") return "bitwise_xor";
    if (op == "<<") return "bitwise_left_shift";
    if (op == ">>") return "bitwise_right_shift_arithmetic";
    return {};
  }

  // CAST(e AS array(varchar)): PostgreSQL's array text ('{a,b}') or an array, as text.
  absl::StatusOr<ExprPtr> AsTextArray(ExprPtr e) {
    const std::optional<DataType> text_array = ArrayOf(DataType::kVarchar);
    if (!text_array) return SqlError(sql_, e->pos, TooManyTypesMessage());
    ExprPtr cast = Make(ExprKind::kCast, e->pos, "cast");
    cast->cast_type = *text_array;
    RETURN_IF_ERROR(Adopt(*cast, std::move(e)));
    return cast;
  }

  // `left op right` as a call of `function`; the path of #> and #>> is an array of text
  // ('{a,0}', as PostgreSQL writes one, or ARRAY['a', '0']).
  absl::StatusOr<ExprPtr> OperatorCall(Position pos, std::string_view op, std::string_view function,
                                       ExprPtr left, ExprPtr right) {
    if (op.starts_with('#') && op != "#") {  // a path's operators, not exclusive or
      ASSIGN_OR_RETURN(right, AsTextArray(std::move(right)));
    }
    ExprPtr call = Make(ExprKind::kCall, pos, std::string(function));
    RETURN_IF_ERROR(Adopt(*call, std::move(left)));
    RETURN_IF_ERROR(Adopt(*call, std::move(right)));
    return call;
  }

  absl::StatusOr<ExprPtr> ParseOr() { return ParseLevel({"OR"}, &Parser::ParseAnd); }
  absl::StatusOr<ExprPtr> ParseAnd() { return ParseLevel({"AND"}, &Parser::ParseNot); }

  absl::StatusOr<ExprPtr> ParseNot() {
    if (IsWord(Peek(), "not")) {
      Nesting nesting(&expression_depth_);
      RETURN_IF_ERROR(CheckNesting(expression_depth_, kMaxExpressionDepth, "expressions"));
      Position pos = Next().pos;
      ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
      ExprPtr e = Make(ExprKind::kUnary, pos, "NOT");
      RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
      return e;
    }
    return ParseComparison();
  }

  absl::StatusOr<ExprPtr> ParseComparison() {
    ASSIGN_OR_RETURN(ExprPtr left, ParseConcat());
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kSymbol &&
          (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" || t.text == "<=" ||
           t.text == ">" || t.text == ">=")) {
        Position pos = t.pos;
        std::string op = Next().text;
        if (op == "!=") op = "<>";
        if (IsQuantifier()) {
          ASSIGN_OR_RETURN(left, ParseQuantified(pos, op, std::move(left)));
          continue;
        }
        ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
        ExprPtr e = Make(ExprKind::kBinary, pos, op);
        RETURN_IF_ERROR(Adopt(*e, std::move(left)));
        RETURN_IF_ERROR(Adopt(*e, std::move(right)));
        left = std::move(e);
        continue;
      }
      if (t.kind == TokenKind::kSymbol &&
          (t.text == "~" || t.text == "~*" || t.text == "!~" || t.text == "!~*")) {
        // PostgreSQL's x ~ 'regex': regexp_like (a match anywhere); ~* ignores case.
        const Position pos = t.pos;
        const std::string op = Next().text;
        ASSIGN_OR_RETURN(ExprPtr pattern, ParseConcat());
        if (op.back() == '*') {
          ExprPtr any_case = Make(ExprKind::kBinary, pos, "||");
          ASSIGN_OR_RETURN(ExprPtr flag, Literal(pos, Datum::Varchar("(?i)")));
          RETURN_IF_ERROR(Adopt(*any_case, std::move(flag)));
          RETURN_IF_ERROR(Adopt(*any_case, std::move(pattern)));
          pattern = std::move(any_case);
        }
        ExprPtr e = Make(ExprKind::kCall, pos, "regexp_like");
        RETURN_IF_ERROR(Adopt(*e, std::move(left)));
        RETURN_IF_ERROR(Adopt(*e, std::move(pattern)));
        if (op.front() == '!') {
          ExprPtr negation = Make(ExprKind::kUnary, pos, "NOT");
          RETURN_IF_ERROR(Adopt(*negation, std::move(e)));
          e = std::move(negation);
        }
        left = std::move(e);
        continue;
      }
      if (t.kind == TokenKind::kSymbol && (t.text == "@>" || t.text == "<@" || t.text == "&&" ||
                                           t.text == "?" || t.text == "?|" || t.text == "?&")) {
        // PostgreSQL's array operators: x @> y (x holds every element of y), x <@ y (y holds
        // every element of x) and x && y (they share an element); @> and <@ of JSON are
        // jsonb's containment (the binder's JsonOperator). jsonb's x ? key, x ?| keys and
        // x ?& keys: the key, any or all of the keys, at the top of x.
        const Position pos = t.pos;
        const std::string op = Next().text;
        ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
        ExprPtr e = Make(ExprKind::kCall, pos,
                         op == "&&"   ? "arrays_overlap"
                         : op == "?"  ? "jsonb_exists"
                         : op == "?|" ? "jsonb_exists_any"
                         : op == "?&" ? "jsonb_exists_all"
                                      : "array_has_all");
        if (op == "<@") std::swap(left, right);
        RETURN_IF_ERROR(Adopt(*e, std::move(left)));
        RETURN_IF_ERROR(Adopt(*e, std::move(right)));
        left = std::move(e);
        continue;
      }
      if (IsWord(t, "is")) {
        ASSIGN_OR_RETURN(left, ParseIs(std::move(left)));
        continue;
      }
      bool negated = false;
      if (IsWord(t, "not") &&
          (IsWord(Peek(1), "in") || IsWord(Peek(1), "between") || IsWord(Peek(1), "like") ||
           IsWord(Peek(1), "ilike") || (IsWord(Peek(1), "similar") && IsWord(Peek(2), "to")))) {
        Next();
        negated = true;
      }
      const Token& op = Peek();
      if (IsWord(op, "in")) {
        Position pos = Next().pos;
        RETURN_IF_ERROR(ExpectSymbol("("));
        ExprPtr e = Make(ExprKind::kIn, pos);
        e->negated = negated;
        RETURN_IF_ERROR(Adopt(*e, std::move(left)));
        if (IsWord(Peek(), "select") || IsWord(Peek(), "with") || IsWord(Peek(), "values")) {
          ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> query, ParseQuery());
          e->subquery = std::move(query);
          RETURN_IF_ERROR(ExpectSymbol(")"));
          left = std::move(e);
          continue;
        }
        do {
          ASSIGN_OR_RETURN(ExprPtr item, ParseExpr());
          RETURN_IF_ERROR(Adopt(*e, std::move(item)));
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol(")"));
        left = std::move(e);
      } else if (IsWord(op, "between")) {
        Position pos = Next().pos;
        // PostgreSQL's BETWEEN SYMMETRIC a AND b: between least(a, b) and greatest(a, b).
        const bool symmetric = AcceptWord("symmetric");
        if (!symmetric) AcceptWord("asymmetric");
        // Each bound is copied, so one nested in another's bounds doubles it: a few are plenty.
        std::optional<Nesting> nesting;
        if (symmetric) nesting.emplace(&symmetric_depth_);
        if (symmetric_depth_ > kMaxSymmetricNesting) {
          return Error(Peek(), StrCat("BETWEEN SYMMETRIC nests more than ", kMaxSymmetricNesting,
                                      " deep in its own bounds; write least() and greatest()"));
        }
        ASSIGN_OR_RETURN(ExprPtr low, ParseConcat());
        RETURN_IF_ERROR(ExpectWord("and"));
        ASSIGN_OR_RETURN(ExprPtr high, ParseConcat());
        if (symmetric) {
          ExprPtr least = Make(ExprKind::kCall, pos, "least");
          RETURN_IF_ERROR(Adopt(*least, low->Clone()));
          RETURN_IF_ERROR(Adopt(*least, high->Clone()));
          ExprPtr greatest = Make(ExprKind::kCall, pos, "greatest");
          RETURN_IF_ERROR(Adopt(*greatest, std::move(low)));
          RETURN_IF_ERROR(Adopt(*greatest, std::move(high)));
          low = std::move(least);
          high = std::move(greatest);
        }
        ExprPtr e = Make(ExprKind::kBetween, pos);
        e->negated = negated;
        RETURN_IF_ERROR(Adopt(*e, std::move(left)));
        RETURN_IF_ERROR(Adopt(*e, std::move(low)));
        RETURN_IF_ERROR(Adopt(*e, std::move(high)));
        left = std::move(e);
      } else if (IsWord(op, "like") || IsWord(op, "ilike")) {
        // x [NOT] LIKE pattern [ESCAPE 'c']; PostgreSQL's ILIKE compares lower(x) with
        // lower(pattern).
        const bool any_case = IsWord(op, "ilike");
        const std::string name = any_case ? "ILIKE" : "LIKE";
        Position pos = Next().pos;
        const auto like = [this, pos, negated, any_case](
                              ExprPtr value, ExprPtr pattern) -> absl::StatusOr<ExprPtr> {
          ExprPtr e = Make(ExprKind::kLike, pos);
          e->negated = negated;
          for (ExprPtr* side : {&value, &pattern}) {
            if (!any_case) break;
            ExprPtr lower = Make(ExprKind::kCall, pos, "lower");
            RETURN_IF_ERROR(Adopt(*lower, std::move(*side)));
            *side = std::move(lower);
          }
          RETURN_IF_ERROR(Adopt(*e, std::move(value)));
          RETURN_IF_ERROR(Adopt(*e, std::move(pattern)));
          return e;
        };
        if (IsQuantifier()) {  // x LIKE ANY (array): PostgreSQL's
          ASSIGN_OR_RETURN(
              left, ParseQuantified(pos, negated ? "NOT " + name : name, std::move(left), like));
          continue;
        }
        ASSIGN_OR_RETURN(ExprPtr pattern, ParseConcat());
        ASSIGN_OR_RETURN(ExprPtr e, like(std::move(left), std::move(pattern)));
        if (AcceptWord("escape")) {
          ASSIGN_OR_RETURN(ExprPtr escape, ParseConcat());
          RETURN_IF_ERROR(Adopt(*e, std::move(escape)));
        }
        left = std::move(e);
      } else if (IsWord(op, "similar") && IsWord(Peek(1), "to")) {
        // x [NOT] SIMILAR TO pattern [ESCAPE 'c']: similar_to(x, pattern [, 'c']).
        Position pos = Next().pos;
        Next();  // TO
        ExprPtr call = Make(ExprKind::kCall, pos, "similar_to");
        RETURN_IF_ERROR(Adopt(*call, std::move(left)));
        ASSIGN_OR_RETURN(ExprPtr pattern, ParseConcat());
        RETURN_IF_ERROR(Adopt(*call, std::move(pattern)));
        if (AcceptWord("escape")) {
          ASSIGN_OR_RETURN(ExprPtr escape, ParseConcat());
          RETURN_IF_ERROR(Adopt(*call, std::move(escape)));
        }
        if (negated) {
          ExprPtr not_call = Make(ExprKind::kUnary, pos, "NOT");
          RETURN_IF_ERROR(Adopt(*not_call, std::move(call)));
          call = std::move(not_call);
        }
        left = std::move(call);
      } else {
        return left;
      }
    }
  }

  // PostgreSQL's "other operators", one level between comparison and arithmetic, left to
  // right: || and its JSON operators (j -> 'a' ->> 'b'), text's prefix test ^@, the bitwise
  // operators (x & 4 <> 0 tests a flag; # is exclusive or) and shifts.
  absl::StatusOr<ExprPtr> ParseConcat() {
    return ParseLevel({"||", "->", "->>", "#>", "#>>", "#-", "^@", "&", "|", "#", "<<", ">>"},
                      &Parser::ParseBitwiseNot);
  }
  // PostgreSQL's prefix ~ (bitwise not), at the level of the other operators: ~x + 1 is
  // ~(x + 1), ~x & 3 is (~x) & 3.
  absl::StatusOr<ExprPtr> ParseBitwiseNot() {
    if (Peek().kind != TokenKind::kSymbol || Peek().text != "~") return ParseAdditive();
    Nesting nesting(&expression_depth_);
    RETURN_IF_ERROR(CheckNesting(expression_depth_, kMaxExpressionDepth, "expressions"));
    ExprPtr e = Make(ExprKind::kCall, Next().pos, "bitwise_not");
    ASSIGN_OR_RETURN(ExprPtr operand, ParseBitwiseNot());
    RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
    return e;
  }
  absl::StatusOr<ExprPtr> ParseAdditive() {
    return ParseLevel({"+", "-"}, &Parser::ParseMultiplicative);
  }
  absl::StatusOr<ExprPtr> ParseMultiplicative() {
    return ParseLevel({"*", "/", "%"}, &Parser::ParsePower);
  }
  // PostgreSQL's x ^ y (power), above * and below a sign: -2 ^ 2 is 4.
  absl::StatusOr<ExprPtr> ParsePower() { return ParseLevel({"^"}, &Parser::ParseUnary); }

  absl::StatusOr<ExprPtr> ParseUnary() {
    if (Peek().kind == TokenKind::kSymbol && (Peek().text == "-" || Peek().text == "+")) {
      Nesting nesting(&expression_depth_);
      RETURN_IF_ERROR(CheckNesting(expression_depth_, kMaxExpressionDepth, "expressions"));
      Position pos = Peek().pos;
      bool minus = Next().text == "-";
      ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
      if (!minus) return operand;
      if (operand->kind == ExprKind::kLiteral && !operand->literal.null) {
        if (operand->literal.type == DataType::kDouble) {
          operand->literal.d = -operand->literal.d;
          return operand;
        }
        if ((operand->literal.type == DataType::kBigint ||
             operand->literal.type == DataType::kInterval) &&
            operand->literal.i != INT64_MIN) {
          operand->literal.i = -operand->literal.i;
          return operand;
        }
      }
      ExprPtr e = Make(ExprKind::kUnary, pos, "-");
      RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
      return e;
    }
    return ParsePostfix();
  }

  // PostgreSQL's postfix forms, which its clients and Grafana send:
  // `x::type` (CAST) and `x AT TIME ZONE 'UTC'` (Strata's timestamps are UTC,
  // so only a zero offset is accepted).
  absl::StatusOr<ExprPtr> ParsePostfix() {
    ASSIGN_OR_RETURN(ExprPtr e, ParsePrimary());
    while (true) {
      if (Peek().kind == TokenKind::kSymbol && Peek().text == "::") {
        const Position pos = Next().pos;
        ASSIGN_OR_RETURN(e, ParseCastTo(pos, "cast", std::move(e)));
      } else if (Peek().kind == TokenKind::kSymbol && Peek().text == "[") {
        // a[i]: the i-th element (from 1), an error outside the array. PostgreSQL's slice
        // a[lower:upper] (either bound left out: from the first, to the last) is array_slice.
        const Position pos = Next().pos;
        const auto colon = [this] {
          return Peek().kind == TokenKind::kSymbol && Peek().text == ":";
        };
        ExprPtr index;
        if (!colon()) {
          ASSIGN_OR_RETURN(index, ParseExpr());
        }
        ExprPtr call;
        if (colon()) {
          const Position at = Next().pos;
          if (!index) {
            ASSIGN_OR_RETURN(index, Literal(at, Datum::Bigint(1)));
          }
          ExprPtr upper;
          if (Peek().kind == TokenKind::kSymbol && Peek().text == "]") {
            ASSIGN_OR_RETURN(upper, Literal(at, Datum::Bigint(INT64_MAX)));
          } else {
            ASSIGN_OR_RETURN(upper, ParseExpr());
          }
          call = Make(ExprKind::kCall, pos, "array_slice");
          RETURN_IF_ERROR(Adopt(*call, std::move(e)));
          RETURN_IF_ERROR(Adopt(*call, std::move(index)));
          RETURN_IF_ERROR(Adopt(*call, std::move(upper)));
        } else {
          call = Make(ExprKind::kCall, pos, "subscript");
          RETURN_IF_ERROR(Adopt(*call, std::move(e)));
          RETURN_IF_ERROR(Adopt(*call, std::move(index)));
        }
        RETURN_IF_ERROR(ExpectSymbol("]"));
        e = std::move(call);
      } else if (Peek().kind == TokenKind::kSymbol && Peek().text == "." &&
                 (Peek(1).kind == TokenKind::kIdentifier ||
                  Peek(1).kind == TokenKind::kQuotedIdentifier)) {
        // (expr).name: a row's field (the binder finds its index); a column's r.name is
        // read by ParseColumn.
        const Position pos = Next().pos;
        const Token& field = Next();
        ASSIGN_OR_RETURN(ExprPtr name, Literal(field.pos, Datum::Varchar(field.text)));
        ExprPtr call = Make(ExprKind::kCall, pos, "field");
        RETURN_IF_ERROR(Adopt(*call, std::move(e)));
        RETURN_IF_ERROR(Adopt(*call, std::move(name)));
        e = std::move(call);
      } else if (IsWord(Peek(), "at") && IsWord(Peek(1), "time") && IsWord(Peek(2), "zone")) {
        // Presto's: the instant's wall-clock time in the zone (at_timezone). UTC changes
        // nothing, as Strata's timestamps are UTC (but under a session's zone, its digits are
        // written in that zone: query/parse/session_zone.h).
        const Position pos = Next().pos;
        Next();
        Next();
        const Token& zone = Peek();
        const bool utc = zone.kind == TokenKind::kString && NamesUtc(zone.text);
        if (utc && zone_ == nullptr) {
          Next();
          continue;
        }
        ASSIGN_OR_RETURN(ExprPtr name, ParsePrimary());
        ExprPtr call = Make(ExprKind::kCall, pos, "at_timezone");
        RETURN_IF_ERROR(Adopt(*call, std::move(e)));
        RETURN_IF_ERROR(Adopt(*call, std::move(name)));
        e = InSessionZone(std::move(call), zone_);
      } else {
        return e;
      }
    }
  }

  // After `left IS`: [NOT] NULL, [NOT] DISTINCT FROM b, [NOT] TRUE | FALSE | UNKNOWN.
  absl::StatusOr<ExprPtr> ParseIs(ExprPtr left) {
    Position pos = Next().pos;
    bool negated = AcceptWord("not");
    if (AcceptWord("distinct")) {  // a IS [NOT] DISTINCT FROM b: = with NULLs equal
      RETURN_IF_ERROR(ExpectWord("from"));
      ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
      ExprPtr e =
          Make(ExprKind::kBinary, pos, negated ? "IS NOT DISTINCT FROM" : "IS DISTINCT FROM");
      RETURN_IF_ERROR(Adopt(*e, std::move(left)));
      RETURN_IF_ERROR(Adopt(*e, std::move(right)));
      return e;
    }
    if (IsWord(Peek(), "true") || IsWord(Peek(), "false") || IsWord(Peek(), "unknown")) {
      // a IS [NOT] TRUE | FALSE | UNKNOWN: IS [NOT] DISTINCT FROM that boolean, whose
      // NULL is UNKNOWN (a NULL a is then not TRUE, and not FALSE).
      const Token& value = Next();
      ASSIGN_OR_RETURN(ExprPtr right, Literal(value.pos, IsWord(value, "unknown")
                                                             ? Datum::Null(DataType::kBoolean)
                                                             : Datum::Bool(IsWord(value, "true"))));
      ExprPtr e =
          Make(ExprKind::kBinary, pos, negated ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM");
      RETURN_IF_ERROR(Adopt(*e, std::move(left)));
      RETURN_IF_ERROR(Adopt(*e, std::move(right)));
      return e;
    }
    RETURN_IF_ERROR(ExpectWord("null"));
    ExprPtr e = Make(ExprKind::kIsNull, pos);
    e->negated = negated;
    RETURN_IF_ERROR(Adopt(*e, std::move(left)));
    return e;
  }

  // ANY, SOME or ALL and its parenthesis, after a comparison's operator.
  bool IsQuantifier() {
    return (IsWord(Peek(), "any") || IsWord(Peek(), "some") || IsWord(Peek(), "all")) &&
           Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(";
  }

  // What a quantified comparison compares each element with: `left op element` unless given.
  using Comparison = std::function<absl::StatusOr<ExprPtr>(ExprPtr left, ExprPtr element)>;

  // `left op ANY (array)`, SOME (its other name) or ALL, after the operator: true if the
  // comparison holds for some (every) element, NULL where a NULL leaves it open, as
  // any_match and all_match answer, which the comparison becomes a lambda of. Over a
  // subquery, `= ANY` is IN and `<> ALL` is NOT IN; another comparison reads its answers as
  // one array.
  absl::StatusOr<ExprPtr> ParseQuantified(Position pos, const std::string& op, ExprPtr left,
                                          const Comparison& compare = {}) {
    const Token& quantifier = Next();
    const bool all = IsWord(quantifier, "all");
    Next();  // (
    const bool subquery =
        IsWord(Peek(), "select") || IsWord(Peek(), "with") || IsWord(Peek(), "values");
    if (subquery && op == (all ? "<>" : "=") && !compare) {
      ExprPtr in = Make(ExprKind::kIn, pos);
      in->negated = all;
      RETURN_IF_ERROR(Adopt(*in, std::move(left)));
      ASSIGN_OR_RETURN(in->subquery, ParseQuery());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return in;
    }
    ExprPtr array;
    if (subquery) {
      // `x > ALL (SELECT ...)`, `x LIKE ANY (SELECT ...)`: over the array of its answers, as
      // ARRAY(SELECT ...) makes it (run once, before the query around it).
      array = Make(ExprKind::kSubquery, pos, "array");
      ASSIGN_OR_RETURN(array->subquery, ParseQuery());
    } else {
      ASSIGN_OR_RETURN(array, ParseExpr());
    }
    RETURN_IF_ERROR(ExpectSymbol(")"));
    // = ANY is IN, <> ALL is NOT IN (over no element: false, true), which a long list
    // answers from a hash set.
    if (op == (all ? "<>" : "=")) {
      ASSIGN_OR_RETURN(std::optional<ExprPtr> in, QuantifiedIn(pos, all, left, array));
      if (in) return *std::move(in);
    }
    if (array->kind == ExprKind::kLiteral && array->literal.type == DataType::kVarchar) {
      // Array text under another comparison: its elements compared as text.
      ASSIGN_OR_RETURN(array, AsTextArray(std::move(array)));
    }
    // The element's name, hiding a column of that name inside the lambda, is one no table
    // is likely to have.
    constexpr std::string_view kElement = "quantified$element";
    ExprPtr element = Make(ExprKind::kColumn, pos, std::string(kElement));
    ExprPtr comparison;
    if (compare) {
      ASSIGN_OR_RETURN(comparison, compare(std::move(left), std::move(element)));
    } else {
      comparison = Make(ExprKind::kBinary, pos, op);
      RETURN_IF_ERROR(Adopt(*comparison, std::move(left)));
      RETURN_IF_ERROR(Adopt(*comparison, std::move(element)));
    }
    ExprPtr lambda = Make(ExprKind::kLambda, pos);
    lambda->lambda_params = {std::string(kElement)};
    RETURN_IF_ERROR(Adopt(*lambda, std::move(comparison)));
    ExprPtr call = Make(ExprKind::kCall, pos, all ? "all_match" : "any_match");
    RETURN_IF_ERROR(Adopt(*call, std::move(array)));
    RETURN_IF_ERROR(Adopt(*call, std::move(lambda)));
    return call;
  }

  // `left = ANY (array)` as `left IN (...)` (`<> ALL` as NOT IN) when the statement gives the
  // array's elements: ARRAY[...]'s, each an expression of the list; a literal array's (a
  // client's list parameter) or those of PostgreSQL's array text ('{a,b}', as literal or
  // parameter, its elements untyped as PostgreSQL's literals are: 1 = ANY('{1,2}')), as one
  // array literal (Expr::in_array), which a list of a million values fits in. nullopt for
  // other arrays, which `left` and `array` are then left as they were for.
  absl::StatusOr<std::optional<ExprPtr>> QuantifiedIn(Position pos, bool all, ExprPtr& left,
                                                      ExprPtr& array) {
    auto constant = [&](bool value) -> absl::StatusOr<std::optional<ExprPtr>> {
      ASSIGN_OR_RETURN(ExprPtr literal, Literal(pos, Datum::Bool(value)));
      return literal;
    };
    auto make_in = [&]() -> absl::StatusOr<ExprPtr> {
      ExprPtr in = Make(ExprKind::kIn, pos);
      in->negated = all;
      RETURN_IF_ERROR(Adopt(*in, std::move(left)));
      return in;
    };
    if (array->kind == ExprKind::kCall && array->name == "array" && !array->distinct) {
      if (array->args.empty()) return constant(all);
      ASSIGN_OR_RETURN(ExprPtr in, make_in());
      for (ExprPtr& element : array->args) RETURN_IF_ERROR(Adopt(*in, std::move(element)));
      return in;
    }
    if (array->kind != ExprKind::kLiteral || array->literal.null) return std::nullopt;
    if (array->literal.type == DataType::kVarchar) {
      ASSIGN_OR_RETURN(array->literal, TextArrayLiteral(*array));
      array->untyped = true;
    } else if (KindOf(array->literal.type) != TypeKind::kArray) {
      return std::nullopt;
    }
    if (array->literal.items().empty()) return constant(all);
    ASSIGN_OR_RETURN(ExprPtr in, make_in());
    in->in_array = true;
    RETURN_IF_ERROR(Adopt(*in, std::move(array)));
    return in;
  }

  // PostgreSQL's array text in the VARCHAR literal `text` as an array of its elements' texts.
  absl::StatusOr<Datum> TextArrayLiteral(const Expr& text) {
    std::optional<std::vector<std::optional<std::string>>> elements =
        SplitPostgresArrayText(text.literal.s);
    if (!elements) {
      return SqlError(sql_, text.pos,
                      StrCat("'", EchoInput(text.literal.s),
                             "' is not an array; write '{a,b}' or ARRAY['a', 'b']"));
    }
    const std::optional<DataType> text_array = ArrayOf(DataType::kVarchar);
    if (!text_array) return SqlError(sql_, text.pos, TooManyTypesMessage());
    std::vector<Datum> values;
    values.reserve(elements->size());
    for (std::optional<std::string>& element : *elements) {
      values.push_back(element ? Datum::Varchar(*std::move(element))
                               : Datum::Null(DataType::kVarchar));
    }
    return Datum::Composite(*text_array, std::move(values));
  }

  // A function's argument: an expression, or, where the function takes lambdas, a lambda
  // `x -> ...` / `(s, x) -> ...` (elsewhere `j -> 'a'` is PostgreSQL's JSON operator).
  absl::StatusOr<ExprPtr> ParseArgument(bool lambdas) {
    const auto is_name = [](const Token& t) { return t.kind == TokenKind::kIdentifier && !IsReserved(t.text); };
    const auto is_symbol = [](const Token& t, std::string_view s) {
      return t.kind == TokenKind::kSymbol && t.text == s;
    };
    std::vector<std::string> params;
    const Position pos = Peek().pos;
    if (!lambdas) {
      // nothing to look for
    } else if (is_name(Peek()) && is_symbol(Peek(1), "->")) {
      params.push_back(Next().text);
    } else if (is_symbol(Peek(), "(")) {
      int k = 1;
      while (is_name(Peek(k)) && (is_symbol(Peek(k + 1), ",") || is_symbol(Peek(k + 1), ")"))) {
        k += 2;
        if (is_symbol(Peek(k - 1), ")")) break;
      }
      if (k > 1 && is_symbol(Peek(k - 1), ")") && is_symbol(Peek(k), "->")) {
        Next();
        for (int i = 1; i < k; i += 2) {
          params.push_back(Next().text);
          Next();  // , or )
        }
      }
    }
    if (params.empty()) return ParseExpr();
    RETURN_IF_ERROR(ExpectSymbol("->"));
    ExprPtr lambda = Make(ExprKind::kLambda, pos);
    lambda->lambda_params = std::move(params);
    ASSIGN_OR_RETURN(ExprPtr body, ParseExpr());
    RETURN_IF_ERROR(Adopt(*lambda, std::move(body)));
    return lambda;
  }

  // INTERVAL 'n' YEAR | MONTH, and INTERVAL 'y-m' YEAR TO MONTH: a count of
  // months (calendar arithmetic: a month is not a fixed duration).
  absl::StatusOr<ExprPtr> ParseYearToMonth(Position pos, const Token& amount, bool year) {
    std::string_view text = amount.text;
    const bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    int64_t years = 0, months = 0;
    const size_t dash = text.find('-');
    bool ok;
    if (year && AcceptWord("to")) {
      if (!AcceptWord("month")) return Error(Peek(), "expected MONTH after YEAR TO");
      ok = dash != std::string_view::npos && ParseCount(text.substr(0, dash), &years) &&
           ParseCount(text.substr(dash + 1), &months) && months < 12;
    } else {
      ok = ParseCount(text, year ? &years : &months);
    }
    // Timestamps span under 600 years; more would overflow calendar arithmetic.
    constexpr int64_t kMaxYears = 10'000;
    if (!ok || years > kMaxYears || months > 12 * kMaxYears) {
      return Error(amount, StrCat("'", EchoInput(amount.text), "' is not a whole number of ",
                                  year ? "years (or 'years-months' with YEAR TO MONTH)" : "months",
                                  " up to ", kMaxYears, " years"));
    }
    const int64_t total = years * 12 + months;
    return Literal(pos, Datum::Months(negative ? -total : total));
  }

  static bool ParseCount(std::string_view text, int64_t* out) {
    if (text.empty() || text.size() > 9) return false;
    int64_t v = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  }

  absl::StatusOr<ExprPtr> Literal(Position pos, Datum value) {
    ExprPtr e = Make(ExprKind::kLiteral, pos);
    e->literal = std::move(value);
    return e;
  }

  // extract(field FROM operand): the function named by the field (hour(t), dow(t)).
  absl::StatusOr<ExprPtr> ExtractCall(const Token& field, ExprPtr operand) {
    std::string name = field.text;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "epoch") name = "to_unixtime";  // PostgreSQL's spelling (Grafana's macros)
    if (name == "isodow") name = "day_of_week";  // Monday 1 to Sunday 7 in both
    if (name == "isoyear") name = "year_of_week";
    // PostgreSQL's fields of a year: the year's number divided, rounded up (the 21st century
    // and the 3rd millennium begin with 2001) or down (the 202nd decade is 2020-2029).
    static const std::map<std::string_view, std::pair<int64_t, int64_t>> kYearParts = {
        {"century", {100, 99}}, {"millennium", {1000, 999}}, {"decade", {10, 0}}};
    if (const auto part = kYearParts.find(name); part != kYearParts.end()) {
      const auto [divisor, round_up] = part->second;
      ExprPtr year = Make(ExprKind::kCall, field.pos, "year");
      RETURN_IF_ERROR(Adopt(*year, std::move(operand)));
      year = InSessionZone(std::move(year), zone_);
      ExprPtr sum = Make(ExprKind::kBinary, field.pos, "+");
      RETURN_IF_ERROR(Adopt(*sum, std::move(year)));
      ASSIGN_OR_RETURN(ExprPtr up, Literal(field.pos, Datum::Bigint(round_up)));
      RETURN_IF_ERROR(Adopt(*sum, std::move(up)));
      ExprPtr e = Make(ExprKind::kBinary, field.pos, "/");
      RETURN_IF_ERROR(Adopt(*e, std::move(sum)));
      ASSIGN_OR_RETURN(ExprPtr by, Literal(field.pos, Datum::Bigint(divisor)));
      RETURN_IF_ERROR(Adopt(*e, std::move(by)));
      return e;
    }
    ExprPtr e = Make(ExprKind::kCall, field.pos, name);
    RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
    return InSessionZone(std::move(e), zone_);
  }

  absl::StatusOr<ExprPtr> ParseCast(Position pos, std::string name) {
    RETURN_IF_ERROR(ExpectSymbol("("));
    ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
    RETURN_IF_ERROR(ExpectWord("as"));
    ASSIGN_OR_RETURN(ExprPtr e, ParseCastTo(pos, std::move(name), std::move(operand)));
    RETURN_IF_ERROR(ExpectSymbol(")"));
    return e;
  }

  // The cast of `operand` to the type name that follows (CAST's and `::`'s).
  absl::StatusOr<ExprPtr> ParseCastTo(Position pos, std::string name, ExprPtr operand) {
    const Token& type_token = Peek();
    const bool bare_interval =
        IsWord(type_token, "interval") && !IsWord(Peek(1), "year") && !IsWord(Peek(1), "day");
    if ((IsWord(type_token, "json") || IsWord(type_token, "jsonb")) &&
        !(Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "[")) {
      return JsonCast(pos, name == "try_cast", Next(), std::move(operand));
    }
    std::optional<int64_t> scale;
    ASSIGN_OR_RETURN(DataType type, ParseTypeName(&scale));
    // PostgreSQL's '1 hour'::interval, '1 month'::interval: a text literal cast to a bare
    // INTERVAL is the interval it spells, of the kind its units make, as INTERVAL '1 month'
    // is (a cast of other text reads it when the query runs, one kind or the other).
    if (bare_interval && name == "cast" && operand->kind == ExprKind::kLiteral &&
        operand->literal.type == DataType::kVarchar && !operand->literal.null) {
      absl::StatusOr<IntervalText> parsed = ParseIntervalText(operand->literal.s);
      if (!parsed.ok()) return Error(type_token, std::string(parsed.status().message()));
      return Literal(pos, parsed->months != 0 ? Datum::Months(parsed->months)
                                              : Datum::Interval(parsed->nanos));
    }
    ExprPtr e = Make(ExprKind::kCast, pos, std::move(name));
    e->cast_type = type;
    RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
    return RoundedToScale(InSessionZone(std::move(e), zone_), scale);
  }

  // A cast to PostgreSQL's json or jsonb: json(x) checks text and keeps it as written,
  // json_parse(x) also writes it the one way jsonb keeps it (no whitespace, members sorted, a
  // repeated name's last value). try_cast answers NULL for text that is not JSON.
  absl::StatusOr<ExprPtr> JsonCast(Position pos, bool try_cast, const Token& type,
                                   ExprPtr operand) {
    ExprPtr call = Make(ExprKind::kCall, pos, IsWord(type, "jsonb") ? "json_parse" : "json");
    RETURN_IF_ERROR(Adopt(*call, std::move(operand)));
    if (!try_cast) return call;
    ExprPtr guarded = Make(ExprKind::kCall, pos, "try");
    RETURN_IF_ERROR(Adopt(*guarded, std::move(call)));
    return guarded;
  }

  // A cast to DECIMAL(p, s) or NUMERIC(p, s), which Strata reads as DOUBLE, rounded to s
  // decimals as such a cast rounds (half away from zero).
  absl::StatusOr<ExprPtr> RoundedToScale(ExprPtr cast, std::optional<int64_t> scale) {
    if (!scale) return cast;
    const Position pos = cast->pos;
    ExprPtr round = Make(ExprKind::kCall, pos, "round");
    RETURN_IF_ERROR(Adopt(*round, std::move(cast)));
    ASSIGN_OR_RETURN(ExprPtr digits, Literal(pos, Datum::Bigint(*scale)));
    RETURN_IF_ERROR(Adopt(*round, std::move(digits)));
    return round;
  }

  // A type name: Strata's, or PostgreSQL's (`double precision`, `varchar(64)`:
  // lengths are accepted and not enforced; `numeric(10, 2)` rounds to its scale).
  // `scale`: where DECIMAL(p, s) or NUMERIC(p, s) puts its s (left alone for other types).
  absl::StatusOr<DataType> ParseTypeName(std::optional<int64_t>* scale = nullptr) {
    ASSIGN_OR_RETURN(DataType type, ParseBaseTypeName(scale));
    // PostgreSQL's T[]: array(T).
    int depth = 0;
    while (Peek().kind == TokenKind::kSymbol && Peek().text == "[" &&
           Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "]") {
      const Token& open = Next();
      Next();
      if (++depth > kMaxExpressionDepth) {
        return Error(open,
                     StrCat("an array type nests more than ", kMaxExpressionDepth, " levels"));
      }
      std::optional<DataType> array = ArrayOf(type);
      if (!array) return Error(open, TooManyTypesMessage());
      type = *array;
      if (scale != nullptr) scale->reset();  // numeric(10, 2)[]: not rounded
    }
    return type;
  }

  absl::StatusOr<DataType> ParseBaseTypeName(std::optional<int64_t>* scale) {
    const Token& type_token = Peek();
    if (type_token.kind == TokenKind::kIdentifier &&
        (IsWord(type_token, "array") || IsWord(type_token, "row") ||
         IsWord(type_token, "map"))) {
      return ParseCompositeTypeName();
    }
    if (type_token.kind == TokenKind::kIdentifier && IsWord(type_token, "interval")) {
      // INTERVAL DAY TO SECOND (a duration; also bare INTERVAL) or YEAR TO MONTH.
      Next();
      if (AcceptWord("year")) {
        RETURN_IF_ERROR(ExpectWord("to"));
        RETURN_IF_ERROR(ExpectWord("month"));
        return DataType::kIntervalYearToMonth;
      }
      if (AcceptWord("day")) {
        RETURN_IF_ERROR(ExpectWord("to"));
        RETURN_IF_ERROR(ExpectWord("second"));
      }
      return DataType::kInterval;
    }
    auto type = TypeFromName(type_token.text);
    if (type_token.kind != TokenKind::kIdentifier || !type) {
      return Error(type_token, StrCat("unknown type ", Describe(type_token),
                                      "; use bigint, double, varchar, boolean, timestamp, "
                                      "date or time"));
    }
    Next();
    if (IsWord(type_token, "double")) AcceptWord("precision");
    if (IsWord(type_token, "character")) AcceptWord("varying");
    if (Peek().kind == TokenKind::kSymbol && Peek().text == "(" &&
        Peek(1).kind == TokenKind::kInteger) {
      Next();
      Next();
      const bool decimal = IsWord(type_token, "decimal") || IsWord(type_token, "numeric");
      if (decimal && AcceptSymbol(",")) {
        const Token& digits = Peek();
        int64_t s = -1;
        if (digits.kind == TokenKind::kInteger && ParseCount(digits.text, &s) && s <= 38) {
          Next();
          if (scale != nullptr) *scale = s;
        } else {
          return Error(digits, StrCat("a DECIMAL's scale is a whole number of decimals up to "
                                      "38, not ",
                                      Describe(digits)));
        }
      }
      RETURN_IF_ERROR(ExpectSymbol(")"));
    }
    if (IsWord(type_token, "timestamp") || IsWord(type_token, "time")) SkipZoneWords(0);
    return *type;
  }

  // The count of the words WITH TIME ZONE or WITHOUT TIME ZONE `ahead` tokens on (else 0):
  // PostgreSQL's spellings of a timestamp's or a time's type, which name Strata's one type (a
  // UTC instant; the session zone is UTC).
  size_t ZoneWords(int ahead) {
    const bool with = IsWord(Peek(ahead), "with") || IsWord(Peek(ahead), "without");
    return with && IsWord(Peek(ahead + 1), "time") && IsWord(Peek(ahead + 2), "zone") ? 3 : 0;
  }
  void SkipZoneWords(int ahead) {
    for (size_t n = ZoneWords(ahead); n > 0; --n) Next();
  }

  // array(T) (or array<T>), map(K, V), row(name T, ...).
  absl::StatusOr<DataType> ParseCompositeTypeName() {
    const Token& word = Next();
    Nesting nesting(&expression_depth_);
    RETURN_IF_ERROR(CheckNesting(expression_depth_, kMaxExpressionDepth, "type names"));
    std::optional<DataType> type;
    if (IsWord(word, "map")) {
      RETURN_IF_ERROR(ExpectSymbol("("));
      ASSIGN_OR_RETURN(DataType key, ParseTypeName());
      RETURN_IF_ERROR(ExpectSymbol(","));
      ASSIGN_OR_RETURN(DataType value, ParseTypeName());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      type = MapOf(key, value);
    } else if (IsWord(word, "array")) {
      const bool angle = Peek().kind == TokenKind::kSymbol && Peek().text == "<";
      RETURN_IF_ERROR(ExpectSymbol(angle ? "<" : "("));
      ASSIGN_OR_RETURN(DataType element, ParseTypeName());
      if (angle && Peek().kind == TokenKind::kSymbol && Peek().text == ">>") {
        // array<array<bigint>>: the lexer's shift closes two; this takes the first.
        Token& shift = tokens_[pos_];
        shift.text = ">";
        ++shift.pos.offset;
      } else {
        RETURN_IF_ERROR(ExpectSymbol(angle ? ">" : ")"));
      }
      type = ArrayOf(element);
    } else {
      RETURN_IF_ERROR(ExpectSymbol("("));
      std::vector<RowField> fields;
      do {
        RowField field;
        if ((Peek().kind == TokenKind::kIdentifier || Peek().kind == TokenKind::kQuotedIdentifier) &&
            (Peek(1).kind == TokenKind::kIdentifier)) {
          field.name = Next().text;
        }
        ASSIGN_OR_RETURN(field.type, ParseTypeName());
        fields.push_back(std::move(field));
      } while (AcceptSymbol(","));
      RETURN_IF_ERROR(ExpectSymbol(")"));
      type = RowOf(std::move(fields));
    }
    if (!type) return Error(word, TooManyTypesMessage());
    return *type;
  }

  // agg(args) FILTER (WHERE c) as agg(CASE WHEN c THEN arg END, ...), and
  // count(*) as count_if(c): every aggregate but array_agg leaves out rows
  // whose arguments are NULL, which is what the filter asks.
  // percentile_cont(p) WITHIN GROUP (ORDER BY x [DESC]), an ordered-set aggregate, as the
  // aggregate f(x, p, descending): its value depends on the order, not on the rows' order.
  // PostgreSQL's ordered-set aggregates: percentile_cont(p), percentile_disc(p) and mode()
  // WITHIN GROUP (ORDER BY x [DESC]), written as f(x, [p,] descending).
  absl::Status OrderedSetAggregate(Expr& call, const Token& within) {
    std::vector<OrderItem>& order = call.ordered_by->order_by;
    const bool mode = call.name == "mode";
    if (call.args.size() != (mode ? 0 : 1) || order.size() != 1 || call.distinct) {
      return Error(within, mode ? "mode() WITHIN GROUP (ORDER BY x) takes no argument and one "
                                  "ORDER BY key"
                                : StrCat(call.name,
                                         "(fraction) WITHIN GROUP (ORDER BY x) takes one "
                                         "fraction and one ORDER BY key"));
    }
    ExprPtr fraction = mode ? nullptr : std::move(call.args[0]);
    ASSIGN_OR_RETURN(ExprPtr descending, Literal(within.pos, Datum::Bool(order[0].descending)));
    call.args.clear();
    call.height = 1;
    RETURN_IF_ERROR(Adopt(call, std::move(order[0].expr)));
    if (fraction) RETURN_IF_ERROR(Adopt(call, std::move(fraction)));
    RETURN_IF_ERROR(Adopt(call, std::move(descending)));
    call.ordered_by.reset();
    return absl::OkStatus();
  }

  absl::Status FilterAggregate(Expr& call, ExprPtr condition, const Token& filter) {
    const AggregateFunction* aggregate = FunctionRegistry::Get().FindAggregate(call.name);
    if (aggregate == nullptr) {
      return Error(filter, StrCat("FILTER goes with an aggregate function, and ", call.name,
                                  "() is not one"));
    }
    if (aggregate->keeps_nulls) {
      // Its NULL arguments are values: the condition is evaluated for itself (Expr::filtered).
      call.filtered = true;
      return Adopt(call, std::move(condition));
    }
    if (call.args.size() == 1 && call.args[0]->kind == ExprKind::kStar) {
      call.name = "count_if";
      call.args.clear();
      return Adopt(call, std::move(condition));
    }
    for (ExprPtr& arg : call.args) {
      ExprPtr guarded = Make(ExprKind::kCase, arg->pos);
      guarded->filtered = true;
      RETURN_IF_ERROR(Adopt(*guarded, condition->Clone()));
      RETURN_IF_ERROR(Adopt(*guarded, std::move(arg)));
      arg = std::move(guarded);
      call.height = std::max(call.height, arg->height + 1);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ExprPtr> ParseCase(Position pos) {
    ExprPtr e = Make(ExprKind::kCase, pos);
    if (!IsWord(Peek(), "when")) {
      ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
      RETURN_IF_ERROR(Adopt(*e, std::move(operand)));
      e->has_operand = true;
    }
    if (!IsWord(Peek(), "when")) return Error(Peek(), "CASE needs at least one WHEN");
    while (AcceptWord("when")) {
      ASSIGN_OR_RETURN(ExprPtr when, ParseExpr());
      RETURN_IF_ERROR(ExpectWord("then"));
      ASSIGN_OR_RETURN(ExprPtr then, ParseExpr());
      RETURN_IF_ERROR(Adopt(*e, std::move(when)));
      RETURN_IF_ERROR(Adopt(*e, std::move(then)));
    }
    if (AcceptWord("else")) {
      ASSIGN_OR_RETURN(ExprPtr otherwise, ParseExpr());
      RETURN_IF_ERROR(Adopt(*e, std::move(otherwise)));
      e->has_else = true;
    }
    RETURN_IF_ERROR(ExpectWord("end"));
    return e;
  }

  absl::StatusOr<ExprPtr> ParsePrimary() {
    // PostgreSQL's tools call functions by their schema's name, pg_catalog.lower(x): the
    // function itself.
    if (IsWord(Peek(), "pg_catalog") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "." &&
        Peek(2).kind == TokenKind::kIdentifier && Peek(3).kind == TokenKind::kSymbol &&
        Peek(3).text == "(") {
      Next(), Next();
    }
    const Token& t = Peek();
    Position pos = t.pos;
    switch (t.kind) {
      case TokenKind::kInteger: {
        int64_t v = 0;
        auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
        if (ec != std::errc()) return Error(t, StrCat("number ", t.text, " does not fit in BIGINT"));
        Next();
        return Literal(pos, Datum::Bigint(v));
      }
      case TokenKind::kFloat: {
        double v = std::strtod(t.text.c_str(), nullptr);
        if (std::isinf(v)) return Error(t, StrCat("number ", t.text, " is past a double's range"));
        Next();
        return Literal(pos, Datum::Double(v));
      }
      case TokenKind::kDuration: {
        Next();
        return DurationLiteral(pos, t, t.text, DurationUnitNanos(t.unit), StrCat(t.text, t.unit));
      }
      case TokenKind::kString: {
        std::string text = Next().text;
        return Literal(pos, Datum::Varchar(std::move(text)));
      }
      case TokenKind::kSymbol:
        if (t.text == "(") {
          Next();
          if (IsWord(Peek(), "select") || IsWord(Peek(), "with") || IsWord(Peek(), "values")) {
            ExprPtr e = Make(ExprKind::kSubquery, pos);
            ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> query, ParseQuery());
            e->subquery = std::move(query);
            RETURN_IF_ERROR(ExpectSymbol(")"));
            return e;
          }
          ASSIGN_OR_RETURN(ExprPtr inner, ParseExpr());
          if (AcceptSymbol(",")) {
            // (a, b, ...): a row, as ROW(a, b, ...) (`(host, region) IN (('a', 'eu'), ...)`).
            ExprPtr row = Make(ExprKind::kCall, pos, "row");
            row->written_as_list = true;
            RETURN_IF_ERROR(Adopt(*row, std::move(inner)));
            do {
              ASSIGN_OR_RETURN(ExprPtr field, ParseExpr());
              RETURN_IF_ERROR(Adopt(*row, std::move(field)));
            } while (AcceptSymbol(","));
            inner = std::move(row);
          }
          RETURN_IF_ERROR(ExpectSymbol(")"));
          return inner;
        }
        if (t.text == "?") {  // a positional placeholder
          if (positional_used_ >= parameters_.positional.size()) {
            return Error(t, StrCat("placeholder ? number ", positional_used_ + 1,
                                   " has no value; send one unnamed parameter per ?, in order "
                                   "(gRPC: QueryRequest.parameters; HTTP: \"params\" as an "
                                   "array)"));
          }
          Next();
          return Literal(pos, parameters_.positional[positional_used_++]);
        }
        return Error(t, StrCat("expected an expression but found ", Describe(t)));
      case TokenKind::kEnd:
        return Error(t, "the statement ends where an expression was expected");
      case TokenKind::kQuotedIdentifier:
      case TokenKind::kIdentifier:
        break;
    }
    if (t.kind == TokenKind::kIdentifier) {
      ASSIGN_OR_RETURN(ExprPtr keyword, ParseKeywordForm(t, pos));
      if (keyword) return keyword;
      // grouping(k, ...) is a call (of GROUP BY's keys: grouping_sets.h), though a keyword.
      // So is unnest(array) in a select list (set_returning.h).
      // And PostgreSQL's left(s, n) and right(s, n), though JOIN's words.
      const bool keyword_call = (IsWord(t, "grouping") || IsWord(t, "unnest") ||
                                 IsWord(t, "left") || IsWord(t, "right")) &&
                                Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(";
      if (IsReserved(t.text) && !keyword_call) {
        return Error(t, StrCat("expected an expression but found the keyword ", Describe(t)));
      }
    }
    // A placeholder: @name (a column name never starts with @).
    if (t.kind == TokenKind::kIdentifier && t.text.size() > 1 && t.text[0] == '@') {
      Next();
      const std::string name = t.text.substr(1);
      auto value = parameters_.named.find(name);
      if (value == parameters_.named.end()) {
        return Error(t, StrCat("parameter ", t.text, " has no value; send a parameter named \"",
                               name, "\" (gRPC: QueryRequest.parameters; HTTP: \"params\" as "
                               "an object)"));
      }
      used_named_.insert(name);
      ASSIGN_OR_RETURN(ExprPtr literal, Literal(pos, value->second));
      literal->untyped = parameters_.untyped.contains(name);
      return literal;
    }
    // A name: a function call, a column, or measure_value::type.
    std::string name = Next().text;
    const bool quoted = t.kind == TokenKind::kQuotedIdentifier;
    if (!quoted && AcceptSymbol("(")) return ParseCall(pos, name);
    return ParseColumn(pos, std::move(name), quoted);
  }

  // What a keyword starts: NULL, TRUE, FALSE, CASE, ARRAY[...], CAST,
  // typed literals, EXTRACT, POSITION, EXISTS and the clock's keywords;
  // null when `t` (the next token) starts none of them.
  absl::StatusOr<ExprPtr> ParseKeywordForm(const Token& t, Position pos) {
    if (AcceptWord("null")) return Literal(pos, Datum::Null());
    if (AcceptWord("true")) return Literal(pos, Datum::Bool(true));
    if (AcceptWord("false")) return Literal(pos, Datum::Bool(false));
    if (IsWord(t, "case")) {
      Next();
      return ParseCase(pos);
    }
    if (IsWord(t, "array") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "[") {
      Next();
      Next();
      ExprPtr array = Make(ExprKind::kCall, pos, "array");
      if (!AcceptSymbol("]")) {
        do {
          ASSIGN_OR_RETURN(ExprPtr element, ParseExpr());
          RETURN_IF_ERROR(Adopt(*array, std::move(element)));
        } while (AcceptSymbol(","));
        RETURN_IF_ERROR(ExpectSymbol("]"));
      }
      return array;
    }
    if (IsWord(t, "array") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(" &&
        (IsWord(Peek(2), "select") || IsWord(Peek(2), "with") || IsWord(Peek(2), "values"))) {
      // PostgreSQL's ARRAY(SELECT x ...): the subquery's values as one array (named "array").
      Next();
      Next();
      ExprPtr e = Make(ExprKind::kSubquery, pos, "array");
      ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> query, ParseQuery());
      e->subquery = std::move(query);
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return e;
    }
    if (IsWord(t, "cast") || IsWord(t, "try_cast")) {
      std::string name = IsWord(t, "cast") ? "cast" : "try_cast";
      Next();
      return ParseCast(pos, std::move(name));
    }
    ASSIGN_OR_RETURN(ExprPtr literal, ParseTypedLiteral(t, pos));
    if (literal) return literal;
    if (IsWord(t, "extract") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      Next();
      Next();
      const Token& field = Next();
      RETURN_IF_ERROR(ExpectWord("from"));
      ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return ExtractCall(field, std::move(operand));
    }
    if (IsWord(t, "date_part") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(" &&
        Peek(2).kind == TokenKind::kString && Peek(3).kind == TokenKind::kSymbol &&
        Peek(3).text == ",") {
      // PostgreSQL's date_part('hour', t): extract(hour FROM t), but for its 'dow', which is
      // PostgreSQL's (Sunday 0 to Saturday 6): date_part is PostgreSQL's alone, where
      // extract(dow ...) is Timestream's too (Presto's ISO Monday 1 to Sunday 7).
      Next();
      Next();
      const Token& field = Next();
      Next();
      ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      ASSIGN_OR_RETURN(ExprPtr call, ExtractCall(field, std::move(operand)));
      if (!EqualsIgnoreCase(field.text, "dow")) return call;
      ExprPtr sunday_zero = Make(ExprKind::kBinary, field.pos, "%");
      RETURN_IF_ERROR(Adopt(*sunday_zero, std::move(call)));
      ASSIGN_OR_RETURN(ExprPtr seven, Literal(field.pos, Datum::Bigint(7)));
      RETURN_IF_ERROR(Adopt(*sunday_zero, std::move(seven)));
      return sunday_zero;
    }
    if (IsWord(t, "trim") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(" &&
        (IsWord(Peek(2), "both") || IsWord(Peek(2), "leading") || IsWord(Peek(2), "trailing") ||
         TrimHasFrom())) {
      // The standard's trim([BOTH | LEADING | TRAILING] [characters] FROM s): trim, ltrim
      // or rtrim of (s [, characters]).
      Next();
      Next();
      std::string name = "trim";
      if (AcceptWord("leading")) {
        name = "ltrim";
      } else if (AcceptWord("trailing")) {
        name = "rtrim";
      } else {
        AcceptWord("both");
      }
      ExprPtr characters;
      if (!IsWord(Peek(), "from")) {
        ASSIGN_OR_RETURN(characters, ParseConcat());
      }
      RETURN_IF_ERROR(ExpectWord("from"));
      ASSIGN_OR_RETURN(ExprPtr source, ParseExpr());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      ExprPtr e = Make(ExprKind::kCall, pos, name);
      RETURN_IF_ERROR(Adopt(*e, std::move(source)));
      if (characters) RETURN_IF_ERROR(Adopt(*e, std::move(characters)));
      return e;
    }
    if (IsWord(t, "overlay") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      Next();
      Next();
      return ParseOverlay(pos);
    }
    if (IsWord(t, "substring") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      // substring(s FROM start [FOR length]), the standard's spelling, or
      // substring(s, start [, length]).
      Next();
      Next();
      ExprPtr e = Make(ExprKind::kCall, pos, "substring");
      ASSIGN_OR_RETURN(ExprPtr source, ParseExpr());
      RETURN_IF_ERROR(Adopt(*e, std::move(source)));
      const bool standard = AcceptWord("from");
      if (standard && Peek().kind == TokenKind::kString && Peek(1).kind == TokenKind::kSymbol &&
          Peek(1).text == ")") {
        // PostgreSQL's substring(s FROM 'pattern'): the first match, or what its first
        // parenthesized part matched (regexp_extract, RE2's syntax as the regexp functions').
        const Token& pattern = Next();
        Next();
        absl::StatusOr<const re2::RE2*> compiled = CompiledPattern(pattern.text);
        if (!compiled.ok()) return Error(pattern, std::string(compiled.status().message()));
        e->name = "regexp_extract";
        ASSIGN_OR_RETURN(ExprPtr text, Literal(pattern.pos, Datum::Varchar(pattern.text)));
        RETURN_IF_ERROR(Adopt(*e, std::move(text)));
        const int group = (*compiled)->NumberOfCapturingGroups() > 0 ? 1 : 0;
        ASSIGN_OR_RETURN(ExprPtr part, Literal(pattern.pos, Datum::Bigint(group)));
        RETURN_IF_ERROR(Adopt(*e, std::move(part)));
        return e;
      }
      if (standard || AcceptSymbol(",")) {
        ASSIGN_OR_RETURN(ExprPtr start, ParseExpr());
        RETURN_IF_ERROR(Adopt(*e, std::move(start)));
        if (standard ? AcceptWord("for") : AcceptSymbol(",")) {
          ASSIGN_OR_RETURN(ExprPtr length, ParseExpr());
          RETURN_IF_ERROR(Adopt(*e, std::move(length)));
        }
      }
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return e;
    }
    if (IsWord(t, "position") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      // position(needle IN haystack), the standard's spelling of strpos
      // (operands below comparisons, so IN is the keyword here).
      Next();
      Next();
      ASSIGN_OR_RETURN(ExprPtr needle, ParseConcat());
      RETURN_IF_ERROR(ExpectWord("in"));
      ASSIGN_OR_RETURN(ExprPtr haystack, ParseConcat());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      ExprPtr e = Make(ExprKind::kCall, pos, "strpos");
      RETURN_IF_ERROR(Adopt(*e, std::move(haystack)));
      RETURN_IF_ERROR(Adopt(*e, std::move(needle)));
      return e;
    }
    if (IsWord(t, "exists") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      Next();
      Next();
      ExprPtr e = Make(ExprKind::kExists, pos);
      ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> query, ParseQuery());
      e->subquery = std::move(query);
      RETURN_IF_ERROR(ExpectSymbol(")"));
      return e;
    }
    // The session's values, as PostgreSQL clients ask for them (`SELECT current_schema(),
    // current_user`): constants of the statement, so a cluster's fragments carry them too.
    // A Strata database is a PostgreSQL schema of the one database "strata" (docs/protocols.md).
    if (IsWord(t, "current_user") || IsWord(t, "session_user")) {
      Next();
      return Literal(
          pos,
          Datum::Varchar(parameters_.session_user.empty() ? "strata" : parameters_.session_user));
    }
    if (IsWord(t, "current_catalog")) {
      Next();
      return Literal(pos, Datum::Varchar("strata"));
    }
    if ((IsWord(t, "current_database") || IsWord(t, "current_schema")) &&
        Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(" &&
        Peek(2).kind == TokenKind::kSymbol && Peek(2).text == ")") {
      const bool database = IsWord(t, "current_database");
      Next(), Next(), Next();
      return Literal(
          pos, Datum::Varchar(database                             ? "strata"
                              : parameters_.current_schema.empty() ? "public"
                                                                   : parameters_.current_schema));
    }
    if (IsWord(t, "version") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(" &&
        Peek(2).kind == TokenKind::kSymbol && Peek(2).text == ")") {
      Next(), Next(), Next();
      return Literal(pos, Datum::Varchar(std::string(VersionText())));
    }
    if (IsWord(t, "current_timestamp") || IsWord(t, "localtimestamp") ||
        IsWord(t, "current_date") || IsWord(t, "current_time") || IsWord(t, "localtime")) {
      // The clock's SQL keywords (no parentheses); current_date and current_time are the
      // session zone's (UTC without one).
      std::string name = IsWord(t, "current_date")                               ? "current_date"
                         : IsWord(t, "current_time") || IsWord(t, "localtime") ? "current_time"
                                                                                : "now";
      Next();
      return InSessionZone(Make(ExprKind::kCall, pos, name), zone_);
    }
    return ExprPtr();
  }

  // TIMESTAMP '...', DATE '...', TIME '...', INTERVAL '...' unit, and a type
  // name before a string (DOUBLE '0.5'); null when `t` starts none of them.
  // The rest of overlay(s PLACING r FROM start [FOR length]), the standard's spelling, or
  // overlay(s, r, start [, length]): the call overlay(s, r, start [, length]).
  absl::StatusOr<ExprPtr> ParseOverlay(Position pos) {
    ExprPtr e = Make(ExprKind::kCall, pos, "overlay");
    ASSIGN_OR_RETURN(ExprPtr source, ParseExpr());
    RETURN_IF_ERROR(Adopt(*e, std::move(source)));
    const bool standard = AcceptWord("placing");
    if (!standard) RETURN_IF_ERROR(ExpectSymbol(","));
    ASSIGN_OR_RETURN(ExprPtr replacement, ParseExpr());
    RETURN_IF_ERROR(Adopt(*e, std::move(replacement)));
    if (standard) {
      RETURN_IF_ERROR(ExpectWord("from"));
    } else {
      RETURN_IF_ERROR(ExpectSymbol(","));
    }
    ASSIGN_OR_RETURN(ExprPtr start, ParseExpr());
    RETURN_IF_ERROR(Adopt(*e, std::move(start)));
    if (standard ? AcceptWord("for") : AcceptSymbol(",")) {
      ASSIGN_OR_RETURN(ExprPtr length, ParseExpr());
      RETURN_IF_ERROR(Adopt(*e, std::move(length)));
    }
    RETURN_IF_ERROR(ExpectSymbol(")"));
    return e;
  }

  absl::StatusOr<ExprPtr> ParseTypedLiteral(const Token& t, Position pos) {
    const size_t zone = IsWord(t, "timestamp") || IsWord(t, "time") ? ZoneWords(1) : 0;
    if (IsWord(t, "timestamp") && Peek(1 + zone).kind == TokenKind::kString) {
      Next();
      SkipZoneWords(0);
      const Token& text = Next();
      auto nanos = TimestampTextInZone(text.text, zone_);
      if (!nanos) {
        return Error(text, StrCat("'", EchoInput(text.text), "' is not a timestamp from 1677-09-21 to 2262-04-11; write it as "
                                  "'2023-05-17 20:54:39.000000000'"));
      }
      return Literal(pos, Datum::Timestamp(*nanos));
    }
    if ((IsWord(t, "date") || IsWord(t, "time")) && Peek(1 + zone).kind == TokenKind::kString) {
      const bool date = IsWord(Next(), "date");
      SkipZoneWords(0);
      const Token& text = Next();
      std::optional<Datum> value = date ? ParseDate(text.text) : ParseTime(text.text);
      if (!value) {
        return Error(text, StrCat("'", EchoInput(text.text), "' is not a ",
                                  date ? "date from 1677-09-22 to 2262-04-11; write it as "
                                         "'2023-05-17'"
                                       : "time of day; write it as '20:54:39.123'"));
      }
      return Literal(pos, *std::move(value));
    }
    if (Peek(1).kind == TokenKind::kString && (IsWord(t, "json") || IsWord(t, "jsonb"))) {
      // JSON '{"a": 1}', as CAST('{"a": 1}' AS json).
      const Token& type = Next();
      const Token& text = Next();
      ASSIGN_OR_RETURN(ExprPtr value, Literal(text.pos, Datum::Varchar(text.text)));
      return JsonCast(pos, /*try_cast=*/false, type, std::move(value));
    }
    if (Peek(1).kind == TokenKind::kString && !IsWord(t, "interval") && TypeFromName(t.text)) {
      // DOUBLE '0.0', BIGINT '5': a typed literal, as CAST('0.0' AS DOUBLE).
      ExprPtr cast = Make(ExprKind::kCast, pos, "cast");
      cast->cast_type = *TypeFromName(Next().text);
      const Token& text = Next();
      ASSIGN_OR_RETURN(ExprPtr value, Literal(text.pos, Datum::Varchar(text.text)));
      RETURN_IF_ERROR(Adopt(*cast, std::move(value)));
      return InSessionZone(std::move(cast), zone_);
    }
    if (IsWord(t, "interval") && Peek(1).kind == TokenKind::kString) {
      Next();
      const Token& amount = Next();
      const Token& unit = Peek();
      std::string u = unit.text;
      for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!u.empty() && u.back() == 's') u.pop_back();
      if (unit.kind == TokenKind::kIdentifier && (u == "year" || u == "month")) {
        Next();
        return ParseYearToMonth(pos, amount, u == "year");
      }
      int64_t per = unit.kind == TokenKind::kIdentifier ? DurationUnitNanos(u) : 0;
      if (per == 0) {
        // PostgreSQL's form: the units inside the text ('1 day 2 hours').
        auto parsed = ParseIntervalText(amount.text);
        if (!parsed.ok()) return Error(amount, std::string(parsed.status().message()));
        return Literal(pos, parsed->months != 0 ? Datum::Months(parsed->months)
                                                : Datum::Interval(parsed->nanos));
      }
      Next();
      return DurationLiteral(
          pos, amount, amount.text, per,
          StrCat("INTERVAL '", EchoInput(amount.text), "' ", absl::AsciiStrToUpper(unit.text)));
    }
    return ExprPtr();
  }

  // INTERVAL 'amount' unit and a duration literal (5m): `amount` (of `token`, `written` as the
  // statement wrote it) a number of units of `per` nanoseconds; an error for text that is not a
  // decimal number (it was read as 0) and for a duration past an interval's ±292 years (it
  // wrapped around).
  absl::StatusOr<ExprPtr> DurationLiteral(Position pos, const Token& token,
                                          const std::string& amount, int64_t per,
                                          std::string_view written) {
    const std::string number(StripWhitespace(amount));
    const bool decimal =
        !number.empty() && number.find_first_not_of("0123456789.eE+-") == std::string::npos;
    char* end = nullptr;
    const double v = decimal ? std::strtod(number.c_str(), &end) : 0;
    if (!decimal || end != number.c_str() + number.size()) {
      return Error(token, StrCat(written, ": '", EchoInput(amount),
                                 "' is not a number; write e.g. INTERVAL '5' MINUTE or 5m"));
    }
    const double nanos = std::round(v * static_cast<double>(per));
    if (!(std::fabs(nanos) < 9223372036854775808.0)) {  // 2^63: an int64 of nanoseconds
      return Error(token, StrCat(written, " is longer than an interval's 292 years"));
    }
    return Literal(pos, Datum::Interval(static_cast<int64_t>(nanos)));
  }

  // A call of `name` after its "(": arguments, FILTER, IGNORE NULLS, OVER.
  absl::StatusOr<ExprPtr> ParseCall(Position pos, const std::string& name) {
    std::string lowered = name;
    for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ExprPtr call = Make(ExprKind::kCall, pos, lowered);
    if (AcceptSymbol(")")) {
      // f()
    } else if (Peek().kind == TokenKind::kSymbol && Peek().text == "*") {
      ExprPtr star = Make(ExprKind::kStar, Next().pos);
      RETURN_IF_ERROR(Adopt(*call, std::move(star)));
      RETURN_IF_ERROR(ExpectSymbol(")"));
    } else {
      if (AcceptWord("distinct")) call->distinct = true;
      const ScalarFunction* function = FunctionRegistry::Get().FindScalar(lowered);
      const bool lambdas = function != nullptr && function->takes_lambdas;
      do {
        ASSIGN_OR_RETURN(ExprPtr arg, ParseArgument(lambdas));
        RETURN_IF_ERROR(Adopt(*call, std::move(arg)));
      } while (AcceptSymbol(","));
      if (IsWord(Peek(), "order") && IsWord(Peek(1), "by")) {  // agg(x ORDER BY k)
        Next();
        Next();
        call->ordered_by = std::make_shared<WindowSpec>();
        RETURN_IF_ERROR(ParseOrderItems(&call->ordered_by->order_by));
      }
      RETURN_IF_ERROR(ExpectSymbol(")"));
    }
    // The standard's agg(x) WITHIN GROUP (ORDER BY k), as listagg takes its order.
    if (IsWord(Peek(), "within") && IsWord(Peek(1), "group")) {
      const Token& within = Next();
      Next();
      if (call->ordered_by) {
        return Error(within, "the call orders its rows already; give ORDER BY once");
      }
      RETURN_IF_ERROR(ExpectSymbol("("));
      RETURN_IF_ERROR(ExpectWord("order"));
      RETURN_IF_ERROR(ExpectWord("by"));
      call->ordered_by = std::make_shared<WindowSpec>();
      RETURN_IF_ERROR(ParseOrderItems(&call->ordered_by->order_by));
      RETURN_IF_ERROR(ExpectSymbol(")"));
      if (lowered == "percentile_cont" || lowered == "percentile_disc" || lowered == "mode") {
        call->name = lowered;
        RETURN_IF_ERROR(OrderedSetAggregate(*call, within));
      }
    }
    // TimescaleDB's first(value, time) and last(value, time): the value at the earliest or
    // latest time, as min_by and max_by (whose last-point shortcuts they then take).
    if ((lowered == "first" || lowered == "last") && call->args.size() == 2 && !call->distinct) {
      call->name = lowered == "last" ? "max_by" : "min_by";
    }
    // any_value(x), the standard's (SQL:2023) and newer Presto's name of arbitrary(x), and
    // Presto's set_agg(x), array_agg(DISTINCT x).
    if (lowered == "any_value") call->name = "arbitrary";
    if (lowered == "set_agg" && call->args.size() == 1 && !call->ordered_by) {
      call->name = "array_agg";
      call->distinct = true;
    }
    // agg(...) FILTER (WHERE condition)
    if (IsWord(Peek(), "filter") && Peek(1).kind == TokenKind::kSymbol && Peek(1).text == "(") {
      const Token& filter = Next();
      Next();
      RETURN_IF_ERROR(ExpectWord("where"));
      ASSIGN_OR_RETURN(ExprPtr condition, ParseExpr());
      RETURN_IF_ERROR(ExpectSymbol(")"));
      RETURN_IF_ERROR(FilterAggregate(*call, std::move(condition), filter));
    }
    // f(x) [IGNORE NULLS | RESPECT NULLS] OVER (...)
    bool ignore_nulls = false;
    if ((IsWord(Peek(), "ignore") || IsWord(Peek(), "respect")) && IsWord(Peek(1), "nulls")) {
      ignore_nulls = IsWord(Next(), "ignore");
      Next();
      if (!IsWord(Peek(), "over")) {
        return Error(Peek(), "IGNORE NULLS and RESPECT NULLS go with a window function: add OVER (...)");
      }
    }
    if (IsWord(Peek(), "over") && call->filtered) {
      return Error(Peek(), StrCat("FILTER of ", lowered,
                                  "() over a window is not supported; "
                                  "filter the rows in WHERE or a subquery"));
    }
    if (IsWord(Peek(), "over") && call->ordered_by) {
      return Error(Peek(), StrCat("a window function orders its rows by the window's ORDER BY; "
                                  "move the ORDER BY of ",
                                  lowered, "() into OVER (...)"));
    }
    if (IsWord(Peek(), "over") &&
        (Peek(1).kind == TokenKind::kIdentifier || Peek(1).kind == TokenKind::kQuotedIdentifier)) {
      // OVER name: a window of the WINDOW clause, filled in at the end of the SELECT.
      Next();
      call->window = std::make_shared<WindowSpec>();
      call->window->ignore_nulls = ignore_nulls;
      window_uses_.push_back({call.get(), &Next()});
      return call;
    }
    if (AcceptWord("over")) {
      ASSIGN_OR_RETURN(call->window, ParseWindow());
      call->window->ignore_nulls = ignore_nulls;
      return call;
    }
    if (IsWindowOnlyFunction(lowered)) {
      return Error(Peek(), StrCat(lowered, "() is a window function: add OVER (...), e.g. ",
                                  lowered, "() OVER (PARTITION BY host ORDER BY time)"));
    }
    // IF is CASE (as in Presto): only the branch taken is evaluated, so
    // if(x <> 0, 10 / x) never divides by zero. Other shapes stay a call,
    // whose binding says what if() takes.
    if (lowered == "if" && !call->distinct && (call->args.size() == 2 || call->args.size() == 3)) {
      call->kind = ExprKind::kCase;
      call->has_else = call->args.size() == 3;
    }
    return InSessionZone(std::move(call), zone_);
  }

  // A column, a qualified column, or measure_value::type.
  absl::StatusOr<ExprPtr> ParseColumn(Position pos, std::string name, bool quoted) {
    ExprPtr column = Make(ExprKind::kColumn, pos, name);
    column->quoted = quoted;
    // measure_value::double is Timestream's typed column; any other
    // name::type is PostgreSQL's cast, left to ParsePostfix.
    if (EqualsIgnoreCase(name, "measure_value") && AcceptSymbol("::")) {
      const Token& type = Next();
      column->name = StrCat(name, "::", type.text);
      for (char& c : column->name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (Peek().kind == TokenKind::kSymbol && Peek().text == "." &&
               (Peek(1).kind == TokenKind::kIdentifier ||
                Peek(1).kind == TokenKind::kQuotedIdentifier)) {
      Next();
      column->qualifier = std::move(column->name);
      column->name = Next().text;
      column->quoted = tokens_[pos_ - 1].kind == TokenKind::kQuotedIdentifier;
      // t.measure_value::double: the typed column of table t.
      if (!column->quoted && EqualsIgnoreCase(column->name, "measure_value") &&
          Peek().kind == TokenKind::kSymbol && Peek().text == "::") {
        Next();
        column->name = StrCat("measure_value::", Next().text);
        for (char& c : column->name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    return column;
  }

  // Every value sent must have a placeholder: a value that binds nothing is
  // a mistake in the query or the client.
  absl::Status CheckParametersUsed() const {
    if (positional_used_ < parameters_.positional.size()) {
      return absl::InvalidArgumentError(StrCat(
          parameters_.positional.size(), " positional parameters were sent but the query has ",
          positional_used_, " ? placeholders"));
    }
    for (const auto& [name, value] : parameters_.named) {
      if (!used_named_.contains(name) && !parameters_.optional.contains(name)) {
        return absl::InvalidArgumentError(
            StrCat("parameter \"", name, "\" was sent but the query has no @", name));
      }
    }
    return absl::OkStatus();
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  const QueryParameters& parameters_;
  const SessionZone zone_;  // null: UTC
  size_t positional_used_ = 0;
  std::set<std::string> used_named_;
  size_t pos_ = 0;
  // BETWEEN SYMMETRIC bounds being parsed, around the one being parsed.
  int symmetric_depth_ = 0;
  static constexpr int kMaxSymmetricNesting = 4;
  int expression_depth_ = 0;
  int64_t expressions_ = 0;
  // `OVER name` calls waiting for their SELECT's WINDOW clause.
  struct WindowUse {
    Expr* call;
    const Token* name;
  };
  std::vector<WindowUse> window_uses_;
  int query_depth_ = 0;
};

}  // namespace

absl::StatusOr<Statement> Parse(std::string_view sql, const QueryParameters& parameters) {
  if (sql.size() > kMaxQueryBytes) {
    return absl::InvalidArgumentError(StrCat("the query is ", sql.size(), " bytes; the limit is ",
                                             kMaxQueryBytes, " (256 KiB)"));
  }
  if (const std::string& zone = parameters.time_zone;
      !zone.empty() && !NamesUtc(zone) && !LoadTimeZone(zone)) {
    // Read as UTC, a zone misspelt by a front door would change every answer without a word.
    return absl::InvalidArgumentError(
        StrCat("the session's time zone '", EchoInput(zone),
               "' is not a time zone; name one of the IANA database, as 'Europe/Berlin', or an "
               "offset, as '+05:30'"));
  }
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(sql));
  Parser parser(sql, std::move(tokens), parameters);
  return parser.ParseStatement();
}

}  // namespace strata::query
