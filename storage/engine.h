// The storage engine: the one entry point the server (and the query engine)
// uses. It owns the RocksDB store of a data directory and the catalog, and
// the write path (Writer) and the scan interface. Read this header first.
//
// Thread-safety: every method is safe for concurrent use, except Close, which
// the owner calls once when no other call is running.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "storage/catalog.h"
#include "storage/scan.h"
#include "storage/store.h"
#include "storage/table_state.h"
#include "storage/write_types.h"
#include "storage/writer.h"

namespace strata {

struct EngineOptions {
  std::string data_dir;
  Durability durability = Durability::kFsync;
  // Time source for write windows, retention and background jobs. Not owned;
  // null means the system clock.
  const Clock* clock = nullptr;
};

class Engine {
 public:
  // Opens (or creates) the data directory. See Store::Open for the errors.
  static absl::StatusOr<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  ~Engine();

  Catalog& catalog() { return *catalog_; }
  const Clock& clock() const { return *clock_; }

  // WriteRecords: see Writer::Write for the contract.
  absl::StatusOr<WriteResult> Write(const WriteRequest& request) { return writer_->Write(request); }

  // Streams the live rows of a table in key order; see storage/scan.h.
  absl::Status Scan(const TableInfo& table, const ScanOptions& options,
                    const std::function<bool(const ScanRow&)>& emit, ScanStats* stats = nullptr);

  // The series registry and measure schema of a table.
  absl::StatusOr<TableState*> TableStateOf(const TableInfo& table) {
    return writer_->State(table.id);
  }

  // Makes everything acknowledged durable and releases the data directory.
  absl::Status Close();

 private:
  Engine() = default;

  const Clock* clock_ = nullptr;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<Writer> writer_;
};

}  // namespace strata
