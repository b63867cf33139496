#include "server/http/encoding.h"

#include "common/strings.h"

namespace strata {
namespace {

std::string_view Trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string WithoutBrotli(std::string_view accept_encoding) {
  std::string kept;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    const std::string_view entry = Trimmed(accept_encoding.substr(0, comma));
    accept_encoding = comma == std::string_view::npos ? "" : accept_encoding.substr(comma + 1);
    if (entry.empty() || EqualsIgnoreCase(Trimmed(entry.substr(0, entry.find(';'))), "br")) {
      continue;
    }
    if (!kept.empty()) kept += ", ";
    kept += entry;
  }
  return kept;
}

void DropBrotli(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  auto [first, last] = headers.equal_range("Accept-Encoding");
  for (auto it = first; it != last; ++it) it->second = WithoutBrotli(it->second);
}

}  // namespace strata
