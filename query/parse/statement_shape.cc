#include "query/parse/statement_shape.h"

#include "absl/strings/match.h"
#include "query/parse/lexer.h"

namespace strata::query {

namespace {

bool IsShapeKeyword(const Token& token, const char* word) {
  return token.kind == TokenKind::kIdentifier && absl::EqualsIgnoreCase(token.text, word);
}

// The shape of the statement `sql` holds after `EXPLAIN` when `explained`, else of `sql`.
std::optional<std::string> TokensShape(std::string_view sql, bool explained) {
  Lexer lexer(sql);
  Token token;
  if (explained && (!lexer.Next(&token).ok() || !IsShapeKeyword(token, "explain")))
    return std::nullopt;
  std::string shape;
  for (bool first = true;; first = false) {
    if (!lexer.Next(&token).ok()) return std::nullopt;
    if (token.kind == TokenKind::kEnd) break;
    if (first && !IsShapeKeyword(token, "select") && !IsShapeKeyword(token, "with"))
      return std::nullopt;
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

}  // namespace

std::optional<std::string> ReadStatementShape(std::string_view sql) {
  return TokensShape(sql, false);
}

std::optional<std::string> ExplainedStatementShape(std::string_view sql) {
  return TokensShape(sql, true);
}

bool IsInsertStatement(std::string_view sql) {
  Lexer lexer(sql);
  Token token;
  return lexer.Next(&token).ok() && IsShapeKeyword(token, "insert");
}

}  // namespace strata::query
