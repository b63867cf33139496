#include "cluster/log_trimmer.h"

#include <algorithm>

namespace strata::cluster {

std::optional<uint64_t> TrimPoint(const ShardPlacement& placement,
                                  const std::set<std::string>& members,
                                  const std::map<std::string, uint64_t>& applied,
                                  uint64_t keep_entries) {
  std::optional<uint64_t> lowest;
  auto count = [&](const std::string& node) {
    if (!members.contains(node)) return true;
    auto it = applied.find(node);
    if (it == applied.end()) return false;
    lowest = std::min(lowest.value_or(it->second), it->second);
    return true;
  };
  for (const std::string& node : placement.replicas) {
    if (!count(node)) return std::nullopt;
  }
  if (!placement.joining.empty() && !count(placement.joining)) return std::nullopt;
  if (!lowest.has_value()) return std::nullopt;
  keep_entries = std::max<uint64_t>(keep_entries, 1);
  return *lowest >= keep_entries ? *lowest - keep_entries + 1 : 1;
}

}  // namespace strata::cluster
