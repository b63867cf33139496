#include "server/http/console.h"

#include <functional>
#include <string>

#include "common/strings.h"
#include "server/http/console_assets.h"

namespace strata {
namespace {

constexpr std::string_view kPrefix = "/console";

// The page loads only its own script and style; CodeMirror sets inline
// styles, uPlot draws on canvases.
constexpr char kPolicy[] =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

constexpr char kNotBuilt[] =
    "<!doctype html><title>Strata console</title><h1>The console was not built</h1>"
    "<p>This stratad was compiled without the console's files. Build them with "
    "<code>scripts/build.sh</code> (it needs Node.js and npm; console/README.md), then build "
    "stratad again. The HTTP SQL API (<code>/api/v1/sql</code>) works without them.</p>";

const ConsoleAsset* Find(std::string_view path) {
  if (path.starts_with(kPrefix)) path.remove_prefix(kPrefix.size());
  if (path.empty() || path == "/") path = "/index.html";
  for (const ConsoleAsset& asset : ConsoleAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

// A validator of the file's bytes: a page reloaded revalidates (no-cache)
// and gets 304 rather than the script again, compressed again.
std::string ETagOf(const ConsoleAsset& asset) {
  return StrCat("\"", std::hash<std::string_view>{}(asset.body), "\"");
}

void Serve(const httplib::Request& req, httplib::Response& res) {
  res.set_header("Content-Security-Policy", kPolicy);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
  if (ConsoleAssets().empty()) {
    res.status = 503;
    res.set_content(kNotBuilt, "text/html; charset=utf-8");
    return;
  }
  const ConsoleAsset* asset = Find(req.path);
  if (asset == nullptr) {
    res.status = 404;
    res.set_content("no such file of the console", "text/plain");
    return;
  }
  const std::string etag = ETagOf(*asset);
  res.set_header("ETag", etag);
  if (req.get_header_value("If-None-Match") == etag) {
    res.status = 304;
    return;
  }
  res.set_content(std::string(asset->body), std::string(asset->content_type));
}

}  // namespace

bool IsConsolePath(std::string_view path) {
  if (path == "/" || path == "/console") return true;
  if (path.starts_with(kPrefix)) path.remove_prefix(kPrefix.size());
  return path == "/" || path == "/index.html" || path == "/app.js" || path == "/app.css";
}

void RouteConsole(httplib::Server& server) {
  server.Get("/", Serve);
  server.Get("/console", [](const httplib::Request&, httplib::Response& res) {
    res.set_redirect("/console/");
  });
  for (std::string_view file : {"/", "/index.html", "/app.js", "/app.css"}) {
    server.Get(std::string(kPrefix) + std::string(file), Serve);
    if (file != "/") server.Get(std::string(file), Serve);
  }
}

}  // namespace strata
