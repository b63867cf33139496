#include "server/http/origin.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"
#include "common/utf8.h"

namespace strata {
namespace {

// "Host:port" -> "host" ("[::1]:7879" -> "::1").
std::string_view HostName(std::string_view host_port) {
  if (host_port.starts_with('[')) {
    const size_t close = host_port.find(']');
    return close == std::string_view::npos ? host_port : host_port.substr(1, close - 1);
  }
  return host_port.substr(0, host_port.find(':'));
}

bool SameAuthority(std::string_view a, std::string_view b) { return EqualsIgnoreCase(a, b); }

}  // namespace

bool IsLoopbackName(std::string_view host) {
  if (host.ends_with('.')) host.remove_suffix(1);
  if (EqualsIgnoreCase(host, "localhost") || host == "::1") return true;
  if (!host.starts_with("127.")) return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return c == '.' || std::isdigit(static_cast<unsigned char>(c));
  });
}

std::optional<std::string> CrossSiteRefusal(const httplib::Request& req, bool guard_host) {
  const std::string host = req.get_header_value("Host");
  if (req.has_header("Origin")) {
    const std::string origin_header = req.get_header_value("Origin");  // a copy
    std::string_view origin = origin_header;
    const size_t scheme = origin.find("://");
    if (scheme != std::string_view::npos) origin.remove_prefix(scheme + 3);
    if (!SameAuthority(origin, host)) {
      return StrCat("a page of another site (Origin ", EchoInput(origin_header, 100),
                    ") may not send requests here; open the console on this server, or send "
                    "the request without a browser");
    }
  }
  if (guard_host && !IsLoopbackName(HostName(host))) {
    return StrCat(
        "this server checks no tokens, so it answers only requests addressed to a "
        "loopback name (localhost, 127.0.0.1), not \"",
        EchoInput(host, 100), "\"; turn tokens on (--auth on) to serve other names");
  }
  return std::nullopt;
}

}  // namespace strata
