#include "query/base/memory_budget.h"

#include "common/strings.h"

namespace strata::query {

absl::Status MemoryBudget::Reserve(int64_t bytes, std::string_view what) {
  int64_t used = used_.load(std::memory_order_relaxed);
  do {
    if (used + bytes > limit_) {
      refusals_.fetch_add(1, std::memory_order_relaxed);
      return absl::ResourceExhaustedError(
          StrCat("the server's queries together need more than its ", limit_ >> 20,
                 " MiB query memory budget (for ", what,
                 " here); retry when fewer queries run, narrow this one, or raise the server's "
                 "--query-memory-total-mb"));
    }
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return absl::OkStatus();
}

}  // namespace strata::query
