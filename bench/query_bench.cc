// TSBS devops query suite against data loaded by ingest_bench (table
// benchmark.cpu: MULTI measure "cpu" with usage_* attributes, tag dimensions).
// Runs each query type --runs times over gRPC and prints median and p95
// latency, rows returned and rows scanned. --sql times one statement instead.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/bench_connection.h"
#include "grpcpp/create_channel.h"
#include "strata/v1/query.grpc.pb.h"

namespace {

struct QueryType {
  const char* name;
  std::string sql;
};

std::vector<QueryType> Suite() {
  const std::string t = "benchmark.cpu";
  const std::string eight = "hostname IN ('host_0','host_1','host_2','host_3','host_4','host_5',"
                            "'host_6','host_7')";
  const std::string all_max = "max(usage_user), max(usage_system), max(usage_idle), "
                              "max(usage_nice), max(usage_iowait), max(usage_irq), "
                              "max(usage_softirq), max(usage_steal), max(usage_guest), "
                              "max(usage_guest_nice)";
  const std::string five_max = "max(usage_user), max(usage_system), max(usage_idle), "
                               "max(usage_nice), max(usage_iowait)";
  const std::string five_avg = "avg(usage_user), avg(usage_system), avg(usage_idle), "
                               "avg(usage_nice), avg(usage_iowait)";
  const std::string all_avg = "avg(usage_user), avg(usage_system), avg(usage_idle), "
                              "avg(usage_nice), avg(usage_iowait), avg(usage_irq), "
                              "avg(usage_softirq), avg(usage_steal), avg(usage_guest), "
                              "avg(usage_guest_nice)";
  return {
      {"single-groupby-1-1-1", "SELECT bin(time, 1m) AS minute, max(usage_user) FROM " + t +
                                   " WHERE hostname = 'host_0' AND time >= ago(1h) GROUP BY 1 ORDER BY 1"},
      {"single-groupby-1-8-1", "SELECT bin(time, 1m) AS minute, max(usage_user) FROM " + t +
                                   " WHERE " + eight + " AND time >= ago(1h) GROUP BY 1 ORDER BY 1"},
      {"single-groupby-5-1-12", "SELECT bin(time, 1m) AS minute, " + five_max + " FROM " + t +
                                    " WHERE hostname = 'host_0' AND time >= ago(12h) GROUP BY 1 ORDER BY 1"},
      {"cpu-max-all-1", "SELECT bin(time, 1h) AS hour, " + all_max + " FROM " + t +
                            " WHERE hostname = 'host_0' AND time >= ago(8h) GROUP BY 1 ORDER BY 1"},
      {"cpu-max-all-8", "SELECT bin(time, 1h) AS hour, " + all_max + " FROM " + t + " WHERE " +
                            eight + " AND time >= ago(8h) GROUP BY 1 ORDER BY 1"},
      {"double-groupby-1", "SELECT hostname, bin(time, 1h) AS hour, avg(usage_user) FROM " + t +
                               " WHERE time >= ago(12h) GROUP BY 1, 2 ORDER BY 1, 2"},
      {"double-groupby-5", "SELECT hostname, bin(time, 1h) AS hour, " + five_avg + " FROM " + t +
                               " WHERE time >= ago(12h) GROUP BY 1, 2 ORDER BY 1, 2"},
      {"double-groupby-all", "SELECT hostname, bin(time, 1h) AS hour, " + all_avg + " FROM " + t +
                                 " WHERE time >= ago(12h) GROUP BY 1, 2 ORDER BY 1, 2"},
      {"high-cpu-1", "SELECT * FROM " + t +
                         " WHERE hostname = 'host_0' AND usage_user > 90.0 AND time >= ago(12h)"},
      {"high-cpu-all", "SELECT * FROM " + t + " WHERE usage_user > 90.0 AND time >= ago(12h)"},
      {"lastpoint", "SELECT hostname, max(time), max_by(usage_user, time) FROM " + t +
                        " GROUP BY hostname"},
      {"groupby-orderby-limit", "SELECT bin(time, 1m) AS minute, max(usage_user) FROM " + t +
                                    " WHERE time < now() GROUP BY 1 ORDER BY 1 DESC LIMIT 5"},
      // Timestream's gap-filling sample over every host: 30 s bins of the
      // last hour, a series per host filled every 15 s, unnested.
      {"gapfill-all", "WITH binned AS (SELECT hostname, bin(time, 30s) AS t, avg(usage_user) AS u "
                      "FROM " + t + " WHERE time >= ago(1h) GROUP BY 1, 2) "
                      "SELECT hostname, time, value FROM (SELECT hostname, interpolate_linear("
                      "create_time_series(t, u), sequence(min(t), max(t), 15s)) AS s FROM binned "
                      "GROUP BY hostname) CROSS JOIN UNNEST(s) AS f(time, value)"},
  };
}

// `sql` with each 'host_K' literal made 'host_((K + shift) mod hosts)': the same shape of
// statement over other hosts, as TSBS's generator picks them at random.
std::string ShiftHosts(const std::string& sql, int shift, int hosts) {
  static constexpr std::string_view kHost = "'host_";
  std::string out;
  size_t at = 0;
  for (size_t found; (found = sql.find(kHost, at)) != std::string::npos;) {
    size_t end = found + kHost.size();
    while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end]))) ++end;
    out.append(sql, at, found - at);
    if (end == found + kHost.size() || end >= sql.size() || sql[end] != '\'') {
      out.append(sql, found, end - found);
    } else {
      int k = 0;  // the number's value mod `hosts`, however long it is
      for (size_t i = found + kHost.size(); i < end; ++i) k = (k * 10 + (sql[i] - '0')) % hosts;
      out += std::string(kHost) + std::to_string((k + shift) % hosts);
    }
    at = end;
  }
  out.append(sql, at);
  return out;
}

// `sql` with its clock fixed at `now` (seconds since the epoch): each `ago(d)` made
// `(from_unixtime(now) - d)` and each `now()` `from_unixtime(now)`, so that runs minutes
// apart (one node, then a cluster) read the same rows of data generated to end at `now`.
// Plain text replacement, meant for the suite's statements (a --sql statement gets it too:
// one with "now()" or "ago(" inside a string literal would be changed there as well).
std::string FixClock(std::string sql, int64_t now) {
  const std::string at = "from_unixtime(" + std::to_string(now) + ")";
  for (size_t found; (found = sql.find("now()")) != std::string::npos;) sql.replace(found, 5, at);
  for (size_t found; (found = sql.find("ago(")) != std::string::npos;) {
    const size_t close = sql.find(')', found);
    if (close == std::string::npos) break;  // not a call: left as it is
    const std::string duration = sql.substr(found + 4, close - found - 4);
    sql.replace(found, close + 1 - found, "(" + at + " - " + duration + ")");
  }
  return sql;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Strata TSBS devops query benchmark"};
  strata::bench::BenchConnection connection;
  std::string only;
  int runs = 5;
  connection.AddOptions(app);
  app.add_option("--runs", runs, "Runs per query type")->capture_default_str();
  int warmup = 0;
  app.add_option("--warmup", warmup,
                 "Unmeasured runs of each query type before its measured ones: the steady "
                 "state, not the first queries after a start or an idle spell")
      ->check(CLI::Range(0, 1'000));
  app.add_option("--only", only, "Run only the query type with this name");
  std::string sql;
  app.add_option("--sql", sql, "Run this statement (named \"custom\") instead of the suite");
  bool columnar = false;
  app.add_flag("--columnar", columnar, "Ask for columnar result pages (QueryRequest.columnar)");
  int hosts = 0;
  app.add_option("--hosts", hosts,
                 "Each run reads other hosts of this many (host_0 becomes host_k for a random k, "
                 "and so on), as TSBS picks them; 0: always host_0..host_7")
      ->check(CLI::Range(0, 1'000'000));
  std::string read;
  app.add_option("--read", read,
                 "A cluster's read choice: leader, strong, or follower (within 60 s)")
      ->check(CLI::IsMember({"leader", "strong", "follower"}));
  bool each = false;
  app.add_flag("--each", each,
               "Also print every run's milliseconds, in order (to stderr): a slow start or a "
               "drift shows where a median hides it");
  int64_t now = 0;
  app.add_option("--now", now,
                 "Read the suite's windows (ago(...), now()) as of this time, in seconds since "
                 "the epoch, instead of the server's clock: runs minutes apart then read the "
                 "same rows (0: the server's clock)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  CLI11_PARSE(app, argc, argv);

  auto channel = connection.Channel();
  auto stub = strata::v1::QueryService::NewStub(channel);
  std::printf("%-24s %10s %10s %10s %10s %12s\n", "query", "median_ms", "p95_ms", "p99_ms", "rows",
              "scanned");
  int failures = 0;
  std::vector<QueryType> queries = sql.empty() ? Suite() : std::vector<QueryType>{{"custom", sql}};
  if (now > 0)
    for (QueryType& q : queries) q.sql = FixClock(q.sql, now);
  for (const QueryType& q : queries) {
    if (!only.empty() && only != q.name) continue;
    std::vector<double> ms;
    int64_t rows = 0, scanned = 0;
    std::mt19937 random(42);  // the same hosts in the same order for every binary compared
    for (int r = -warmup; r < runs; ++r) {
      grpc::ClientContext context;
      connection.Authorize(context);
      strata::v1::QueryRequest request;
      request.set_query_string(
          hosts > 0 ? ShiftHosts(q.sql, static_cast<int>(random() % hosts), hosts) : q.sql);
      request.set_columnar(columnar);
      if (read == "strong")
        request.mutable_read()->set_consistency(strata::v1::READ_CONSISTENCY_STRONG);
      if (read == "follower") {
        request.mutable_read()->set_consistency(strata::v1::READ_CONSISTENCY_FOLLOWER);
        request.mutable_read()->set_max_staleness_millis(60'000);
      }
      request.set_page_size(10'000);
      auto t0 = std::chrono::steady_clock::now();
      auto reader = stub->Query(&context, request);
      strata::v1::QueryResponse message;
      rows = 0;
      while (reader->Read(&message)) {
        rows += message.page().rows_size() + message.column_page().row_count();
        if (message.has_statistics()) scanned = message.statistics().rows_scanned();
      }
      grpc::Status status = reader->Finish();
      const double took =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r >= 0) ms.push_back(took);
      if (!status.ok()) {
        std::fprintf(stderr, "%s: %s\n", q.name, status.error_message().c_str());
        ++failures;
        break;
      }
    }
    if (ms.empty()) continue;  // failed while warming up (said above)
    if (each) {
      std::fprintf(stderr, "%s:", q.name);
      for (double m : ms) std::fprintf(stderr, " %.1f", m);
      std::fprintf(stderr, "\n");
    }
    std::sort(ms.begin(), ms.end());
    auto pct = [&ms](double p) {
      return ms[std::min(ms.size() - 1, static_cast<size_t>(p * ms.size()))];
    };
    std::printf("%-24s %10.2f %10.2f %10.2f %10lld %12lld\n", q.name, ms[ms.size() / 2], pct(0.95),
                pct(0.99), static_cast<long long>(rows), static_cast<long long>(scanned));
  }
  return failures > 0 ? 1 : 0;
}
