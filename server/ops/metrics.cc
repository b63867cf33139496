#include "server/ops/metrics.h"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <mutex>

#include "absl/synchronization/mutex.h"
#include "common/status.h"
#include "prometheus/collectable.h"
#include "prometheus/text_serializer.h"

namespace strata {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr std::string_view kVersion = "0.1.0";

std::string_view ClassName(RejectionClass c) {
  switch (c) {
    case RejectionClass::kInvalid:
      return "invalid";
    case RejectionClass::kTimeWindow:
      return "time_window";
    case RejectionClass::kSchema:
      return "schema";
    case RejectionClass::kVersion:
      return "version_conflict";
  }
  return "invalid";
}

MetricFamily Family(std::string name, std::string help, MetricType type) {
  MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

void Add(MetricFamily& family, double value, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric metric;
  metric.label = std::move(labels);
  if (family.type == MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
}

// A family of one unlabelled value.
void AddGauge(std::vector<MetricFamily>& out, std::string name, std::string help, double value) {
  out.push_back(Family(std::move(name), std::move(help), MetricType::Gauge));
  Add(out.back(), value);
}
void AddCounter(std::vector<MetricFamily>& out, std::string name, std::string help, double value) {
  out.push_back(Family(std::move(name), std::move(help), MetricType::Counter));
  Add(out.back(), value);
}

// Resident set size of this process, from /proc/self/statm.
double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double OpenFiles() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  double n = 0;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

}  // namespace

// The gauges read at scrape time.
class ServerMetrics::ScrapeCollector final : public prometheus::Collectable {
 public:
  ScrapeCollector(Engine& engine, std::chrono::steady_clock::time_point started)
      : engine_(engine),
        started_(started),
        start_time_seconds_(
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count()) {}

  void SetAdmissionSource(std::function<AdmissionSnapshot()> source) {
    absl::MutexLock lock(&mu_);
    admission_ = std::move(source);
  }
  void SetConnectionSource(std::string door, std::function<int()> open) {
    absl::MutexLock lock(&mu_);
    connections_.emplace_back(std::move(door), std::move(open));
  }
  void SetShardSource(std::function<std::vector<ShardSnapshot>()> source) {
    absl::MutexLock lock(&mu_);
    shards_ = std::move(source);
  }

  std::vector<MetricFamily> Collect() const override {
    std::vector<MetricFamily> out;
    CollectAdmission(out);
    CollectConnections(out);
    CollectShards(out);
    CollectWrites(out);
    CollectTables(out);
    CollectRocksDb(out);
    CollectProcess(out);
    return out;
  }

 private:
  void CollectAdmission(std::vector<MetricFamily>& out) const {
    std::function<AdmissionSnapshot()> source;
    {
      absl::MutexLock lock(&mu_);
      source = admission_;
    }
    if (!source) return;
    const AdmissionSnapshot a = source();
    AddGauge(out, "strata_queries_running", "Queries running on a query worker.", a.running);
    AddGauge(out, "strata_queries_queued", "Queries waiting for a query worker.", a.queued);
    AddCounter(out, "strata_queries_refused_total",
               "Queries refused because every worker was busy and the queue full.", a.refused);
    AddGauge(out, "strata_query_memory_used_bytes",
             "Memory all running queries (and results PostgreSQL portals keep) hold from the "
             "server-wide budget.",
             a.memory_used_bytes);
    AddGauge(out, "strata_query_memory_limit_bytes", "The server-wide query memory budget.",
             a.memory_limit_bytes);
    AddCounter(out, "strata_query_memory_refusals_total",
               "Queries failed because the server-wide memory budget was spent.",
               a.memory_refusals);
  }

  void CollectConnections(std::vector<MetricFamily>& out) const {
    absl::MutexLock lock(&mu_);
    if (connections_.empty()) return;
    MetricFamily open =
        Family("strata_connections_open", "Connections open now, by front door (http, postgres).",
               MetricType::Gauge);
    for (const auto& [door, count] : connections_) Add(open, count(), {{"door", door}});
    out.push_back(std::move(open));
  }

  void CollectShards(std::vector<MetricFamily>& out) const {
    std::function<std::vector<ShardSnapshot>()> source;
    {
      absl::MutexLock lock(&mu_);
      source = shards_;
    }
    if (!source) return;
    MetricFamily applied = Family("strata_shard_applied_sequence",
                                  "The last log sequence this node's replica of the shard applied "
                                  "(a replica's lag: the highest of any node's, minus this).",
                                  MetricType::Gauge);
    MetricFamily leading =
        Family("strata_shard_leader", "1 while this node leads the shard.", MetricType::Gauge);
    MetricFamily epoch =
        Family("strata_shard_epoch", "The shard leadership's epoch, while this node leads it.",
               MetricType::Gauge);
    MetricFamily healthy =
        Family("strata_shard_replica_healthy",
               "0 once this node's replica stopped applying (a gap or a broken digest chain: "
               "see the log).",
               MetricType::Gauge);
    MetricFamily entries = Family("strata_shard_log_entries_total",
                                  "Log entries this node's replica applied, refused (published "
                                  "by a leader with a stale view) or published as leader, since "
                                  "the node started.",
                                  MetricType::Counter);
    for (const ShardSnapshot& s : source()) {
      const std::vector<ClientMetric::Label> id = {{"shard", std::to_string(s.shard)}};
      Add(applied, static_cast<double>(s.applied), id);
      Add(leading, s.leading ? 1 : 0, id);
      Add(epoch, static_cast<double>(s.epoch), id);
      Add(healthy, s.healthy ? 1 : 0, id);
      for (const auto& [outcome, n] :
           {std::pair{"applied", s.entries_applied}, std::pair{"refused", s.entries_refused},
            std::pair{"published", s.entries_published}}) {
        std::vector<ClientMetric::Label> labels = id;
        labels.push_back({"outcome", outcome});
        Add(entries, static_cast<double>(n), labels);
      }
    }
    for (MetricFamily* f : {&applied, &leading, &epoch, &healthy, &entries}) {
      out.push_back(std::move(*f));
    }
  }

  void CollectWrites(std::vector<MetricFamily>& out) const {
    AddGauge(out, "strata_writes_queued",
             "WriteRecords requests waiting for the writer's next group commit; "
             "high while the disk or the commit cannot keep up with the load.",
             engine_.QueuedWrites());
  }

  void CollectTables(std::vector<MetricFamily>& out) const {
    MetricFamily bytes = Family("strata_table_bytes",
                                "Approximate bytes of a table per tier (memory store rows, "
                                "magnetic blocks, magnetic late writes).",
                                MetricType::Gauge);
    MetricFamily entries = Family("strata_table_entries",
                                  "Rows (memory store, late writes) or blocks (magnetic) of a "
                                  "table per tier.",
                                  MetricType::Gauge);
    MetricFamily tiered = Family("strata_table_rows_tiered_total",
                                 "Rows the tiering job moved into blocks since the server started.",
                                 MetricType::Counter);
    MetricFamily expired =
        Family("strata_table_rows_expired_total",
               "Rows the retention job dropped since the server started.", MetricType::Counter);
    MetricFamily last_run = Family("strata_table_last_maintenance_timestamp_seconds",
                                   "When the tiering and retention jobs last ran over the table "
                                   "(0: not since the server started).",
                                   MetricType::Gauge);
    for (const auto& table : engine_.catalog().AllTables()) {
      absl::StatusOr<TableStorageStats> stats = engine_.StorageStats(*table);
      if (!stats.ok()) continue;
      const std::vector<ClientMetric::Label> id = {{"database", table->database_name},
                                                   {"table", table->name}};
      auto with_tier = [&id](const char* tier) {
        std::vector<ClientMetric::Label> labels = id;
        labels.push_back({"tier", tier});
        return labels;
      };
      for (const auto& [tier, usage] : {std::pair{"memory", &stats->memory_store},
                                        std::pair{"magnetic", &stats->magnetic_blocks},
                                        std::pair{"magnetic_late", &stats->magnetic_delta}}) {
        Add(bytes, static_cast<double>(usage->bytes), with_tier(tier));
        Add(entries, static_cast<double>(usage->entries), with_tier(tier));
      }
      Add(tiered, static_cast<double>(stats->rows_tiered_total), id);
      Add(expired, static_cast<double>(stats->rows_expired_total), id);
      Add(last_run, static_cast<double>(stats->last_run_nanos) / 1e9, id);
    }
    for (MetricFamily* f : {&bytes, &entries, &tiered, &expired, &last_run}) {
      out.push_back(std::move(*f));
    }
  }

  void CollectRocksDb(std::vector<MetricFamily>& out) const {
    struct Property {
      const char* metric;
      const char* help;
      const char* property;
      bool all_families;
    };
    static constexpr Property kProperties[] = {
        {"strata_rocksdb_memtable_bytes", "Bytes in RocksDB memtables (all column families).",
         "rocksdb.cur-size-all-mem-tables", true},
        {"strata_rocksdb_pending_compaction_bytes",
         "Bytes RocksDB estimates compaction still has to rewrite.",
         "rocksdb.estimate-pending-compaction-bytes", true},
        {"strata_rocksdb_live_sst_bytes", "Bytes of the SST files the current version uses.",
         "rocksdb.live-sst-files-size", true},
        {"strata_rocksdb_block_cache_usage_bytes", "Bytes held by the shared block cache.",
         "rocksdb.block-cache-usage", false},
        {"strata_rocksdb_running_compactions", "Compactions running now.",
         "rocksdb.num-running-compactions", false},
        {"strata_rocksdb_write_stopped",
         "1 while RocksDB stops writes (too many memtables or L0 files).",
         "rocksdb.is-write-stopped", false},
        {"strata_rocksdb_delayed_write_rate_bytes",
         "The rate RocksDB slows writes to while stalling (0: not stalling).",
         "rocksdb.actual-delayed-write-rate", false},
    };
    for (const Property& p : kProperties) {
      std::optional<uint64_t> value = engine_.RocksDbProperty(p.property, p.all_families);
      if (!value) continue;
      AddGauge(out, p.metric, p.help, static_cast<double>(*value));
    }
    const Engine::RocksDbCounters counters = engine_.RocksDbTickers();
    AddCounter(out, "strata_rocksdb_block_cache_hits_total",
               "Block reads served by the block cache.",
               static_cast<double>(counters.block_cache_hits));
    AddCounter(out, "strata_rocksdb_block_cache_misses_total",
               "Block reads that missed the block cache (hit ratio: hits / (hits + "
               "misses)).",
               static_cast<double>(counters.block_cache_misses));
    AddCounter(out, "strata_rocksdb_stall_seconds_total",
               "Time writes were stalled or stopped by RocksDB.",
               static_cast<double>(counters.stall_micros) / 1e6);
    AddGauge(out, "strata_rocksdb_wal_bytes", "Bytes of write-ahead log files.",
             static_cast<double>(engine_.WalBytes()));
    const Engine::MemoryHeadUsage head = engine_.HeadUsage();
    AddGauge(out, "strata_memory_store_bytes",
             "Bytes of memory-store rows held in memory (all tables).",
             static_cast<double>(head.bytes));
    AddGauge(out, "strata_memory_store_budget_bytes",
             "--memory-store-budget-mb in bytes (0: no budget).",
             static_cast<double>(head.budget_bytes));
    AddCounter(out, "strata_memory_store_early_seals_total",
               "Hours sealed into blocks early because the memory store was over its "
               "budget.",
               static_cast<double>(head.early_conversions));
    AddCounter(out, "strata_memory_store_regroups_total",
               "Memory-store hours copied with each series' rows together (scans of one "
               "series read its rows in a row).",
               static_cast<double>(head.regroups));
    AddGauge(out, "strata_writes_paused", "1 while writes are paused (a full or failing disk).",
             engine_.CheckWritable().ok() ? 0 : 1);
  }

  void CollectProcess(std::vector<MetricFamily>& out) const {
    AddGauge(out, "process_resident_memory_bytes", "Resident memory size in bytes.",
             ResidentBytes());
    AddGauge(out, "process_open_fds", "Number of open file descriptors.", OpenFiles());
    AddGauge(out, "process_start_time_seconds",
             "Start time of the process since the Unix epoch in seconds.", start_time_seconds_);
    AddGauge(out, "strata_uptime_seconds", "Seconds since stratad started serving.",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
    out.push_back(Family("strata_build_info", "Always 1; the labels say which build runs.",
                         MetricType::Gauge));
    Add(out.back(), 1, {{"version", std::string(kVersion)}});
  }

  Engine& engine_;
  const std::chrono::steady_clock::time_point started_;
  const double start_time_seconds_;
  mutable absl::Mutex mu_;
  std::function<AdmissionSnapshot()> admission_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, std::function<int()>>> connections_ ABSL_GUARDED_BY(mu_);
  std::function<std::vector<ShardSnapshot>()> shards_ ABSL_GUARDED_BY(mu_);
};

ServerMetrics::ServerMetrics(Engine* engine)
    : engine_(*engine),
      registry_(std::make_shared<prometheus::Registry>()),
      scrape_(std::make_shared<ScrapeCollector>(*engine, started_)),
      rpcs_(prometheus::BuildCounter()
                .Name("strata_grpc_requests_total")
                .Help("gRPC calls finished, by method and status code.")
                .Register(*registry_)),
      http_requests_(prometheus::BuildCounter()
                         .Name("strata_http_requests_total")
                         .Help("HTTP requests answered, by endpoint and status code.")
                         .Register(*registry_)),
      rpc_seconds_(prometheus::BuildHistogram()
                       .Name("strata_grpc_request_duration_seconds")
                       .Help("Time from a call's arrival to its status, by method (a query's "
                             "whole stream).")
                       .Register(*registry_)),
      ingested_(prometheus::BuildCounter()
                    .Name("strata_records_ingested_total")
                    .Help("Records written, by the tier they went to.")
                    .Register(*registry_)),
      ingested_memory_(ingested_.Add({{"tier", "memory"}})),
      ingested_magnetic_(ingested_.Add({{"tier", "magnetic"}})),
      rejected_(prometheus::BuildCounter()
                    .Name("strata_records_rejected_total")
                    .Help("Records rejected, by reason class: invalid, time_window, schema, "
                          "version_conflict.")
                    .Register(*registry_)),
      queries_(prometheus::BuildCounter()
                   .Name("strata_queries_total")
                   .Help("Queries that ran, by status code.")
                   .Register(*registry_)),
      query_seconds_(
          prometheus::BuildHistogram()
              .Name("strata_query_duration_seconds")
              .Help("Time a query ran on its worker (parse, plan, execute).")
              .Register(*registry_)
              .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025,
                                                               0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
                                                               30, 60, 300})),
      query_rows_scanned_(prometheus::BuildCounter()
                              .Name("strata_query_rows_scanned_total")
                              .Help("Rows queries read from storage.")
                              .Register(*registry_)
                              .Add({})),
      query_bytes_scanned_(prometheus::BuildCounter()
                               .Name("strata_query_bytes_scanned_total")
                               .Help("Bytes queries read from storage.")
                               .Register(*registry_)
                               .Add({})),
      query_rows_returned_(prometheus::BuildCounter()
                               .Name("strata_query_rows_returned_total")
                               .Help("Rows queries returned to clients.")
                               .Register(*registry_)
                               .Add({})),
      query_rows_relayed_(prometheus::BuildCounter()
                              .Name("strata_query_rows_relayed_total")
                              .Help("Rows of those returned that other cluster nodes sent as "
                                    "the client's own pages, relayed as they came.")
                              .Register(*registry_)
                              .Add({})),
      local_leader_reads_(prometheus::BuildCounter()
                              .Name("strata_local_leader_reads_total")
                              .Help("Small leader reads a cluster node answered from its own "
                                    "replicas, by outcome: confirmed, or behind (a replica was "
                                    "behind its leader; read again at the leaders).")
                              .Register(*registry_)),
      local_leader_read_questions_(
          prometheus::BuildCounter()
              .Name("strata_local_leader_read_questions_total")
              .Help("Calls small leader reads made to other nodes to ask what the leaders of "
                    "the shards they read had applied (none for a shard this node leads).")
              .Register(*registry_)
              .Add({})) {
  // Every label value known up front is exported at 0 from the start, so a
  // dashboard's rate() and an alert on a series see it before its first
  // event (an absent series is not a zero).
  for (RejectionClass c : {RejectionClass::kInvalid, RejectionClass::kTimeWindow,
                           RejectionClass::kSchema, RejectionClass::kVersion}) {
    rejected_.Add({{"reason", std::string(ClassName(c))}});
  }
  queries_.Add({{"code", std::string(StatusCodeName(0))}});
  for (const char* outcome : {"confirmed", "behind"})
    local_leader_reads_.Add({{"outcome", outcome}});
}

void ServerMetrics::SetAdmissionSource(std::function<AdmissionSnapshot()> source) {
  scrape_->SetAdmissionSource(std::move(source));
}

void ServerMetrics::CountRpc(std::string_view method, int grpc_code, double seconds) {
  const std::string name(method);
  rpcs_.Add({{"method", name}, {"code", std::string(StatusCodeName(grpc_code))}}).Increment();
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  rpc_seconds_.Add({{"method", name}}, kBuckets).Observe(seconds);
}

void ServerMetrics::CountHttpRequest(std::string_view endpoint, int http_status) {
  http_requests_.Add({{"endpoint", std::string(endpoint)}, {"code", std::to_string(http_status)}})
      .Increment();
}

void ServerMetrics::SetConnectionSource(std::string door, std::function<int()> open) {
  scrape_->SetConnectionSource(std::move(door), std::move(open));
}

void ServerMetrics::SetShardSource(std::function<std::vector<ShardSnapshot>()> source) {
  scrape_->SetShardSource(std::move(source));
}

void ServerMetrics::CountWrite(const WriteResult& result) {
  ingested_memory_.Increment(static_cast<double>(result.memory_store));
  ingested_magnetic_.Increment(static_cast<double>(result.magnetic_store));
  for (const RejectedRecord& r : result.rejected) {
    rejected_.Add({{"reason", std::string(ClassName(r.rejection_class))}}).Increment();
  }
}

void ServerMetrics::CountLocalLeaderRead(bool confirmed, int leaders_asked) {
  local_leader_reads_.Add({{"outcome", confirmed ? "confirmed" : "behind"}}).Increment();
  local_leader_read_questions_.Increment(leaders_asked);
}

void ServerMetrics::CountQuery(const absl::Status& status, const query::QueryStats& stats,
                               double seconds) {
  queries_.Add({{"code", std::string(StatusCodeName(status.code()))}}).Increment();
  query_seconds_.Observe(seconds);
  query_rows_scanned_.Increment(static_cast<double>(stats.rows_scanned));
  query_bytes_scanned_.Increment(static_cast<double>(stats.bytes_scanned));
  query_rows_returned_.Increment(static_cast<double>(stats.rows_returned));
  query_rows_relayed_.Increment(static_cast<double>(stats.rows_relayed));
}

std::string ServerMetrics::Render() const {
  std::vector<MetricFamily> families = registry_->Collect();
  std::vector<MetricFamily> scraped = scrape_->Collect();
  families.insert(families.end(), std::make_move_iterator(scraped.begin()),
                  std::make_move_iterator(scraped.end()));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace strata
