#include "query/functions/json_document.h"

#include <algorithm>
#include <charconv>
#include <deque>

#include "common/json_text.h"
#include "common/stack_room.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata::query::json {
namespace {

// The stack a nesting level leaves free before the next one is refused, as
// the SQL parser keeps (query/parse/parser.h): a thread's stack, not only the
// depth, bounds the recursion.
constexpr size_t kStackReserveBytes = 256 * 1024;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

size_t SkipSpace(std::string_view t, size_t pos) {
  while (pos < t.size() && IsSpace(t[pos])) ++pos;
  return pos;
}

std::string_view Trimmed(std::string_view t) {
  const size_t from = SkipSpace(t, 0);
  size_t to = t.size();
  while (to > from && IsSpace(t[to - 1])) --to;
  return t.substr(from, to - from);
}

// What Check reads: recursive descent over the text, each nesting level
// bounded by kMaxDepth and the thread's stack.
class Checker {
 public:
  explicit Checker(std::string_view text) : t_(text) {}

  absl::Status Run() {
    pos_ = SkipSpace(t_, 0);
    if (Value(0)) {
      pos_ = SkipSpace(t_, pos_);
      if (pos_ == t_.size()) return absl::OkStatus();
      Fail("text follows the value");
    }
    return absl::InvalidArgumentError(StrCat(problem_, " at byte ", at_));
  }

 private:
  bool Fail(std::string_view what) {
    if (problem_.empty()) {
      problem_ = std::string(what);
      at_ = pos_;
    }
    return false;
  }
  bool Expect(char c, std::string_view what) {
    pos_ = SkipSpace(t_, pos_);
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      pos_ = SkipSpace(t_, pos_);
      return true;
    }
    return Fail(pos_ < t_.size()
                    ? StrCat("expected ", what, " but found '", EchoInput(t_.substr(pos_, 1)), "'")
                    : StrCat("the text ends where ", what, " should be"));
  }

  bool Value(int depth) {
    if (pos_ >= t_.size()) return Fail("the text ends where a value should be");
    switch (t_[pos_]) {
      case '{':
      case '[':
        return Container(depth + 1);
      case '"':
        return String();
      case 't':
        return Word("true");
      case 'f':
        return Word("false");
      case 'n':
        return Word("null");
      default:
        if (t_[pos_] == '-' || IsDigit(t_[pos_])) return Number();
        return Fail(StrCat("expected a value but found '", EchoInput(t_.substr(pos_, 4)), "'"));
    }
  }

  bool Container(int depth) {
    if (depth > kMaxDepth || StackBytesLeft() < kStackReserveBytes) {
      return Fail(StrCat("arrays and objects nest deeper than ", kMaxDepth));
    }
    const bool object = t_[pos_] == '{';
    const char close = object ? '}' : ']';
    pos_ = SkipSpace(t_, pos_ + 1);
    if (pos_ < t_.size() && t_[pos_] == close) {
      ++pos_;
      return true;
    }
    while (true) {
      if (object) {
        if (pos_ >= t_.size() || t_[pos_] != '"') {
          return Fail(pos_ < t_.size() ? "expected a member's name in double quotes"
                                       : "the text ends inside an object");
        }
        if (!String() || !Expect(':', "':' after a member's name")) return false;
      }
      if (!Value(depth)) return false;
      pos_ = SkipSpace(t_, pos_);
      if (pos_ < t_.size() && t_[pos_] == close) {
        ++pos_;
        return true;
      }
      if (!Expect(',', object ? "',' or '}' in an object" : "',' or ']' in an array")) {
        return false;
      }
    }
  }

  bool String() {
    ++pos_;  // the opening quote
    while (pos_ < t_.size()) {
      const unsigned char c = t_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return Fail("a control character in a string (write it escaped, as \\n)");
      if (c != '\\') {
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= t_.size()) break;
      const char e = t_[pos_ + 1];
      if (e == 'u') {
        for (size_t i = pos_ + 2; i < pos_ + 6; ++i) {
          if (i >= t_.size() || HexDigitValue(t_[i]) < 0) {
            return Fail("\\u is not followed by four hex digits");
          }
        }
        pos_ += 6;
      } else if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        pos_ += 2;
      } else {
        return Fail(StrCat("'\\", EchoInput(t_.substr(pos_ + 1, 1)), "' is not an escape"));
      }
    }
    return Fail("a string is not closed");
  }

  bool Number() {
    const size_t start = pos_;
    if (t_[pos_] == '-') ++pos_;
    auto digits = [this] {
      const size_t from = pos_;
      while (pos_ < t_.size() && IsDigit(t_[pos_])) ++pos_;
      return pos_ - from;
    };
    if (pos_ < t_.size() && t_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      pos_ = start;
      return Fail("a number has no digits");
    }
    if (pos_ < t_.size() && t_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return Fail("a number has no digits after its '.'");
    }
    if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < t_.size() && (t_[pos_] == '+' || t_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Fail("a number has no digits in its exponent");
    }
    if (pos_ < t_.size() && (IsDigit(t_[pos_]) || t_[pos_] == '.')) {
      return Fail("a number has a leading zero or a second '.'");
    }
    return true;
  }

  bool Word(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) {
      return Fail(StrCat("expected a value but found '", EchoInput(t_.substr(pos_, 4)), "'"));
    }
    pos_ += word.size();
    return true;
  }

  std::string_view t_;
  size_t pos_ = 0;
  std::string problem_;
  size_t at_ = 0;
};

// The rest read checked text, so they only find where things end.

// The position after the string whose opening quote is at `pos`.
size_t StringEnd(std::string_view t, size_t pos) {
  for (++pos; pos < t.size(); ++pos) {
    if (t[pos] == '\\') {
      ++pos;
    } else if (t[pos] == '"') {
      return pos + 1;
    }
  }
  return pos;
}

// The position after the value starting at `pos`.
size_t ValueEnd(std::string_view t, size_t pos) {
  if (pos >= t.size()) return pos;
  if (t[pos] == '"') return StringEnd(t, pos);
  if (t[pos] == '{' || t[pos] == '[') {
    int depth = 0;
    while (pos < t.size()) {
      const char c = t[pos];
      if (c == '"') {
        pos = StringEnd(t, pos);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return pos + 1;
      }
      ++pos;
    }
    return pos;
  }
  while (pos < t.size() && !IsSpace(t[pos]) && t[pos] != ',' && t[pos] != '}' && t[pos] != ']') {
    ++pos;
  }
  return pos;
}

// A checked string (quotes included) unescaped; a lone surrogate becomes U+FFFD.
std::string Unescape(std::string_view quoted) {
  std::string out;
  const std::string_view s = quoted.substr(1, quoted.size() - 2);
  out.reserve(s.size());
  auto hex4 = [&s](size_t at) {
    int v = 0;
    for (size_t i = at; i < at + 4; ++i) v = v * 16 + HexDigitValue(s[i]);
    return v;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    const char e = s[++i];
    switch (e) {
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        int code = hex4(i + 1);
        i += 4;
        if (code >= 0xD800 && code <= 0xDBFF && i + 6 < s.size() && s[i + 1] == '\\' &&
            s[i + 2] == 'u') {
          const int low = hex4(i + 3);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        if (!AppendCodePoint(code, &out)) out += "\xEF\xBF\xBD";
        break;
      }
      default:
        out.push_back(e);  // " \ /
    }
  }
  return out;
}

// Walks the items of a checked array or object.
class Items {
 public:
  explicit Items(std::string_view container)
      : t_(container), object_(container.front() == '{'), pos_(SkipSpace(container, 1)) {}

  // The next item's value (and for an object its quoted name), or false after the last.
  bool Next(std::string_view* value, std::string_view* quoted_name = nullptr) {
    if (pos_ >= t_.size() || t_[pos_] == '}' || t_[pos_] == ']') return false;
    if (object_) {
      const size_t end = StringEnd(t_, pos_);
      if (quoted_name != nullptr) *quoted_name = t_.substr(pos_, end - pos_);
      pos_ = SkipSpace(t_, SkipSpace(t_, end) + 1);  // past the ':'
    }
    const size_t end = ValueEnd(t_, pos_);
    *value = t_.substr(pos_, end - pos_);
    pos_ = SkipSpace(t_, end);
    if (pos_ < t_.size() && t_[pos_] == ',') pos_ = SkipSpace(t_, pos_ + 1);
    return true;
  }

 private:
  std::string_view t_;
  bool object_;
  size_t pos_;
};

bool AppendCanonicalAt(std::string_view value, std::string* out) {
  if (StackBytesLeft() < kStackReserveBytes / 4) return false;
  const Kind kind = KindOf(value);
  if (kind == Kind::kArray) {
    out->push_back('[');
    Items items(value);
    std::string_view item;
    for (bool first = true; items.Next(&item); first = false) {
      if (!first) out->push_back(',');
      if (!AppendCanonicalAt(item, out)) return false;
    }
    out->push_back(']');
  } else if (kind == Kind::kObject) {
    // Names as written, unescaped only where they have an escape: a large object's
    // members take two views each, not a string.
    struct Member {
      std::string_view name, value;
    };
    std::vector<Member> members;
    std::deque<std::string> unescaped;
    Items items(value);
    std::string_view item, quoted;
    while (items.Next(&item, &quoted)) {
      std::string_view name = quoted.substr(1, quoted.size() - 2);
      if (name.find('\\') != std::string_view::npos)
        name = unescaped.emplace_back(Unescape(quoted));
      members.push_back({name, item});
    }
    std::stable_sort(members.begin(), members.end(),
                     [](const Member& a, const Member& b) { return a.name < b.name; });
    out->push_back('{');
    for (size_t i = 0; i < members.size(); ++i) {
      // Of a name written more than once, the last value stands.
      if (i + 1 < members.size() && members[i + 1].name == members[i].name) continue;
      if (out->back() != '{') out->push_back(',');
      AppendJsonString(members[i].name, out);
      out->push_back(':');
      if (!AppendCanonicalAt(members[i].value, out)) return false;
    }
    out->push_back('}');
  } else {
    AppendCompact(value, out);
  }
  return true;
}

// Scalars equal as jsonb compares them: numbers by value (1.0 is 1), strings by their
// unescaped text, true, false and null by kind.
bool ScalarsEqual(std::string_view a, std::string_view b) {
  const Kind kind = KindOf(a);
  if (kind != KindOf(b)) return false;
  if (kind == Kind::kString) return Unescape(Trimmed(a)) == Unescape(Trimmed(b));
  if (kind != Kind::kNumber) return true;
  a = Trimmed(a);
  b = Trimmed(b);
  if (a == b) return true;
  double x = 0, y = 0;
  std::from_chars(a.data(), a.data() + a.size(), x);
  std::from_chars(b.data(), b.data() + b.size(), y);
  return x == y;
}

bool IsContainer(Kind kind) { return kind == Kind::kObject || kind == Kind::kArray; }

// Contains below the top; nullopt when the stack runs short.
std::optional<bool> ContainsAt(std::string_view container, std::string_view contained) {
  if (StackBytesLeft() < kStackReserveBytes / 4) return std::nullopt;
  const Kind kind = KindOf(container);
  if (kind != KindOf(contained)) return false;
  if (!IsContainer(kind)) return ScalarsEqual(container, contained);
  bool deep_enough = true;
  // Whether `mine` contains `theirs`: equal scalars, or containers of one kind, one in the other.
  auto holds = [&](std::string_view mine, std::string_view theirs) {
    if (!IsContainer(KindOf(theirs))) return ScalarsEqual(mine, theirs);
    const std::optional<bool> inside = ContainsAt(mine, theirs);
    if (!inside) deep_enough = false;
    return inside.value_or(false);
  };
  bool missing = false;
  if (kind == Kind::kObject) {
    missing = AnyMember(contained, [&](const std::string& name, std::string_view theirs) {
      std::optional<std::string_view> mine;
      AnyMember(container, [&](const std::string& my_name, std::string_view value) {
        if (my_name == name) mine = value;
        return false;
      });
      return !mine || !holds(*mine, theirs) || !deep_enough;
    });
  } else {
    missing = AnyElement(contained, [&](std::string_view theirs) {
      return !AnyElement(container, [&](std::string_view mine) {
        return holds(mine, theirs) || !deep_enough;
      }) || !deep_enough;
    });
  }
  if (!deep_enough) return std::nullopt;
  return !missing;
}

}  // namespace

absl::StatusOr<bool> Contains(std::string_view container, std::string_view contained) {
  if (KindOf(container) == Kind::kArray && !IsContainer(KindOf(contained))) {
    return AnyElement(container,
                      [&](std::string_view element) { return ScalarsEqual(element, contained); });
  }
  const std::optional<bool> contains = ContainsAt(container, contained);
  if (contains) return *contains;
  return absl::ResourceExhaustedError(
      "the JSON nests too deep for this server thread's stack to compare");
}

absl::Status Check(std::string_view text) { return Checker(text).Run(); }

Kind KindOf(std::string_view value) {
  value = Trimmed(value);
  switch (value.empty() ? 'n' : value.front()) {
    case '{':
      return Kind::kObject;
    case '[':
      return Kind::kArray;
    case '"':
      return Kind::kString;
    case 't':
      return Kind::kTrue;
    case 'f':
      return Kind::kFalse;
    case 'n':
      return Kind::kNull;
    default:
      return Kind::kNumber;
  }
}

void AppendCompact(std::string_view value, std::string* out) {
  for (size_t pos = 0; pos < value.size();) {
    const char c = value[pos];
    if (IsSpace(c)) {
      ++pos;
    } else if (c == '"') {
      const size_t end = StringEnd(value, pos);
      AppendJsonString(Unescape(value.substr(pos, end - pos)), out);
      pos = end;
    } else {
      out->push_back(c);
      ++pos;
    }
  }
}

absl::Status AppendCanonical(std::string_view value, std::string* out) {
  if (AppendCanonicalAt(Trimmed(value), out)) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      "the JSON nests too deep for this server thread's stack to sort its members");
}

std::optional<std::string> ScalarText(std::string_view value) {
  value = Trimmed(value);
  switch (KindOf(value)) {
    case Kind::kString:
      return ToValidUtf8(Unescape(value));
    case Kind::kNumber:
    case Kind::kTrue:
    case Kind::kFalse:
      return std::string(value);
    default:
      return std::nullopt;
  }
}

size_t CountItems(std::string_view container) {
  Items items(Trimmed(container));
  std::string_view item;
  size_t n = 0;
  while (items.Next(&item)) ++n;
  return n;
}

std::optional<std::string_view> ElementAt(std::string_view array, int64_t index) {
  Items items(Trimmed(array));
  std::string_view item;
  if (index >= 0) {
    for (int64_t i = 0; items.Next(&item); ++i) {
      if (i == index) return item;
    }
    return std::nullopt;
  }
  // From the end: the last -index elements seen, the oldest first.
  const uint64_t keep = uint64_t{0} - static_cast<uint64_t>(index);
  std::deque<std::string_view> last;
  while (items.Next(&item)) {
    last.push_back(item);
    if (last.size() > keep) last.pop_front();
  }
  if (last.size() < keep) return std::nullopt;
  return last.front();
}

bool AnyElement(std::string_view array, const std::function<bool(std::string_view)>& test) {
  Items items(Trimmed(array));
  std::string_view item;
  while (items.Next(&item)) {
    if (test(item)) return true;
  }
  return false;
}

bool AnyMember(std::string_view object,
               const std::function<bool(const std::string& name, std::string_view value)>& test) {
  Items items(Trimmed(object));
  std::string_view value, name;
  while (items.Next(&value, &name)) {
    if (test(Unescape(name), value)) return true;
  }
  return false;
}

absl::StatusOr<std::vector<PathStep>> ParsePath(std::string_view path) {
  auto error = [&path](size_t at, std::string_view what) {
    return absl::InvalidArgumentError(
        StrCat("the JSON path '", EchoInput(path), "' ", what, " (at character ", at + 1,
               "); write a path as $.name, $[\"name\"] or $.list[0]"));
  };
  if (path.empty() || path[0] != '$') return error(0, "does not start with $");
  std::vector<PathStep> steps;
  size_t pos = 1;
  while (pos < path.size()) {
    const char c = path[pos];
    if (c == '.') {
      const size_t start = ++pos;
      if (pos < path.size() && path[pos] == '.')
        return error(pos, "descends with '..', which Strata does not support");
      if (pos < path.size() && path[pos] == '*')
        return error(pos, "has a wildcard, which Strata does not support");
      while (pos < path.size() && path[pos] != '.' && path[pos] != '[' && !IsSpace(path[pos]) &&
             path[pos] != '"' && path[pos] != '\'' && path[pos] != ']') {
        ++pos;
      }
      if (pos == start) return error(start, "has no name after a '.'");
      steps.push_back({.key = std::string(path.substr(start, pos - start))});
    } else if (c == '[') {
      ++pos;
      if (pos < path.size() && path[pos] == '*')
        return error(pos, "has a wildcard, which Strata does not support");
      PathStep step;
      if (pos < path.size() && (path[pos] == '"' || path[pos] == '\'')) {
        const char quote = path[pos++];
        while (pos < path.size() && path[pos] != quote) {
          if (path[pos] == '\\' && pos + 1 < path.size()) ++pos;
          step.key.push_back(path[pos++]);
        }
        if (pos >= path.size()) return error(pos, "has a quoted name that is not closed");
        ++pos;
      } else if (pos < path.size() && IsDigit(path[pos])) {
        step.index = 0;
        for (; pos < path.size() && IsDigit(path[pos]); ++pos) {
          if (step.index > (INT64_MAX - 9) / 10) return error(pos, "has an index too large");
          step.index = step.index * 10 + (path[pos] - '0');
        }
      } else {
        return error(pos, "has neither an index nor a quoted name after '['");
      }
      if (pos >= path.size() || path[pos] != ']') return error(pos, "misses a ']'");
      ++pos;
      steps.push_back(std::move(step));
    } else {
      return error(
          pos, StrCat("has '", EchoInput(path.substr(pos, 1)), "' where a '.' or '[' should be"));
    }
  }
  return steps;
}

std::optional<std::string_view> Find(std::string_view root, const std::vector<PathStep>& path) {
  std::string_view at = Trimmed(root);
  for (const PathStep& step : path) {
    const Kind kind = KindOf(at);
    if (step.index >= 0 ? kind != Kind::kArray : kind != Kind::kObject) return std::nullopt;
    Items items(at);
    std::string_view value, name;
    bool found = false;
    for (int64_t i = 0; !found && items.Next(&value, &name); ++i) {
      found = step.index >= 0 ? i == step.index : Unescape(name) == step.key;
    }
    if (!found) return std::nullopt;
    at = value;
  }
  return at;
}

}  // namespace strata::query::json
