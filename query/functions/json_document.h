// JSON text as the json_* functions read it. A JSON value is the text of one
// (RFC 8259), a VARCHAR or of the type JSON (query/base/datum.h), and these
// functions read that text where it lies, without building a tree of it (a
// 16 MB text of small values would make one many times its size).
//
// Numbers keep the text they were written with (Presto's json_parse reads them
// as doubles and writes 1.50 as 1.5 and 12345678901234567890 rounded); strings
// are written again the one way AppendJsonString escapes them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace strata::query::json {

// The deepest nesting of arrays and objects read (Jackson's, which Presto
// reads with, stops at 1,000 too).
inline constexpr int kMaxDepth = 1000;

enum class Kind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull };

// OK if `text` is one JSON value (whitespace around it allowed); otherwise
// what is wrong and at which byte. The functions below take a value so checked,
// or a part of one they handed out.
absl::Status Check(std::string_view text);

// The kind of a checked value.
Kind KindOf(std::string_view value);

// The value without whitespace, its members in their order.
void AppendCompact(std::string_view value, std::string* out);
// The value without whitespace, each object's members sorted by name (byte
// order) and a repeated name's last value kept, as Presto's json_parse makes
// its canonical text. An error only when the nesting is too deep for the
// thread's stack.
absl::Status AppendCanonical(std::string_view value, std::string* out);

// A scalar as text: a string unescaped, a number as written, true or false;
// nullopt for null, an array or an object.
std::optional<std::string> ScalarText(std::string_view value);

// The number of an array's elements or an object's members.
size_t CountItems(std::string_view container);
// The element of an array at the 0-based `index`, counted from the end when negative (-1
// is the last), or nullopt past either end. Reads the array once.
std::optional<std::string_view> ElementAt(std::string_view array, int64_t index);
// True if `test` holds for one of an array's elements (read in order, and
// no further than the first it holds for).
bool AnyElement(std::string_view array, const std::function<bool(std::string_view)>& test);
// True if `test` holds for one of an object's members (its name unescaped, its value),
// read in order and no further than the first it holds for.
bool AnyMember(std::string_view object,
               const std::function<bool(const std::string& name, std::string_view value)>& test);

// PostgreSQL's jsonb containment, `container @> contained`: an object contains one whose
// every member it has (by name; a repeated name's last value) with a value containing that
// member's; an array contains one whose every element some element of it contains; scalars
// contain an equal scalar (numbers by value); and, at the top only, an array contains a
// scalar it has as an element. An error only when the nesting is too deep for the thread's
// stack.
absl::StatusOr<bool> Contains(std::string_view container, std::string_view contained);

// A step of a JSON path: a member's name or an array's index.
struct PathStep {
  std::string key;
  int64_t index = -1;  // >= 0: the element at this index (key unused)
};

// A JSON path as Presto's json_extract takes it: `$` and then `.name`,
// `["name"]` or `['name']`, and `[index]`, as in `$.store.book[0]["title"]`.
// The error names what is wrong (wildcards and `..` are refused by name).
absl::StatusOr<std::vector<PathStep>> ParsePath(std::string_view path);

// The value `path` leads to in the checked value `root` (a member's first
// occurrence), or nullopt when it leads nowhere.
std::optional<std::string_view> Find(std::string_view root, const std::vector<PathStep>& path);

}  // namespace strata::query::json
