// What a statement runs with: its page size, timeout, memory, cancel flag,
// the caller's grants, placeholders and default database (QueryEngine::Execute).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "query/base/memory_budget.h"
#include "query/base/read_access.h"
#include "query/base/running_queries.h"
#include "query/parse/parser.h"

namespace strata {
class CatalogChanges;  // storage/catalog/catalog_changes.h
}  // namespace strata

namespace strata::query {

class SystemTables;  // query/exec/system_tables.h
class DeleteSink;    // query/delete_sink.h
class InsertSink;    // query/insert_sink.h
class CopyRows;      // query/copy_rows.h
class ShardReads;    // query/base/shard_reads.h
class LocalLeaderRead;
struct ShardScope;

struct QueryOptions {
  int page_size = 1000;
  int64_t timeout_millis = 60'000;
  int64_t memory_limit_bytes = 256 << 20;
  // Set by CancelQuery or a client that went away; checked while running.
  const std::atomic<bool>* cancelled = nullptr;
  // The server-wide budget the query's memory also comes from; none: only
  // memory_limit_bytes applies.
  MemoryBudget* shared_budget = nullptr;
  // What the caller may read (query/base/read_access.h); null: everything.
  const ReadAccess* access = nullptr;
  // The server's running queries, for SHOW QUERIES and KILL QUERY; null:
  // those statements are refused.
  const RunningQueries* running = nullptr;
  // Where the scans publish what they have read so far; null: nowhere.
  QueryProgress* progress = nullptr;
  // The "system" tables (query/exec/system_tables.h); null: there are none.
  const SystemTables* system_tables = nullptr;
  // Values for the statement's ? and @name placeholders (query/parse/parser.h).
  QueryParameters parameters;
  // The database of unqualified table names (QueryRequest.database); empty:
  // names must be qualified.
  std::string default_database;
  // The select list's items without an alias or a column of their own are named as
  // PostgreSQL names them (count(*) is `count`, CASE is `case`, others `?column?`), not
  // Presto's `_col<i>`: the PostgreSQL wire's statements.
  bool postgres_names = false;
  // Plan only: the sink gets the result's columns and the query stops there
  // (a DELETE deletes nothing). PostgreSQL's Describe of a statement.
  bool describe_only = false;
  // Where DELETE's points go (query/delete_sink.h); null: this node's engine.
  DeleteSink* deletes = nullptr;
  // Where INSERT's records go (query/insert_sink.h): the server's ingest door for the caller;
  // null: this node's engine, unchecked.
  InsertSink* inserts = nullptr;
  // COPY ... FROM STDIN's rows, from the front door's client; null: COPY FROM is refused.
  CopyRows* copy_rows = nullptr;
  // What makes CREATE, ALTER and DROP's changes (a cluster's catalog, through etcd); null:
  // the storage engine's own catalog.
  CatalogChanges* ddl = nullptr;
  // A cluster node holding some shards only: how its tables are read, as fragments
  // (query/base/shard_reads.h); null: from this node's engine alone.
  ShardReads* shard_reads = nullptr;
  // A fragment's statement: its scans read the series of these shards only, and a statement
  // that is not a read (SELECT, DESCRIBE, SHOW MEASURES) is refused; null: all.
  const ShardScope* shard_scope = nullptr;
  // A small leader read on this node's replicas: told what the plan reads of the shards.
  LocalLeaderRead* local_leader_read = nullptr;
  // A cluster node's: brings its copy of the catalog up to the cluster's (true when it did). A
  // table the copy does not hold is looked up again after it: it may have been created through
  // another node a moment ago. Empty: a table not found does not exist.
  std::function<bool()> catch_up_catalog;
};

}  // namespace strata::query
