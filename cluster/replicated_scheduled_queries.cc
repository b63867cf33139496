#include "cluster/replicated_scheduled_queries.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <cstdio>

#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {

ReplicatedScheduledQueries::ReplicatedScheduledQueries(EtcdClient* etcd, std::string root)
    : etcd_(*etcd), root_(std::move(root)) {}

std::string ReplicatedScheduledQueries::QueryKey(std::string_view name) const {
  return StrCat(root_, "scheduled/q/", name);
}

std::string ReplicatedScheduledQueries::RunPrefix(std::string_view name) const {
  return StrCat(root_, "scheduled/r/", name, "/");
}

std::string ReplicatedScheduledQueries::RunKey(std::string_view name, uint64_t sequence) const {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%020llu", static_cast<unsigned long long>(sequence));
  return StrCat(RunPrefix(name), digits);
}

absl::StatusOr<std::vector<ScheduledQueryRecord>> ReplicatedScheduledQueries::LoadAll() const {
  int64_t revision = 0;
  const std::string prefix = QueryKey("");
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> kvs, etcd_.List(prefix, &revision));
  std::vector<ScheduledQueryRecord> out;
  absl::MutexLock lock(&mu_);
  loaded_revision_ = std::max(loaded_revision_, revision);
  for (const EtcdKeyValue& kv : kvs) {
    seen_[kv.key] = kv.mod_revision;
    ASSIGN_OR_RETURN(ScheduledQueryRecord record, DecodeScheduledQuery(kv.value));
    out.push_back(std::move(record));
  }
  return out;
}

absl::StatusOr<std::optional<ScheduledQueryRecord>> ReplicatedScheduledQueries::Load(
    std::string_view name) const {
  ASSIGN_OR_RETURN(std::optional<EtcdKeyValue> kv, etcd_.Get(QueryKey(name)));
  absl::MutexLock lock(&mu_);
  if (!kv.has_value()) {
    seen_[QueryKey(name)] = 0;
    return std::nullopt;
  }
  seen_[kv->key] = std::max(seen_[kv->key], kv->mod_revision);
  ASSIGN_OR_RETURN(ScheduledQueryRecord record, DecodeScheduledQuery(kv->value));
  return record;
}

absl::StatusOr<std::vector<ScheduledQueryRun>> ReplicatedScheduledQueries::LoadRuns(
    std::string_view name) const {
  const std::string prefix = RunPrefix(name);
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> kvs, etcd_.List(prefix, nullptr));
  std::vector<ScheduledQueryRun> out;
  for (const EtcdKeyValue& kv : kvs) {
    ScheduledQueryRun run;
    const std::string_view digits = std::string_view(kv.key).substr(prefix.size());
    if (std::from_chars(digits.data(), digits.data() + digits.size(), run.sequence).ec !=
        std::errc()) {
      return absl::DataLossError(StrCat("etcd key ", kv.key, " is not a scheduled query run"));
    }
    run.summary = kv.value;
    out.push_back(std::move(run));
  }
  return out;
}

absl::Status ReplicatedScheduledQueries::Commit(std::string_view name,
                                                std::vector<EtcdClient::Change> changes) {
  const std::string key = QueryKey(name);
  int64_t seen = 0;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = seen_.find(key); it != seen_.end()) seen = it->second;
  }
  ASSIGN_OR_RETURN(int64_t revision, etcd_.CommitIfUnchanged({{key, seen}}, changes));
  if (revision == 0) {
    return absl::AbortedError(StrCat("scheduled query \"", name,
                                     "\" was changed through another node at the same time; "
                                     "describe it and retry"));
  }
  absl::MutexLock lock(&mu_);
  const bool erased = changes.front().erase;
  seen_[key] = erased ? 0 : revision;
  own_.insert(revision);
  return absl::OkStatus();
}

absl::Status ReplicatedScheduledQueries::Put(const ScheduledQueryRecord& record) {
  return Commit(record.name,
                {{.key = QueryKey(record.name), .value = EncodeScheduledQuery(record)}});
}

absl::Status ReplicatedScheduledQueries::Delete(std::string_view name) {
  const std::string runs = RunPrefix(name);
  std::string runs_end = runs;
  runs_end.back() = '/' + 1;  // the prefix's end: "<name>0" follows every "<name>/..."
  return Commit(name, {{.key = QueryKey(name), .erase = true},
                       {.key = runs, .erase = true, .range_end = runs_end}});
}

absl::Status ReplicatedScheduledQueries::PutRun(const ScheduledQueryRecord& record,
                                                const ScheduledQueryRun& run, uint64_t keep_from) {
  std::vector<EtcdClient::Change> changes = {
      {.key = QueryKey(record.name), .value = EncodeScheduledQuery(record)},
      {.key = RunKey(record.name, run.sequence), .value = run.summary}};
  if (keep_from > 0) {
    changes.push_back({.key = RunPrefix(record.name),
                       .erase = true,
                       .range_end = RunKey(record.name, keep_from)});
  }
  return Commit(record.name, std::move(changes));
}

absl::Status ReplicatedScheduledQueries::Restore(const ScheduledQueryRecord& record,
                                                 const std::vector<ScheduledQueryRun>& runs) {
  ASSIGN_OR_RETURN(std::optional<ScheduledQueryRecord> here, Load(record.name));
  if (here.has_value()) {
    return absl::AlreadyExistsError(
        StrCat("scheduled query \"", record.name, "\" already exists in this cluster"));
  }
  // The definition with the first runs, then the rest in further transactions: etcd takes a
  // bounded number of operations in one (--max-txn-ops, 128 by default).
  constexpr size_t kRunsPerCommit = 100;
  size_t next = 0;
  do {
    std::vector<EtcdClient::Change> changes = {
        {.key = QueryKey(record.name), .value = EncodeScheduledQuery(record)}};
    for (; next < runs.size() && changes.size() <= kRunsPerCommit; ++next) {
      changes.push_back(
          {.key = RunKey(record.name, runs[next].sequence), .value = runs[next].summary});
    }
    RETURN_IF_ERROR(Commit(record.name, std::move(changes)));
  } while (next < runs.size());
  std::function<void(std::string_view)> on_change;
  {
    absl::MutexLock lock(&mu_);
    on_change = on_change_;
  }
  if (on_change) on_change(record.name);
  return absl::OkStatus();
}

void ReplicatedScheduledQueries::Follow(std::function<void(std::string_view name)> on_change) {
  int64_t from = 0;
  {
    absl::MutexLock lock(&mu_);
    from = loaded_revision_;
    on_change_ = on_change;
  }
  const std::string query_prefix = QueryKey("");
  const std::string run_prefix = StrCat(root_, "scheduled/r/");
  etcd_.Watch(
      StrCat(root_, "scheduled/"), from,
      [this, query_prefix, run_prefix, on_change = std::move(on_change)](const EtcdEvent& event) {
        const std::string& key = event.kv.key;
        const int64_t revision = event.kv.mod_revision;
        // "q/<name>" or "r/<name>/<sequence>".
        std::string name;
        if (key.starts_with(query_prefix)) {
          name = key.substr(query_prefix.size());
        } else if (key.starts_with(run_prefix)) {
          name = key.substr(run_prefix.size());
          name = name.substr(0, name.rfind('/'));
        } else {
          return;
        }
        {
          absl::MutexLock lock(&mu_);
          if (key.starts_with(query_prefix)) seen_[key] = event.deleted ? 0 : revision;
          // Events come in revision order: this node's older transactions are past.
          absl::erase_if(own_, [revision](int64_t r) { return r < revision; });
          if (own_.contains(revision)) return;
          if (revision == notified_ && name == notified_name_) return;
          notified_ = revision;
          notified_name_ = name;
        }
        on_change(name);
      });
}

}  // namespace strata::cluster
