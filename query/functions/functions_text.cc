// Text functions of Timestream's reference beyond the basics in functions.cc:
// regular expressions (RE2, linear time, as regexp_like), split, padding,
// code points, edit distances, and hex and base64 of a text's UTF-8 bytes
// (Strata has no varbinary type, so these take and give varchar), and the aggregates that
// join a group's texts (string_agg, listagg).
//
// Positions and lengths count code points, as Presto's do, so no result
// splits a character; every result is bounded by kMaxTextBytes.
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/byte_size_text.h"
#include "common/sql_quoting.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/base/regex_cache.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

// The most cells levenshtein_distance fills (length of a × length of b):
// about a second of work; longer texts fail the query instead of a core.
constexpr int64_t kMaxEditCells = 100'000'000;

// The code points of `s` (an ill-formed byte counts as one, its own value).
std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  while (!s.empty()) {
    const size_t n = Utf8CharLength(s);
    if (n == 0) {
      out.push_back(static_cast<uint8_t>(s[0]));
      s.remove_prefix(1);
      continue;
    }
    uint32_t c = n == 1 ? static_cast<uint8_t>(s[0]) : static_cast<uint8_t>(s[0]) & (0x7F >> n);
    for (size_t i = 1; i < n; ++i) c = (c << 6) | (static_cast<uint8_t>(s[i]) & 0x3F);
    out.push_back(c);
    s.remove_prefix(n);
  }
  return out;
}

Datum ArrayOfTexts(std::vector<std::string> texts) {
  std::vector<Datum> values;
  values.reserve(texts.size());
  for (std::string& t : texts) values.push_back(Datum::Varchar(std::move(t)));
  return Datum::Composite(*ArrayOf(kStr), std::move(values));
}

// `text` cut at each `delimiter` (not empty) into at most `limit` parts, the last keeping the
// rest (split's and string_to_array's); false, with the query failed, past kMaxNestedValues.
bool SplitText(std::string_view function, std::string_view text, std::string_view delimiter,
               int64_t limit, const EvalContext& c, std::vector<std::string_view>* parts) {
  size_t start = 0;
  for (size_t p = text.find(delimiter);
       p != std::string_view::npos && static_cast<int64_t>(parts->size()) + 1 < limit;
       p = text.find(delimiter, start)) {
    if (parts->size() == kMaxNestedValues) {
      FailQuery(c, StrCat(function, "(): more than ", kMaxNestedValues, " parts"), *ArrayOf(kStr));
      return false;
    }
    parts->push_back(text.substr(start, p - start));
    start = p + delimiter.size();
  }
  parts->push_back(text.substr(start));
  return true;
}

// A binder of fixed parameters (`optional` trailing ones may be left out) whose result is
// an array of text.
auto TextArrayBinder(std::vector<Param> params, std::string signature, size_t optional = 0) {
  return [binder = Fixed(std::move(params), kStr, std::move(signature), optional)](
             const Types& t) -> absl::StatusOr<DataType> {
    RETURN_IF_ERROR(binder(t).status());
    return Interned(ArrayOf(kStr));
  };
}

// The compiled pattern, or NULL with the pattern's error recorded.
const re2::RE2* Pattern(std::string_view function, const std::string& text,
                        const EvalContext& c) {
  absl::StatusOr<const re2::RE2*> pattern = CompiledPattern(text);
  if (pattern.ok()) return *pattern;
  if (c.error.empty()) c.error = StrCat(function, "(): ", pattern.status().message());
  return nullptr;
}

// SQL's SIMILAR TO pattern as an RE2 expression of the whole text, as PostgreSQL translates it
// (similar_escape): % is any text, _ any character, | * + ? {m,n} ( ) and [...] keep their
// meaning, `escape` (none if empty) makes the next character plain, and the characters that are
// special only to regular expressions (. ^ $ \) are plain. nullopt when `escape` is longer
// than one character.
std::optional<std::string> SimilarToRegex(std::string_view pattern, std::string_view escape) {
  if (escape.size() > 1) return std::nullopt;
  std::string out = "^(?:";
  bool escaped = false;
  bool in_brackets = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (escaped) {
      escaped = false;
      if (!std::isalnum(static_cast<unsigned char>(c))) out.push_back('\\');
      out.push_back(c);
    } else if (!escape.empty() && c == escape[0]) {
      escaped = true;
    } else if (in_brackets) {
      if (c == '\\') out.push_back('\\');  // a backslash is plain in a bracket too
      out.push_back(c);
      if (c == ']') in_brackets = false;
    } else if (c == '[') {
      in_brackets = true;
      out.push_back(c);
      // ] or ^] first in a bracket is a ] of the set, not its end.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out.push_back(pattern[++i]);
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out.push_back(pattern[++i]);
    } else if (c == '%') {
      out += ".*";
    } else if (c == '_') {
      out.push_back('.');
    } else if (c == '.' || c == '^' || c == '$' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else {
      out.push_back(c);
    }
  }
  return out + ")$";  // a trailing escape escapes nothing (PostgreSQL drops it)
}

// The capture group `group` of `pattern` when it has one; else the error.
bool GroupExists(std::string_view function, const re2::RE2& pattern, int64_t group,
                 const EvalContext& c) {
  if (group >= 0 && group <= pattern.NumberOfCapturingGroups()) return true;
  if (c.error.empty()) {
    c.error = StrCat(function, "(): the pattern has ", pattern.NumberOfCapturingGroups(),
                     " capturing groups; group ", group, " does not exist");
  }
  return false;
}

// Every match of `pattern` in `text`, as the spans of its groups 0 (the whole match) to
// `last` (a group that took no part has a null data()); an empty match moves on by one
// character so the search ends.
template <typename Visit>
void ForEachMatchGroups(const re2::RE2& pattern, std::string_view text, int last, Visit visit) {
  std::vector<re2::StringPiece> groups(last + 1);
  size_t at = 0;
  while (at <= text.size() &&
         pattern.Match(text, at, text.size(), re2::RE2::UNANCHORED, groups.data(), last + 1)) {
    const std::string_view whole(groups[0].data(), groups[0].size());
    if (!visit(groups)) return;
    const size_t end = static_cast<size_t>(whole.data() - text.data()) + whole.size();
    if (whole.empty()) {
      if (end >= text.size()) return;
      const size_t step = std::max<size_t>(1, Utf8CharLength(text.substr(end)));
      at = end + step;
    } else {
      at = end;
    }
  }
}

// Every match of `pattern` in `text`, as the span of group `group` and of the whole match.
template <typename Visit>
void ForEachMatch(const re2::RE2& pattern, std::string_view text, int group, Visit visit) {
  ForEachMatchGroups(pattern, text, group, [&](const std::vector<re2::StringPiece>& groups) {
    return visit(std::string_view(groups[group].data(), groups[group].size()),
                 std::string_view(groups[0].data(), groups[0].size()));
  });
}

// PostgreSQL's regexp_match and regexp_matches: a match as the array of its groups' texts
// (NULL for a group that took no part), or of the whole match for a pattern without groups.
Datum MatchArray(const std::vector<re2::StringPiece>& groups) {
  std::vector<Datum> items;
  for (size_t g = groups.size() == 1 ? 0 : 1; g < groups.size(); ++g) {
    items.push_back(groups[g].data() == nullptr
                        ? Datum::Null(DataType::kVarchar)
                        : Datum::Varchar(std::string(groups[g].data(), groups[g].size())));
  }
  return Datum::Composite(*ArrayOf(DataType::kVarchar), std::move(items));
}

// RE2's reference to a group a replacement names as `$3` or `\3` (the sigil); nullopt, with
// `problem`, when the pattern lacks it.
std::optional<std::string> GroupReference(const re2::RE2& pattern, char sigil, int group,
                                          std::string* problem) {
  if (group <= pattern.NumberOfCapturingGroups()) return StrCat("\\", group);
  *problem = StrCat("the pattern has ", pattern.NumberOfCapturingGroups(), " capturing groups; ",
                    std::string_view(&sigil, 1), group, " does not exist");
  return std::nullopt;
}

// Presto's replacement text ($1, ${name}, \$ for a dollar, \\ for a backslash) in RE2's
// spelling (\1, \\ for a backslash); nullopt for a group the pattern lacks. PostgreSQL's \1
// to \9 and \& (the match) are read too: in Presto they are no group (Java's escape makes \1
// a plain 1), so a PostgreSQL user's replacement does what it says instead of writing "\1".
std::optional<std::string> Re2Rewrite(const re2::RE2& pattern, std::string_view replacement,
                                      std::string* problem) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char ch = replacement[i];
    const char next = i + 1 < replacement.size() ? replacement[i + 1] : '\0';
    if (ch == '\\' && next >= '1' && next <= '9') {
      std::optional<std::string> group = GroupReference(pattern, '\\', next - '0', problem);
      if (!group) return std::nullopt;
      out += *group;
      ++i;
    } else if (ch == '\\' && (next == '$' || next == '\\' || next == '&')) {
      out += next == '$' ? "$" : next == '&' ? "\\0" : "\\\\";
      ++i;
    } else if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '$' && i + 1 < replacement.size() && replacement[i + 1] == '{') {
      const size_t close = replacement.find('}', i);
      if (close == std::string_view::npos) {
        *problem = "a ${ in the replacement has no closing }";
        return std::nullopt;
      }
      const std::string name(replacement.substr(i + 2, close - i - 2));
      auto it = pattern.NamedCapturingGroups().find(name);
      if (it == pattern.NamedCapturingGroups().end()) {
        *problem = StrCat("the pattern has no group named '", EchoInput(name), "'");
        return std::nullopt;
      }
      out += StrCat("\\", it->second);
      i = close;
    } else if (ch == '$' && i + 1 < replacement.size() &&
               std::isdigit(static_cast<unsigned char>(replacement[i + 1]))) {
      std::optional<std::string> group = GroupReference(pattern, '$', next - '0', problem);
      if (!group) return std::nullopt;
      out += *group;
      ++i;
    } else {
      out += ch;
    }
  }
  return out;
}

// PostgreSQL's replacement text (\1 to \9 for a group, \& for the match, \\ for a backslash)
// in RE2's spelling; a group the pattern lacks inserts nothing, as in PostgreSQL.
std::string PostgresRewrite(const re2::RE2& pattern, std::string_view replacement) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char ch = replacement[i];
    const char next = i + 1 < replacement.size() ? replacement[i + 1] : '\0';
    if (ch != '\\') {
      out += ch;
    } else if (next >= '1' && next <= '9') {
      if (next - '0' <= pattern.NumberOfCapturingGroups()) out += StrCat("\\", next - '0');
      ++i;
    } else if (next == '&') {
      out += "\\0";
      ++i;
    } else {
      out += "\\\\";  // a backslash, and `\\` is one too
      if (next == '\\') ++i;
    }
  }
  return out;
}

// PostgreSQL's flags of regexp_replace: g (every match, not the first only), i (case
// insensitive), c (case sensitive, the default). False, with `problem` set, for another.
bool ReadReplaceFlags(std::string_view flags, bool* global, bool* insensitive,
                      std::string* problem) {
  for (char f : flags) {
    if (f == 'g') {
      *global = true;
    } else if (f == 'i' || f == 'c') {
      *insensitive = f == 'i';
    } else {
      *problem = StrCat("flag '", EchoInput(std::string_view(&f, 1)),
                        "' is not supported; use g (every match), i (ignore case) or c");
      return false;
    }
  }
  return true;
}

// The pattern of regexp_match or regexp_matches with PostgreSQL's flags (i: ignore case;
// g: every match, where `global` may take it); nullptr with the query failed.
const re2::RE2* FlaggedPattern(std::string_view function, const Args& a, bool* global,
                               const EvalContext& c) {
  bool every = false, insensitive = false;
  std::string problem;
  if (a.size() > 2 &&
      (!ReadReplaceFlags(a[2].s, &every, &insensitive, &problem) || (every && global == nullptr))) {
    if (problem.empty()) problem = "the flag g is regexp_matches'; regexp_match finds one match";
    FailQuery(c, StrCat(function, "(): ", problem), DataType::kUnknown);
    return nullptr;
  }
  if (global != nullptr) *global = every;
  return Pattern(function, insensitive ? StrCat("(?i)", a[1].s) : a[1].s, c);
}

// lpad and rpad: `s` cut or padded to `size` code points with `pad` repeated.
Datum Pad(std::string_view function, const Args& a, bool left, const EvalContext& c) {
  const std::string& s = a[0].s;
  const int64_t size = a[1].i;
  static const std::string kSpace = " ";  // PostgreSQL's padding when none is given
  const std::string& pad = a.size() > 2 ? a[2].s : kSpace;
  if (size < 0) {
    return FailQuery(c, StrCat(function, "(): the target size ", size, " is negative"), kStr);
  }
  if (pad.empty()) return FailQuery(c, StrCat(function, "(): the padding text is empty"), kStr);
  const int64_t length = Utf8Length(s);
  if (size <= length) return Datum::Varchar(s.substr(0, Utf8Offset(s, size)));
  // Each code point is at most 4 bytes: refuse a result past the bound
  // before building it.
  if (size > static_cast<int64_t>(kMaxTextBytes)) {
    return FailQuery(c, TextTooLongMessage(StrCat(function, "()")), kStr);
  }
  // The padding whole as often as it fits, by doubling (a loop per copy took ~10 ms a MB),
  // then the start of one more.
  const int64_t need = size - length;
  const int64_t pad_length = Utf8Length(pad);
  const auto wholes = static_cast<size_t>(need / pad_length);
  if (wholes > kMaxTextBytes / pad.size()) {
    return FailQuery(c, TextTooLongMessage(StrCat(function, "()")), kStr);
  }
  const size_t whole_bytes = wholes * pad.size();
  std::string fill;
  fill.reserve(whole_bytes + pad.size() + s.size());
  if (wholes > 0) fill = pad;
  while (fill.size() < whole_bytes)
    fill.append(fill, 0, std::min(fill.size(), whole_bytes - fill.size()));
  fill.append(pad, 0, Utf8Offset(pad, need % pad_length));
  if (fill.size() > kMaxTextBytes)
    return FailQuery(c, TextTooLongMessage(StrCat(function, "()")), kStr);
  if (!left) return Datum::Varchar(s + fill);
  fill += s;
  return Datum::Varchar(std::move(fill));
}

int64_t Levenshtein(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<int64_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int64_t diagonal = row[0];
    row[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int64_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Bytes decoded from hex or base64 become text only if they are UTF-8.
Datum DecodedText(std::string_view function, std::string bytes, const EvalContext& c) {
  if (IsValidUtf8(bytes)) return Datum::Varchar(std::move(bytes));
  return FailQuery(c, StrCat(function, "(): the decoded bytes are not UTF-8 text (Strata has no "
                             "varbinary type)"), kStr);
}

// string_agg(x, separator) and listagg(x [, separator]): the group's texts joined, NULLs left
// out. Each row's separator goes before its text (PostgreSQL's rule), none before the first.
class JoinTextsAcc : public Accumulator {
 public:
  explicit JoinTextsAcc(std::string name) : name_(std::move(name)) {}
  void Add(const Args& a) override {
    if (a[0].null || overflow_) return;
    const std::string_view separator =
        a.size() > 1 && !a[1].null ? std::string_view(a[1].s) : std::string_view();
    const size_t grown = (any_ ? separator.size() : 0) + a[0].s.size();
    if (text_.size() + grown > kMaxTextBytes) {
      overflow_ = true;
      return;
    }
    if (any_) text_.append(separator);
    text_.append(a[0].s);
    any_ = true;
    Kept(static_cast<int64_t>(grown));
  }
  absl::StatusOr<Datum> Finish() override {
    if (overflow_) return absl::ResourceExhaustedError(TextTooLongMessage(StrCat(name_, "()")));
    if (!any_) return Datum::Null(DataType::kVarchar);
    return Datum::Varchar(text_);  // a copy: more rows may come (Finish)
  }

 private:
  std::string name_;
  std::string text_;
  bool any_ = false;
  bool overflow_ = false;
};

}  // namespace

void AddTextFunctions(std::vector<ScalarFunction>* scalars,
                      std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f, bool can_fail = true) {
    f.can_fail = can_fail;
    scalars->push_back(std::move(f));
  };

  add({"similar_to", "similar_to(varchar, pattern [, escape]) -> boolean",
       "x SIMILAR TO pattern [ESCAPE 'c']: true if the SQL pattern matches the whole text (% any "
       "text, _ any character; alternatives, repeats (* + ? {m,n}), groups and [...] sets as in "
       "regular expressions; the escape, a backslash unless given, makes the next character "
       "plain).",
       Fixed({P::kVarchar, P::kVarchar, P::kVarchar}, DataType::kBoolean,
             "similar_to(varchar, varchar [, varchar])", 1),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string> regex =
             SimilarToRegex(a[1].s, a.size() > 2 ? std::string_view(a[2].s) : "\\");
         if (!regex) {
           return FailQuery(c,
                            StrCat("SIMILAR TO's ESCAPE is one character (or '' for none), not '",
                                   EchoInput(a[2].s), "'"),
                            DataType::kBoolean);
         }
         const re2::RE2* pattern = Pattern("similar_to", *regex, c);
         if (pattern == nullptr) return Datum::Null(DataType::kBoolean);
         return Datum::Bool(re2::RE2::FullMatch(a[0].s, *pattern));
       }});
  add({"regexp_extract", "regexp_extract(varchar, pattern [, group]) -> varchar",
       "The first match of the pattern (RE2), or its capturing group; NULL when nothing matches.",
       Fixed({P::kVarchar, P::kVarchar, P::kBigint}, kStr,
             "regexp_extract(varchar, varchar [, bigint])", 1),
       [](const Args& a, const EvalContext& c) {
         const re2::RE2* pattern = Pattern("regexp_extract", a[1].s, c);
         const int64_t group = a.size() > 2 ? a[2].i : 0;
         if (pattern == nullptr || !GroupExists("regexp_extract", *pattern, group, c)) {
           return Datum::Null(kStr);
         }
         std::optional<std::string> found;
         ForEachMatch(*pattern, a[0].s, static_cast<int>(group),
                      [&](std::string_view g, std::string_view) {
                        if (g.data() != nullptr) found = std::string(g);
                        return false;
                      });
         return found ? Datum::Varchar(*std::move(found)) : Datum::Null(kStr);
       }});
  add({"regexp_extract_all", "regexp_extract_all(varchar, pattern [, group]) -> array(varchar)",
       "Every match of the pattern (RE2), or of its capturing group, in order.",
       TextArrayBinder({P::kVarchar, P::kVarchar, P::kBigint},
                       "regexp_extract_all(varchar, varchar [, bigint])", 1),
       [](const Args& a, const EvalContext& c) {
         const re2::RE2* pattern = Pattern("regexp_extract_all", a[1].s, c);
         const int64_t group = a.size() > 2 ? a[2].i : 0;
         if (pattern == nullptr || !GroupExists("regexp_extract_all", *pattern, group, c)) {
           return Datum::Null(*ArrayOf(kStr));
         }
         std::vector<std::string> found;
         ForEachMatch(*pattern, a[0].s, static_cast<int>(group),
                      [&](std::string_view g, std::string_view) {
                        found.emplace_back(g);
                        return found.size() < kMaxNestedValues && c.KeepGoing();
                      });
         return ArrayOfTexts(std::move(found));
       }});
  add({"regexp_count", "regexp_count(varchar, pattern [, start]) -> bigint",
       "How many times the pattern (RE2) matches, matches not overlapping, from character start "
       "(1-based; default 1): regexp_count('abcabc', 'b') is 2.",
       Fixed({P::kVarchar, P::kVarchar, P::kBigint}, kBig,
             "regexp_count(varchar, varchar [, bigint])", 1),
       [](const Args& a, const EvalContext& c) {
         const re2::RE2* pattern = Pattern("regexp_count", a[1].s, c);
         if (pattern == nullptr) return Datum::Null(kBig);
         const int64_t start = a.size() > 2 ? a[2].i : 1;
         if (start < 1) {
           return FailStartBeforeFirst(c, "regexp_count", start, kBig);
         }
         const std::string_view s = a[0].s;
         int64_t count = 0;
         ForEachMatch(*pattern, s.substr(Utf8Offset(s, start - 1)), 0,
                      [&](std::string_view, std::string_view) {
                        return ++count % 4096 != 0 || c.KeepGoing();
                      });
         return Datum::Bigint(count);
       }});
  add({"regexp_match", "regexp_match(varchar, pattern [, flags]) -> array(varchar)",
       "PostgreSQL's: the first match's groups (NULL for one that took no part), or [the "
       "match] for a pattern without groups; NULL when nothing matches. Flag i ignores case.",
       TextArrayBinder({P::kVarchar, P::kVarchar, P::kVarchar},
                       "regexp_match(varchar, varchar [, varchar])", 1),
       [](const Args& a, const EvalContext& c) {
         const re2::RE2* pattern = FlaggedPattern("regexp_match", a, nullptr, c);
         Datum out = Datum::Null(*ArrayOf(kStr));
         if (pattern == nullptr) return out;
         ForEachMatchGroups(*pattern, a[0].s, pattern->NumberOfCapturingGroups(),
                            [&](const std::vector<re2::StringPiece>& groups) {
                              out = MatchArray(groups);
                              return false;
                            });
         return out;
       }});
  add({"regexp_matches", "regexp_matches(varchar, pattern [, flags]) -> array(array(varchar))",
       "PostgreSQL's: each match as regexp_match gives it, the first only unless flag g; in a "
       "select list, a row for each (a set-returning function). Flag i ignores case.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         RETURN_IF_ERROR(Fixed({P::kVarchar, P::kVarchar, P::kVarchar}, kStr,
                               "regexp_matches(varchar, varchar [, varchar])", 1)(t)
                             .status());
         return Interned(ArrayOf(*ArrayOf(kStr)));
       },
       [](const Args& a, const EvalContext& c) {
         const DataType type = *ArrayOf(*ArrayOf(kStr));
         bool global = false;
         const re2::RE2* pattern = FlaggedPattern("regexp_matches", a, &global, c);
         if (pattern == nullptr) return Datum::Null(type);
         std::vector<Datum> matches;
         ForEachMatchGroups(*pattern, a[0].s, pattern->NumberOfCapturingGroups(),
                            [&](const std::vector<re2::StringPiece>& groups) {
                              matches.push_back(MatchArray(groups));
                              return global && matches.size() < kMaxNestedValues && c.KeepGoing();
                            });
         return Datum::Composite(type, std::move(matches));
       }});
  add({"regexp_replace", "regexp_replace(varchar, pattern [, replacement [, flags]]) -> varchar",
       "Replaces every match of the pattern (RE2) with the replacement ($1, \\1 or ${name} for a "
       "group, \\& for the match, \\$ for a dollar, \\\\ for a backslash), or removes it. With "
       "PostgreSQL's flags (a fourth argument: "
       "g for every match, i to ignore case), the first match only unless g, and the "
       "replacement in PostgreSQL's spelling (\\1 for a group, \\& for the match): "
       "regexp_replace(host, '^(\\w+)-(\\d+)$', '\\2.\\1', 'g').",
       Fixed({P::kVarchar, P::kVarchar, P::kVarchar, P::kVarchar}, kStr,
             "regexp_replace(varchar, varchar [, varchar [, varchar]])", 2),
       [](const Args& a, const EvalContext& c) {
         const bool postgres = a.size() > 3;
         bool global = !postgres, insensitive = false;
         std::string problem;
         if (postgres && !ReadReplaceFlags(a[3].s, &global, &insensitive, &problem)) {
           return FailQuery(c, StrCat("regexp_replace(): ", problem), kStr);
         }
         std::string folded;
         const re2::RE2* pattern =
             Pattern("regexp_replace", insensitive ? (folded = StrCat("(?i)", a[1].s)) : a[1].s, c);
         if (pattern == nullptr) return Datum::Null(kStr);
         std::optional<std::string> rewrite =
             postgres ? PostgresRewrite(*pattern, a[2].s)
                      : Re2Rewrite(*pattern, a.size() > 2 ? a[2].s : "", &problem);
         if (!rewrite) return FailQuery(c, StrCat("regexp_replace(): ", problem), kStr);
         // Match by match, so the result is refused as soon as it passes
         // kMaxTextBytes (RE2::GlobalReplace built the whole text first: an
         // empty pattern and a long replacement made terabytes).
         const std::string_view text = a[0].s;
         const int groups = pattern->NumberOfCapturingGroups() + 1;
         std::vector<re2::StringPiece> spans(groups);
         std::string out;
         size_t at = 0, copied = 0;
         while (at <= text.size() && pattern->Match(text, at, text.size(), re2::RE2::UNANCHORED,
                                                    spans.data(), groups)) {
           const size_t start = static_cast<size_t>(spans[0].data() - text.data());
           const size_t end = start + spans[0].size();
           out.append(text.substr(copied, start - copied));
           pattern->Rewrite(&out, *rewrite, spans.data(), groups);
           copied = end;
           if (out.size() > kMaxTextBytes) {
             return FailQuery(c, TextTooLongMessage("regexp_replace()"), kStr);
           }
           if (!c.KeepGoing()) return Datum::Null(kStr);
           if (!global) break;
           // An empty match moves on by one character (kept by the next append).
           if (end > start) {
             at = end;
           } else if (end >= text.size()) {
             break;
           } else {
             at = end + std::max<size_t>(1, Utf8CharLength(text.substr(end)));
           }
         }
         out.append(text.substr(std::min(copied, text.size())));
         if (out.size() > kMaxTextBytes) {
           return FailQuery(c, TextTooLongMessage("regexp_replace()"), kStr);
         }
         return Datum::Varchar(std::move(out));
       }});
  // regexp_split_to_array is PostgreSQL's name (and regexp_split_to_table its rows:
  // query/parse/set_returning.cc).
  for (const std::string name : {"regexp_split", "regexp_split_to_array"}) {
    add({name, StrCat(name, "(varchar, pattern) -> array(varchar)"),
         "The text split at every match of the pattern (RE2).",
         TextArrayBinder({P::kVarchar, P::kVarchar}, StrCat(name, "(varchar, varchar)")),
         [](const Args& a, const EvalContext& c) {
           const re2::RE2* pattern = Pattern("regexp_split", a[1].s, c);
           if (pattern == nullptr) return Datum::Null(*ArrayOf(kStr));
           const std::string_view text = a[0].s;
           std::vector<std::string> parts;
           size_t start = 0;
           ForEachMatch(*pattern, text, 0, [&](std::string_view, std::string_view whole) {
             const size_t at = static_cast<size_t>(whole.data() - text.data());
             parts.emplace_back(text.substr(start, at - start));
             start = at + whole.size();
             return parts.size() < kMaxNestedValues && c.KeepGoing();
           });
           parts.emplace_back(text.substr(std::min(start, text.size())));
           return ArrayOfTexts(std::move(parts));
         }});
  }

  add({"split", "split(varchar, delimiter [, limit]) -> array(varchar)",
       "The text split at each delimiter; with a limit, at most that many parts (the last "
       "keeps the rest).",
       TextArrayBinder({P::kVarchar, P::kVarchar, P::kBigint}, "split(varchar, varchar [, bigint])",
                       1),
       [](const Args& a, const EvalContext& c) {
         const std::string_view text = a[0].s, delimiter = a[1].s;
         const int64_t limit = a.size() > 2 ? a[2].i : std::numeric_limits<int64_t>::max();
         if (delimiter.empty())
           return FailQuery(c, "split(): the delimiter is empty", *ArrayOf(kStr));
         if (limit <= 0) {
           return FailQuery(c, StrCat("split(): the limit ", limit, " is not positive"),
                            *ArrayOf(kStr));
         }
         std::vector<std::string_view> parts;
         if (!SplitText("split", text, delimiter, limit, c, &parts))
           return Datum::Null(*ArrayOf(kStr));
         return ArrayOfTexts(std::vector<std::string>(parts.begin(), parts.end()));
       }});
  // PostgreSQL's string_to_array: unlike split, an empty text is no element at all and an
  // empty delimiter leaves the text whole; parts equal to null_string are NULL.
  add({"string_to_array", "string_to_array(varchar, delimiter [, null_string]) -> array(varchar)",
       "The text split at each delimiter (PostgreSQL's): string_to_array('a,b', ',') is [a, b]; "
       "'' is the empty array, an empty delimiter leaves the text one element, and parts equal "
       "to null_string are NULL.",
       TextArrayBinder({P::kVarchar, P::kVarchar, P::kVarchar},
                       "string_to_array(varchar, varchar [, varchar])", 1),
       [](const Args& a, const EvalContext& c) {
         const std::string_view text = a[0].s, delimiter = a[1].s;
         std::vector<std::string_view> parts;
         if (!text.empty() && !delimiter.empty()) {
           if (!SplitText("string_to_array", text, delimiter, std::numeric_limits<int64_t>::max(),
                          c, &parts)) {
             return Datum::Null(*ArrayOf(kStr));
           }
         } else if (!text.empty()) {
           parts.push_back(text);
         }
         std::vector<Datum> values;
         values.reserve(parts.size());
         for (std::string_view part : parts) {
           values.push_back(a.size() > 2 && part == a[2].s ? Datum::Null(kStr)
                                                           : Datum::Varchar(std::string(part)));
         }
         return Datum::Composite(*ArrayOf(kStr), std::move(values));
       }});
  add({"split_part", "split_part(varchar, delimiter, index) -> varchar",
       "Part `index` (1-based) of the text split at each delimiter, NULL past the last part; "
       "a negative index counts from the end (PostgreSQL's: split_part('a,b,c', ',', -1) is "
       "'c').",
       Fixed({P::kVarchar, P::kVarchar, P::kBigint}, kStr, "split_part(varchar, varchar, bigint)"),
       [](const Args& a, const EvalContext& c) {
         const std::string_view text = a[0].s, delimiter = a[1].s;
         int64_t index = a[2].i;
         if (index == 0) {
           return FailQuery(c,
                            "split_part(): the index 0 names no part: parts count from 1, or "
                            "from -1 at the end",
                            kStr);
         }
         if (delimiter.empty()) {
           return index == 1 || index == -1 ? Datum::Varchar(a[0].s) : Datum::Null(kStr);
         }
         if (index < 0) {  // from the end: the parts are counted first
           int64_t parts = 1;
           for (size_t p = text.find(delimiter); p != std::string_view::npos;
                p = text.find(delimiter, p + delimiter.size())) {
             ++parts;
           }
           index += parts + 1;
           if (index <= 0) return Datum::Null(kStr);
         }
         size_t start = 0;
         for (int64_t part = 1; part < index; ++part) {
           const size_t p = text.find(delimiter, start);
           if (p == std::string_view::npos) return Datum::Null(kStr);
           start = p + delimiter.size();
         }
         const size_t end = text.find(delimiter, start);
         return Datum::Varchar(std::string(text.substr(start, end == std::string_view::npos
                                                                  ? std::string_view::npos
                                                                  : end - start)));
       }});
  for (auto [name, left] : {std::pair{"lpad", true}, std::pair{"rpad", false}}) {
    add({name, StrCat(name, "(varchar, size [, padding]) -> varchar"),
         StrCat("The text padded on the ", left ? "left" : "right",
                " with the padding (spaces unless given) repeated to `size` characters, or cut "
                "to `size`."),
         Fixed({P::kVarchar, P::kBigint, P::kVarchar}, kStr,
               StrCat(name, "(varchar, bigint [, varchar])"), 1),
         [n = std::string(name), l = left](const Args& a, const EvalContext& c) {
           return Pad(n, a, l, c);
         }});
  }
  add({"reverse", "reverse(varchar | array) -> same type",
       "The characters (or an array's elements) in reverse order.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(Accepts(P::kVarchar, t[0]) || KindOf(t[0]) == TypeKind::kArray)) {
           return WrongArguments("reverse(varchar | array)");
         }
         return t[0] == DataType::kUnknown ? kStr : t[0];
       },
       [](const Args& a, const EvalContext&) {
         if (a[0].type != kStr) {
           std::vector<Datum> items = a[0].items();
           std::reverse(items.begin(), items.end());
           return Datum::Composite(a[0].type, std::move(items));
         }
         std::vector<uint32_t> points = CodePoints(a[0].s);
         std::string out;
         out.reserve(a[0].s.size());
         for (auto it = points.rbegin(); it != points.rend(); ++it) {
           if (!AppendCodePoint(*it, &out)) out.push_back(static_cast<char>(*it));
         }
         return Datum::Varchar(std::move(out));
       }},
      false);
  add({"quote_ident", "quote_ident(varchar) -> varchar",
       "The name as a SQL identifier: unchanged when it needs no quotes, else in double quotes "
       "(PostgreSQL's; Grafana's pickers use it).",
       Fixed({P::kVarchar}, kStr, "quote_ident(varchar)"),
       [](const Args& a, const EvalContext&) {
         return Datum::Varchar(QuoteIdentIfNeeded(a[0].s));
       }},
      false);
  add({"quote_literal", "quote_literal(varchar) -> varchar",
       "The text as a SQL string literal (PostgreSQL's): quote_literal('it''s') is 'it''s'; a "
       "text holding a backslash is written E'...'. NULL gives NULL.",
       Fixed({P::kVarchar}, kStr, "quote_literal(varchar)"),
       [](const Args& a, const EvalContext&) { return Datum::Varchar(QuoteLiteral(a[0].s)); }},
      false);
  add({"quote_nullable", "quote_nullable(varchar) -> varchar",
       "As quote_literal, but NULL gives the text NULL.",
       Fixed({P::kVarchar}, kStr, "quote_nullable(varchar)"),
       [](const Args& a, const EvalContext&) {
         return Datum::Varchar(a[0].null ? "NULL" : QuoteLiteral(a[0].s));
       },
       /*null_propagating=*/false},
      false);
  add({"chr", "chr(bigint) -> varchar", "The character of a Unicode code point.",
       Fixed({P::kBigint}, kStr, "chr(bigint)"), [](const Args& a, const EvalContext& c) {
         std::string out;
         if (AppendCodePoint(a[0].i, &out)) return Datum::Varchar(std::move(out));
         return FailQuery(c, StrCat("chr(): ", a[0].i, " is not a Unicode code point (0 to 1114111, "
                                    "not a surrogate)"), kStr);
       }});
  add({"ascii", "ascii(varchar) -> bigint",
       "PostgreSQL's: the Unicode code point of the text's first character, 0 for ''.",
       Fixed({P::kVarchar}, kBig, "ascii(varchar)"), [](const Args& a, const EvalContext&) {
         const std::vector<uint32_t> points = CodePoints(a[0].s);
         return Datum::Bigint(points.empty() ? 0 : points[0]);
       }});
  add({"codepoint", "codepoint(varchar) -> bigint",
       "The Unicode code point of a one-character text.",
       Fixed({P::kVarchar}, kBig, "codepoint(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::vector<uint32_t> points = CodePoints(a[0].s);
         if (points.size() == 1) return Datum::Bigint(points[0]);
         return FailQuery(c, StrCat("codepoint(): the text has ", points.size(),
                                    " characters; it takes exactly one"), kBig);
       }});
  add({"levenshtein_distance", "levenshtein_distance(varchar, varchar) -> bigint",
       "The fewest single-character insertions, deletions and substitutions from one text to "
       "the other.",
       Fixed({P::kVarchar, P::kVarchar}, kBig, "levenshtein_distance(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::vector<uint32_t> x = CodePoints(a[0].s), y = CodePoints(a[1].s);
         if (static_cast<double>(x.size()) * static_cast<double>(y.size()) > kMaxEditCells) {
           return FailQuery(c, StrCat("levenshtein_distance(): texts of ", x.size(), " and ",
                                      y.size(), " characters are too long to compare (at most ",
                                      kMaxEditCells, " characters multiplied)"), kBig);
         }
         return Datum::Bigint(Levenshtein(x, y));
       }});
  add({"hamming_distance", "hamming_distance(varchar, varchar) -> bigint",
       "The number of positions where two texts of equal length differ.",
       Fixed({P::kVarchar, P::kVarchar}, kBig, "hamming_distance(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::vector<uint32_t> x = CodePoints(a[0].s), y = CodePoints(a[1].s);
         if (x.size() != y.size()) {
           return FailQuery(c, StrCat("hamming_distance(): the texts have ", x.size(), " and ",
                                      y.size(), " characters; they must be equally long"), kBig);
         }
         int64_t differ = 0;
         for (size_t i = 0; i < x.size(); ++i) differ += x[i] != y[i];
         return Datum::Bigint(differ);
       }});
  add({"to_hex", "to_hex(varchar | bigint) -> varchar",
       "The text's UTF-8 bytes in upper-case hex (Strata has no varbinary type); of a BIGINT, "
       "PostgreSQL's: its digits in lower-case hex, a negative one's two's complement "
       "(to_hex(255) is 'ff').",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || (!Accepts(P::kVarchar, t[0]) && t[0] != kBig)) {
           return WrongArguments("to_hex(varchar | bigint)");
         }
         return kStr;
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].type == kBig) {
           return Datum::Varchar(absl::StrCat(absl::Hex(static_cast<uint64_t>(a[0].i))));
         }
         if (a[0].s.size() * 2 > kMaxTextBytes)
           return FailQuery(c, TextTooLongMessage("to_hex()"), kStr);
         std::string hex = absl::BytesToHexString(a[0].s);
         for (char& ch : hex) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
         return Datum::Varchar(std::move(hex));
       }});
  add({"pg_size_pretty", "pg_size_pretty(bigint) -> varchar",
       "A number of bytes as PostgreSQL writes it for people: in bytes below 10 kB, else in the "
       "largest of kB, MB, GB, TB and PB (powers of 1,024) that leaves at least 10 of it, "
       "rounded half away from zero (pg_size_pretty(123456789) is '118 MB').",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || (t[0] != kBig && t[0] != DataType::kUnknown)) {
           return WrongArguments("pg_size_pretty(bigint)");
         }
         return kStr;
       },
       [](const Args& a, const EvalContext&) { return Datum::Varchar(PrettyByteSize(a[0].i)); }},
      false);
  add({"concat_ws", "concat_ws(separator, varchar, ... | array(varchar)) -> varchar",
       "The texts (or an array's) joined by the separator, NULLs left out; NULL when the "
       "separator is.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature =
             "concat_ws(varchar, varchar, ...) or concat_ws(varchar, array(varchar))";
         if (t.size() < 2 || !Accepts(P::kVarchar, t[0])) return WrongArguments(kSignature);
         const bool array = t.size() == 2 && KindOf(t[1]) == TypeKind::kArray &&
                            Accepts(P::kVarchar, ElementType(t[1]));
         for (size_t i = 1; i < t.size() && !array; ++i) {
           if (!Accepts(P::kVarchar, t[i])) return WrongArguments(kSignature);
         }
         return kStr;
       },
       [](const Args& a, const EvalContext& c) {
         if (a[0].null) return Datum::Null(kStr);
         std::vector<std::string_view> parts;
         for (size_t i = 1; i < a.size(); ++i) {
           if (a[i].null) continue;
           if (a[i].type != kStr) {
             for (const Datum& item : a[i].items()) {
               if (!item.null) parts.push_back(item.s);
             }
           } else {
             parts.push_back(a[i].s);
           }
         }
         size_t size = parts.empty() ? 0 : (parts.size() - 1) * a[0].s.size();
         for (std::string_view part : parts) size += part.size();
         if (size > kMaxTextBytes) return FailQuery(c, TextTooLongMessage("concat_ws()"), kStr);
         std::string out;
         out.reserve(size);
         for (size_t i = 0; i < parts.size(); ++i) {
           if (i > 0) out += a[0].s;
           out += parts[i];
         }
         return Datum::Varchar(std::move(out));
       }});
  scalars->back().null_propagating = false;
  add({"translate", "translate(varchar, from, to) -> varchar",
       "Each character of the text found in from replaced by the character at its place in to "
       "(left out when to is shorter; a repeated one in from maps as its first).",
       Fixed({P::kVarchar, P::kVarchar, P::kVarchar}, kStr, "translate(varchar, varchar, varchar)"),
       [](const Args& a, const EvalContext&) {
         const std::vector<uint32_t> from = CodePoints(a[1].s), to = CodePoints(a[2].s);
         std::string out;
         std::string_view s = a[0].s;
         while (!s.empty()) {
           const size_t n = std::max<size_t>(Utf8CharLength(s), 1);
           const uint32_t c = CodePoints(s.substr(0, n)).front();
           const auto at = std::find(from.begin(), from.end(), c);
           if (at == from.end()) {
             out.append(s.substr(0, n));
           } else if (static_cast<size_t>(at - from.begin()) < to.size()) {
             AppendCodePoint(to[at - from.begin()], &out);
           }
           s.remove_prefix(n);
         }
         return Datum::Varchar(std::move(out));
       }});
  add({"from_hex", "from_hex(varchar) -> varchar",
       "The text whose UTF-8 bytes the hex spells (either case).",
       Fixed({P::kVarchar}, kStr, "from_hex(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::string& hex = a[0].s;
         const bool digits = std::all_of(hex.begin(), hex.end(), [](char ch) {
           return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
         });
         if (hex.size() % 2 != 0 || !digits) {
           return FailQuery(c, StrCat("from_hex(): '", EchoInput(hex),
                                      "' is not hex (an even number of 0-9, a-f)"), kStr);
         }
         return DecodedText("from_hex", absl::HexStringToBytes(hex), c);
       }});
  add({"to_base64", "to_base64(varchar) -> varchar", "The text's UTF-8 bytes in base64.",
       Fixed({P::kVarchar}, kStr, "to_base64(varchar)"), [](const Args& a, const EvalContext& c) {
         if (a[0].s.size() / 3 * 4 > kMaxTextBytes) {
           return FailQuery(c, TextTooLongMessage("to_base64()"), kStr);
         }
         return Datum::Varchar(absl::Base64Escape(a[0].s));
       }});
  add({"from_base64", "from_base64(varchar) -> varchar",
       "The text whose UTF-8 bytes the base64 spells.",
       Fixed({P::kVarchar}, kStr, "from_base64(varchar)"), [](const Args& a, const EvalContext& c) {
         std::string bytes;
         if (!absl::Base64Unescape(a[0].s, &bytes)) {
           return FailQuery(c, StrCat("from_base64(): '", EchoInput(a[0].s), "' is not base64"), kStr);
         }
         return DecodedText("from_base64", std::move(bytes), c);
       }});
  for (auto [name, signature, doc] :
       {std::tuple{"string_agg", "string_agg(varchar, separator) -> varchar",
                   "The group's texts joined by the separator, NULLs left out (PostgreSQL's); "
                   "string_agg(x, ', ' ORDER BY x) joins them in that order."},
        std::tuple{"listagg", "listagg(varchar [, separator]) -> varchar",
                   "The group's texts joined by the separator (none if left out), NULLs left "
                   "out; listagg(x, ', ') WITHIN GROUP (ORDER BY x) joins them in that order."}}) {
    const bool separator_needed = std::string_view(name) == "string_agg";
    const std::string usage =
        separator_needed ? "string_agg(varchar, separator)" : "listagg(varchar [, separator])";
    aggregates->push_back({name, signature, doc,
                           [usage, separator_needed](const Types& t) -> absl::StatusOr<DataType> {
                             const size_t arguments = t.size();
                             if (arguments < (separator_needed ? 2u : 1u) || arguments > 2 ||
                                 !Accepts(Param::kVarchar, t[0]) ||
                                 (arguments == 2 && !Accepts(Param::kVarchar, t[1]))) {
                               return WrongArguments(usage);
                             }
                             return DataType::kVarchar;
                           },
                           [n = std::string(name)](const Types&) -> std::unique_ptr<Accumulator> {
                             return std::make_unique<JoinTextsAcc>(n);
                           }});
  }
}

}  // namespace strata::query
