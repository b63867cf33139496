// CatalogService handlers: adapt proto requests to the storage Catalog.
#pragma once

#include "storage/engine.h"
#include "strata/v1/catalog.grpc.pb.h"

namespace strata {

class CatalogService final : public v1::CatalogService::CallbackService {
 public:
  // `engine` must outlive the service.
  explicit CatalogService(Engine* engine) : catalog_(engine->catalog()), engine_(*engine) {}

  grpc::ServerUnaryReactor* CreateDatabase(grpc::CallbackServerContext* context,
                                           const v1::CreateDatabaseRequest* request,
                                           v1::CreateDatabaseResponse* response) override;
  grpc::ServerUnaryReactor* DescribeDatabase(grpc::CallbackServerContext* context,
                                             const v1::DescribeDatabaseRequest* request,
                                             v1::DescribeDatabaseResponse* response) override;
  grpc::ServerUnaryReactor* ListDatabases(grpc::CallbackServerContext* context,
                                          const v1::ListDatabasesRequest* request,
                                          v1::ListDatabasesResponse* response) override;
  grpc::ServerUnaryReactor* UpdateDatabase(grpc::CallbackServerContext* context,
                                           const v1::UpdateDatabaseRequest* request,
                                           v1::UpdateDatabaseResponse* response) override;
  grpc::ServerUnaryReactor* DeleteDatabase(grpc::CallbackServerContext* context,
                                           const v1::DeleteDatabaseRequest* request,
                                           v1::DeleteDatabaseResponse* response) override;
  grpc::ServerUnaryReactor* CreateTable(grpc::CallbackServerContext* context,
                                        const v1::CreateTableRequest* request,
                                        v1::CreateTableResponse* response) override;
  grpc::ServerUnaryReactor* DescribeTable(grpc::CallbackServerContext* context,
                                          const v1::DescribeTableRequest* request,
                                          v1::DescribeTableResponse* response) override;
  grpc::ServerUnaryReactor* ListTables(grpc::CallbackServerContext* context,
                                       const v1::ListTablesRequest* request,
                                       v1::ListTablesResponse* response) override;
  grpc::ServerUnaryReactor* UpdateTable(grpc::CallbackServerContext* context,
                                        const v1::UpdateTableRequest* request,
                                        v1::UpdateTableResponse* response) override;
  grpc::ServerUnaryReactor* DeleteTable(grpc::CallbackServerContext* context,
                                        const v1::DeleteTableRequest* request,
                                        v1::DeleteTableResponse* response) override;

 private:
  Catalog& catalog_;
  Engine& engine_;
};

}  // namespace strata
