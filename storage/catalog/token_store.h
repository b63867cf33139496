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

class TokenStore {
 public:
  // `store` must outlive the TokenStore.
  explicit TokenStore(Store* store) : store_(*store) {}

  // Every token, in id order.
  absl::StatusOr<std::vector<TokenRecord>> LoadAll() const;
  // Creates or replaces a token; durable when it returns.
  absl::Status Put(const TokenRecord& token);
  // Records a last-use time: not synced (a crash may lose the newest).
  absl::Status PutLastUse(const TokenRecord& token);

 private:
  Store& store_;
};

std::string EncodeToken(const TokenRecord& token);
absl::StatusOr<TokenRecord> DecodeToken(std::string_view bytes);

}  // namespace strata
