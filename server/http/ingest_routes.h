// The ingest endpoints of the HTTP port (docs/protocols.md), over the one
// write path:
//   POST /write?db=D&precision=P            InfluxDB 1 line protocol
//   POST /api/v2/write?bucket=D&precision=P InfluxDB 2 line protocol (org ignored)
//   GET|HEAD /ping                          InfluxDB's liveness probe (204)
//   POST /api/v1/write?db=D&table=T         Prometheus remote write
//   POST /api/v1/read?db=D&table=T          Prometheus remote read
// Bodies may be gzip-compressed (Content-Encoding: gzip); line protocol is
// written as it streams in.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "server/auth/authenticator.h"
#include "server/runner/ingest.h"
#include "server/runner/query_runner.h"

namespace httplib {
class Server;
}

namespace strata {

struct IngestHttpOptions {
  bool auto_create_tables = true;        // --http-auto-create
  std::string prometheus_database = "prometheus";  // when the URL names none
  std::string prometheus_table = "metrics";
  // Set when the server stops: remote reads' queries end (HttpServer sets it).
  std::shared_ptr<std::atomic<bool>> stopping;
};

// Writes go through `ingest`, remote reads' queries through `queries`.
void RouteIngest(httplib::Server& server, const IngestHttpOptions& options, Ingest* ingest,
                 StatementRunner* queries, Authenticator* auth);

}  // namespace strata
