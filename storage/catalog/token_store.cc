#include "storage/catalog/token_store.h"

#include "common/coding.h"
#include "common/status.h"
#include "storage/kv/keys.h"

namespace strata {
namespace {

constexpr uint8_t kTokenFormatV1 = 1;

}  // namespace

std::string EncodeToken(const TokenRecord& token) {
  std::string out(1, static_cast<char>(kTokenFormatV1));
  PutLengthPrefixed(&out, token.id);
  PutLengthPrefixed(&out, token.name);
  PutLengthPrefixed(&out, token.secret_hash);
  PutVarint64(&out, token.grants.size());
  for (const std::string& grant : token.grants) PutLengthPrefixed(&out, grant);
  PutVarsint64(&out, token.created_nanos);
  PutVarsint64(&out, token.expires_nanos);
  PutVarsint64(&out, token.last_used_nanos);
  PutVarsint64(&out, token.revoked_nanos);
  return out;
}

absl::StatusOr<TokenRecord> DecodeToken(std::string_view bytes) {
  Decoder in(bytes);
  TokenRecord token;
  uint8_t format;
  std::string_view id, name, hash;
  uint64_t grants;
  if (!in.GetByte(&format) || format != kTokenFormatV1 || !in.GetLengthPrefixed(&id) ||
      !in.GetLengthPrefixed(&name) || !in.GetLengthPrefixed(&hash) || !in.GetVarint64(&grants) ||
      grants > bytes.size()) {
    return CorruptionError("token record");
  }
  for (uint64_t i = 0; i < grants; ++i) {
    std::string_view grant;
    if (!in.GetLengthPrefixed(&grant)) return CorruptionError("token record");
    token.grants.emplace_back(grant);
  }
  if (!in.GetVarsint64(&token.created_nanos) || !in.GetVarsint64(&token.expires_nanos) ||
      !in.GetVarsint64(&token.last_used_nanos) || !in.GetVarsint64(&token.revoked_nanos)) {
    return CorruptionError("token record");
  }
  token.id = id;
  token.name = name;
  token.secret_hash = hash;
  return token;
}

absl::StatusOr<std::vector<TokenRecord>> TokenStore::LoadAll() const {
  std::vector<TokenRecord> out;
  const std::string prefix = keys::TokenPrefix();
  std::unique_ptr<rocksdb::Iterator> it(
      store_.db()->NewIterator(rocksdb::ReadOptions(), store_.family(Store::kCatalog)));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    ASSIGN_OR_RETURN(TokenRecord token, DecodeToken(it->value().ToStringView()));
    out.push_back(std::move(token));
  }
  RETURN_IF_ERROR(FromRocks(it->status(), "loading the tokens"));
  return out;
}

absl::Status TokenStore::Put(const TokenRecord& token) {
  return FromRocks(store_.db()->Put(store_.sync_write_options(), store_.family(Store::kCatalog),
                                    keys::Token(token.id), EncodeToken(token)),
                   "saving a token");
}

absl::Status TokenStore::PutLastUse(const TokenRecord& token) {
  return FromRocks(store_.db()->Put(store_.write_options(), store_.family(Store::kCatalog),
                                    keys::Token(token.id), EncodeToken(token)),
                   "saving a token's last use");
}

}  // namespace strata
