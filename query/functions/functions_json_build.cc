// PostgreSQL's JSON constructors, which make JSON of SQL values (json_values.h writes each
// value): to_json, json_build_object, json_build_array, row_to_json, and the aggregates
// json_agg and json_object_agg; each also by its jsonb_ name, whose JSON is written the one
// way x::jsonb writes it (json_parse's canonical form: no whitespace, members sorted, a
// repeated name's last value kept). A JSON argument is embedded as it is, a text as a JSON
// string: json_build_object('a', '{"x":1}'::json, 'b', '{"x":1}') is
// {"a" : {"x":1}, "b" : "{\"x\":1}"}.
//
// The JSON they make is spaced as PostgreSQL spaces it (json_build_object's `"a" : 1, ...`,
// json_agg's `[1, 2]`, json_object_agg's `{ "a" : 1 }`), so that what psql users compare
// against PostgreSQL reads the same.
#include "common/json_text.h"
#include "common/strings.h"
#include "query/functions/function_families.h"
#include "query/functions/json_document.h"
#include "query/functions/json_values.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

// `text` as the JSON `function` answers: a jsonb_ one's in json_parse's canonical form; an
// error past kMaxTextBytes.
absl::StatusOr<Datum> Finished(std::string_view function, bool jsonb, std::string text) {
  if (jsonb) {
    std::string canonical;
    if (absl::Status made = json::AppendCanonical(text, &canonical); !made.ok()) {
      return absl::InvalidArgumentError(StrCat(function, "(): ", made.message()));
    }
    text = std::move(canonical);
  }
  if (text.size() > kMaxTextBytes) {
    return absl::ResourceExhaustedError(TextTooLongMessage(StrCat(function, "()")));
  }
  return Datum::Json(std::move(text));
}

// As Finished, for a scalar function: NULL with the query failed on an error.
Datum Made(std::string_view function, bool jsonb, std::string text, const EvalContext& c) {
  absl::StatusOr<Datum> made = Finished(function, jsonb, std::move(text));
  if (!made.ok()) return FailQuery(c, std::string(made.status().message()), kJson);
  return *std::move(made);
}

// An object key's type: a scalar that is not JSON (PostgreSQL's rule).
bool KeyTypeFits(DataType type) { return !IsComposite(type) && type != kJson; }

// json_build_object's binder: keys and values in turn, each key a scalar.
auto BuildObjectBinder(std::string name) {
  return [name = std::move(name)](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() % 2 != 0) {
      return absl::InvalidArgumentError(
          StrCat("takes keys and values in turn, an even number of arguments, not ", t.size()));
    }
    for (size_t i = 0; i < t.size(); i += 2) {
      if (!KeyTypeFits(t[i])) {
        return absl::InvalidArgumentError(StrCat("argument ", i + 1,
                                                 " is a key, which must be "
                                                 "a scalar (text, a number, ...), not ",
                                                 TypeName(t[i])));
      }
    }
    return kJson;
  };
}

// The text json_agg and json_object_agg add a group's rows to, charged to the query's memory.
class JsonAggAcc : public Accumulator {
 public:
  // json_object_agg when `object`; an element of an array or row type (by its SQL type) is
  // set on a line of its own after the first, as PostgreSQL's json_agg does.
  JsonAggAcc(std::string function, bool jsonb, bool object, bool structured)
      : function_(std::move(function)), jsonb_(jsonb), object_(object), structured_(structured) {}

  void Add(const Args& a) override {
    if (!error_.ok()) return;
    const size_t before = text_.size();
    if (rows_ > 0) text_.append(", ");
    if (object_) {
      if (a[0].null) {
        error_ = absl::InvalidArgumentError(
            StrCat(function_,
                   "(): a key is NULL; keys of a JSON object cannot be NULL (leave "
                   "those rows out with WHERE key IS NOT NULL)"));
        return;
      }
      AppendJsonString(json::KeyText(a[0]), &text_);
      text_.append(" : ");
      json::AppendValue(a[1], &text_);
    } else {
      if (rows_ > 0 && structured_ && !a[0].null) text_.append("\n ");
      json::AppendValue(a[0], &text_);
    }
    ++rows_;
    Kept(static_cast<int64_t>(text_.size() - before));
    if (text_.size() > kMaxTextBytes) {
      error_ = absl::ResourceExhaustedError(TextTooLongMessage(StrCat(function_, "()")));
    }
  }

  absl::StatusOr<Datum> Finish() override {
    RETURN_IF_ERROR(error_);
    if (rows_ == 0) return Datum::Null(kJson);  // no rows: NULL, as PostgreSQL's
    return Finished(function_, jsonb_,
                    object_ ? StrCat("{ ", text_, " }") : StrCat("[", text_, "]"));
  }

 private:
  const std::string function_;
  const bool jsonb_, object_, structured_;
  std::string text_;  // the members or elements so far, without the brackets
  int64_t rows_ = 0;
  absl::Status error_;
};

}  // namespace

void AddJsonBuildFunctions(std::vector<ScalarFunction>* scalars,
                           std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f) {
    f.can_fail = true;
    f.keeps_json = true;
    scalars->push_back(std::move(f));
  };
  for (const bool jsonb : {false, true}) {
    const std::string prefix = jsonb ? "jsonb" : "json";
    const std::string to_json = jsonb ? "to_jsonb" : "to_json";
    add({to_json, StrCat(to_json, "(value) -> json"),
         "The value as JSON: a number as written, a text as a JSON string, a JSON value as it "
         "is, a timestamp as an ISO 8601 string (\"2024-01-02T03:04:05+00:00\"), an array as an "
         "array, a row (ROW(...)) or a map as an object. NULL for NULL.",
         Fixed({Param::kAny}, kJson, StrCat(to_json, "(value)")),
         [to_json, jsonb](const Args& a, const EvalContext& c) {
           return Made(to_json, jsonb, json::ValueText(a[0]), c);
         }});
    if (!jsonb) {
      add({"array_to_json", "array_to_json(array) -> json",
           "The array as JSON, as to_json writes it (PostgreSQL's).",
           [](const Types& t) -> absl::StatusOr<DataType> {
             if (t.size() != 1 ||
                 (KindOf(t[0]) != TypeKind::kArray && t[0] != DataType::kUnknown)) {
               return WrongArguments("array_to_json(array)");
             }
             return kJson;
           },
           [](const Args& a, const EvalContext& c) {
             return Made("array_to_json", false, json::ValueText(a[0]), c);
           }});
    }
    const std::string object = prefix + "_build_object";
    add({object, StrCat(object, "(key, value, ...) -> json"),
         "A JSON object of the keys (each a scalar, its text the member's name; not NULL) and "
         "values (as to_json writes them) in turn: json_build_object('host', host, 'cpu', "
         "usage_user).",
         BuildObjectBinder(StrCat(object, "(key, value, ...)")),
         [object, jsonb](const Args& a, const EvalContext& c) {
           std::string text = "{";
           for (size_t i = 0; i + 1 < a.size(); i += 2) {
             if (a[i].null) {
               return FailQuery(c,
                                StrCat(object, "(): argument ", i + 1,
                                       " is a key and is NULL; keys of a JSON object cannot be "
                                       "NULL"),
                                kJson);
             }
             if (i > 0) text.append(", ");
             AppendJsonString(json::KeyText(a[i]), &text);
             text.append(" : ");
             json::AppendValue(a[i + 1], &text);
             if (!c.KeepGoingAfterText(text.size())) return Datum::Null(kJson);
           }
           return Made(object, jsonb, text + "}", c);
         }});
    scalars->back().null_propagating = false;
    const std::string array = prefix + "_build_array";
    add({array, StrCat(array, "(value, ...) -> json"),
         "A JSON array of the values (NULL as null), each as to_json writes it.",
         [](const Types&) -> absl::StatusOr<DataType> { return kJson; },
         [array, jsonb](const Args& a, const EvalContext& c) {
           std::string text = "[";
           for (size_t i = 0; i < a.size(); ++i) {
             if (i > 0) text.append(", ");
             json::AppendValue(a[i], &text);
             if (!c.KeepGoingAfterText(text.size())) return Datum::Null(kJson);
           }
           return Made(array, jsonb, text + "]", c);
         }});
    scalars->back().null_propagating = false;

    for (const bool is_object : {false, true}) {
      const std::string name = prefix + (is_object ? "_object_agg" : "_agg");
      aggregates->push_back(
          {name, is_object ? StrCat(name, "(key, value) -> json") : StrCat(name, "(x) -> json"),
           is_object ? std::string("A JSON object of the group's keys (not NULL) and values, in "
                                   "the order rows arrive (or its ORDER BY).")
                     : std::string("A JSON array of the group's values (NULLs as null), in the "
                                   "order rows arrive (or its ORDER BY); NULL over no rows."),
           [name, is_object](const Types& t) -> absl::StatusOr<DataType> {
             if (t.size() != (is_object ? 2u : 1u)) {
               return WrongArguments(is_object ? StrCat(name, "(key, value)")
                                               : StrCat(name, "(x)"));
             }
             if (is_object && !KeyTypeFits(t[0])) {
               return absl::InvalidArgumentError(
                   StrCat("the key must be a scalar (text, a number, ...), not ", TypeName(t[0])));
             }
             return kJson;
           },
           [name, jsonb, is_object](const Types& t) -> std::unique_ptr<Accumulator> {
             const TypeKind kind = KindOf(t.back());
             return std::make_unique<JsonAggAcc>(
                 name, jsonb, is_object,
                 !is_object && (kind == TypeKind::kArray || kind == TypeKind::kRow));
           }});
      aggregates->back().keeps_json = true;
      aggregates->back().keeps_nulls = true;
    }
  }
  add({"row_to_json", "row_to_json(row) -> json",
       "A row (ROW(...), a row-typed column) as a JSON object of its fields by name (f1, f2, ... "
       "for unnamed ones), as to_json writes it.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !(KindOf(t[0]) == TypeKind::kRow || t[0] == DataType::kUnknown)) {
           return WrongArguments("row_to_json(row)");
         }
         return kJson;
       },
       [](const Args& a, const EvalContext& c) {
         return Made("row_to_json", false, json::ValueText(a[0]), c);
       }});
}

}  // namespace strata::query
