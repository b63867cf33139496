// Exit codes of the `strata` CLI. Scripts may rely on them; docs/cli.md lists
// them. Keep the numbers stable.
#pragma once

namespace strata::cli {

enum class ExitCode : int {
  kOk = 0,
  // The server refused the request (bad SQL, unknown table, validation...).
  kRequestFailed = 1,
  // The command line was wrong; nothing was sent.
  kUsage = 2,
  // The server could not be reached.
  kUnavailable = 3,
  // An import or write finished, but some records were rejected.
  kPartial = 4,
  // Interrupted by Ctrl-C (128 + SIGINT, as shells report it).
  kInterrupted = 130,
};

inline int ToInt(ExitCode code) { return static_cast<int>(code); }

}  // namespace strata::cli
