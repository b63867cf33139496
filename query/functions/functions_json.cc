// JSON functions of Presto's (Timestream's reference has none; a VARCHAR of
// JSON is how sensors and applications often send a payload): json_parse,
// json_format, json_extract, json_extract_scalar, json_array_length,
// json_array_get, json_array_contains, json_size and is_json_scalar. A JSON
// value is its VARCHAR text (json_document.h).
//
// As Presto's do, the extracting functions answer NULL for text that is not
// JSON (a table's payloads are not all well formed), while json_parse,
// json_format and is_json_scalar fail the query, and a malformed path fails it
// everywhere.
#include <charconv>

#include "common/strings.h"
#include "common/utf8.h"
#include "query/functions/function_families.h"
#include "query/functions/json_document.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

// The JSON text of a call's first argument, checked; nullopt, with nothing
// recorded, when it is not JSON or the query should stop (then its error is
// recorded).
std::optional<std::string_view> CheckedOrNull(const Datum& text, const EvalContext& c) {
  if (!c.KeepGoingAfterText(text.s.size())) return std::nullopt;
  if (!json::Check(text.s).ok()) return std::nullopt;
  return std::string_view(text.s);
}

// The JSON text, checked; nullopt with the query failed saying why it is not JSON.
std::optional<std::string_view> CheckedOrFail(std::string_view function, const Datum& text,
                                              const EvalContext& c) {
  if (!c.KeepGoingAfterText(text.s.size())) return std::nullopt;
  if (absl::Status checked = json::Check(text.s); !checked.ok()) {
    FailQuery(c, StrCat(function, "(): '", EchoInput(text.s), "' is not JSON: ", checked.message()),
              DataType::kUnknown);
    return std::nullopt;
  }
  return std::string_view(text.s);
}

// The path of a call, or nullopt with the query failed saying what is wrong with it.
std::optional<std::vector<json::PathStep>> PathOrFail(std::string_view function, const Datum& path,
                                                      const EvalContext& c) {
  absl::StatusOr<std::vector<json::PathStep>> steps = json::ParsePath(path.s);
  if (!steps.ok()) {
    FailQuery(c, StrCat(function, "(): ", steps.status().message()), DataType::kUnknown);
    return std::nullopt;
  }
  return *std::move(steps);
}

// `text` as the VARCHAR a function answers, unless past kMaxTextBytes (its bytes may grow
// where the input's were not UTF-8).
Datum TextOrFail(std::string_view function, std::string text, const EvalContext& c) {
  if (text.size() > kMaxTextBytes) return FailQuery(c, TextTooLongMessage(function), kStr);
  return Datum::Varchar(std::move(text));
}

// `value` without whitespace, as the VARCHAR a function answers.
Datum Compacted(std::string_view function, std::string_view value, const EvalContext& c) {
  std::string out;
  json::AppendCompact(value, &out);
  return TextOrFail(function, std::move(out), c);
}

// What json_extract and json_extract_scalar share: the value the path leads to.
std::optional<std::string_view> Extracted(std::string_view function, const Args& a,
                                          const EvalContext& c) {
  const std::optional<std::vector<json::PathStep>> path = PathOrFail(function, a[1], c);
  if (!path) return std::nullopt;
  const std::optional<std::string_view> text = CheckedOrNull(a[0], c);
  if (!text) return std::nullopt;
  return json::Find(*text, *path);
}

// Whether a JSON array's element equals `value` as json_array_contains compares: a
// BIGINT only an integer written without fraction or exponent, a DOUBLE any number,
// a BOOLEAN true or false, a VARCHAR a string.
bool ElementEquals(std::string_view element, const Datum& value) {
  const json::Kind kind = json::KindOf(element);
  switch (value.type) {
    case DataType::kBoolean:
      return (kind == json::Kind::kTrue || kind == json::Kind::kFalse) &&
             (kind == json::Kind::kTrue) == (value.i != 0);
    case DataType::kVarchar:
      return kind == json::Kind::kString && json::ScalarText(element) == value.s;
    case DataType::kBigint: {
      int64_t number = 0;
      const auto [end, ec] =
          std::from_chars(element.data(), element.data() + element.size(), number);
      return kind == json::Kind::kNumber && ec == std::errc() &&
             end == element.data() + element.size() && number == value.i;
    }
    case DataType::kDouble: {
      double number = 0;
      const auto [end, ec] =
          std::from_chars(element.data(), element.data() + element.size(), number);
      return kind == json::Kind::kNumber && ec == std::errc() && number == value.d;
    }
    default:
      return false;
  }
}

}  // namespace

void AddJsonFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  add({"json_parse", "json_parse(varchar) -> varchar",
       "The JSON text in its canonical form: no whitespace, each object's members sorted by name "
       "(a repeated name's last value kept), numbers as written; fails the query for text that "
       "is not JSON. Strata has no JSON type: JSON is its VARCHAR text.",
       Fixed({P::kVarchar}, kStr, "json_parse(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrFail("json_parse", a[0], c);
         if (!text) return Datum::Null(kStr);
         std::string out;
         if (absl::Status made = json::AppendCanonical(*text, &out); !made.ok()) {
           return FailQuery(c, StrCat("json_parse(): ", made.message()), kStr);
         }
         return TextOrFail("json_parse()", std::move(out), c);
       }});
  add({"json_format", "json_format(varchar) -> varchar",
       "The JSON text without whitespace, its members in their order; fails the query for text "
       "that is not JSON.",
       Fixed({P::kVarchar}, kStr, "json_format(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrFail("json_format", a[0], c);
         return text ? Compacted("json_format()", *text, c) : Datum::Null(kStr);
       }});
  add({"json_extract", "json_extract(varchar, path) -> varchar",
       "The JSON value the path ($.name, $[\"name\"], $.list[0]) leads to, as JSON text; NULL "
       "when it leads nowhere or the text is not JSON.",
       Fixed({P::kVarchar, P::kVarchar}, kStr, "json_extract(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> found = Extracted("json_extract", a, c);
         return found ? Compacted("json_extract()", *found, c) : Datum::Null(kStr);
       }});
  add({"json_extract_scalar", "json_extract_scalar(varchar, path) -> varchar",
       "The string (unescaped), number (as written) or boolean the path leads to; NULL for null, "
       "an array or an object, when the path leads nowhere, or when the text is not JSON.",
       Fixed({P::kVarchar, P::kVarchar}, kStr, "json_extract_scalar(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> found = Extracted("json_extract_scalar", a, c);
         std::optional<std::string> scalar = found ? json::ScalarText(*found) : std::nullopt;
         return scalar ? Datum::Varchar(*std::move(scalar)) : Datum::Null(kStr);
       }});
  add({"json_size", "json_size(varchar, path) -> bigint",
       "The number of members or elements of the object or array the path leads to, 0 for a "
       "scalar; NULL when it leads nowhere or the text is not JSON.",
       Fixed({P::kVarchar, P::kVarchar}, kBig, "json_size(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> found = Extracted("json_size", a, c);
         if (!found) return Datum::Null(kBig);
         switch (json::KindOf(*found)) {
           case json::Kind::kArray:
           case json::Kind::kObject:
             return Datum::Bigint(json::CountItems(*found));
           default:
             return Datum::Bigint(0);
         }
       }});
  add({"json_array_length", "json_array_length(varchar) -> bigint",
       "The number of elements of a JSON array; NULL for other JSON or text that is not JSON.",
       Fixed({P::kVarchar}, kBig, "json_array_length(varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrNull(a[0], c);
         if (!text || json::KindOf(*text) != json::Kind::kArray) return Datum::Null(kBig);
         return Datum::Bigint(json::CountItems(*text));
       }});
  add({"json_array_get", "json_array_get(varchar, index) -> varchar",
       "The element at the 0-based index of a JSON array (from the end when negative: -1 is the "
       "last) as JSON text; NULL past either end, for other JSON, or for text that is not JSON.",
       Fixed({P::kVarchar, P::kBigint}, kStr, "json_array_get(varchar, bigint)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrNull(a[0], c);
         if (!text || json::KindOf(*text) != json::Kind::kArray) return Datum::Null(kStr);
         const std::optional<std::string_view> element = json::ElementAt(*text, a[1].i);
         return element ? Compacted("json_array_get()", *element, c) : Datum::Null(kStr);
       }});
  add({"json_array_contains", "json_array_contains(varchar, value) -> boolean",
       "True if a JSON array has an element equal to the value (a boolean, a number, a string); "
       "a BIGINT matches only integers written without a fraction. NULL for other JSON or text "
       "that is not JSON.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         const bool fits = t.size() == 2 && Accepts(P::kVarchar, t[0]) &&
                           (t[1] == kBool || t[1] == kBig || t[1] == kDbl || t[1] == kStr ||
                            t[1] == DataType::kUnknown);
         if (!fits)
           return WrongArguments(
               "json_array_contains(varchar, boolean | bigint | double | varchar)");
         return kBool;
       },
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrNull(a[0], c);
         if (!text || json::KindOf(*text) != json::Kind::kArray) return Datum::Null(kBool);
         return Datum::Bool(json::AnyElement(
             *text, [&a](std::string_view element) { return ElementEquals(element, a[1]); }));
       }});
  add({"is_json_scalar", "is_json_scalar(varchar) -> boolean",
       "True if the JSON is a number, a string, true, false or null; fails the query for text "
       "that is not JSON.",
       Fixed({P::kVarchar}, kBool, "is_json_scalar(varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrFail("is_json_scalar", a[0], c);
         if (!text) return Datum::Null(kBool);
         const json::Kind kind = json::KindOf(*text);
         return Datum::Bool(kind != json::Kind::kArray && kind != json::Kind::kObject);
       }});
}

}  // namespace strata::query
