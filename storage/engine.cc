#include "storage/engine.h"

#include "common/status.h"

namespace strata {

absl::StatusOr<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto engine = std::unique_ptr<Engine>(new Engine());
  engine->clock_ = options.clock != nullptr ? options.clock : SystemClock::Default();
  ASSIGN_OR_RETURN(engine->store_,
                   Store::Open({.data_dir = options.data_dir, .durability = options.durability}));
  ASSIGN_OR_RETURN(engine->catalog_, Catalog::Load(engine->store_.get(), engine->clock_));
  engine->writer_ =
      std::make_unique<Writer>(engine->store_.get(), engine->catalog_.get(), engine->clock_);
  return engine;
}

absl::Status Engine::Scan(const TableInfo& table, const ScanOptions& options,
                          const std::function<bool(const ScanRow&)>& emit, ScanStats* stats) {
  return ScanTable(*store_, table, clock_->NowNanos(), options, emit, stats);
}

absl::Status Engine::Close() {
  writer_.reset();
  catalog_.reset();
  if (!store_) return absl::OkStatus();
  absl::Status status = store_->Close();
  store_.reset();
  return status;
}

Engine::~Engine() { Close().IgnoreError(); }

}  // namespace strata
