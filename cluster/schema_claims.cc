#include "cluster/schema_claims.h"

#include <charconv>
#include <functional>
#include <utility>

#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "storage/write/schema_rules.h"

namespace strata::cluster {
namespace {

// Tries of a claim that lost to other nodes' claims before the batch is refused: each try
// reads their claims first, so a loss means another new name came at that very moment.
constexpr int kClaimTries = 8;
// Claims a transaction writes, with the counter: under etcd's default limit of 128 operations.
constexpr size_t kClaimsPerTransaction = 100;

absl::string_view Key(std::string_view name) { return {name.data(), name.size()}; }

template <typename Map>
const typename Map::mapped_type* Find(const Map& map, std::string_view name) {
  auto it = map.find(Key(name));
  return it == map.end() ? nullptr : &it->second;
}

// Etcd values: a measure's kind and an attribute's type as their numbers, "d" a dimension.
std::string EncodeColumn(const ClaimSet::Column& column) {
  return column.dimension ? "d" : StrCat("a", static_cast<int>(column.type));
}

std::optional<uint8_t> ParseNumber(std::string_view text) {
  uint8_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

std::optional<std::string> AdmitRecord(const ClaimSet& claimed, const NormalizedRecord& record,
                                       ClaimSet* added) {
  auto column = [&](std::string_view name) -> const ClaimSet::Column* {
    const ClaimSet::Column* c = Find(claimed.columns, name);
    return c != nullptr ? c : Find(added->columns, name);
  };
  // In the writer's order (storage/write/writer.cc), so a record breaking two rules gets the
  // reason one node would give.
  for (const auto& [name, value] : record.dimensions) {
    const ClaimSet::Column* c = column(name);
    if (c != nullptr && !c->dimension) return DimensionIsAttribute(name, c->type);
  }
  const MeasureKind kind = record.kind();
  const MeasureKind* held = Find(claimed.measures, record.measure_name);
  if (held == nullptr) held = Find(added->measures, record.measure_name);
  if (held == nullptr && claimed.measures.size() + added->measures.size() >=
                             static_cast<size_t>(kMaxMeasureNamesPerTable)) {
    return TooManyMeasureNames();
  }
  if (held != nullptr && *held != kind) {
    return MeasureKindConflict(record.measure_name, *held, kind);
  }
  int new_attributes = 0;
  if (record.multi) {
    for (size_t i = 0; i < record.measures.size(); ++i) {
      const std::string_view name = record.measures.name(i);
      const ClaimSet::Column* c = column(name);
      if (c == nullptr) {
        ++new_attributes;
      } else if (c->dimension) {
        return AttributeIsDimension(name);
      } else if (c->type != record.measures.type(i)) {
        return AttributeTypeConflict(name, c->type, record.measures.type(i));
      }
    }
  }
  if (new_attributes > 0 &&
      claimed.attributes + added->attributes + new_attributes > kMaxMultiAttributesPerTable) {
    return TooManyAttributes();
  }
  for (const auto& [name, value] : record.dimensions) {
    if (column(name) == nullptr) added->columns.emplace(name, ClaimSet::Column{.dimension = true});
  }
  if (held == nullptr) added->measures.emplace(record.measure_name, kind);
  if (record.multi) {
    for (size_t i = 0; i < record.measures.size(); ++i) {
      const std::string_view name = record.measures.name(i);
      if (column(name) != nullptr) continue;
      added->columns.emplace(name, ClaimSet::Column{.type = record.measures.type(i)});
      ++added->attributes;
    }
  }
  return std::nullopt;
}

SchemaClaims::SchemaClaims(EtcdClient* etcd, std::string root)
    : etcd_(*etcd), root_(std::move(root)) {}

std::string SchemaClaims::Scope(const TableInfo& table) const {
  return StrCat(root_, "schema/", table.database_name, "/", table.name, "/",
                table.creation_time_nanos, "/");
}

std::shared_ptr<SchemaClaims::Known> SchemaClaims::KnownOf(const TableInfo& table) {
  const std::string scope = Scope(table);
  absl::MutexLock lock(&mu_);
  std::shared_ptr<Known>& known = tables_[scope];
  if (known == nullptr) known = std::make_shared<Known>();
  return known;
}

absl::Status SchemaClaims::Load(const std::string& scope, Known& known) {
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> kvs, etcd_.List(scope, nullptr));
  ClaimSet claims;
  int64_t counter_revision = 0;
  for (const EtcdKeyValue& kv : kvs) {
    const std::string_view key = std::string_view(kv.key).substr(scope.size());
    const std::string_view value = kv.value;
    auto malformed = [&] {
      return absl::DataLossError(
          StrCat("etcd key ", kv.key, " holds \"", EchoInput(value), "\", not a schema claim"));
    };
    if (key == "count") {
      counter_revision = kv.mod_revision;
    } else if (key.starts_with("m/")) {
      const std::optional<uint8_t> kind = ParseNumber(value);
      if (!kind || *kind < static_cast<uint8_t>(MeasureKind::kDouble) ||
          *kind > static_cast<uint8_t>(MeasureKind::kMulti)) {
        return malformed();
      }
      claims.measures.emplace(key.substr(2), static_cast<MeasureKind>(*kind));
    } else if (key.starts_with("c/") && value == "d") {
      claims.columns.emplace(key.substr(2), ClaimSet::Column{.dimension = true});
    } else if (key.starts_with("c/") && value.starts_with("a")) {
      const std::optional<uint8_t> type = ParseNumber(value.substr(1));
      if (!type || !IsValidValueType(*type)) return malformed();
      claims.columns.emplace(key.substr(2),
                             ClaimSet::Column{.type = static_cast<ValueType>(*type)});
      ++claims.attributes;
    } else {
      return malformed();
    }
  }
  known.claims = std::move(claims);
  known.counter_revision = counter_revision;
  known.loaded = true;
  return absl::OkStatus();
}

absl::StatusOr<bool> SchemaClaims::Commit(const std::string& scope, Known& known,
                                          const ClaimSet& added) {
  // etcd takes at most 128 operations a transaction (--max-txn-ops): a batch naming more
  // goes in several, each compared on the counter. Claims only add, so a later part lost to
  // another node leaves the earlier ones standing, as claims this node made; the caller
  // reads the others' and checks its batch again.
  struct Claim {
    EtcdClient::Change change;
    std::function<void(ClaimSet&)> record;
  };
  std::vector<Claim> claims;
  for (const auto& [name, kind] : added.measures) {
    claims.push_back({{.key = StrCat(scope, "m/", name), .value = StrCat(static_cast<int>(kind))},
                      [&name = name, kind = kind](ClaimSet& c) { c.measures.emplace(name, kind); }});
  }
  for (const auto& [name, column] : added.columns) {
    claims.push_back({{.key = StrCat(scope, "c/", name), .value = EncodeColumn(column)},
                      [&name = name, column = column](ClaimSet& c) {
                        c.columns.emplace(name, column);
                        if (!column.dimension) ++c.attributes;
                      }});
  }
  for (size_t from = 0; from < claims.size(); from += kClaimsPerTransaction) {
    const size_t to = std::min(claims.size(), from + kClaimsPerTransaction);
    std::vector<EtcdClient::Change> changes;
    for (size_t i = from; i < to; ++i) changes.push_back(claims[i].change);
    const size_t total = known.claims.measures.size() + known.claims.columns.size() + to - from;
    changes.push_back({.key = scope + "count", .value = StrCat(total)});
    ASSIGN_OR_RETURN(int64_t revision,
                     etcd_.CommitIfUnchanged({{scope + "count", known.counter_revision}}, changes));
    if (revision == 0) return false;
    known.counter_revision = revision;
    for (size_t i = from; i < to; ++i) claims[i].record(known.claims);
  }
  return true;
}

absl::StatusOr<std::vector<std::optional<std::string>>> SchemaClaims::Check(
    const TableInfo& table, const std::vector<const NormalizedRecord*>& records) {
  std::vector<std::optional<std::string>> reasons(records.size());
  auto admit_all = [&](const ClaimSet& claimed, ClaimSet* added) {
    for (size_t i = 0; i < records.size(); ++i) {
      if (records[i] != nullptr) reasons[i] = AdmitRecord(claimed, *records[i], added);
    }
  };
  const std::shared_ptr<Known> known = KnownOf(table);
  {
    // Most batches name nothing new: checked against what this node read, no etcd call.
    absl::ReaderMutexLock lock(&known->mu);
    if (known->loaded) {
      ClaimSet added;
      admit_all(known->claims, &added);
      if (added.empty()) return reasons;
    }
  }
  const std::string scope = Scope(table);
  absl::MutexLock lock(&known->mu);
  if (!known->loaded) RETURN_IF_ERROR(Load(scope, *known));
  for (int attempt = 0; attempt < kClaimTries; ++attempt) {
    ClaimSet added;
    admit_all(known->claims, &added);
    if (added.empty()) return reasons;
    ASSIGN_OR_RETURN(bool committed, Commit(scope, *known, added));
    if (committed) return reasons;
    RETURN_IF_ERROR(Load(scope, *known));  // another node claimed first: read what it did
  }
  return absl::UnavailableError(
      StrCat("table \"", table.database_name, "\".\"", table.name,
             "\": other nodes kept claiming new names at the same time, so this write's new "
             "names could not be claimed; nothing of it was written. Retry"));
}

absl::Status SchemaClaims::Forget(const TableInfo& table) {
  // Every claim of any table of this name: none can be live while it is being dropped.
  const std::string prefix = StrCat(root_, "schema/", table.database_name, "/", table.name, "/");
  std::string end = prefix;
  end.back() = '/' + 1;  // the prefix's end: "<name>0" follows every "<name>/..."
  RETURN_IF_ERROR(
      etcd_.CommitIfUnchanged({}, {{.key = prefix, .erase = true, .range_end = end}}).status());
  absl::MutexLock lock(&mu_);
  tables_.erase(Scope(table));
  return absl::OkStatus();
}

}  // namespace strata::cluster
