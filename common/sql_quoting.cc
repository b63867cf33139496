#include "common/sql_quoting.h"

#include <algorithm>

namespace strata {
namespace {

bool IsLowerOrUnderscore(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

// `text` between `quote`s, each `quote` in it doubled (and each backslash too when
// `backslashes`).
std::string Quoted(std::string_view text, char quote, bool backslashes) {
  std::string out(1, quote);
  for (char c : text) {
    if (c == quote || (backslashes && c == '\\')) out.push_back(c);
    out.push_back(c);
  }
  out.push_back(quote);
  return out;
}

}  // namespace

std::string QuoteIdentIfNeeded(std::string_view name) {
  const bool bare = !name.empty() && IsLowerOrUnderscore(name[0]) &&
                    std::all_of(name.begin(), name.end(), [](char c) {
                      return IsLowerOrUnderscore(c) || (c >= '0' && c <= '9') || c == '$';
                    });
  return bare ? std::string(name) : Quoted(name, '"', false);
}

std::string QuoteLiteral(std::string_view text) {
  const bool backslash = text.find('\\') != std::string_view::npos;
  return backslash ? "E" + Quoted(text, '\'', true) : Quoted(text, '\'', false);
}

}  // namespace strata
