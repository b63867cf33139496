// Splits SQL text into tokens. Keywords are not distinguished here: they are
// identifiers that the parser compares case-insensitively.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/error.h"

namespace strata::query {

enum class TokenKind {
  kIdentifier,        // name or keyword
  kQuotedIdentifier,  // "name"
  kString,            // 'text' ('' is a quote)
  kInteger,
  kFloat,
  kDuration,          // 15m, 1d, 100ms: `text` is the number, `unit` the unit
  kSymbol,            // operators and punctuation, in `text`
  kEnd,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  std::string unit;
  Position pos;
};

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view sql);

}  // namespace strata::query
