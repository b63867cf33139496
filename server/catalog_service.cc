#include "server/catalog_service.h"

#include "common/status.h"
#include "server/catalog_convert.h"

namespace strata {

absl::Status CatalogService::CreateDatabase(const v1::CreateDatabaseRequest* request,
                                            v1::CreateDatabaseResponse* response) {
  ASSIGN_OR_RETURN(DatabaseInfo db,
                   catalog_.CreateDatabase(request->database_name(), request->description()));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::DescribeDatabase(const v1::DescribeDatabaseRequest* request,
                                              v1::DescribeDatabaseResponse* response) {
  ASSIGN_OR_RETURN(DatabaseInfo db, catalog_.DescribeDatabase(request->database_name()));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::ListDatabases(const v1::ListDatabasesRequest* request,
                                           v1::ListDatabasesResponse* response) {
  ASSIGN_OR_RETURN(Page<DatabaseInfo> page,
                   catalog_.ListDatabases(request->max_results(), request->next_token()));
  for (const DatabaseInfo& db : page.items) ToProto(db, response->add_databases());
  response->set_next_token(page.next_token);
  return absl::OkStatus();
}

absl::Status CatalogService::UpdateDatabase(const v1::UpdateDatabaseRequest* request,
                                            v1::UpdateDatabaseResponse* response) {
  ASSIGN_OR_RETURN(DatabaseInfo db,
                   catalog_.UpdateDatabase(request->database_name(), request->description()));
  ToProto(db, response->mutable_database());
  return absl::OkStatus();
}

absl::Status CatalogService::DeleteDatabase(const v1::DeleteDatabaseRequest* request,
                                            v1::DeleteDatabaseResponse*) {
  return catalog_.DeleteDatabase(request->database_name());
}

absl::Status CatalogService::CreateTable(const v1::CreateTableRequest* request,
                                         v1::CreateTableResponse* response) {
  ASSIGN_OR_RETURN(TableSpec spec, TableSpecFromProto(*request));
  ASSIGN_OR_RETURN(TableInfo table, catalog_.CreateTable(spec));
  ToProto(table, response->mutable_table());
  return absl::OkStatus();
}

absl::Status CatalogService::DescribeTable(const v1::DescribeTableRequest* request,
                                           v1::DescribeTableResponse* response) {
  ASSIGN_OR_RETURN(TableInfo table,
                   catalog_.DescribeTable(request->database_name(), request->table_name()));
  ToProto(table, response->mutable_table());
  ASSIGN_OR_RETURN(TableStorageStats storage, engine_.StorageStats(table));
  ToProto(storage, response->mutable_storage());
  return absl::OkStatus();
}

absl::Status CatalogService::ListTables(const v1::ListTablesRequest* request,
                                        v1::ListTablesResponse* response) {
  ASSIGN_OR_RETURN(
      Page<TableInfo> page,
      catalog_.ListTables(request->database_name(), request->max_results(), request->next_token()));
  for (const TableInfo& table : page.items) ToProto(table, response->add_tables());
  response->set_next_token(page.next_token);
  return absl::OkStatus();
}

absl::Status CatalogService::UpdateTable(const v1::UpdateTableRequest* request,
                                         v1::UpdateTableResponse* response) {
  ASSIGN_OR_RETURN(TableUpdate update, TableUpdateFromProto(*request));
  ASSIGN_OR_RETURN(TableInfo table,
                   catalog_.UpdateTable(request->database_name(), request->table_name(), update));
  ToProto(table, response->mutable_table());
  return absl::OkStatus();
}

absl::Status CatalogService::DeleteTable(const v1::DeleteTableRequest* request,
                                         v1::DeleteTableResponse*) {
  return catalog_.DeleteTable(request->database_name(), request->table_name());
}

}  // namespace strata
