// The statements other than SELECT and EXPLAIN, each in a file of its own:
// SHOW DATABASES, SHOW TABLES, SHOW MEASURES and DESCRIBE
// (statements_catalog.cc), SHOW QUERIES and KILL QUERY
// (statements_running.cc), DELETE (statement_delete.cc), INSERT (statement_insert.cc), COPY
// FROM STDIN (statement_copy.cc), CREATE, ALTER and DROP (statements_catalog_changes.cc).
// QueryEngine::Execute parses the statement and hands it to one of these.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "query/base/result.h"
#include "query/exec/operators.h"
#include "query/exec/table_layout.h"
#include "query/parse/parser.h"
#include "query/query_options.h"
#include "storage/engine.h"

namespace strata::query {

// What a statement runs with, and where its answer goes.
struct StatementRun {
  std::string_view sql;  // for the caret of an error
  const QueryOptions& options;
  Engine& storage;
  TableLayoutCache& layouts;
  QueryContext& context;
  QueryStats& stats;
  ResultSink& sink;
  RowSink& pager;  // pages rows into `sink`, counting them as a SELECT's are

  // The answer: `columns`, then `rows`.
  absl::Status Emit(std::vector<ResultColumn> columns, std::vector<Row> rows) const;
};

absl::Status ShowDatabases(const Statement& stmt, const StatementRun& run);
absl::Status ShowTables(const Statement& stmt, const StatementRun& run);
// SHOW MEASURES and DESCRIBE, which both need the caller's read grant.
absl::Status ShowMeasures(const Statement& stmt, const StatementRun& run);
// SHOW FUNCTIONS [LIKE 'pattern']: every function with its kind, signature
// and description (statements_functions.cc), for editors' completion.
absl::Status ShowFunctions(const Statement& stmt, const StatementRun& run);
absl::Status DescribeTable(const Statement& stmt, const StatementRun& run);
absl::Status ShowQueries(const Statement& stmt, const StatementRun& run);
absl::Status KillQuery(const Statement& stmt, const StatementRun& run);
// Plans the DELETE's SELECT, collects the points it matches and deletes
// them; needs read and write on the table.
absl::Status DeleteRows(Statement stmt, const StatementRun& run);
// Plans the INSERT's query and writes its rows as records (through QueryOptions::inserts);
// needs write on the table.
absl::Status InsertRows(Statement stmt, const StatementRun& run);
// COPY db.tbl [(columns)] FROM STDIN: the rows of QueryOptions::copy_rows written as INSERT
// writes them (statement_copy.cc); needs write on the table.
absl::Status CopyFrom(Statement stmt, const StatementRun& run);
// CREATE, ALTER and DROP of a database or table (statements_catalog_changes.cc), through
// QueryOptions::ddl with the grants the CatalogService asks for.
absl::Status ChangeCatalog(const Statement& stmt, const StatementRun& run);

}  // namespace strata::query
