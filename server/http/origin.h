// Requests a browser sends on another site's behalf. A page of any site can
// make the browser POST to 127.0.0.1 (a form, or fetch with a text/plain
// body, which needs no CORS preflight); the answer stays unreadable to the
// page, but the request runs: a DELETE through the SQL API, lines through
// /write. With tokens on, such a request carries none and is refused; with
// tokens off (the loopback default) nothing would stop it. So:
//   - a request whose Origin is another host and port than the one it was
//     sent to is refused (browsers send Origin on every cross-origin POST;
//     curl, scripts and client libraries send none);
//   - with tokens off on a loopback listener, a request addressed to a name
//     other than a loopback one is refused too: a rebinding name
//     (evil.example resolving to 127.0.0.1) makes the page same-origin.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "httplib.h"

namespace strata {

// Whether `host` (a Host header's name, without the port) is written as a
// loopback name: localhost, 127.x.y.z or ::1. No name is resolved.
bool IsLoopbackName(std::string_view host);

// Why `req` is refused, or nullopt. `guard_host`: tokens are off and the
// listener is on loopback.
std::optional<std::string> CrossSiteRefusal(const httplib::Request& req, bool guard_host);

}  // namespace strata
