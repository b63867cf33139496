// JSON functions of Presto's (Timestream's reference has none; a VARCHAR of
// JSON is how sensors and applications often send a payload): json_parse,
// json_format, json_extract, json_extract_scalar, json_array_length,
// json_array_get, json_array_contains, json_size and is_json_scalar. A JSON
// value is its text (json_document.h), of the type JSON where a function makes
// one (json_parse, json_extract, json(x)) and VARCHAR where it is read (the
// binder casts a JSON argument to VARCHAR for every function but those that
// keep JSON: query/expr/expr.cc).
//
// As Presto's do, the extracting functions answer NULL for text that is not
// JSON (a table's payloads are not all well formed), while json_parse,
// json_format and is_json_scalar fail the query, and a malformed path fails it
// everywhere.
//
// And PostgreSQL's names, which its operators are calls of (query/parse/parser.cc):
// json_extract_path (j -> 'a', j #> '{a,0}'), json_extract_path_text (->>, #>>),
// json(x) (x::json), json_typeof, and json_array_elements, json_array_elements_text and
// json_object_keys, which make rows in a select list (query/parse/set_returning.h) and are
// arrays for UNNEST in FROM; each also under its jsonb_ name.
#include <charconv>
#include <span>

#include "common/strings.h"
#include "common/utf8.h"
#include "query/functions/function_families.h"
#include "query/functions/json_document.h"
#include "query/functions/json_values.h"

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

// `text` (JSON text, or a NULL) as a value of the JSON type.
Datum AsJson(Datum text) {
  text.type = kJson;
  return text;
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

// The array index a path step names: a BIGINT, or a VARCHAR that is an integer (as
// PostgreSQL's json_extract_path reads '0').
std::optional<int64_t> StepIndex(const Datum& step) {
  if (step.type == DataType::kBigint) return step.i;
  int64_t index = 0;
  const std::string_view text = step.s;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return index;
}

// The value `steps` lead to from the checked value `root`, one step at a time: a VARCHAR
// step an object's member (the last of a repeated name, which PostgreSQL's functions take
// as the operative one), an array's element by the step's index (negative from the end);
// nullopt where a step leads nowhere or is NULL.
std::optional<std::string_view> FollowPath(std::string_view root, std::span<const Datum> steps) {
  std::string_view value = root;
  for (const Datum& step : steps) {
    if (step.null) return std::nullopt;
    std::optional<std::string_view> next;
    switch (json::KindOf(value)) {
      case json::Kind::kObject:
        if (step.type == DataType::kVarchar) {
          json::AnyMember(value, [&](const std::string& name, std::string_view member) {
            if (name == step.s) next = member;
            return false;  // read on: the last of a repeated name counts
          });
        }
        break;
      case json::Kind::kArray:
        if (std::optional<int64_t> index = StepIndex(step)) next = json::ElementAt(value, *index);
        break;
      default:
        break;
    }
    if (!next) return std::nullopt;
    value = *next;
  }
  return value;
}

// What ->> answers for a JSON value: a string unescaped, a number as written, true or
// false; NULL for null; an array's or an object's JSON text.
Datum AsText(std::string_view function, std::string_view value, const EvalContext& c) {
  switch (json::KindOf(value)) {
    case json::Kind::kNull:
      return Datum::Null(kStr);
    case json::Kind::kArray:
    case json::Kind::kObject:
      return Compacted(function, value, c);
    default:
      return Datum::Varchar(*json::ScalarText(value));
  }
}

// The binder of json_extract_path and json_extract_path_text: JSON text, then path steps
// (each a VARCHAR or a BIGINT) or one array of them (what #> and #>> pass).
auto PathBinder(std::string signature, DataType result) {
  return [signature = std::move(signature), result](const Types& t) -> absl::StatusOr<DataType> {
    const auto is_step = [](DataType type) {
      return type == kStr || type == kBig || type == DataType::kUnknown;
    };
    bool fits = t.size() >= 2 && Accepts(P::kVarchar, t[0]);
    for (size_t i = 1; fits && i < t.size(); ++i) {
      fits = is_step(t[i]) ||
             (t.size() == 2 && KindOf(t[i]) == TypeKind::kArray && is_step(ElementType(t[i])));
    }
    if (!fits) return WrongArguments(signature);
    return result;
  };
}

// The path steps of a json_extract_path call: its arguments after the JSON, or the items
// of its one array argument.
std::span<const Datum> PathSteps(const Args& a) {
  if (a.size() == 2 && KindOf(a[1].type) == TypeKind::kArray) return a[1].items();
  return std::span<const Datum>(a).subspan(1);
}

// An array of the texts `visit` hands its callback (one for each element or member it
// reads; the callback answers true to stop), charged to the query's memory; NULL with the
// query failed past kMaxNestedValues or the value limit.
Datum TextArray(std::string_view function, DataType element, const EvalContext& c,
                const std::function<void(const std::function<bool(Datum)>&)>& visit) {
  const DataType type = *ArrayOf(element);
  std::vector<Datum> items;
  const std::string what = StrCat(function, "()");
  ArrayBytes bytes(what, c);
  bool failed = false;
  visit([&](Datum item) {
    if (items.size() == kMaxNestedValues) {
      FailQuery(c, StrCat(what, ": more than ", kMaxNestedValues, " values"), type);
      return failed = true;
    }
    if (!bytes.Add(item)) return failed = true;
    items.push_back(std::move(item));
    return false;
  });
  if (failed) return Datum::Null(type);
  c.Charge(static_cast<size_t>(bytes.bytes()));
  return Datum::Composite(type, std::move(items));
}

void AddPostgresJsonFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  add({"json", "json(value) -> json",
       "A text, as written, checked to be JSON (fails the query otherwise): what PostgreSQL's "
       "x::json and JSON 'text' are; a JSON value as it is; any other value as to_json(x) "
       "writes it. x::jsonb is json_parse(x).",
       Fixed({P::kAny}, kJson, "json(value)"), [](const Args& a, const EvalContext& c) {
         if (a[0].type == kJson) return a[0];
         if (a[0].type != kStr) return AsJson(TextOrFail("json()", json::ValueText(a[0]), c));
         const std::optional<std::string_view> text = CheckedJsonOrFail("json", a[0], c);
         return text ? AsJson(a[0]) : Datum::Null(kJson);
       }});
  scalars->back().keeps_json = true;
  for (const std::string prefix : {"json", "jsonb"}) {
    for (const bool as_text : {false, true}) {
      const std::string name = prefix + (as_text ? "_extract_path_text" : "_extract_path");
      add({name,
           StrCat(name,
                  as_text ? "(varchar, step, ...) -> varchar" : "(varchar, step, ...) -> json"),
           as_text
               ? "As json_extract_path, the value as text: a string unescaped, a number as "
                 "written, true or false, NULL for null, an array or object as its JSON. j ->> "
                 "step and j #>> '{step,...}' are this call."
               : "The JSON value the steps lead to, as JSON text: a text step names an object's "
                 "member (the last of a repeated name), an integer (or a text that is one) an "
                 "array's element from 0 (negative from the end). j -> step and j #> "
                 "'{step,...}' are this call. NULL where a step leads nowhere or the text is not "
                 "JSON.",
           PathBinder(StrCat(name, "(varchar, varchar | bigint, ...)"), as_text ? kStr : kJson),
           [name, as_text](const Args& a, const EvalContext& c) {
             const std::optional<std::string_view> root = CheckedOrNull(a[0], c);
             const std::optional<std::string_view> found =
                 root ? FollowPath(*root, PathSteps(a)) : std::nullopt;
             if (!found) return Datum::Null(as_text ? kStr : kJson);
             return as_text ? AsText(name, *found, c) : AsJson(Compacted(name, *found, c));
           }});
    }
    const std::string type_of = prefix + "_typeof";
    add({type_of, StrCat(type_of, "(varchar) -> varchar"),
         "The kind of the JSON value: object, array, string, number, boolean or null; NULL "
         "for text that is not JSON.",
         Fixed({P::kVarchar}, kStr, StrCat(type_of, "(varchar)")),
         [](const Args& a, const EvalContext& c) {
           const std::optional<std::string_view> value = CheckedOrNull(a[0], c);
           if (!value) return Datum::Null(kStr);
           static constexpr std::string_view kNames[] = {"object",  "array",   "string", "number",
                                                         "boolean", "boolean", "null"};
           return Datum::Varchar(std::string(kNames[static_cast<int>(json::KindOf(*value))]));
         }});
    for (const bool as_text : {false, true}) {
      const std::string elements = prefix + "_array_elements";
      const std::string name = as_text ? elements + "_text" : elements;
      const DataType element = as_text ? kStr : kJson;
      add({name, StrCat(name, as_text ? "(varchar) -> array(varchar)" : "(varchar) -> array(json)"),
           as_text ? StrCat("As ", elements,
                            ", each element as ->> gives it (a string unescaped, null as NULL).")
                   : std::string("The elements of a JSON array as JSON texts: in a select "
                                 "list or in FROM (a column named value), a row for each "
                                 "(PostgreSQL's set-returning function). NULL (no row) for "
                                 "other JSON or text that is not JSON."),
           Fixed({P::kVarchar}, *ArrayOf(element), StrCat(name, "(varchar)")),
           [name, as_text, element](const Args& a, const EvalContext& c) {
             const std::optional<std::string_view> array = CheckedOrNull(a[0], c);
             if (!array || json::KindOf(*array) != json::Kind::kArray) {
               return Datum::Null(*ArrayOf(element));
             }
             return TextArray(name, element, c, [&](const std::function<bool(Datum)>& add_item) {
               json::AnyElement(*array, [&](std::string_view value) {
                 return add_item(as_text ? AsText(name, value, c)
                                         : AsJson(Compacted(name, value, c)));
               });
             });
           }});
    }
  }
  // PostgreSQL's json_each and json_each_text (and jsonb_): an object's members as rows of
  // (key, value); an array of such rows here, whose UNNEST makes the two columns.
  for (const std::string prefix : {"json", "jsonb"}) {
    for (const bool as_text : {false, true}) {
      const std::string each = prefix + "_each";
      const std::string name = as_text ? each + "_text" : each;
      const DataType value_type = as_text ? kStr : kJson;
      const DataType row =
          *RowOf({{.name = "key", .type = kStr}, {.name = "value", .type = value_type}});
      add({name,
           StrCat(name, as_text ? "(varchar) -> array(row(key varchar, value varchar))"
                                : "(varchar) -> array(row(key varchar, value json))"),
           as_text ? StrCat("As ", each,
                            ", each value as ->> gives it (a string unescaped, null "
                            "as NULL).")
                   : "The members of a JSON object as (key, value) rows, in order: in FROM, "
                     "two columns (SELECT key, value FROM t, json_each(t.j)). NULL (no row) "
                     "for other JSON or text that is not JSON.",
           Fixed({P::kVarchar}, *ArrayOf(row), StrCat(name, "(varchar)")),
           [name, as_text, row](const Args& a, const EvalContext& c) {
             const std::optional<std::string_view> object = CheckedOrNull(a[0], c);
             if (!object || json::KindOf(*object) != json::Kind::kObject) {
               return Datum::Null(*ArrayOf(row));
             }
             return TextArray(name, row, c, [&](const std::function<bool(Datum)>& add_item) {
               json::AnyMember(*object, [&](const std::string& key, std::string_view value) {
                 Datum member =
                     as_text ? AsText(name, value, c) : AsJson(Compacted(name, value, c));
                 return add_item(Datum::Composite(row, {Datum::Varchar(key), std::move(member)}));
               });
             });
           }});
    }
  }
  // DuckDB's json_keys is PostgreSQL's json_object_keys as an array.
  for (const std::string name : {"json_keys", "json_object_keys", "jsonb_object_keys"}) {
    add({name, StrCat(name, "(varchar) -> array(varchar)"),
         name == "json_keys"
             ? std::string("The names of a JSON object's members, in order; NULL for other "
                           "JSON or text that is not JSON.")
             : std::string("The names of a JSON object's members: in a select list or in "
                           "FROM, a row for each (PostgreSQL's set-returning function)."),
         Fixed({P::kVarchar}, *ArrayOf(kStr), StrCat(name, "(varchar)")),
         [name](const Args& a, const EvalContext& c) {
           const std::optional<std::string_view> object = CheckedOrNull(a[0], c);
           if (!object || json::KindOf(*object) != json::Kind::kObject) {
             return Datum::Null(*ArrayOf(kStr));
           }
           return TextArray(name, kStr, c, [&](const std::function<bool(Datum)>& add_item) {
             json::AnyMember(*object, [&](const std::string& key, std::string_view) {
               return add_item(Datum::Varchar(key));
             });
           });
         }});
  }
}

}  // namespace

std::optional<std::string_view> CheckedJsonOrFail(std::string_view function, const Datum& text,
                                                  const EvalContext& c) {
  if (!c.KeepGoingAfterText(text.s.size())) return std::nullopt;
  if (absl::Status checked = json::Check(text.s); !checked.ok()) {
    FailQuery(c, StrCat(function, "(): '", EchoInput(text.s), "' is not JSON: ", checked.message()),
              DataType::kUnknown);
    return std::nullopt;
  }
  return std::string_view(text.s);
}

void AddJsonFunctions(std::vector<ScalarFunction>* scalars) {
  AddPostgresJsonFunctions(scalars);
  auto add = CanFailAdder(scalars);
  add({"json_parse", "json_parse(varchar) -> json",
       "The JSON text in its canonical form: no whitespace, each object's members sorted by name "
       "(a repeated name's last value kept), numbers as written; fails the query for text that "
       "is not JSON. What x::jsonb is.",
       Fixed({P::kVarchar}, kJson, "json_parse(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedJsonOrFail("json_parse", a[0], c);
         if (!text) return Datum::Null(kJson);
         std::string out;
         if (absl::Status made = json::AppendCanonical(*text, &out); !made.ok()) {
           return FailQuery(c, StrCat("json_parse(): ", made.message()), kJson);
         }
         return AsJson(TextOrFail("json_parse()", std::move(out), c));
       }});
  add({"json_format", "json_format(varchar) -> varchar",
       "The JSON text without whitespace, its members in their order; fails the query for text "
       "that is not JSON.",
       Fixed({P::kVarchar}, kStr, "json_format(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedJsonOrFail("json_format", a[0], c);
         return text ? Compacted("json_format()", *text, c) : Datum::Null(kStr);
       }});
  add({"json_extract", "json_extract(varchar, path) -> json",
       "The JSON value the path ($.name, $[\"name\"], $.list[0]) leads to; NULL when it leads "
       "nowhere or the text is not JSON.",
       Fixed({P::kVarchar, P::kVarchar}, kJson, "json_extract(varchar, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> found = Extracted("json_extract", a, c);
         return found ? AsJson(Compacted("json_extract()", *found, c)) : Datum::Null(kJson);
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
  add({"json_array_get", "json_array_get(varchar, index) -> json",
       "The element at the 0-based index of a JSON array (from the end when negative: -1 is the "
       "last); NULL past either end, for other JSON, or for text that is not JSON.",
       Fixed({P::kVarchar, P::kBigint}, kJson, "json_array_get(varchar, bigint)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> text = CheckedOrNull(a[0], c);
         if (!text || json::KindOf(*text) != json::Kind::kArray) return Datum::Null(kJson);
         const std::optional<std::string_view> element = json::ElementAt(*text, a[1].i);
         return element ? AsJson(Compacted("json_array_get()", *element, c)) : Datum::Null(kJson);
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
         const std::optional<std::string_view> text = CheckedJsonOrFail("is_json_scalar", a[0], c);
         if (!text) return Datum::Null(kBool);
         const json::Kind kind = json::KindOf(*text);
         return Datum::Bool(kind != json::Kind::kArray && kind != json::Kind::kObject);
       }});
}

}  // namespace strata::query
