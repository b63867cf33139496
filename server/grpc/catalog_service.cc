#include "server/grpc/catalog_service.h"

#include "common/status.h"
#include "server/wire/catalog_convert.h"

namespace strata {

absl::Status CatalogService::CreateDatabase(const Principal& caller,
                                            const v1::CreateDatabaseRequest* request,
                                            v1::CreateDatabaseResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("create databases"));
  ASSIGN_OR_RETURN(DatabaseInfo db,
                   ddl_.CreateDatabase(request->database_name(), request->description()));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::DescribeDatabase(const Principal& caller,
                                              const v1::DescribeDatabaseRequest* request,
                                              v1::DescribeDatabaseResponse* response) {
  RETURN_IF_ERROR(caller.RequireSee(request->database_name()));
  absl::StatusOr<DatabaseInfo> found = catalog_.DescribeDatabase(request->database_name());
  if (absl::IsNotFound(found.status()) && ddl_.CatchUpForRead()) {
    found = catalog_.DescribeDatabase(request->database_name());
  }
  ASSIGN_OR_RETURN(DatabaseInfo db, std::move(found));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::ListDatabases(const Principal& caller,
                                           const v1::ListDatabasesRequest* request,
                                           v1::ListDatabasesResponse* response) {
  // A list's first page shows every database created before the call, through any node.
  if (request->next_token().empty()) ddl_.CatchUpForRead();
  ASSIGN_OR_RETURN(Page<DatabaseInfo> page,
                   catalog_.ListDatabases(request->max_results(), request->next_token()));
  // A page may come back shorter than max_results: others are not shown.
  for (const DatabaseInfo& db : page.items) {
    if (caller.MaySee(db.name)) ToProto(db, response->add_databases());
  }
  response->set_next_token(page.next_token);
  return absl::OkStatus();
}

absl::Status CatalogService::UpdateDatabase(const Principal& caller,
                                            const v1::UpdateDatabaseRequest* request,
                                            v1::UpdateDatabaseResponse* response) {
  RETURN_IF_ERROR(caller.RequireAdmin("change databases"));
  ASSIGN_OR_RETURN(DatabaseInfo db,
                   ddl_.UpdateDatabase(request->database_name(), request->description()));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::DeleteDatabase(const Principal& caller,
                                            const v1::DeleteDatabaseRequest* request,
                                            v1::DeleteDatabaseResponse*) {
  RETURN_IF_ERROR(caller.RequireAdmin("delete databases"));
  return ddl_.DeleteDatabase(request->database_name());
}

absl::Status CatalogService::CreateTable(const Principal& caller,
                                         const v1::CreateTableRequest* request,
                                         v1::CreateTableResponse* response) {
  RETURN_IF_ERROR(caller.RequireTableAdmin(request->database_name(), "create tables"));
  ASSIGN_OR_RETURN(TableSpec spec, TableSpecFromProto(*request));
  ASSIGN_OR_RETURN(TableInfo table, ddl_.CreateTable(spec));
  ToProto(table, response->mutable_table());
  return absl::OkStatus();
}

absl::Status CatalogService::DescribeTable(const Principal& caller,
                                           const v1::DescribeTableRequest* request,
                                           v1::DescribeTableResponse* response) {
  RETURN_IF_ERROR(caller.RequireSee(request->database_name(), request->table_name()));
  absl::StatusOr<TableInfo> found =
      catalog_.DescribeTable(request->database_name(), request->table_name());
  if (absl::IsNotFound(found.status()) && ddl_.CatchUpForRead()) {
    found = catalog_.DescribeTable(request->database_name(), request->table_name());
  }
  ASSIGN_OR_RETURN(TableInfo table, std::move(found));
  ToProto(table, response->mutable_table());
  ASSIGN_OR_RETURN(TableStorageStats storage, engine_.StorageStats(table));
  ToProto(storage, response->mutable_storage());
  return absl::OkStatus();
}

absl::Status CatalogService::ListTables(const Principal& caller,
                                        const v1::ListTablesRequest* request,
                                        v1::ListTablesResponse* response) {
  // A database the caller may not see is answered as a missing one.
  if (!request->database_name().empty() && !caller.MaySee(request->database_name())) {
    return Catalog::NoSuchDatabase(request->database_name());
  }
  if (request->next_token().empty()) ddl_.CatchUpForRead();  // as ListDatabases
  ASSIGN_OR_RETURN(
      Page<TableInfo> page,
      catalog_.ListTables(request->database_name(), request->max_results(), request->next_token()));
  for (const TableInfo& table : page.items) {
    if (caller.MaySee(table.database_name, table.name)) ToProto(table, response->add_tables());
  }
  response->set_next_token(page.next_token);
  return absl::OkStatus();
}

absl::Status CatalogService::UpdateTable(const Principal& caller,
                                         const v1::UpdateTableRequest* request,
                                         v1::UpdateTableResponse* response) {
  RETURN_IF_ERROR(caller.RequireTableAdmin(request->database_name(), "change tables"));
  ASSIGN_OR_RETURN(TableUpdate update, TableUpdateFromProto(*request));
  ASSIGN_OR_RETURN(TableInfo table,
                   ddl_.UpdateTable(request->database_name(), request->table_name(), update));
  ToProto(table, response->mutable_table());
  return absl::OkStatus();
}

absl::Status CatalogService::DeleteTable(const Principal& caller,
                                         const v1::DeleteTableRequest* request,
                                         v1::DeleteTableResponse*) {
  RETURN_IF_ERROR(caller.RequireTableAdmin(request->database_name(), "delete tables"));
  return ddl_.DeleteTable(request->database_name(), request->table_name());
}

void CatalogService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &CatalogService::RequestCreateDatabase,
             &CatalogService::CreateDatabase);
  ServeUnary(queues, auth_, this, &CatalogService::RequestDescribeDatabase,
             &CatalogService::DescribeDatabase);
  ServeUnary(queues, auth_, this, &CatalogService::RequestListDatabases,
             &CatalogService::ListDatabases);
  ServeUnary(queues, auth_, this, &CatalogService::RequestUpdateDatabase,
             &CatalogService::UpdateDatabase);
  ServeUnary(queues, auth_, this, &CatalogService::RequestDeleteDatabase,
             &CatalogService::DeleteDatabase);
  ServeUnary(queues, auth_, this, &CatalogService::RequestCreateTable,
             &CatalogService::CreateTable);
  ServeUnary(queues, auth_, this, &CatalogService::RequestDescribeTable,
             &CatalogService::DescribeTable);
  ServeUnary(queues, auth_, this, &CatalogService::RequestListTables, &CatalogService::ListTables);
  ServeUnary(queues, auth_, this, &CatalogService::RequestUpdateTable,
             &CatalogService::UpdateTable);
  ServeUnary(queues, auth_, this, &CatalogService::RequestDeleteTable,
             &CatalogService::DeleteTable);
}

}  // namespace strata
