// CatalogChanges: the DDL calls (create, change and drop databases and tables), as the
// server's front doors make them. A single node's Catalog makes them itself; a cluster's
// node makes them through etcd (cluster/replicated_catalog.h), so that every node's catalog
// holds the same. Reads go to the node's Catalog either way; a read that misses a name, and a
// list, ask CatchUpForRead first, since a cluster node's copy may be a moment behind.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "storage/catalog/catalog_types.h"

namespace strata {

class CatalogChanges {
 public:
  virtual ~CatalogChanges() = default;
  virtual absl::StatusOr<DatabaseInfo> CreateDatabase(std::string_view name,
                                                      std::string_view description) = 0;
  virtual absl::StatusOr<DatabaseInfo> UpdateDatabase(std::string_view name,
                                                      std::string_view description) = 0;
  virtual absl::Status DeleteDatabase(std::string_view name) = 0;
  virtual absl::StatusOr<TableInfo> CreateTable(const TableSpec& spec) = 0;
  virtual absl::StatusOr<TableInfo> UpdateTable(std::string_view database, std::string_view table,
                                                const TableUpdate& update) = 0;
  virtual absl::Status DeleteTable(std::string_view database, std::string_view table) = 0;

  // For a read that did not find a database or table in the node's Catalog, or lists them:
  // brings the copy up to the catalog's source as it was when the call came (a cluster's etcd:
  // a table just created through another node) and says whether to look again. A single
  // node's Catalog is its own source: false.
  virtual bool CatchUpForRead() { return false; }
};

}  // namespace strata
