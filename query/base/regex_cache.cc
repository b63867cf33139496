#include "query/base/regex_cache.h"

#include <list>
#include <memory>
#include <utility>

#include "common/strings.h"
#include "common/utf8.h"

namespace strata::query {
namespace {

// Patterns kept per thread; a query rarely uses more than a couple.
constexpr size_t kCachedPatterns = 32;
// RE2's memory budget for one compiled pattern (its default is 8 MiB); a
// pattern that needs more fails to compile rather than growing without bound.
constexpr int64_t kMaxPatternMemory = 8 << 20;

}  // namespace

absl::StatusOr<const re2::RE2*> CompiledPattern(const std::string& pattern) {
  // Most recently used first.
  thread_local std::list<std::pair<std::string, std::unique_ptr<re2::RE2>>> cache;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->first == pattern) {
      cache.splice(cache.begin(), cache, it);
      return cache.front().second.get();
    }
  }
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxPatternMemory);
  auto compiled = std::make_unique<re2::RE2>(pattern, options);
  if (!compiled->ok()) {
    return absl::InvalidArgumentError(StrCat("invalid regular expression '", EchoInput(pattern),
                                             "': ", ToValidUtf8(compiled->error())));
  }
  cache.emplace_front(pattern, std::move(compiled));
  if (cache.size() > kCachedPatterns) cache.pop_back();
  return cache.front().second.get();
}

}  // namespace strata::query
