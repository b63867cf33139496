// Starting a thread where a request asks for one (a connection, a query's fragments or its
// page producer), without ending the process when none can start. std::thread throws
// std::system_error when the process is at its thread limit (ulimit -u, a container's or
// cgroup's pids.max, no memory for a stack); uncaught on a request's path, that ends the
// server for every client. Callers answer RESOURCE_EXHAUSTED instead, or do the work on a
// thread they have.
#pragma once

#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "common/strings.h"

namespace strata {

// `f` on a new thread, or RESOURCE_EXHAUSTED naming `what` (then `f` was not run).
template <typename F>
absl::StatusOr<std::thread> StartThread(std::string_view what, F&& f) {
  try {
    return std::thread(std::forward<F>(f));
  } catch (const std::system_error& e) {
    return absl::ResourceExhaustedError(
        StrCat("could not start a thread for ", what, " (", e.what(),
               "): the server is at its thread limit (ulimit -u, a container's pids limit); "
               "retry when fewer queries or connections are open, or raise the limit"));
  }
}

}  // namespace strata
