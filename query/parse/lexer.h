// Splits SQL text into tokens. Keywords are not distinguished here: they are
// identifiers that the parser compares case-insensitively.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/error.h"

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

// Reads SQL text one token at a time: a caller that only walks the tokens
// (splitting a script at its semicolons) keeps none of them, where a vector
// of every token would take ~80 bytes for each byte of a text of `;`s.
class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {}
  // Reads the next token into `t` (reusing its strings); kEnd once the text
  // is read, and again on every later call. An error for text that is no
  // token (an unterminated string or comment, an unknown character).
  absl::Status Next(Token* t);

 private:
  std::string_view sql_;
  size_t i_ = 0;
};

// Every token of `sql`, the last one kEnd.
absl::StatusOr<std::vector<Token>> Tokenize(std::string_view sql);

}  // namespace strata::query
