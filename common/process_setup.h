// Set-up shared by the programs' main functions.
#pragma once

namespace strata {

// Debian's Abseil is built without NDEBUG, so every Mutex lock (gRPC's
// included) records the lock order in a global graph, with stack traces: a
// debugging aid that cost ~1 % of the CPU of small queries in stratad and of
// `strata import`. Programs turn it off first thing; the unit tests, which
// link the same locks, keep it.
void SkipMutexDeadlockDetection();

}  // namespace strata
