#include "query/parse/lexer.h"

#include <algorithm>
#include <cctype>

#include "common/status.h"
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

// The operator or punctuation `rest` starts with (the longest that fits), or
// empty. Compared a character at a time: a loop of string compares
// was most of the time of a text of many symbols.
std::string_view SymbolAt(std::string_view rest) {
  // PostgreSQL's regular expression matches: ~, ~* (any case), !~ and !~*; its JSON
  // operators ->> and #>> (text), -> and #> (JSON).
  static constexpr std::string_view kThree[] = {"!~*", "->>", "#>>"};
  if (rest.size() >= 3 && (rest[0] == '!' || rest[0] == '-' || rest[0] == '#')) {
    for (std::string_view three : kThree) {
      if (rest.substr(0, 3) == three) return three;
    }
  }
  // PostgreSQL's array containment, x <@ y, and text's prefix test, x ^@ y; but x <@p is
  // x < @p, a placeholder (and x ^@p x ^ @p).
  if (rest.size() >= 2 && (rest[0] == '<' || rest[0] == '^') && rest[1] == '@') {
    return rest.size() > 2 && IsIdentStart(rest[2]) ? rest.substr(0, 1) : rest.substr(0, 2);
  }
  // ... and x @> y, x && y (overlap); jsonb's x ?| keys, x ?& keys and x #- path; the
  // shifts x << n and x >> n.
  static constexpr std::string_view kTwo[] = {"<>", "!=", "<=", ">=", "||", "::", "->", "#>", "~*",
                                              "!~", "@>", "&&", "?|", "?&", "#-", "<<", ">>"};
  if (rest.size() >= 2) {
    for (std::string_view two : kTwo) {
      if (rest[0] == two[0] && rest[1] == two[1]) return two;
    }
  }
  // & | # ~ are also the bitwise operators (and ~ the regular expression match); : parts an
  // array slice's bounds (a[2:3]).
  static constexpr std::string_view kOne = "+-*/%^=<>(),.;[]?~&|#:";
  const size_t k = kOne.find(rest[0]);
  return k == std::string_view::npos ? std::string_view() : kOne.substr(k, 1);
}

}  // namespace

absl::Status Lexer::Next(Token* t) {
  const std::string_view sql = sql_;
  const size_t n = sql.size();
  size_t& i = i_;
  while (i < n) {
    const char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {  // comment to end of line
      while (i < n && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      const size_t end = sql.find("*/", i + 2);
      if (end == std::string_view::npos) {
        return SqlError(sql, {static_cast<int>(i)}, "unterminated /* comment");
      }
      i = end + 2;
    } else {
      break;
    }
  }
  t->kind = TokenKind::kEnd;
  t->text.clear();
  t->unit.clear();
  t->pos = {static_cast<int>(i)};
  if (i >= n) return absl::OkStatus();
  const char c = sql[i];
  // A name, or a @name placeholder (query/parse/parser.h: QueryParameters).
  if (IsIdentStart(c) || (c == '@' && i + 1 < n && IsIdentStart(sql[i + 1]))) {
    const size_t start = i++;
    while (i < n && IsIdentChar(sql[i])) ++i;
    t->kind = TokenKind::kIdentifier;
    t->text.assign(sql.substr(start, i - start));
  } else if (c == '"' || c == '\'') {
    const char quote = c;
    ++i;
    while (true) {
      if (i >= n) {
        return SqlError(sql, t->pos,
                        quote == '"' ? "unterminated quoted identifier: add the closing \""
                                     : "unterminated string: add the closing '");
      }
      if (sql[i] == quote) {
        if (i + 1 < n && sql[i + 1] == quote) {  // doubled quote
          t->text.push_back(quote);
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      t->text.push_back(sql[i++]);
    }
    t->kind = quote == '"' ? TokenKind::kQuotedIdentifier : TokenKind::kString;
  } else if (std::isdigit(static_cast<unsigned char>(c)) ||
             (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) {
    const size_t start = i;
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
    t->text.assign(sql.substr(start, i - start));
    t->kind = real ? TokenKind::kFloat : TokenKind::kInteger;
    if (i < n && IsIdentStart(sql[i])) {  // a unit glued to the number: 15m
      const size_t unit_start = i;
      while (i < n && IsIdentChar(sql[i])) ++i;
      t->unit.assign(sql.substr(unit_start, i - unit_start));
      if (!IsDurationUnit(t->unit)) {
        return SqlError(sql, {static_cast<int>(unit_start)},
                        StrCat("\"", t->unit, "\" is not a duration unit; use ns, us, ms, s, m, "
                               "h or d (e.g. 15m)"));
      }
      t->kind = TokenKind::kDuration;
    }
  } else {
    const std::string_view symbol = SymbolAt(sql.substr(i));
    if (symbol.empty()) {
      return SqlError(sql, t->pos, StrCat("unexpected character '", std::string(1, c), "'"));
    }
    t->kind = TokenKind::kSymbol;
    t->text.assign(symbol);
    i += symbol.size();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view sql) {
  std::vector<Token> tokens;
  // About one token per four characters, up to a plain statement's worth: a
  // statement's tokens are moved (two strings each) a few times less as the
  // vector grows, and a long text reserves no more than it uses.
  tokens.reserve(std::min<size_t>(sql.size() / 4, 4096) + 8);
  Lexer lexer(sql);
  while (true) {
    Token& t = tokens.emplace_back();
    RETURN_IF_ERROR(lexer.Next(&t));
    if (t.kind == TokenKind::kEnd) return tokens;
  }
}

}  // namespace strata::query
