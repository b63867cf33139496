// CatalogService handlers: adapt proto requests to the storage Catalog.
#pragma once

#include "server/grpc/unary.h"
#include "storage/engine.h"
#include "strata/v1/catalog.grpc.pb.h"

namespace strata {

// Every method served from raw bytes (server/grpc/unary.h).
using RawCatalogService = v1::CatalogService::WithRawMethod_CreateDatabase<
    v1::CatalogService::WithRawMethod_DescribeDatabase<
        v1::CatalogService::WithRawMethod_ListDatabases<
            v1::CatalogService::WithRawMethod_UpdateDatabase<
                v1::CatalogService::WithRawMethod_DeleteDatabase<
                    v1::CatalogService::WithRawMethod_CreateTable<
                        v1::CatalogService::WithRawMethod_DescribeTable<
                            v1::CatalogService::WithRawMethod_ListTables<
                                v1::CatalogService::WithRawMethod_UpdateTable<
                                    v1::CatalogService::WithRawMethod_DeleteTable<
                                        v1::CatalogService::Service>>>>>>>>>>;

class CatalogService final : public RawCatalogService {
 public:
  // `engine`, `auth` and `ddl` must outlive the service; `ddl` makes the changes (the
  // engine's catalog, or a cluster's, cluster/replicated_catalog.h).
  CatalogService(Engine* engine, Authenticator* auth, CatalogChanges* ddl)
      : catalog_(engine->catalog()), ddl_(*ddl), engine_(*engine), auth_(*auth) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(CreateDatabase, v1::CreateDatabaseRequest, v1::CreateDatabaseResponse);
  STRATA_SERVE_UNARY(DescribeDatabase, v1::DescribeDatabaseRequest, v1::DescribeDatabaseResponse);
  STRATA_SERVE_UNARY(ListDatabases, v1::ListDatabasesRequest, v1::ListDatabasesResponse);
  STRATA_SERVE_UNARY(UpdateDatabase, v1::UpdateDatabaseRequest, v1::UpdateDatabaseResponse);
  STRATA_SERVE_UNARY(DeleteDatabase, v1::DeleteDatabaseRequest, v1::DeleteDatabaseResponse);
  STRATA_SERVE_UNARY(CreateTable, v1::CreateTableRequest, v1::CreateTableResponse);
  STRATA_SERVE_UNARY(DescribeTable, v1::DescribeTableRequest, v1::DescribeTableResponse);
  STRATA_SERVE_UNARY(ListTables, v1::ListTablesRequest, v1::ListTablesResponse);
  STRATA_SERVE_UNARY(UpdateTable, v1::UpdateTableRequest, v1::UpdateTableResponse);
  STRATA_SERVE_UNARY(DeleteTable, v1::DeleteTableRequest, v1::DeleteTableResponse);

 private:
  Catalog& catalog_;
  CatalogChanges& ddl_;
  Engine& engine_;
  Authenticator& auth_;
};

}  // namespace strata
