#include "cluster/replicated_tokens.h"

#include <spdlog/spdlog.h>

#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {

ReplicatedTokens::ReplicatedTokens(EtcdClient* etcd, std::string root, TokenStore* local)
    : etcd_(*etcd), root_(std::move(root)), local_(*local) {}

std::string ReplicatedTokens::IdKey(std::string_view id) const {
  return StrCat(root_, "tokens/id/", id);
}

std::string ReplicatedTokens::NameKey(std::string_view name) const {
  return StrCat(root_, "tokens/name/", name);
}

bool ReplicatedTokens::Saw(const std::string& key, int64_t mod_revision) {
  int64_t& seen = seen_[key];
  if (mod_revision <= seen) return false;
  seen = mod_revision;
  return true;
}

absl::StatusOr<std::vector<TokenRecord>> ReplicatedTokens::LoadAll() const {
  int64_t revision = 0;
  ASSIGN_OR_RETURN(std::vector<EtcdKeyValue> kvs, etcd_.List(StrCat(root_, "tokens/"), &revision));
  // The last uses this node saw, which etcd does not hold.
  absl::flat_hash_map<std::string, int64_t> last_use;
  ASSIGN_OR_RETURN(std::vector<TokenRecord> local, local_.LoadAll());
  for (const TokenRecord& t : local) last_use[t.id] = t.last_used_nanos;
  std::vector<TokenRecord> out;
  absl::MutexLock lock(&mu_);
  loaded_revision_ = revision;
  const std::string id_prefix = IdKey("");
  for (const EtcdKeyValue& kv : kvs) {
    seen_[kv.key] = kv.mod_revision;
    if (!kv.key.starts_with(id_prefix)) continue;
    ASSIGN_OR_RETURN(TokenRecord token, DecodeToken(kv.value));
    if (auto it = last_use.find(token.id); it != last_use.end()) {
      token.last_used_nanos = std::max(token.last_used_nanos, it->second);
    }
    out.push_back(std::move(token));
  }
  return out;
}

absl::Status ReplicatedTokens::Put(const TokenRecord& token) {
  std::vector<EtcdClient::Guard> guards;
  std::vector<EtcdClient::Change> puts;
  {
    absl::MutexLock lock(&mu_);
    const std::string id_key = IdKey(token.id);
    const int64_t seen = seen_.contains(id_key) ? seen_[id_key] : 0;
    guards.push_back({id_key, seen});
    puts.push_back({.key = id_key, .value = EncodeToken(token)});
    if (seen == 0) {
      // A new token takes its name from whichever token held it (the caller checked that one
      // is revoked, as this node saw it).
      const std::string name_key = NameKey(token.name);
      guards.push_back({name_key, seen_.contains(name_key) ? seen_[name_key] : 0});
      puts.push_back({.key = name_key, .value = token.id});
    }
  }
  ASSIGN_OR_RETURN(int64_t revision, etcd_.CommitIfUnchanged(guards, puts));
  if (revision == 0) {
    return absl::AbortedError(StrCat("the token \"", token.name,
                                     "\" was created or changed through another node at the "
                                     "same time; list the tokens and retry"));
  }
  {
    absl::MutexLock lock(&mu_);
    for (const auto& put : puts) Saw(put.key, revision);
  }
  // This node's copy keeps the last uses it records.
  if (absl::Status kept = local_.Put(token); !kept.ok()) {
    spdlog::warn("cluster: could not keep token \"{}\" in this node's catalog: {}", token.name,
                 kept.message());
  }
  return absl::OkStatus();
}

absl::Status ReplicatedTokens::PutLastUse(const TokenRecord& token) {
  return local_.PutLastUse(token);
}

absl::Status ReplicatedTokens::Restore(const TokenRecord& token) {
  RETURN_IF_ERROR(Put(token));
  std::function<void(TokenRecord)> on_change;
  {
    absl::MutexLock lock(&mu_);
    on_change = on_change_;
  }
  if (on_change) on_change(token);
  return absl::OkStatus();
}

void ReplicatedTokens::Follow(std::function<void(TokenRecord)> on_change) {
  int64_t from = 0;
  {
    absl::MutexLock lock(&mu_);
    from = loaded_revision_;
    on_change_ = on_change;
  }
  const std::string id_prefix = IdKey("");
  etcd_.Watch(StrCat(root_, "tokens/"), from,
              [this, id_prefix, on_change = std::move(on_change)](const EtcdEvent& event) {
                if (event.deleted) return;  // tokens are revoked, never deleted
                {
                  absl::MutexLock lock(&mu_);
                  if (!Saw(event.kv.key, event.kv.mod_revision)) return;  // this node's own
                }
                if (!event.kv.key.starts_with(id_prefix)) return;
                auto token = DecodeToken(event.kv.value);
                if (!token.ok()) {
                  spdlog::error("cluster: etcd key {} does not hold a token: {}", event.kv.key,
                                token.status().message());
                  return;
                }
                on_change(std::move(*token));
              });
}

}  // namespace strata::cluster
