// Bearer tokens (docs/security.md). A token is
//
//   strata_<id: 16 hex>_<secret: 64 hex>
//
// made from libsodium's random bytes and shown once at creation. The id is
// public (logs and listings name it); only a BLAKE2b hash of the secret is
// stored (storage/catalog/token_store.h). A secret of 256 random bits needs no slow
// KDF: checking a call costs one hash lookup by id, one BLAKE2b and one
// constant-time comparison.
//
// Failed attempts are logged (token name or "unknown", peer) and limited per
// peer address: past the limit within a minute, the peer's failures are
// refused unlogged until the minute is over; a valid token still gets
// through (on loopback every local process shares the address).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "server/auth/grants.h"
#include "storage/catalog/token_store.h"

namespace strata {

struct AuthOptions {
  bool enabled = false;
  // Failed attempts per peer address per minute before it is refused; 0:
  // no limit.
  int failure_limit = 30;
  // Where the first admin token is written when the data directory has no
  // token (mode 0600). When the file exists and holds a token at first
  // start, that token becomes the first admin token instead.
  std::string bootstrap_token_file;
};

// A new token: its stored record and the token itself (shown once).
struct CreatedToken {
  TokenRecord record;
  std::string token;
};

class Authenticator {
 public:
  // Loads the tokens; with auth on and no token yet, creates the first admin
  // token (see AuthOptions::bootstrap_token_file). `tokens` and `clock` must
  // outlive the Authenticator.
  static absl::StatusOr<std::unique_ptr<Authenticator>> Open(TokenRecords* tokens,
                                                             const Clock* clock,
                                                             AuthOptions options);

  bool enabled() const { return options_.enabled; }

  // The caller of a call from its `authorization` metadata values (all of
  // them) and its peer ("ipv4:127.0.0.1:5000"). With auth off: Unrestricted.
  // UNAUTHENTICATED says what was wrong, never whether a token exists.
  absl::StatusOr<std::shared_ptr<const Principal>> Authenticate(
      const std::vector<std::string_view>& authorization, std::string_view peer);

  // The live token named `name`, for work the server does on a token's
  // behalf (scheduled query runs). FAILED_PRECONDITION when it is revoked,
  // expired or gone. With auth off: Unrestricted.
  absl::StatusOr<std::shared_ptr<const Principal>> PrincipalNamed(std::string_view name);

  // Token management. `expires_nanos` 0: never. Names are 1..64 of
  // [a-zA-Z0-9_.-]; `who` is the admin's name, for the log.
  absl::StatusOr<CreatedToken> Create(std::string_view name, const std::vector<std::string>& grants,
                                      int64_t expires_nanos, std::string_view who);
  // By name or id; takes effect for the very next call.
  absl::StatusOr<TokenRecord> Revoke(std::string_view name_or_id, std::string_view who);
  absl::StatusOr<TokenRecord> ChangeGrants(std::string_view name_or_id,
                                           const std::vector<std::string>& add,
                                           const std::vector<std::string>& remove,
                                           std::string_view who);
  // Every token by name, revoked ones included.
  std::vector<TokenRecord> List() const;
  // A token created or changed through another node of the cluster (cluster/
  // replicated_tokens.h): takes effect for the very next call here.
  void Install(TokenRecord record);
  // After a restore: revokes every token (a backup brings back tokens that
  // were revoked after it was taken) and creates a new admin token, written
  // to AuthOptions::bootstrap_token_file (mode 0600) as at a first start.
  // Returns how many tokens were revoked.
  absl::StatusOr<int> RevokeAllAndCreateAdmin(std::string_view who);

 private:
  struct Entry {
    TokenRecord record;
    std::shared_ptr<const Principal> principal;
    int64_t last_saved_use_nanos = 0;
  };
  struct Failures {
    int64_t window_start_nanos = 0;
    int count = 0;
  };

  Authenticator(TokenRecords* tokens, const Clock* clock, AuthOptions options)
      : tokens_(*tokens), clock_(*clock), options_(std::move(options)) {}

  static std::shared_ptr<const Principal> Unrestricted();
  // Installs every stored token.
  absl::Status Load() ABSL_LOCKS_EXCLUDED(mu_);
  // ABORTED: another node of the cluster created the first token at the same time.
  absl::Status Bootstrap() ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<CreatedToken> CreateLocked(std::string_view name,
                                            const std::vector<std::string>& grants,
                                            int64_t expires_nanos, std::string_view secret_token)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Entry* FindLocked(std::string_view name_or_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status SaveLocked(Entry& entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Logs a failure and counts it against the peer's address.
  absl::Status Fail(std::string_view peer_address, std::string_view token_name,
                    std::string_view why);
  // Non-OK while the peer is over its failure limit.
  absl::Status CheckNotLimited(std::string_view peer_address);

  TokenRecords& tokens_;
  const Clock& clock_;
  const AuthOptions options_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> by_id_ ABSL_GUARDED_BY(mu_);
  absl::Mutex failures_mu_;
  absl::flat_hash_map<std::string, Failures> failures_ ABSL_GUARDED_BY(failures_mu_);
};

// Splits "strata_<id>_<secret>" into id and secret; false if it is not one.
bool ParseToken(std::string_view token, std::string_view* id, std::string_view* secret);

}  // namespace strata
