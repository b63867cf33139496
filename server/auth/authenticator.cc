#include "server/auth/authenticator.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/status.h"
#include "common/strings.h"
#include "common/time_format.h"
#include "common/utf8.h"
#include "fmt/format.h"
#include "spdlog/spdlog.h"
#include "storage/catalog/names.h"

namespace strata {
namespace {

constexpr std::string_view kPrefix = "strata_";
constexpr size_t kIdBytes = 8;
constexpr size_t kSecretBytes = 32;
constexpr size_t kTokenChars = kPrefix.size() + 2 * kIdBytes + 1 + 2 * kSecretBytes;
// A token's last use is saved at most this often (it is also in memory).
constexpr int64_t kLastUseSaveNanos = 60 * kNanosPerSecond;
constexpr int64_t kFailureWindowNanos = 60 * kNanosPerSecond;
constexpr size_t kMaxTrackedPeers = 10'000;
constexpr size_t kMaxTokenNameBytes = 64;

absl::string_view AbslView(std::string_view s) { return {s.data(), s.size()}; }

bool IsLowerHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  std::string hex(2 * bytes + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), reinterpret_cast<const unsigned char*>(raw.data()),
                 raw.size());
  hex.pop_back();  // the terminating NUL
  sodium_memzero(raw.data(), raw.size());
  return hex;
}

std::string HashSecret(std::string_view secret) {
  std::string hash(crypto_generichash_BYTES, '\0');
  crypto_generichash(reinterpret_cast<unsigned char*>(hash.data()), hash.size(),
                     reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), nullptr,
                     0);
  return hash;
}

// "ipv4:127.0.0.1:5000" -> "127.0.0.1", "ipv6:[::1]:5000" -> "[::1]".
std::string_view PeerAddress(std::string_view peer) {
  const size_t scheme = peer.find(':');
  if (scheme != std::string_view::npos) peer.remove_prefix(scheme + 1);
  // The port follows the last ':' outside an IPv6 address' brackets.
  const size_t bracket = peer.rfind(']');
  const size_t port = peer.rfind(':');
  if (port != std::string_view::npos && (bracket == std::string_view::npos || port > bracket)) {
    peer = peer.substr(0, port);
  }
  return peer;
}

absl::Status Unauthenticated(std::string_view why) {
  return absl::UnauthenticatedError(
      StrCat(why, "; send `authorization: Bearer <token>` (the CLI: --token or STRATA_TOKEN)"));
}

// Writes `token` to a new file readable by its owner only.
absl::Status WriteSecretFile(const std::string& path, const std::string& token) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(StrCat("cannot write the first admin token to ", path,
                                                ": ", std::strerror(errno),
                                                "; choose a writable path with "
                                                "--bootstrap-token-file"));
  }
  const std::string line = token + "\n";
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                       ::fsync(fd) == 0;
  ::close(fd);
  if (!written) {
    return absl::FailedPreconditionError(StrCat("cannot write the first admin token to ", path));
  }
  return absl::OkStatus();
}

}  // namespace

bool ParseToken(std::string_view token, std::string_view* id, std::string_view* secret) {
  if (token.size() != kTokenChars || !token.starts_with(kPrefix)) return false;
  token.remove_prefix(kPrefix.size());
  if (token[2 * kIdBytes] != '_') return false;
  *id = token.substr(0, 2 * kIdBytes);
  *secret = token.substr(2 * kIdBytes + 1);
  return IsLowerHex(*id) && IsLowerHex(*secret);
}

absl::StatusOr<std::unique_ptr<Authenticator>> Authenticator::Open(TokenRecords* tokens,
                                                                   const Clock* clock,
                                                                   AuthOptions options) {
  if (sodium_init() < 0) return absl::InternalError("libsodium could not initialize");
  auto auth = std::unique_ptr<Authenticator>(new Authenticator(tokens, clock, std::move(options)));
  RETURN_IF_ERROR(auth->Load());
  if (!auth->options_.enabled) return auth;
  absl::Status bootstrapped = auth->Bootstrap();
  if (absl::IsAborted(bootstrapped)) {
    // A cluster's nodes starting together race to create the first admin token: one wins
    // (cluster/replicated_tokens.h), the others take its tokens.
    RETURN_IF_ERROR(auth->Load());
    spdlog::warn(
        "auth: another node of the cluster created the first admin token; that "
        "node's {} holds it",
        auth->options_.bootstrap_token_file);
    return auth;
  }
  RETURN_IF_ERROR(bootstrapped);
  return auth;
}

absl::Status Authenticator::Load() {
  ASSIGN_OR_RETURN(std::vector<TokenRecord> records, tokens_.LoadAll());
  for (TokenRecord& record : records) Install(std::move(record));
  return absl::OkStatus();
}

void Authenticator::Install(TokenRecord record) {
  absl::MutexLock lock(&mu_);
  auto [it, added] = by_id_.try_emplace(record.id);
  Entry& entry = it->second;
  // Other nodes do not publish each use: the latest this node knows of is kept.
  record.last_used_nanos = std::max(record.last_used_nanos, entry.record.last_used_nanos);
  if (added) entry.last_saved_use_nanos = record.last_used_nanos;
  entry.principal =
      std::make_shared<const Principal>(Principal::ForToken(record.name, record.grants));
  entry.record = std::move(record);
}

absl::Status Authenticator::Bootstrap() {
  absl::MutexLock lock(&mu_);
  if (!by_id_.empty()) return absl::OkStatus();
  const std::string& path = options_.bootstrap_token_file;
  std::string given;
  if (std::ifstream in(path); in) {
    std::ostringstream text;
    text << in.rdbuf();
    given = std::string(StripWhitespace(text.str()));
  }
  if (!given.empty()) {
    std::string_view id, secret;
    if (!ParseToken(given, &id, &secret)) {
      return absl::InvalidArgumentError(
          StrCat(path,
                 " does not hold a Strata token (strata_<16 hex>_<64 hex>); make one with "
                 "`echo strata_$(openssl rand -hex 8)_$(openssl rand -hex 32) > ",
                 path, "`, or remove the file to have stratad write a new one"));
    }
    ASSIGN_OR_RETURN(CreatedToken created, CreateLocked("admin", {"admin"}, 0, given));
    spdlog::warn("auth: the first admin token \"admin\" (id {}) is the one in {}",
                 created.record.id, path);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(CreatedToken created, CreateLocked("admin", {"admin"}, 0, ""));
  RETURN_IF_ERROR(WriteSecretFile(path, created.token));
  spdlog::warn(
      "auth: created the first admin token \"admin\" (id {}) and wrote it to {} (mode "
      "0600); use it to create tokens for people and programs, then keep it safe",
      created.record.id, path);
  return absl::OkStatus();
}

std::shared_ptr<const Principal> Authenticator::Unrestricted() {
  static const auto* const unrestricted =
      new std::shared_ptr<const Principal>(&Principal::Unrestricted(), [](const Principal*) {});
  return *unrestricted;
}

absl::StatusOr<std::shared_ptr<const Principal>> Authenticator::Authenticate(
    const std::vector<std::string_view>& authorization, std::string_view peer) {
  if (!options_.enabled) return Unrestricted();
  const std::string_view address = PeerAddress(peer);
  if (authorization.empty()) return Unauthenticated("this server requires a token");
  // A peer past its failure limit is refused without a word on each further
  // failure, but a valid token still gets through: otherwise anyone sharing
  // the address (on loopback, every local process) could lock everyone out.
  const absl::Status limited = CheckNotLimited(address);
  auto fail = [&](std::string_view token_name, std::string_view why) {
    return limited.ok() ? Fail(address, token_name, why) : limited;
  };
  if (authorization.size() > 1) {
    return fail("unknown", "the call carries several authorization headers");
  }
  std::string_view value = authorization[0];
  constexpr std::string_view kBearer = "bearer ";
  if (value.size() < kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), value.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return fail("unknown", "the authorization header is not `Bearer <token>`");
  }
  value.remove_prefix(kBearer.size());
  std::string_view id, secret;
  if (!ParseToken(StripWhitespace(value), &id, &secret)) {
    return fail("unknown", "the token is not valid");
  }
  const std::string hash = HashSecret(secret);
  const int64_t now = clock_.NowNanos();
  absl::MutexLock lock(&mu_);
  auto it = by_id_.find(AbslView(id));
  // Both wrong: an unknown id and a wrong secret answer alike.
  if (it == by_id_.end()) return fail("unknown", "the token is not valid");
  Entry& entry = it->second;
  if (entry.record.secret_hash.size() != hash.size() ||
      sodium_memcmp(entry.record.secret_hash.data(), hash.data(), hash.size()) != 0) {
    return fail(entry.record.name, "the token is not valid");
  }
  if (entry.record.revoked_nanos != 0) {
    return fail(entry.record.name, StrCat("the token \"", entry.record.name, "\" was revoked at ",
                                          FormatIso8601Millis(entry.record.revoked_nanos)));
  }
  if (entry.record.expires_nanos != 0 && now >= entry.record.expires_nanos) {
    return fail(entry.record.name, StrCat("the token \"", entry.record.name, "\" expired at ",
                                          FormatIso8601Millis(entry.record.expires_nanos),
                                          "; ask an admin for a new one"));
  }
  entry.record.last_used_nanos = now;
  if (now - entry.last_saved_use_nanos >= kLastUseSaveNanos) {
    entry.last_saved_use_nanos = now;
    if (absl::Status saved = tokens_.PutLastUse(entry.record); !saved.ok()) {
      spdlog::debug("auth: could not save the last use of token \"{}\": {}", entry.record.name,
                    saved.message());
    }
  }
  return entry.principal;
}

absl::StatusOr<std::shared_ptr<const Principal>> Authenticator::PrincipalNamed(
    std::string_view name) {
  if (!options_.enabled) return Unrestricted();
  const int64_t now = clock_.NowNanos();
  absl::MutexLock lock(&mu_);
  Entry* entry = FindLocked(name);
  if (entry == nullptr) {
    return absl::FailedPreconditionError(StrCat("the token \"", name, "\" does not exist"));
  }
  if (entry->record.revoked_nanos != 0) {
    return absl::FailedPreconditionError(StrCat("the token \"", name, "\" was revoked at ",
                                                FormatIso8601Millis(entry->record.revoked_nanos)));
  }
  if (entry->record.expires_nanos != 0 && now >= entry->record.expires_nanos) {
    return absl::FailedPreconditionError(StrCat("the token \"", name, "\" expired at ",
                                                FormatIso8601Millis(entry->record.expires_nanos)));
  }
  return entry->principal;
}

absl::Status Authenticator::CheckNotLimited(std::string_view peer_address) {
  if (options_.failure_limit <= 0) return absl::OkStatus();
  const int64_t now = clock_.NowNanos();
  absl::MutexLock lock(&failures_mu_);
  auto it = failures_.find(AbslView(peer_address));
  if (it == failures_.end() || now - it->second.window_start_nanos >= kFailureWindowNanos ||
      it->second.count < options_.failure_limit) {
    return absl::OkStatus();
  }
  const int64_t wait =
      (it->second.window_start_nanos + kFailureWindowNanos - now) / kNanosPerSecond;
  return absl::UnauthenticatedError(StrCat("too many failed authentication attempts from ",
                                           peer_address, "; retry in ", wait + 1, " s"));
}

absl::Status Authenticator::Fail(std::string_view peer_address, std::string_view token_name,
                                 std::string_view why) {
  bool now_limited = false;
  if (options_.failure_limit > 0) {
    const int64_t now = clock_.NowNanos();
    absl::MutexLock lock(&failures_mu_);
    if (failures_.size() >= kMaxTrackedPeers) {
      for (auto it = failures_.begin(); it != failures_.end();) {
        auto expired = it++;
        if (now - expired->second.window_start_nanos >= kFailureWindowNanos) {
          failures_.erase(expired);
        }
      }
      if (failures_.size() >= kMaxTrackedPeers) failures_.clear();
    }
    Failures& f = failures_[std::string(peer_address)];
    if (now - f.window_start_nanos >= kFailureWindowNanos) f = {now, 0};
    now_limited = ++f.count == options_.failure_limit;
  }
  spdlog::warn("auth: refused a call from {} (token \"{}\"): {}", peer_address, token_name, why);
  if (now_limited) {
    spdlog::warn(
        "auth: {} failed {} times within a minute; its calls are refused for the rest "
        "of the minute",
        peer_address, options_.failure_limit);
  }
  return Unauthenticated(why);
}

absl::StatusOr<CreatedToken> Authenticator::Create(std::string_view name,
                                                   const std::vector<std::string>& grants,
                                                   int64_t expires_nanos, std::string_view who) {
  absl::MutexLock lock(&mu_);
  ASSIGN_OR_RETURN(CreatedToken created, CreateLocked(name, grants, expires_nanos, ""));
  spdlog::info("auth: \"{}\" created token \"{}\" (id {}) with grants [{}]", who, name,
               created.record.id, fmt::join(created.record.grants, ", "));
  return created;
}

absl::StatusOr<CreatedToken> Authenticator::CreateLocked(std::string_view name,
                                                         const std::vector<std::string>& grants,
                                                         int64_t expires_nanos,
                                                         std::string_view secret_token) {
  RETURN_IF_ERROR(ValidateResourceName("token", name));
  if (name.size() > kMaxTokenNameBytes) {
    return absl::InvalidArgumentError(
        StrCat("token name is ", name.size(), " bytes; the limit is ", kMaxTokenNameBytes));
  }
  if (Entry* existing = FindLocked(name);
      existing != nullptr && existing->record.revoked_nanos == 0) {
    return absl::AlreadyExistsError(
        StrCat("a token named \"", name, "\" exists; revoke it first or choose another name"));
  }
  const int64_t now = clock_.NowNanos();
  if (expires_nanos != 0 && expires_nanos <= now) {
    return absl::InvalidArgumentError("the expiry time is in the past; give a future time");
  }
  ASSIGN_OR_RETURN(std::vector<std::string> normal, NormalizeGrants(grants));
  CreatedToken created;
  std::string_view id, secret;
  if (!secret_token.empty()) {
    created.token = secret_token;
  } else {
    do {
      created.token = StrCat(kPrefix, RandomHex(kIdBytes), "_", RandomHex(kSecretBytes));
      ParseToken(created.token, &id, &secret);
    } while (
        by_id_.contains(AbslView(id)));  // 64 random bits: a clash is not expected, but harmless
  }
  ParseToken(created.token, &id, &secret);
  if (by_id_.contains(AbslView(id))) return absl::AlreadyExistsError("a token with this id exists");
  TokenRecord& record = created.record;
  record.id = id;
  record.name = name;
  record.secret_hash = HashSecret(secret);
  record.grants = std::move(normal);
  record.created_nanos = now;
  record.expires_nanos = expires_nanos;
  RETURN_IF_ERROR(tokens_.Put(record));
  by_id_[record.id] =
      Entry{record,
            std::make_shared<const Principal>(Principal::ForToken(record.name, record.grants)), 0};
  return created;
}

Authenticator::Entry* Authenticator::FindLocked(std::string_view name_or_id) {
  if (auto it = by_id_.find(AbslView(name_or_id)); it != by_id_.end()) return &it->second;
  Entry* found = nullptr;
  for (auto& [id, entry] : by_id_) {
    if (entry.record.name != name_or_id) continue;
    // A live token wins over revoked ones of the same name.
    if (found == nullptr || entry.record.revoked_nanos == 0) found = &entry;
  }
  return found;
}

absl::Status Authenticator::SaveLocked(Entry& entry) {
  RETURN_IF_ERROR(tokens_.Put(entry.record));
  entry.principal = std::make_shared<const Principal>(
      Principal::ForToken(entry.record.name, entry.record.grants));
  return absl::OkStatus();
}

absl::StatusOr<TokenRecord> Authenticator::Revoke(std::string_view name_or_id,
                                                  std::string_view who) {
  absl::MutexLock lock(&mu_);
  Entry* entry = FindLocked(name_or_id);
  if (entry == nullptr) {
    return absl::NotFoundError(StrCat("no token is named \"", EchoInput(name_or_id, 80),
                                      "\" or has that id; `strata token list` shows them"));
  }
  if (entry->record.revoked_nanos == 0) {
    TokenRecord before = entry->record;
    entry->record.revoked_nanos = clock_.NowNanos();
    if (absl::Status saved = SaveLocked(*entry); !saved.ok()) {
      entry->record = std::move(before);
      return saved;
    }
    spdlog::info("auth: \"{}\" revoked token \"{}\" (id {})", who, entry->record.name,
                 entry->record.id);
  }
  return entry->record;
}

absl::StatusOr<int> Authenticator::RevokeAllAndCreateAdmin(std::string_view who) {
  absl::MutexLock lock(&mu_);
  int revoked = 0;
  const int64_t now = clock_.NowNanos();
  for (auto& [id, entry] : by_id_) {
    if (entry.record.revoked_nanos != 0) continue;
    entry.record.revoked_nanos = now;
    RETURN_IF_ERROR(SaveLocked(entry));
    ++revoked;
  }
  const std::string name = StrCat("admin-restored-", now / kNanosPerSecond);
  ASSIGN_OR_RETURN(CreatedToken created, CreateLocked(name, {"admin"}, 0, ""));
  RETURN_IF_ERROR(WriteSecretFile(options_.bootstrap_token_file, created.token));
  spdlog::warn(
      "auth: \"{}\" revoked all {} live tokens and created the admin token \"{}\" (id {}), "
      "written to {} (mode 0600)",
      who, revoked, name, created.record.id, options_.bootstrap_token_file);
  return revoked;
}

absl::StatusOr<TokenRecord> Authenticator::ChangeGrants(std::string_view name_or_id,
                                                        const std::vector<std::string>& add,
                                                        const std::vector<std::string>& remove,
                                                        std::string_view who) {
  ASSIGN_OR_RETURN(std::vector<std::string> added, NormalizeGrants(add));
  ASSIGN_OR_RETURN(std::vector<std::string> removed, NormalizeGrants(remove));
  absl::MutexLock lock(&mu_);
  Entry* entry = FindLocked(name_or_id);
  if (entry == nullptr) {
    return absl::NotFoundError(StrCat("no token is named \"", EchoInput(name_or_id, 80),
                                      "\" or has that id; `strata token list` shows them"));
  }
  if (entry->record.revoked_nanos != 0) {
    return absl::FailedPreconditionError(
        StrCat("token \"", entry->record.name, "\" is revoked; create a new one"));
  }
  TokenRecord before = entry->record;
  std::vector<std::string> grants = before.grants;
  for (const std::string& g : added) {
    if (std::find(grants.begin(), grants.end(), g) == grants.end()) grants.push_back(g);
  }
  std::erase_if(grants, [&](const std::string& g) {
    return std::find(removed.begin(), removed.end(), g) != removed.end();
  });
  entry->record.grants = std::move(grants);
  if (absl::Status saved = SaveLocked(*entry); !saved.ok()) {
    entry->record = std::move(before);
    return saved;
  }
  spdlog::info("auth: \"{}\" set the grants of token \"{}\" to [{}]", who, entry->record.name,
               fmt::join(entry->record.grants, ", "));
  return entry->record;
}

std::vector<TokenRecord> Authenticator::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<TokenRecord> out;
  for (const auto& [id, entry] : by_id_) out.push_back(entry.record);
  std::sort(out.begin(), out.end(), [](const TokenRecord& a, const TokenRecord& b) {
    return std::tie(a.name, a.created_nanos) < std::tie(b.name, b.created_nanos);
  });
  return out;
}

}  // namespace strata
