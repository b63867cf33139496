// PostgreSQL's jsonb operators, as the functions PostgreSQL names them (the binder turns the
// operators into calls of these: query/expr/expr.cc JsonOperator): `a || b` (jsonb_concat),
// `a - key` (jsonb_delete), `a #- path` (jsonb_delete_path), `a @> b` and `b <@ a`
// (jsonb_contains), `a ? key`, `a ?| keys` and `a ?& keys` (jsonb_exists, jsonb_exists_any,
// jsonb_exists_all); and the functions that edit or show jsonb: jsonb_set, jsonb_strip_nulls
// (json_strip_nulls), jsonb_pretty, jsonb_array_length.
// Their JSON arguments are read as text (a VARCHAR that is not JSON fails the query saying
// so); what they make is in json_parse's canonical form, as the jsonb_ constructors'.
#include <algorithm>
#include <charconv>
#include <span>

#include "common/json_text.h"
#include "common/stack_room.h"
#include "common/strings.h"
#include "query/base/postgres_array_text.h"
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

// Starts a member of the object `out` ends in: a comma unless it is the first, its name, ':'.
void AppendMemberName(std::string_view name, std::string* out) {
  if (out->back() != '{') out->push_back(',');
  AppendJsonString(name, out);
  out->push_back(':');
}

void AppendMember(std::string_view name, std::string_view value, std::string* out) {
  AppendMemberName(name, out);
  out->append(value);
}

// The canonical text of `text` (members sorted, a repeated name's last value kept) as a
// value of the JSON type, or NULL with the query failed.
Datum CanonicalOrFail(std::string_view function, const std::string& text, const EvalContext& c) {
  std::string out;
  if (absl::Status made = json::AppendCanonical(text, &out); !made.ok()) {
    return FailQuery(c, StrCat(function, "(): ", made.message()), kJson);
  }
  if (out.size() > kMaxTextBytes) return FailQuery(c, TextTooLongMessage(function), kJson);
  return Datum::Json(std::move(out));
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
    AppendMember(name, value, out);
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
        if (!named(name)) AppendMember(name, member, &text);
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

// A path of jsonb_set and #-: an array of text, or PostgreSQL's array text ('{a,0}'); NULL
// steps are refused, as PostgreSQL refuses them.
std::optional<std::vector<std::string>> EditPathOrFail(std::string_view function, const Datum& path,
                                                       const EvalContext& c) {
  std::vector<std::string> steps;
  if (KindOf(path.type) == TypeKind::kArray) {
    for (const Datum& step : path.items()) {
      if (step.null) break;
      steps.push_back(step.s);
    }
    if (steps.size() == path.items().size()) return steps;
  } else if (auto split = SplitPostgresArrayText(path.s)) {
    for (const std::optional<std::string>& step : *split) {
      if (!step) break;
      steps.push_back(*step);
    }
    if (steps.size() == split->size()) return steps;
  } else {
    FailQuery(c,
              StrCat(function, "(): the path '", EchoInput(path.s),
                     "' is not an array of text; write it as '{a,0}' or ARRAY['a', '0']"),
              kJson);
    return std::nullopt;
  }
  FailQuery(c, StrCat(function, "(): the path's step ", steps.size() + 1, " is NULL"), kJson);
  return std::nullopt;
}

// What a path step names in an array: the index it is (negative from the end), or the error
// PostgreSQL gives for a step that is not an integer.
absl::StatusOr<int64_t> PathStepIndex(const std::string& step, size_t position) {
  int64_t index = 0;
  const auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), index);
  if (ec != std::errc() || end != step.data() + step.size() || step.empty()) {
    return absl::InvalidArgumentError(StrCat("path element at position ", position + 1,
                                             " is not an integer: \"", EchoInput(step), "\""));
  }
  return index;
}

// Appends `value` with the path's end replaced by `replacement` (nullopt: removed), as
// jsonb_set (with `create`: a missing last step added) and #- do; a path that leads nowhere
// leaves the value as it is.
absl::Status AppendEdited(std::string_view value, std::span<const std::string> path,
                          size_t position, std::optional<std::string_view> replacement, bool create,
                          std::string* out) {
  if (StackBytesLeft() < 64 * 1024) {
    return absl::ResourceExhaustedError("the JSON nests too deep for this server thread's stack");
  }
  const json::Kind kind = json::KindOf(value);
  if (path.empty() || (kind != json::Kind::kObject && kind != json::Kind::kArray)) {
    out->append(value);
    return absl::OkStatus();
  }
  const std::string& step = path.front();
  const bool last = path.size() == 1;
  absl::Status status;
  // The item the step names: replaced, removed, or edited further down.
  auto edit = [&](std::string_view item) -> bool {
    if (!last) {
      status = AppendEdited(item, path.subspan(1), position + 1, replacement, create, out);
      return true;
    }
    if (!replacement) return false;
    out->append(*replacement);
    return true;
  };
  bool first = true;
  auto comma = [&] {
    if (!first) out->push_back(',');
    first = false;
  };
  if (kind == json::Kind::kObject) {
    out->push_back('{');
    bool found = false;
    json::AnyMember(value, [&](const std::string& name, std::string_view member) {
      if (name == step && status.ok()) {
        found = true;
        std::string edited;
        std::swap(edited, *out);
        const bool kept = edit(member);
        std::swap(edited, *out);
        if (kept) AppendMember(name, edited, out);
        return false;
      }
      AppendMember(name, member, out);
      return false;
    });
    if (!found && last && replacement && create) AppendMember(step, *replacement, out);
    out->push_back('}');
    return status;
  }
  ASSIGN_OR_RETURN(int64_t index, PathStepIndex(step, position));
  const int64_t count = static_cast<int64_t>(json::CountItems(value));
  if (index < 0) index += count;
  out->push_back('[');
  if (index < 0 && last && replacement && create) {  // before the first: prepended
    comma();
    out->append(*replacement);
  }
  int64_t at = 0;
  json::AnyElement(value, [&](std::string_view element) {
    if (at++ == index && status.ok()) {
      std::string edited;
      std::swap(edited, *out);
      const bool kept = edit(element);
      std::swap(edited, *out);
      if (!kept) return false;
      comma();
      out->append(edited);
      return false;
    }
    comma();
    out->append(element);
    return false;
  });
  if (index >= count && last && replacement && create) {  // past the last: appended
    comma();
    out->append(*replacement);
  }
  out->push_back(']');
  return status;
}

// jsonb_set and #- over checked arguments, or NULL with the query failed.
Datum Edited(std::string_view function, std::string_view value,
             const std::vector<std::string>& path, std::optional<std::string_view> replacement,
             bool create, const EvalContext& c) {
  const json::Kind kind = json::KindOf(value);
  if (kind != json::Kind::kObject && kind != json::Kind::kArray) {
    return FailQuery(c,
                     StrCat(function, "(): cannot ", replacement ? "set" : "delete",
                            " a path in a scalar; the path's steps name object members and "
                            "array elements"),
                     kJson);
  }
  std::string text;
  if (absl::Status edited = AppendEdited(value, path, 0, replacement, create, &text);
      !edited.ok()) {
    return FailQuery(c, StrCat(function, "(): ", edited.message()), kJson);
  }
  return CanonicalOrFail(function, text, c);
}

// `value` without the members whose value is null, at every depth (arrays keep their nulls).
absl::Status AppendWithoutNulls(std::string_view value, std::string* out) {
  if (StackBytesLeft() < 64 * 1024) {
    return absl::ResourceExhaustedError("the JSON nests too deep for this server thread's stack");
  }
  const json::Kind kind = json::KindOf(value);
  absl::Status status;
  bool first = true;
  if (kind == json::Kind::kObject) {
    out->push_back('{');
    json::AnyMember(value, [&](const std::string& name, std::string_view member) {
      if (json::KindOf(member) == json::Kind::kNull) return false;
      AppendMemberName(name, out);
      status = AppendWithoutNulls(member, out);
      return !status.ok();
    });
    out->push_back('}');
  } else if (kind == json::Kind::kArray) {
    out->push_back('[');
    json::AnyElement(value, [&](std::string_view element) {
      if (!first) out->push_back(',');
      first = false;
      status = AppendWithoutNulls(element, out);
      return !status.ok();
    });
    out->push_back(']');
  } else {
    json::AppendCompact(value, out);
  }
  return status;
}

// PostgreSQL's jsonb_pretty: four spaces a level, `"name": value`, and an empty object or
// array with its brackets on two lines, as PostgreSQL writes them.
absl::Status AppendPretty(std::string_view value, int level, std::string* out) {
  if (StackBytesLeft() < 64 * 1024) {
    return absl::ResourceExhaustedError("the JSON nests too deep for this server thread's stack");
  }
  const json::Kind kind = json::KindOf(value);
  if (kind != json::Kind::kObject && kind != json::Kind::kArray) {
    json::AppendCompact(value, out);
    return absl::OkStatus();
  }
  const bool object = kind == json::Kind::kObject;
  out->push_back(object ? '{' : '[');
  absl::Status status;
  bool first = true;
  auto item = [&](const std::string* name, std::string_view item_value) {
    out->append(first ? "\n" : ",\n");
    first = false;
    out->append(4 * (level + 1), ' ');
    if (name != nullptr) {
      AppendJsonString(*name, out);
      out->append(": ");
    }
    status = AppendPretty(item_value, level + 1, out);
    return !status.ok();
  };
  if (object) {
    json::AnyMember(value, [&](const std::string& name, std::string_view member) {
      return item(&name, member);
    });
  } else {
    json::AnyElement(value, [&](std::string_view element) { return item(nullptr, element); });
  }
  out->push_back('\n');
  out->append(4 * level, ' ');
  out->push_back(object ? '}' : ']');
  return status;
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
  const auto path_type = [](DataType t) { return Accepts(P::kVarchar, t) || IsTextArray(t); };
  add({"jsonb_set", "jsonb_set(json, path, json [, create_if_missing]) -> json",
       "PostgreSQL's: the value with the member or element the path leads to (an array of text "
       "or '{a,0}': names, and indexes from 0, negative from the end) replaced by the new "
       "value; a missing last step added unless create_if_missing is false (an index past "
       "either end adds at that end); a path that leads nowhere leaves it as it is.",
       [path_type](const Types& t) -> absl::StatusOr<DataType> {
         if ((t.size() != 3 && t.size() != 4) || !Accepts(P::kVarchar, t[0]) || !path_type(t[1]) ||
             !Accepts(P::kVarchar, t[2]) || (t.size() == 4 && !Accepts(P::kBoolean, t[3]))) {
           return WrongArguments("jsonb_set(json, array(varchar), json [, boolean])");
         }
         return kJson;
       },
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> value = CheckedJsonOrFail("jsonb_set", a[0], c);
         if (!value) return Datum::Null(kJson);
         const std::optional<std::vector<std::string>> path = EditPathOrFail("jsonb_set", a[1], c);
         if (!path) return Datum::Null(kJson);
         const std::optional<std::string_view> replacement =
             CheckedJsonOrFail("jsonb_set", a[2], c);
         if (!replacement) return Datum::Null(kJson);
         std::string compact;
         json::AppendCompact(*replacement, &compact);
         return Edited("jsonb_set", *value, *path, compact, a.size() < 4 || a[3].i != 0, c);
       }});
  add({"jsonb_delete_path", "jsonb_delete_path(json, path) -> json",
       "PostgreSQL's jsonb a #- path: the value without the member or element the path leads "
       "to (an array of text or '{a,0}'); unchanged where it leads nowhere.",
       [path_type](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kVarchar, t[0]) || !path_type(t[1])) {
           return WrongArguments("jsonb_delete_path(json, array(varchar))");
         }
         return kJson;
       },
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> value =
             CheckedJsonOrFail("jsonb_delete_path", a[0], c);
         if (!value) return Datum::Null(kJson);
         const std::optional<std::vector<std::string>> path =
             EditPathOrFail("jsonb_delete_path", a[1], c);
         if (!path) return Datum::Null(kJson);
         return Edited("jsonb_delete_path", *value, *path, std::nullopt, false, c);
       }});
  for (const std::string name : {"json_strip_nulls", "jsonb_strip_nulls"}) {
    add({name, StrCat(name, "(json) -> json"),
         "The value without the object members whose value is null, at every depth (an "
         "array's nulls stay), as PostgreSQL's.",
         Fixed({P::kVarchar}, kJson, StrCat(name, "(json)")),
         [name](const Args& a, const EvalContext& c) {
           const std::optional<std::string_view> value = CheckedJsonOrFail(name, a[0], c);
           if (!value) return Datum::Null(kJson);
           std::string text;
           if (absl::Status stripped = AppendWithoutNulls(*value, &text); !stripped.ok()) {
             return FailQuery(c, StrCat(name, "(): ", stripped.message()), kJson);
           }
           if (name == "jsonb_strip_nulls") return CanonicalOrFail(name, text, c);
           if (text.size() > kMaxTextBytes) return FailQuery(c, TextTooLongMessage(name), kJson);
           return Datum::Json(std::move(text));
         }});
  }
  add({"jsonb_pretty", "jsonb_pretty(json) -> varchar",
       "The value written for people as PostgreSQL's jsonb_pretty writes it: four spaces a "
       "level, \"name\": value, members in jsonb's order (Strata's: sorted by name).",
       Fixed({P::kVarchar}, kStr, "jsonb_pretty(json)"), [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> value = CheckedJsonOrFail("jsonb_pretty", a[0], c);
         if (!value) return Datum::Null(kStr);
         std::string canonical, text;
         absl::Status made = json::AppendCanonical(*value, &canonical);
         if (made.ok()) made = AppendPretty(canonical, 0, &text);
         if (!made.ok()) return FailQuery(c, StrCat("jsonb_pretty(): ", made.message()), kStr);
         if (text.size() > kMaxTextBytes)
           return FailQuery(c, TextTooLongMessage("jsonb_pretty"), kStr);
         return Datum::Varchar(std::move(text));
       }});
  add({"jsonb_array_length", "jsonb_array_length(json) -> bigint",
       "The number of a JSON array's elements; an error for any other value, as PostgreSQL's "
       "(json_array_length answers NULL there, as Presto's).",
       Fixed({P::kVarchar}, kBig, "jsonb_array_length(json)"),
       [](const Args& a, const EvalContext& c) {
         const std::optional<std::string_view> value =
             CheckedJsonOrFail("jsonb_array_length", a[0], c);
         if (!value) return Datum::Null(kBig);
         if (json::KindOf(*value) != json::Kind::kArray) {
           return FailQuery(c,
                            "jsonb_array_length(): cannot get the array length of a value that "
                            "is not an array",
                            kBig);
         }
         return Datum::Bigint(static_cast<int64_t>(json::CountItems(*value)));
       }});
}

}  // namespace strata::query
