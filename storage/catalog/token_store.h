// API tokens as the catalog family keeps them (key "k\0<id>"): a name, the
// hash of the secret (the server hashes; storage never sees a secret), the
// grants as text, and times. Storage only persists them: what a grant means
// and how a secret is checked belong to server/auth.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "storage/kv/store.h"

namespace strata {

struct TokenRecord {
  std::string id;           // public: the token's prefix, and its key
  std::string name;         // unique among tokens
  std::string secret_hash;  // opaque bytes
  std::vector<std::string> grants;
  int64_t created_nanos = 0;
  int64_t expires_nanos = 0;  // 0: never
  int64_t last_used_nanos = 0;
  int64_t revoked_nanos = 0;  // 0: not revoked
};

// Where tokens are kept: this node's catalog family (TokenStore), or the cluster's etcd
// (cluster/replicated_tokens.h), which also tells of changes made through other nodes.
class TokenRecords {
 public:
  virtual ~TokenRecords() = default;
  // Every token, in id order.
  virtual absl::StatusOr<std::vector<TokenRecord>> LoadAll() const = 0;
  // Creates or replaces a token; durable when it returns. ABORTED when another node changed
  // the token (or took its name) since this one last saw it: nothing was written.
  virtual absl::Status Put(const TokenRecord& token) = 0;
  // Records a last-use time: not synced (a crash may lose the newest).
  virtual absl::Status PutLastUse(const TokenRecord& token) = 0;
};

class TokenStore final : public TokenRecords {
 public:
  // `store` must outlive the TokenStore.
  explicit TokenStore(Store* store) : store_(*store) {}

  absl::StatusOr<std::vector<TokenRecord>> LoadAll() const override;
  absl::Status Put(const TokenRecord& token) override;
  absl::Status PutLastUse(const TokenRecord& token) override;

 private:
  Store& store_;
};

std::string EncodeToken(const TokenRecord& token);
absl::StatusOr<TokenRecord> DecodeToken(std::string_view bytes);

}  // namespace strata
