// Runs one maintenance pass (tiering, then retention) over a data directory
// at a given clock time, then exits. The crash tests kill it with SIGKILL at
// random moments: a real process dying mid-job, not a simulated failure.
// Usage: maintenance_helper DATA_DIR NOW_NANOS
#include <cstdio>
#include <cstdlib>

#include "common/clock.h"
#include "storage/engine.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: maintenance_helper DATA_DIR NOW_NANOS\n");
    return 2;
  }
  strata::ManualClock clock(std::strtoll(argv[2], nullptr, 10));
  auto engine = strata::Engine::Open({.data_dir = argv[1], .clock = &clock});
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", std::string(engine.status().message()).c_str());
    return 1;
  }
  for (const auto& result : (*engine)->RunMaintenance()) {
    if (!result.status.ok()) {
      std::fprintf(stderr, "%s\n", std::string(result.status.message()).c_str());
      return 1;
    }
  }
  return (*engine)->Close().ok() ? 0 : 1;
}
