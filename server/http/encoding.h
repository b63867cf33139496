// The encodings stratad answers in. Debian's cpp-httplib compresses a text
// or JSON answer for a client that accepts brotli (every browser) at
// brotli's highest quality: 1.2 MB of JSON took 1.6 s instead of 0.09 s
// uncompressed or with gzip, and the console's 480 KB script 1.3 s. Taking
// "br" out of the request's Accept-Encoding makes httplib pick gzip.
#pragma once

#include <string>
#include <string_view>

#include "httplib.h"

namespace strata {

// `accept_encoding` without its "br" entries ("gzip, deflate, br;q=1" ->
// "gzip, deflate").
std::string WithoutBrotli(std::string_view accept_encoding);

// Rewrites the request's Accept-Encoding so (before httplib reads it to
// encode the answer). httplib hands handlers a const Request it owns as a
// mutable object; the routing hook is the one place that rewrites it.
void DropBrotli(const httplib::Request& req);

}  // namespace strata
