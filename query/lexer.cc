#include "query/lexer.h"

#include <cctype>

#include "common/strings.h"

namespace strata::query {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@' || c == '$';
}

// Units of duration literals, long and short forms, singular (Timestream).
bool IsDurationUnit(std::string_view u) {
  static constexpr std::string_view kUnits[] = {
      "ns", "us", "ms", "s", "m", "h", "d", "nanosecond", "microsecond", "millisecond", "second",
      "minute", "hour", "day"};
  for (std::string_view k : kUnits) {
    if (u == k) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view sql) {
  std::vector<Token> tokens;
  // About one token per four characters: a statement's tokens are moved
  // (two strings each) a few times less as the vector grows.
  tokens.reserve(sql.size() / 4 + 8);
  size_t i = 0;
  const size_t n = sql.size();
  while (i < n) {
    char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < n && sql[i + 1] == '-') {  // comment to end of line
      while (i < n && sql[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t end = sql.find("*/", i + 2);
      if (end == std::string_view::npos) {
        return SqlError(sql, {static_cast<int>(i)}, "unterminated /* comment");
      }
      i = end + 2;
      continue;
    }
    Token t;
    t.pos = {static_cast<int>(i)};
    // A name, or a @name placeholder (query/parser.h: QueryParameters).
    if (IsIdentStart(c) || (c == '@' && i + 1 < n && IsIdentStart(sql[i + 1]))) {
      size_t start = i++;
      while (i < n && IsIdentChar(sql[i])) ++i;
      t.kind = TokenKind::kIdentifier;
      t.text = sql.substr(start, i - start);
    } else if (c == '"' || c == '\'') {
      const char quote = c;
      ++i;
      std::string text;
      while (true) {
        if (i >= n) {
          return SqlError(sql, t.pos,
                          quote == '"' ? "unterminated quoted identifier: add the closing \""
                                       : "unterminated string: add the closing '");
        }
        if (sql[i] == quote) {
          if (i + 1 < n && sql[i + 1] == quote) {  // doubled quote
            text.push_back(quote);
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        text.push_back(sql[i++]);
      }
      t.kind = quote == '"' ? TokenKind::kQuotedIdentifier : TokenKind::kString;
      t.text = std::move(text);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) {
      size_t start = i;
      bool real = false;
      while (i < n && std::isdigit(static_cast<unsigned char>(sql[i]))) ++i;
      if (i < n && sql[i] == '.' && !(i + 1 < n && sql[i + 1] == '.')) {
        real = true;
        ++i;
        while (i < n && std::isdigit(static_cast<unsigned char>(sql[i]))) ++i;
      }
      if (i < n && (sql[i] == 'e' || sql[i] == 'E') && i + 1 < n &&
          (std::isdigit(static_cast<unsigned char>(sql[i + 1])) ||
           ((sql[i + 1] == '-' || sql[i + 1] == '+') && i + 2 < n &&
            std::isdigit(static_cast<unsigned char>(sql[i + 2]))))) {
        real = true;
        i += 2;
        while (i < n && std::isdigit(static_cast<unsigned char>(sql[i]))) ++i;
      }
      t.text = sql.substr(start, i - start);
      t.kind = real ? TokenKind::kFloat : TokenKind::kInteger;
      if (i < n && IsIdentStart(sql[i])) {  // a unit glued to the number: 15m
        size_t unit_start = i;
        while (i < n && IsIdentChar(sql[i])) ++i;
        std::string unit(sql.substr(unit_start, i - unit_start));
        if (!IsDurationUnit(unit)) {
          return SqlError(sql, {static_cast<int>(unit_start)},
                          StrCat("\"", unit, "\" is not a duration unit; use ns, us, ms, s, m, "
                                 "h or d (e.g. 15m)"));
        }
        t.kind = TokenKind::kDuration;
        t.unit = std::move(unit);
      }
    } else {
      static constexpr std::string_view kSymbols[] = {"<>", "!=", "<=", ">=", "||", "::", "->",
                                                      "+", "-", "*", "/", "%", "=", "<", ">",
                                                      "(", ")", ",", ".", ";", "[", "]", "?"};
      bool matched = false;
      for (std::string_view s : kSymbols) {
        if (sql.substr(i, s.size()) == s) {
          t.kind = TokenKind::kSymbol;
          t.text = s;
          i += s.size();
          matched = true;
          break;
        }
      }
      if (!matched) {
        return SqlError(sql, t.pos, StrCat("unexpected character '", std::string(1, c), "'"));
      }
    }
    tokens.push_back(std::move(t));
  }
  Token end;
  end.pos = {static_cast<int>(n)};
  tokens.push_back(end);
  return tokens;
}

}  // namespace strata::query
