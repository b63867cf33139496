// stratad: parses the configuration, starts the server (server/stratad.h)
// and serves until SIGINT or SIGTERM, then shuts down gracefully (stop accepting, finish
// in-flight calls, flush, close). Exit codes: 0 clean stop, 1 start-up
// failure, 2 bad command line.
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <optional>

#include "common/process_setup.h"
#include "common/strings.h"
#include "server/auth/tls.h"
#include "server/ops/config.h"
#include "server/ops/logging.h"
#include "server/stratad.h"
#include "spdlog/spdlog.h"
#include "storage/engine.h"

namespace {

const char* DurabilityName(strata::Durability d) {
  return d == strata::Durability::kFsync ? "fsync" : "buffered";
}

int Fail(const absl::Status& status) {
  spdlog::error("stratad cannot start: {}", status.message());
  return 1;
}

}  // namespace

// jemalloc's options, read at its start: freed pages go back to the system
// after ten seconds unused (jemalloc's own default), by background threads,
// not the threads that free memory: a madvise flushes every core's TLB, which
// on a paravirtual VM the write path felt (server CPU a row during an import
// -9 %, docs/benchmarks.md). Not sooner: a large read allocates the same tens
// of megabytes query after query (its network buffers, pages and batches), and
// with pages given back within a second each query faulted them in again, on
// such a VM dearly (a cluster's coordinating node: 41-67 -> 22-33 ms of CPU a
// high-cpu-all, session 76). The memory head frees a converted hour's rows at
// once; RSS follows it down within those ten seconds.
//
// One arena, not jemalloc's four a core: a query's work hops between threads
// (gRPC's, the query workers, spare threads for fragments), each thread bound
// to an arena, and an arena reuses only the pages it freed itself. After an
// idle spell had given the pages back, every arena faulted its own in again,
// query after query: a cluster's coordinator ~970-1,230 page faults a query
// over the nine after 30 s idle, 270-450 with one arena, the nine's mean
// 76-79 -> 52-60 ms; steady state unchanged, RSS lower, an import no slower
// (docs/benchmarks.md, session 78). Small allocations come from each thread's
// cache; a many-core machine whose allocator shows up in profiles can set
// more (MALLOC_CONF=narenas:N overrides this, docs/operations.md).
extern "C" const char* malloc_conf;
const char* malloc_conf = "background_thread:true,dirty_decay_ms:10000,muzzy_decay_ms:0,narenas:1";

int main(int argc, char** argv) {
  strata::SkipMutexDeadlockDetection();
  strata::ParsedCommandLine parsed = strata::ParseCommandLine(argc, argv);
  if (parsed.exit_code) return *parsed.exit_code;
  const strata::ServerConfig& config = parsed.config;
  strata::ConfigureLogging(config.log_format, config.log_level);
  if (absl::Status valid = strata::ValidateConfig(config); !valid.ok()) {
    spdlog::error("{}", valid.message());
    return 2;
  }

  // The data directory and every file the server creates are its owner's
  // alone, whatever the caller's umask (PostgreSQL insists on the same):
  // the directory is created 0700, files 0600.
  umask(077);

  // Signals are taken by sigwait below, not by handlers: block them before
  // any thread (RocksDB's, gRPC's) starts so that every thread inherits it.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  spdlog::info("stratad starting: data_dir={} listen={} durability={} max_message_bytes={}",
               config.data_dir, config.listen, DurabilityName(config.durability),
               config.max_message_bytes);
  // --testing-fixed-time: a clock that stands still (golden tests over the wire).
  std::optional<strata::ManualClock> fixed_clock;
  if (auto fixed = strata::FixedTimeNanos(config)) {
    fixed_clock.emplace(*fixed);
    spdlog::warn("the clock stands still at {} (--testing-fixed-time): for tests only",
                 config.testing_fixed_time);
  }
  if (!config.restore_from.empty()) {
    auto restored = strata::RestoreBackup(config.restore_from,
                                          static_cast<uint32_t>(config.restore_backup_id),
                                          config.data_dir);
    if (!restored.ok()) return Fail(restored.status());
    spdlog::info("restored backup {} of {} ({} files, {} bytes) into {}; start without "
                 "--restore-from from now on",
                 restored->id, config.restore_from, restored->files, restored->bytes,
                 config.data_dir);
    if (config.restore_only) return 0;
  }
  auto stratad = strata::Stratad::Start(config, fixed_clock ? &*fixed_clock : nullptr);
  if (!stratad.ok()) return Fail(stratad.status());
  const strata::TlsConfig& tls = (*stratad)->tls();

  int signal = 0;
  while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
    // The TLS files are re-read every --tls-reload-seconds anyway; SIGHUP
    // says at once whether the new ones are good.
    if (!tls.enabled()) {
      spdlog::info("SIGHUP: no TLS files to check");
    } else if (absl::Status checked = strata::CheckTlsFiles(tls); checked.ok()) {
      spdlog::info("SIGHUP: the TLS files are valid; they are served within {} s",
                   tls.reload_seconds);
    } else {
      spdlog::error("SIGHUP: {}; the previous certificate stays in use", checked.message());
    }
  }
  spdlog::info("stratad stopping on {}: finishing in-flight calls (up to {} s)",
               signal == SIGINT ? "SIGINT" : "SIGTERM", config.shutdown_grace_seconds);
  if (absl::Status closed = (*stratad)->Stop(std::chrono::seconds(config.shutdown_grace_seconds));
      !closed.ok()) {
    spdlog::error("stratad stopped with an error while closing the data directory: {}",
                  closed.message());
    return 1;
  }
  spdlog::info("stratad stopped cleanly");
  return 0;
}
