// Starts the processes a test runs (stratad, etcd, NATS, the CLI) so that they end with the
// test process: a test killed by ctest's timeout would otherwise leave its servers running,
// holding ports and cores while the tests after it run.
//
// The kernel's parent-death signal is sent when the *thread* that forked a child ends, and
// tests start nodes from threads that end long before the test does. So every child is forked
// on one thread that lives as long as the test process, and is killed (SIGKILL) when that
// thread ends: when the process exits or is killed.
#pragma once

#include <sys/types.h>

#include <functional>

namespace strata::testing {

// Forks; the child runs `in_child` (which should exec or _exit; it may only do what is safe
// after a fork: no locks, no allocation it can avoid) and is killed when this process ends.
// Returns the child's pid, or -1 when fork failed. Thread-safe.
pid_t ForkTiedToThisProcess(const std::function<void()>& in_child);

}  // namespace strata::testing
