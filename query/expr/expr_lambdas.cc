// Calls of the functions that take lambdas (filter, transform, reduce,
// any_match, ..., zip_with, and over maps map_filter, transform_keys,
// transform_values and map_zip_with). A lambda's body reads its parameters and the row
// around it, so these are bound and evaluated here rather than through the
// registry's binder and evaluator: the body is bound to the row's schema with
// the parameters appended, and evaluated per element with their values there.
#include "query/expr/expr.h"

#include "common/status.h"
#include "common/strings.h"
#include "query/base/error.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

bool IsArray(DataType t) { return KindOf(t) == TypeKind::kArray; }
bool IsSeries(DataType t) { return KindOf(t) == TypeKind::kTimeseries; }
bool IsMap(DataType t) { return KindOf(t) == TypeKind::kMap; }

// What a lambda over elements of a collection of type `t` gets: the array's
// element, or a timeseries point as row(time, value).
std::optional<DataType> ElementParam(DataType t) {
  if (IsArray(t)) return ElementType(t);
  if (IsSeries(t)) {
    return RowOf({{.name = "time", .type = DataType::kTimestamp},
                  {.name = "value", .type = ElementType(t)}});
  }
  return std::nullopt;
}

// Forgets the columns a body was bound to (a bind against another schema,
// as the planner's rebinding over an aggregate's output, starts afresh).
void Unbind(Expr& e) {
  if (e.kind == ExprKind::kColumn && e.bound.window < 0) e.bound.column = -1;
  for (auto& a : e.args) Unbind(*a);
}

// A lambda `function` takes with `params` parameters, for an error's example.
std::string_view LambdaExample(std::string_view function, size_t params) {
  if (params == 1) return "x -> x > 0";
  if (params == 3) return "(k, v1, v2) -> coalesce(v1, v2)";
  const bool over_map = function.starts_with("map_") || function.starts_with("transform_");
  return over_map ? "(k, v) -> v > 0" : "(s, x) -> s + x";
}

// Binds `lambda`'s body with its parameters of `types` after `schema`'s
// columns (hiding outer columns of the same names).
absl::Status BindLambda(Expr& lambda, const Schema& schema, const std::vector<DataType>& types,
                        std::string_view function, std::string_view sql) {
  if (lambda.kind != ExprKind::kLambda || lambda.lambda_params.size() != types.size()) {
    return SqlError(sql, lambda.pos,
                    StrCat(function, "() needs a lambda of ", types.size(), " parameter",
                           types.size() == 1 ? "" : "s", " here, e.g. ",
                           LambdaExample(function, types.size())));
  }
  Schema extended = schema;
  for (ColumnInfo& c : extended) {
    for (const std::string& p : lambda.lambda_params) c.hidden = c.hidden || c.name == p;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    extended.push_back({.name = lambda.lambda_params[i], .type = types[i]});
  }
  Unbind(*lambda.args[0]);
  RETURN_IF_ERROR(Bind(*lambda.args[0], extended, sql));
  lambda.bound.column = static_cast<int>(schema.size());  // where its parameters go
  lambda.bound.type = lambda.args[0]->bound.type;
  return absl::OkStatus();
}

absl::Status Expect(bool ok, const Expr& call, std::string_view signature, std::string_view sql) {
  if (ok) return absl::OkStatus();
  return SqlError(sql, call.pos, StrCat(call.name, "(): wrong arguments; expected ", signature));
}

bool Boolean(DataType t) { return t == DataType::kBoolean || t == DataType::kUnknown; }

// Evaluates lambdas with the row around them and their parameters' values.
class LambdaRunner {
 public:
  LambdaRunner(const Row& row, const EvalContext& context) : row_(row), context_(context) {}

  Datum operator()(const Expr& lambda, std::initializer_list<Datum> params) {
    // A query that failed or ran out of time stops here: lambdas nest, and
    // the loops around this call would otherwise go on for every element.
    if (!context_.KeepGoing()) return Datum::Null(lambda.bound.type);
    const auto first = static_cast<size_t>(lambda.bound.column);
    if (scratch_.size() < first + params.size()) {
      scratch_.assign(row_.begin(), row_.begin() + std::min(first, row_.size()));
      scratch_.resize(first + params.size());
    }
    size_t i = first;
    for (const Datum& p : params) {
      context_.Charge(p.s.size());  // a copy
      scratch_[i++] = p;
    }
    return Eval(*lambda.args[0], scratch_, context_);
  }

 private:
  const Row& row_;
  const EvalContext& context_;
  Row scratch_;
};

// The element `k` of an array or timeseries as the lambda sees it.
Datum ElementAt(const Datum& collection, size_t k, DataType param) {
  if (IsSeries(collection.type)) {
    return Datum::Composite(param, {Datum::Timestamp(collection.nested->times[k]),
                                    collection.items()[k]});
  }
  return collection.items()[k];
}

// map_filter, transform_keys, transform_values and map_zip_with over `map` (not NULL).
Datum EvalMapLambdaCall(const Expr& call, const Datum& map, const Row& row, LambdaRunner& run,
                        const EvalContext& context) {
  const std::string& name = call.name;
  const DataType type = call.bound.type;
  const std::vector<Datum>& keys = map.nested->keys;
  const std::vector<Datum>& values = map.items();
  std::vector<std::pair<Datum, Datum>> entries;
  const std::string what = StrCat(name, "()");
  ArrayBytes bytes(what, context);  // the values the lambda makes
  if (name == "map_zip_with") {
    const Datum other = Eval(*call.args[1], row, context);
    if (other.null) return Datum::Null(type);
    const std::vector<Datum>& other_keys = other.nested->keys;
    const std::vector<Datum>& other_values = other.items();
    // Both maps' keys in key order, each once, with its value in each map or NULL.
    for (size_t i = 0, j = 0; i < keys.size() || j < other_keys.size();) {
      const int order = i == keys.size()         ? 1
                        : j == other_keys.size() ? -1
                                                 : Compare(keys[i], other_keys[j]);
      const Datum& key = order <= 0 ? keys[i] : other_keys[j];
      Datum made =
          run(*call.args[2], {key, order <= 0 ? values[i] : Datum::Null(ElementType(map.type)),
                              order >= 0 ? other_values[j] : Datum::Null(ElementType(other.type))});
      if (!bytes.Add(made)) return Datum::Null(type);
      entries.emplace_back(CoerceTo(key, MapKeyType(type)), CoerceTo(made, ElementType(type)));
      if (order <= 0) ++i;
      if (order >= 0) ++j;
    }
  } else {
    const Expr& lambda = *call.args[1];
    for (size_t k = 0; k < values.size(); ++k) {
      Datum made = run(lambda, {keys[k], values[k]});
      if (name == "map_filter") {
        if (made.truthy()) entries.emplace_back(keys[k], values[k]);
        continue;
      }
      if (!bytes.Add(made)) return Datum::Null(type);
      if (name == "transform_keys") {
        entries.emplace_back(CoerceTo(made, MapKeyType(type)), values[k]);
      } else {
        entries.emplace_back(keys[k], CoerceTo(made, ElementType(type)));
      }
    }
  }
  std::string problem;
  std::optional<Datum> out = MakeMap(type, std::move(entries), &problem);
  return out ? *std::move(out) : FailQuery(context, MapProblem(name, problem), type);
}
}  // namespace

absl::Status BindLambdaCall(Expr& call, const Schema& schema, std::string_view sql) {
  call.bound.function = FunctionRegistry::Get().FindScalar(call.name);
  for (auto& a : call.args) {
    if (a->kind != ExprKind::kLambda) RETURN_IF_ERROR(Bind(*a, schema, sql));
  }
  const std::string& name = call.name;
  const size_t n = call.args.size();
  auto type = [&](size_t i) { return call.args[i]->bound.type; };
  if (name == "map_filter" || name == "transform_keys" || name == "transform_values") {
    const std::string signature = StrCat(name, "(map, (k, v) -> ...)");
    RETURN_IF_ERROR(Expect(n == 2 && IsMap(type(0)), call, signature, sql));
    const DataType key = MapKeyType(type(0)), value = ElementType(type(0));
    RETURN_IF_ERROR(BindLambda(*call.args[1], schema, {key, value}, name, sql));
    const DataType body = call.args[1]->bound.type;
    if (name == "map_filter") {
      if (!Boolean(body)) {
        return SqlError(
            sql, call.args[1]->pos,
            StrCat(name, "() needs a lambda that gives a boolean, not ", TypeName(body)));
      }
      call.bound.type = type(0);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(call.bound.type,
                     Interned(name == "transform_keys" ? MapOf(body, value) : MapOf(key, body)));
    return absl::OkStatus();
  }
  if (name == "map_zip_with") {
    constexpr std::string_view kSignature = "map_zip_with(map, map, (k, v1, v2) -> ...)";
    RETURN_IF_ERROR(Expect(n == 3 && IsMap(type(0)) && IsMap(type(1)), call, kSignature, sql));
    auto key = CommonElementType({MapKeyType(type(0)), MapKeyType(type(1))}, kSignature);
    if (!key.ok()) {
      return SqlError(sql, call.pos,
                      StrCat("map_zip_with(): the maps' keys are ", TypeName(MapKeyType(type(0))),
                             " and ", TypeName(MapKeyType(type(1))), "; they must be of one type"));
    }
    RETURN_IF_ERROR(BindLambda(*call.args[2], schema,
                               {*key, ElementType(type(0)), ElementType(type(1))}, name, sql));
    ASSIGN_OR_RETURN(call.bound.type, Interned(MapOf(*key, call.args[2]->bound.type)));
    return absl::OkStatus();
  }
  if (name == "zip_with") {
    constexpr std::string_view kSignature = "zip_with(array, array, (x, y) -> ...)";
    RETURN_IF_ERROR(Expect(n == 3 && IsArray(type(0)) && IsArray(type(1)), call, kSignature, sql));
    RETURN_IF_ERROR(BindLambda(*call.args[2], schema, {ElementType(type(0)), ElementType(type(1))},
                               name, sql));
    ASSIGN_OR_RETURN(call.bound.type, Interned(ArrayOf(call.args[2]->bound.type)));
    return absl::OkStatus();
  }
  const std::string signature =
      name == "reduce" ? "reduce(array | timeseries, initial state, (s, x) -> state, s -> result)"
                       : StrCat(name, "(array", name == "filter" || name == "transform"
                                                      ? " | timeseries" : "", ", x -> ...)");
  std::optional<DataType> param;
  if (n >= 2) param = ElementParam(type(0));
  const bool arrays_only = name != "filter" && name != "transform" && name != "reduce";
  RETURN_IF_ERROR(Expect(param && !(arrays_only && IsSeries(type(0))) &&
                             n == (name == "reduce" ? 4u : 2u),
                         call, signature, sql));
  if (name == "reduce") {
    const DataType state = type(1);
    if (state == DataType::kUnknown) {
      return SqlError(sql, call.args[1]->pos,
                      "reduce(): give the initial state a type, e.g. CAST(NULL AS DOUBLE) or "
                      "DOUBLE '0.0'");
    }
    RETURN_IF_ERROR(BindLambda(*call.args[2], schema, {state, *param}, name, sql));
    const DataType step = call.args[2]->bound.type;
    if (step != state && step != DataType::kUnknown && !(IsNumeric(step) && IsNumeric(state))) {
      return SqlError(sql, call.args[2]->pos,
                      StrCat("reduce(): the step gives ", TypeName(step),
                             " but the state is ", TypeName(state)));
    }
    RETURN_IF_ERROR(BindLambda(*call.args[3], schema, {state}, name, sql));
    call.bound.type = call.args[3]->bound.type;
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(BindLambda(*call.args[1], schema, {*param}, name, sql));
  const DataType body = call.args[1]->bound.type;
  if (name == "transform") {
    if (IsSeries(type(0))) {
      // The lambda gives the new point, row(time, value), or just the value.
      const DataType value = KindOf(body) == TypeKind::kRow && RowFields(body).size() == 2
                                 ? RowFields(body)[1].type : body;
      ASSIGN_OR_RETURN(call.bound.type, Interned(TimeseriesOf(value)));
    } else {
      ASSIGN_OR_RETURN(call.bound.type, Interned(ArrayOf(body)));
    }
    return absl::OkStatus();
  }
  if (!Boolean(body)) {
    return SqlError(sql, call.args[1]->pos,
                    StrCat(name, "() needs a lambda that gives a boolean, not ", TypeName(body)));
  }
  call.bound.type = name == "filter" ? type(0) : DataType::kBoolean;
  return absl::OkStatus();
}

Datum EvalLambdaCall(const Expr& call, const Row& row, const EvalContext& context) {
  const std::string& name = call.name;
  const Datum collection = Eval(*call.args[0], row, context);
  if (collection.null) return Datum::Null(call.bound.type);
  LambdaRunner run(row, context);
  if (IsMap(collection.type)) return EvalMapLambdaCall(call, collection, row, run, context);
  const DataType param = IsSeries(collection.type)
                             ? ElementParam(collection.type).value_or(DataType::kUnknown)
                             : ElementType(collection.type);
  const size_t size = collection.items().size();
  if (name == "zip_with") {
    const Datum other = Eval(*call.args[1], row, context);
    if (other.null) return Datum::Null(call.bound.type);
    const size_t n = std::max(size, other.items().size());
    std::vector<Datum> out;
    ArrayBytes bytes("zip_with()", context);
    for (size_t k = 0; k < n; ++k) {
      out.push_back(run(*call.args[2],
                        {k < size ? collection.items()[k] : Datum::Null(ElementType(collection.type)),
                         k < other.items().size() ? other.items()[k]
                                                  : Datum::Null(ElementType(other.type))}));
      if (!bytes.Add(out.back())) return Datum::Null(call.bound.type);
    }
    return Datum::Composite(call.bound.type, std::move(out));
  }
  if (name == "reduce") {
    const DataType state_type = call.args[1]->bound.type;
    Datum state = Eval(*call.args[1], row, context);
    for (size_t k = 0; k < size; ++k) {
      state = CoerceTo(run(*call.args[2], {state, ElementAt(collection, k, param)}), state_type);
    }
    return run(*call.args[3], {state});
  }
  const Expr& lambda = *call.args[1];
  if (name == "filter" || name == "transform") {
    std::vector<Datum> values;
    std::vector<int64_t> times;
    const bool series = IsSeries(collection.type);
    ArrayBytes bytes("transform()", context);  // filter's values are a part of its input
    for (size_t k = 0; k < size; ++k) {
      Datum r = run(lambda, {ElementAt(collection, k, param)});
      if (name == "filter") {
        if (!r.truthy()) continue;
        values.push_back(collection.items()[k]);
      } else if (series && KindOf(r.type) == TypeKind::kRow && r.items().size() == 2) {
        values.push_back(r.items()[1]);  // transform to row(time, value): the value
      } else {
        values.push_back(std::move(r));
      }
      if (series) times.push_back(collection.nested->times[k]);
      if (name == "transform" && !bytes.Add(values.back())) return Datum::Null(call.bound.type);
    }
    return Datum::Composite(call.bound.type, std::move(values), std::move(times));
  }
  // any_match, all_match, none_match: Presto's three-valued answers.
  bool saw_null = false, saw_true = false, saw_false = false;
  for (size_t k = 0; k < size; ++k) {
    Datum r = run(lambda, {ElementAt(collection, k, param)});
    if (r.null) {
      saw_null = true;
    } else if (r.truthy()) {
      saw_true = true;
    } else {
      saw_false = true;
    }
  }
  if (name == "any_match") {
    return saw_true ? Datum::Bool(true) : saw_null ? Datum::Null(DataType::kBoolean) : Datum::Bool(false);
  }
  if (name == "all_match") {
    return saw_false ? Datum::Bool(false) : saw_null ? Datum::Null(DataType::kBoolean) : Datum::Bool(true);
  }
  return saw_true ? Datum::Bool(false) : saw_null ? Datum::Null(DataType::kBoolean) : Datum::Bool(true);
}

}  // namespace strata::query
