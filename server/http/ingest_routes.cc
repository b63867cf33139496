#include "server/http/ingest_routes.h"

#include "common/strings.h"
#include "httplib.h"
#include "server/http/auth.h"
#include "server/http/body.h"
#include "server/http/connections.h"
#include "server/http/influx_write.h"
#include "server/http/prometheus_read.h"
#include "server/http/prometheus_write.h"
#include "server/runner/ingest.h"

namespace strata {
namespace {

enum class InfluxApi { kV1, kV2 };

// InfluxDB 2's error codes by HTTP status.
std::string_view V2Code(int http_status) {
  switch (http_status) {
    case 400: return "invalid";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not found";
    case 413: return "request too large";
    case 429: return "too many requests";
    case 503: return "unavailable";
    default: return "internal error";
  }
}

// The error body each API's clients parse: v1 {"error": ...}, v2
// {"code": ..., "message": ...}.
void ReplyInfluxError(InfluxApi api, int http_status, std::string_view message,
                      httplib::Response& res) {
  res.status = http_status;
  std::string body = JsonError(message);  // {"error":"..."}
  if (api == InfluxApi::kV2) {
    body = StrCat(R"({"code":")", V2Code(http_status), R"(","message")",
                  std::string_view(body).substr(8));
  }
  res.set_content(body, "application/json");
}

void ServeLineProtocol(InfluxApi api, const httplib::Request& req, httplib::Response& res,
                       const httplib::ContentReader& content, const IngestHttpOptions& options,
                       Ingest& ingest, Authenticator& auth) {
  res.set_header("X-Influxdb-Build", "Strata");
  // Everything is checked before a byte of the body is read; a refusal
  // closes the connection after the answer, the body unread.
  auto refuse = [&](int http_status, std::string_view message) {
    GuardedHttpServer::CloseConnectionAfterAnswer();
    ReplyInfluxError(api, http_status, message, res);
  };
  auto caller = AuthenticateHttp(auth, req, QueryPassword::kAccepted);
  if (!caller.ok()) return refuse(HttpStatusOf(caller.status()), std::string(caller.status().message()));
  const char* database_parameter = api == InfluxApi::kV1 ? "db" : "bucket";
  std::string database = req.get_param_value(database_parameter);
  // InfluxDB 1.8's v2 compatibility names a bucket "database/retention-policy".
  if (api == InfluxApi::kV2) database = database.substr(0, database.find('/'));
  absl::Status checked = ingest.CheckDatabase(**caller, database, database_parameter);
  auto nanos_per_unit = NanosPerUnit(req.get_param_value("precision"));
  if (checked.ok()) checked = nanos_per_unit.status();
  if (checked.ok()) checked = CheckDeclaredSize(req, kMaxHttpBodyBytes);
  if (!checked.ok()) {
    return refuse(checked.code() == absl::StatusCode::kResourceExhausted ? 413 : HttpStatusOf(checked),
                  std::string(checked.message()));
  }
  LineProtocolWriter writer(ingest, **caller,
                            {.database = database,
                             .nanos_per_unit = *nanos_per_unit,
                             .auto_create_tables = options.auto_create_tables});
  // Written as it streams in; counted as it inflates.
  size_t received = 0;
  bool oversized = false;
  content([&](const char* data, size_t length) {
    received += length;
    if (received > kMaxHttpBodyBytes) {
      oversized = true;
      return false;
    }
    return writer.Feed({data, length});
  });
  LineWriteSummary summary = writer.Finish();
  if (oversized) {
    return refuse(413, StrCat(BodyTooLargeMessage(kMaxHttpBodyBytes), " (", summary.points_written,
                              " points were written before the limit)"));
  }
  if (!summary.fatal.ok()) {  // the writer may have stopped before the body's end
    return refuse(HttpStatusOf(summary.fatal), StrCat(summary.fatal.message(), " (",
                                                      summary.points_written,
                                                      " points were written before this)"));
  }
  if (summary.lines_rejected == 0) {
    res.status = 204;
    return;
  }
  std::string message = StrCat("partial write: ", summary.lines_rejected, " lines rejected, ",
                               summary.points_written, " points written");
  for (const std::string& error : summary.errors) message += StrCat("; ", error);
  if (static_cast<int64_t>(summary.errors.size()) < summary.lines_rejected) {
    message += StrCat("; and ", summary.lines_rejected - static_cast<int64_t>(summary.errors.size()),
                      " more");
  }
  message += StrCat(" dropped=", summary.lines_rejected);
  ReplyInfluxError(api, 400, message, res);
}

void ServeRemoteWrite(const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader& content, const IngestHttpOptions& options,
                      Ingest& ingest, Authenticator& auth) {
  auto caller = AuthenticateHttp(auth, req, QueryPassword::kRefused);
  if (!caller.ok()) return ReplyBodyError(caller.status(), res);
  RemoteWriteOptions write{
      .database = req.has_param("db") ? req.get_param_value("db") : options.prometheus_database,
      .table = req.has_param("table") ? req.get_param_value("table") : options.prometheus_table,
      .auto_create_tables = options.auto_create_tables};
  if (absl::Status checked = ingest.CheckDatabase(**caller, write.database, "db");
      !checked.ok()) {
    return ReplyBodyError(checked, res);
  }
  auto body = ReadBody(req, content, kMaxHttpBodyBytes);
  if (!body.ok()) return ReplyBodyError(body.status(), res);
  auto summary = WriteRemoteSamples(ingest, **caller, write, *body);
  if (!summary.ok()) return ReplyError(summary.status(), res);
  if (summary->rejected == 0) {
    res.status = 204;
    return;
  }
  // 4xx: Prometheus drops the batch instead of retrying what cannot succeed.
  std::string message = StrCat(summary->rejected, " of ", summary->samples,
                               " samples rejected, ", summary->written, " written");
  for (const std::string& error : summary->errors) message += StrCat("; ", error);
  ReplyError(absl::InvalidArgumentError(message), res);
}

void ServeRemoteRead(const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& content, const IngestHttpOptions& options,
                     Authenticator& auth, StatementRunner& queries) {
  auto caller = AuthenticateHttp(auth, req, QueryPassword::kRefused);
  if (!caller.ok()) return ReplyBodyError(caller.status(), res);
  auto body = ReadBody(req, content, kMaxHttpBodyBytes);
  if (!body.ok()) return ReplyBodyError(body.status(), res);
  auto answer = ReadRemoteSamples(
      queries, *caller,
      {.database = req.has_param("db") ? req.get_param_value("db") : options.prometheus_database,
       .table = req.has_param("table") ? req.get_param_value("table") : options.prometheus_table,
       .peer = "ipv4:" + req.remote_addr + ":" + std::to_string(req.remote_port),
       .cancel = options.stopping},
      *body);
  if (!answer.ok()) return ReplyError(answer.status(), res);
  res.set_header("Content-Encoding", "snappy");
  res.set_content(*std::move(answer), "application/x-protobuf");
}

}  // namespace

void RouteIngest(httplib::Server& server, const IngestHttpOptions& options, Ingest* ingest,
                 StatementRunner* queries, Authenticator* auth) {
  auto ping = [](const httplib::Request&, httplib::Response& res) {
    res.set_header("X-Influxdb-Build", "Strata");
    res.set_header("X-Influxdb-Version", "1.8-compatible");
    res.status = 204;
  };
  server.Get("/ping", ping);
  for (const auto& [path, which] :
       {std::pair{"/write", InfluxApi::kV1}, {"/api/v2/write", InfluxApi::kV2}}) {
    const InfluxApi api = which;  // clang 14 cannot capture a structured binding
    server.Post(path, [=](const httplib::Request& req, httplib::Response& res,
                          const httplib::ContentReader& content) {
      ServeLineProtocol(api, req, res, content, options, *ingest, *auth);
    });
  }
  server.Post("/api/v1/write", [=](const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& content) {
    ServeRemoteWrite(req, res, content, options, *ingest, *auth);
  });
  server.Post("/api/v1/read", [=](const httplib::Request& req, httplib::Response& res,
                                   const httplib::ContentReader& content) {
    ServeRemoteRead(req, res, content, options, *auth, *queries);
  });
}

}  // namespace strata
