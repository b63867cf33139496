// The web console (console/, docs/console.md) served at / and /console/:
// the page and its script and style, compiled into stratad. They hold no
// data and need no token; the page's calls to /api/v1/sql carry one.
#pragma once

#include "httplib.h"

namespace strata {

void RouteConsole(httplib::Server& server);

// Whether `path` is one of the console's.
bool IsConsolePath(std::string_view path);

}  // namespace strata
