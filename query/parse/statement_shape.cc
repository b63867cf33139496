#include "query/parse/statement_shape.h"

#include "absl/strings/match.h"
#include "query/parse/lexer.h"

namespace strata::query {

std::optional<std::string> ReadStatementShape(std::string_view sql) {
  Lexer lexer(sql);
  Token token;
  std::string shape;
  for (bool first = true;; first = false) {
    if (!lexer.Next(&token).ok()) return std::nullopt;
    if (token.kind == TokenKind::kEnd) break;
    if (first &&
        (token.kind != TokenKind::kIdentifier || !(absl::EqualsIgnoreCase(token.text, "select") ||
                                                   absl::EqualsIgnoreCase(token.text, "with")))) {
      return std::nullopt;
    }
    switch (token.kind) {
      case TokenKind::kString:
      case TokenKind::kInteger:
      case TokenKind::kFloat:
      case TokenKind::kDuration:
        shape += '?';
        break;
      case TokenKind::kQuotedIdentifier:
        shape += '"';
        shape += token.text;
        shape += '"';
        break;
      default:
        shape += token.text;
        break;
    }
    shape += ' ';  // no token holds an unquoted space, so tokens stay apart
    if (shape.size() > kMaxStatementShape) return std::nullopt;
  }
  if (shape.empty()) return std::nullopt;
  return shape;
}

}  // namespace strata::query
