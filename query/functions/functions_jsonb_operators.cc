// PostgreSQL's jsonb operators, as the functions PostgreSQL names them (the binder turns the
// operators into calls of these: query/expr/expr.cc JsonOperator): `a || b` (jsonb_concat),
// `a - key` (jsonb_delete), `a @> b` and `b <@ a` (jsonb_contains), `a ? key`,
// `a ?| keys` and `a ?& keys` (jsonb_exists, jsonb_exists_any, jsonb_exists_all).
// Their JSON arguments are read as text (a VARCHAR that is not JSON fails the query saying
// so); what they make is in json_parse's canonical form, as the jsonb_ constructors'.
#include <algorithm>

#include "common/json_text.h"
#include "common/strings.h"
#include "query/functions/function_families.h"
#include "query/functions/json_document.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

bool IsTextArray(DataType t) {
  return KindOf(t) == TypeKind::kArray && Accepts(P::kVarchar, ElementType(t));
}

// The canonical text of `text` (members sorted, a repeated name's last value kept) as a
// value of the JSON type, or NULL with the query failed.
Datum CanonicalOrFail(std::string_view function, const std::string& text, const EvalContext& c) {
  std::string out;
  if (absl::Status made = json::AppendCanonical(text, &out); !made.ok()) {
    return FailQuery(c, StrCat(function, "(): ", made.message()), kJson);
  }
  if (out.size() > kMaxTextBytes) return FailQuery(c, TextTooLongMessage(function), kJson);
  Datum json = Datum::Varchar(std::move(out));
  json.type = kJson;
  return json;
}

// Appends an array's elements, or any other value as one element, each after a comma.
void AppendAsElements(std::string_view value, std::string* out) {
  auto append = [out](std::string_view element) {
    if (out->back() != '[') out->push_back(',');
    out->append(element);
    return false;
  };
  if (json::KindOf(value) == json::Kind::kArray) {
    json::AnyElement(value, append);
  } else {
    append(value);
  }
}

// Appends an object's members, each after a comma.
void AppendMembers(std::string_view object, std::string* out) {
  json::AnyMember(object, [out](const std::string& name, std::string_view value) {
    if (out->back() != '{') out->push_back(',');
    AppendJsonString(name, out);
    out->push_back(':');
    out->append(value);
    return false;
  });
}

Datum Concat(const Args& a, const EvalContext& c) {
  const std::optional<std::string_view> left = CheckedJsonOrFail("jsonb_concat", a[0], c);
  if (!left) return Datum::Null(kJson);
  const std::optional<std::string_view> right = CheckedJsonOrFail("jsonb_concat", a[1], c);
  if (!right) return Datum::Null(kJson);
  std::string text;
  if (json::KindOf(*left) == json::Kind::kObject && json::KindOf(*right) == json::Kind::kObject) {
    // Two objects merge; a name both have takes the right one's value.
    text = "{";
    AppendMembers(*left, &text);
    AppendMembers(*right, &text);
    text.push_back('}');
  } else {
    // Otherwise arrays concatenate, a value that is not one taken as an array of itself.
    text = "[";
    AppendAsElements(*left, &text);
    AppendAsElements(*right, &text);
    text.push_back(']');
  }
  return CanonicalOrFail("jsonb_concat", text, c);
}

Datum Delete(const Args& a, const EvalContext& c) {
  const std::optional<std::string_view> value = CheckedJsonOrFail("jsonb_delete", a[0], c);
  if (!value) return Datum::Null(kJson);
  const json::Kind kind = json::KindOf(*value);
  if (kind != json::Kind::kObject && kind != json::Kind::kArray) {
    return FailQuery(c,
                     "jsonb_delete(): cannot delete from a scalar; - takes a key from an "
                     "object or an element from an array",
                     kJson);
  }
  const Datum& what = a[1];
  std::string text(1, kind == json::Kind::kObject ? '{' : '[');
  if (what.type == kBig) {
    if (kind == json::Kind::kObject) {
      return FailQuery(c,
                       "jsonb_delete(): cannot delete from an object by an integer index; "
                       "name the key as text",
                       kJson);
    }
    const int64_t count = static_cast<int64_t>(json::CountItems(*value));
    const int64_t drop = what.i < 0 ? count + what.i : what.i;
    int64_t index = 0;
    json::AnyElement(*value, [&](std::string_view element) {
      if (index++ == drop) return false;
      if (text.back() != '[') text.push_back(',');
      text.append(element);
      return false;
    });
  } else {
    // A key, or an array of keys: members so named, or string elements equal to one.
    std::vector<std::string_view> keys;
    if (what.type == kStr || what.type == DataType::kUnknown) {
      keys.push_back(what.s);
    } else {
      for (const Datum& key : what.items()) {
        if (!key.null) keys.push_back(key.s);
      }
    }
    auto named = [&keys](std::string_view name) {
      return std::find(keys.begin(), keys.end(), name) != keys.end();
    };
    if (kind == json::Kind::kObject) {
      json::AnyMember(*value, [&](const std::string& name, std::string_view member) {
        if (named(name)) return false;
        if (text.back() != '{') text.push_back(',');
        AppendJsonString(name, &text);
        text.push_back(':');
        text.append(member);
        return false;
      });
    } else {
      json::AnyElement(*value, [&](std::string_view element) {
        const bool string = json::KindOf(element) == json::Kind::kString;
        if (string && named(*json::ScalarText(element))) return false;
        if (text.back() != '[') text.push_back(',');
        text.append(element);
        return false;
      });
    }
  }
  text.push_back(kind == json::Kind::kObject ? '}' : ']');
  return CanonicalOrFail("jsonb_delete", text, c);
}

// Whether a top-level key is in the value: an object's member, an array's string element, or
// the value itself when it is that string.
bool HasKey(std::string_view value, std::string_view key) {
  switch (json::KindOf(value)) {
    case json::Kind::kObject:
      return json::AnyMember(
          value, [key](const std::string& name, std::string_view) { return name == key; });
    case json::Kind::kArray:
      return json::AnyElement(value, [key](std::string_view element) {
        return json::KindOf(element) == json::Kind::kString && json::ScalarText(element) == key;
      });
    case json::Kind::kString:
      return json::ScalarText(value) == key;
    default:
      return false;
  }
}

// ?| (any) and ?& (all) over an array of keys; NULL keys are left out, as PostgreSQL does.
Datum ExistsOf(std::string_view function, bool all, const Args& a, const EvalContext& c) {
  const std::optional<std::string_view> value = CheckedJsonOrFail(function, a[0], c);
  if (!value) return Datum::Null(kBool);
  for (const Datum& key : a[1].items()) {
    if (key.null) continue;
    if (HasKey(*value, key.s) != all) return Datum::Bool(!all);
  }
  return Datum::Bool(all);
}

}  // namespace

void AddJsonbOperatorFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  add({"jsonb_concat", "jsonb_concat(json, json) -> json",
       "PostgreSQL's jsonb a || b: two objects merged (a name both have takes b's value); "
       "otherwise the two as arrays concatenated, a value that is not an array taken as an "
       "array of itself ('[1]' || '2' is [1,2]).",
       Fixed({P::kVarchar, P::kVarchar}, kJson, "jsonb_concat(json, json)"), Concat});
  add({"jsonb_delete", "jsonb_delete(json, varchar | bigint | array(varchar)) -> json",
       "PostgreSQL's jsonb a - x: an object without the member named x (or any of an array "
       "of names); an array without the string elements equal to x, or without the element at "
       "index x (from 0; negative from the end).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kVarchar, t[0]) ||
             !(Accepts(P::kVarchar, t[1]) || t[1] == kBig || IsTextArray(t[1]))) {
           return WrongArguments("jsonb_delete(json, varchar | bigint | array(varchar))");
         }
         return kJson;
       },
       Delete});
  add({"jsonb_contains", "jsonb_contains(json, json) -> boolean",
       "PostgreSQL's jsonb a @> b (and b <@ a): whether a contains b: an object every member "
       "of b with a value containing it, an array an element containing each of b's, a scalar "
       "the same scalar (numbers by value), and an array a scalar it holds.",
       Fixed({P::kVarchar, P::kVarchar}, kBool, "jsonb_contains(json, json)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> left = CheckedJsonOrFail("jsonb_contains", a[0], c);
         if (!left) return Datum::Null(kBool);
         const std::optional<std::string_view> right = CheckedJsonOrFail("jsonb_contains", a[1], c);
         if (!right) return Datum::Null(kBool);
         absl::StatusOr<bool> contains = json::Contains(*left, *right);
         if (!contains.ok()) {
           return FailQuery(c, StrCat("jsonb_contains(): ", contains.status().message()), kBool);
         }
         return Datum::Bool(*contains);
       }});
  add({"jsonb_exists", "jsonb_exists(json, varchar) -> boolean",
       "PostgreSQL's jsonb a ? key: whether the key is a member of the object, a string "
       "element of the array, or the string itself.",
       Fixed({P::kVarchar, P::kVarchar}, kBool, "jsonb_exists(json, varchar)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> value = CheckedJsonOrFail("jsonb_exists", a[0], c);
         if (!value) return Datum::Null(kBool);
         return Datum::Bool(HasKey(*value, a[1].s));
       }});
  for (const bool all : {false, true}) {
    const std::string name = all ? "jsonb_exists_all" : "jsonb_exists_any";
    const std::string signature = StrCat(name, "(json, array(varchar))");
    add({name, StrCat(signature, " -> boolean"),
         all ? "PostgreSQL's jsonb a ?& keys: whether every one of the keys is in a (as ? finds "
               "one)."
             : "PostgreSQL's jsonb a ?| keys: whether any of the keys is in a (as ? finds one).",
         [signature](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 2 || !Accepts(P::kVarchar, t[0]) ||
               !(IsTextArray(t[1]) || t[1] == DataType::kUnknown)) {
             return WrongArguments(signature);
           }
           return kBool;
         },
         [name, all](const Args& a, const EvalContext& c) { return ExistsOf(name, all, a, c); }});
  }
}

}  // namespace strata::query
