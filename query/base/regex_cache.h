// Compiled regular expressions for regexp_like and friends. RE2 matches in
// time linear in the subject with bounded stack and memory, so no pattern or
// subject a client sends can hang or crash a query thread (std::regex
// backtracks: `(a|a)*b` ran forever, a long subject overflowed the stack).
// RE2's syntax is close to Presto's (Java) regular expressions.
//
// Thread-safety: each thread keeps its own small cache, so no locking.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "re2/re2.h"

namespace strata::query {

// The compiled `pattern`, from the calling thread's cache of recently used
// patterns (a query compiles its constant pattern once). INVALID_ARGUMENT
// naming the pattern when it does not compile.
absl::StatusOr<const re2::RE2*> CompiledPattern(const std::string& pattern);

}  // namespace strata::query
