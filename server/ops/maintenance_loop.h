// The background thread that runs the engine's tiering and retention jobs
// (Engine::RunMaintenance) every interval, and logs one line per table that
// had work or an error. At start it first fills every table's last points
// (Engine::FillLastPoints), as they are not kept across restarts. Stop()
// interrupts the wait, not a running job: a job step is short and atomic, so
// shutdown waits for at most one pass (or one chunk of the fill).
// Thread-safety: Start and Stop from the owner's thread only.
#pragma once

#include <chrono>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "storage/engine.h"

namespace strata {

class MaintenanceLoop {
 public:
  MaintenanceLoop(Engine* engine, std::chrono::seconds interval)
      : engine_(engine), interval_(interval) {}
  ~MaintenanceLoop() { Stop(); }

  void Start();
  void Stop();

 private:
  void Run();
  void FillLastPoints();

  Engine* const engine_;
  const std::chrono::seconds interval_;
  std::thread thread_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

// Logs a table's part of a run: one line when it moved, merged or dropped
// anything, an error line when a job failed, nothing otherwise.
void LogMaintenance(const TableMaintenance& result);

}  // namespace strata
