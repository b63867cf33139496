#include "query/base/postgres_array_text.h"

#include <cctype>

#include "common/strings.h"
#include "query/base/datum.h"

namespace strata::query {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

void SkipSpaces(std::string_view text, size_t* i) {
  while (*i < text.size() && IsSpace(text[*i])) ++*i;
}

// The nested array text at text[*i] == '{', braces and all; *i moves past it. nullopt when
// its braces or quotes do not close.
std::optional<std::string> NestedArray(std::string_view text, size_t* i) {
  const size_t start = *i;
  int depth = 0;
  bool quoted = false;
  for (; *i < text.size(); ++*i) {
    const char c = text[*i];
    if (c == '\\') {
      ++*i;  // the next character is kept whatever it is
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == '{') {
      ++depth;
    } else if (!quoted && c == '}' && --depth == 0) {
      ++*i;
      return std::string(text.substr(start, *i - start));
    }
  }
  return std::nullopt;
}

// The quoted element at text[*i] == '"', unescaped; *i moves past its closing quote.
std::optional<std::string> QuotedElement(std::string_view text, size_t* i) {
  std::string out;
  for (++*i; *i < text.size(); ++*i) {
    char c = text[*i];
    if (c == '"') {
      ++*i;
      return out;
    }
    if (c == '\\') {
      if (++*i == text.size()) break;
      c = text[*i];
    }
    out.push_back(c);
  }
  return std::nullopt;
}

// The unquoted element at text[*i] up to the next unescaped ',' or '}', unescaped and
// trimmed of trailing whitespace; `*escaped` says whether a backslash appeared (an
// escaped NULL is the text NULL).
std::string UnquotedElement(std::string_view text, size_t* i, bool* escaped) {
  std::string out;
  size_t kept = 0;  // out's length up to its last character that is not trailing space
  *escaped = false;
  for (; *i < text.size(); ++*i) {
    char c = text[*i];
    if (c == ',' || c == '}') break;
    if (c == '\\' && *i + 1 < text.size()) {
      *escaped = true;
      c = text[++*i];
      out.push_back(c);
      kept = out.size();
      continue;
    }
    out.push_back(c);
    if (!IsSpace(c)) kept = out.size();
  }
  out.resize(kept);
  return out;
}

}  // namespace

bool LooksLikePostgresArrayText(std::string_view text) {
  size_t i = 0;
  SkipSpaces(text, &i);
  return i < text.size() && text[i] == '{';
}

std::optional<std::vector<std::optional<std::string>>> SplitPostgresArrayText(
    std::string_view text) {
  size_t i = 0;
  SkipSpaces(text, &i);
  if (i == text.size() || text[i] != '{') return std::nullopt;
  ++i;
  std::vector<std::optional<std::string>> elements;
  SkipSpaces(text, &i);
  if (i < text.size() && text[i] == '}') {
    ++i;
  } else {
    while (true) {
      SkipSpaces(text, &i);
      if (i == text.size() || elements.size() == kMaxNestedValues) return std::nullopt;
      if (text[i] == '"') {
        std::optional<std::string> element = QuotedElement(text, &i);
        if (!element) return std::nullopt;
        elements.push_back(std::move(element));
      } else if (text[i] == '{') {
        std::optional<std::string> element = NestedArray(text, &i);
        if (!element) return std::nullopt;
        elements.push_back(std::move(element));
      } else {
        bool escaped = false;
        std::string element = UnquotedElement(text, &i, &escaped);
        if (element.empty() && !escaped) return std::nullopt;  // {a,,b}
        if (!escaped && EqualsIgnoreCase(element, "null")) {
          elements.emplace_back(std::nullopt);
        } else {
          elements.push_back(std::move(element));
        }
      }
      SkipSpaces(text, &i);
      if (i == text.size()) return std::nullopt;
      if (text[i++] == '}') break;
      if (text[i - 1] != ',') return std::nullopt;
    }
  }
  SkipSpaces(text, &i);
  if (i != text.size()) return std::nullopt;
  return elements;
}

}  // namespace strata::query
