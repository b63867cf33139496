// The query unit tests' common start: an engine on a data directory holding database "mydb"
// and its table "cpu".
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "common/status.h"
#include "storage/engine.h"

namespace strata::testing {

// `memory_hours`: the table's memory store retention.
inline absl::StatusOr<std::unique_ptr<Engine>> OpenEngineWithTable(const std::string& data_dir,
                                                                   Clock* clock, int memory_hours) {
  ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine,
                   Engine::Open({.data_dir = data_dir, .clock = clock}));
  RETURN_IF_ERROR(engine->catalog().CreateDatabase("mydb", "").status());
  RETURN_IF_ERROR(engine->catalog()
                      .CreateTable({.database_name = "mydb",
                                    .table_name = "cpu",
                                    .retention = {.memory_store_retention_hours = memory_hours}})
                      .status());
  return engine;
}

}  // namespace strata::testing
