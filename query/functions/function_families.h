// The function families kept in files of their own, each adding its
// functions to the registry (functions.cc calls these once).
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "query/functions/functions.h"

namespace strata::query {

// Shorthands of the families' signatures.
inline constexpr DataType kDbl = DataType::kDouble, kBig = DataType::kBigint,
                          kStr = DataType::kVarchar, kBool = DataType::kBoolean,
                          kTs = DataType::kTimestamp, kJson = DataType::kJson;

// An array type, or NULL's (an argument a signature takes as either).
inline bool IsArrayOrNull(DataType t) {
  return t == DataType::kUnknown || KindOf(t) == TypeKind::kArray;
}

// What a family whose every function can fail the query (text that does not parse, a zone
// that does not exist) adds its functions with: each is marked can_fail.
inline auto CanFailAdder(std::vector<ScalarFunction>* scalars) {
  return [scalars](ScalarFunction f) {
    f.can_fail = true;
    scalars->push_back(std::move(f));
  };
}

// Arrays and rows: ARRAY[...], a[i], element_at, cardinality, array_agg, ...
// (functions_array.cc).
// The functions of functions_core.cc: time, conditionals, casts, the common
// aggregates.
void AddCoreFunctions(std::vector<ScalarFunction>* scalars,
                      std::vector<AggregateFunction>* aggregates);

// The accumulator of max(x, n) and min(x, n) (`by` false) or max_by(x, y, n) and
// min_by(x, y, n): the n best rows' x as an array of `array_type`, best first
// (functions_top_n.cc).
std::unique_ptr<Accumulator> MakeTopN(std::string_view name, bool max, bool by,
                                      DataType array_type);

// filter, transform, reduce, ... (functions_lambda.cc): their entries only.
void AddLambdaFunctions(std::vector<ScalarFunction>* scalars);

void AddArrayFunctions(std::vector<ScalarFunction>* scalars,
                       std::vector<AggregateFunction>* aggregates);
// Arrays as sets and sequences: array_intersect, array_union, array_except, arrays_overlap,
// array_remove, repeat, ngrams, shuffle (functions_array_sets.cc).
void AddArraySetFunctions(std::vector<ScalarFunction>* scalars);
// array_cat, array_append, array_prepend (|| of arrays), array_replace
// (functions_array_concat.cc).
void AddArrayConcatFunctions(std::vector<ScalarFunction>* scalars);

// Maps: map(), map_concat, map_entries, map_from_entries, multimap_from_entries, map_keys,
// map_values and the aggregates map_agg, map_union, multimap_agg, histogram
// (functions_map.cc).
void AddMapFunctions(std::vector<ScalarFunction>* scalars,
                     std::vector<AggregateFunction>* aggregates);
// The error of a map that MakeMap refused (`problem` as it gives it), for `function`.
std::string MapProblem(std::string_view function, const std::string& problem);
// The value of `key` in `map`, or nullptr (also for NULL).
const Datum* FindMapValue(const Datum& map, const Datum& key);
// True if a value of type `key` can look up keys of `map` (numbers with
// numbers, NULL with anything).
bool MapKeyFits(DataType map, DataType key);

// The timeseries type: create_time_series, interpolate_*, derivatives,
// integrals, correlations, sequence (functions_timeseries.cc).
void AddTimeseriesFunctions(std::vector<ScalarFunction>* scalars,
                            std::vector<AggregateFunction>* aggregates);

// Text: regular expressions beyond regexp_like, split, padding, code points,
// edit distances, hex and base64, string_agg and listagg (functions_text.cc).
void AddTextFunctions(std::vector<ScalarFunction>* scalars,
                      std::vector<AggregateFunction>* aggregates);

// JSON in VARCHAR text: json_parse, json_format, json_extract, json_extract_scalar,
// json_size, json_array_length, json_array_get, json_array_contains, is_json_scalar
// (functions_json.cc).
void AddJsonFunctions(std::vector<ScalarFunction>* scalars);
// The JSON text of an argument, checked; nullopt with the query failed saying why it is not
// JSON (functions_json.cc).
std::optional<std::string_view> CheckedJsonOrFail(std::string_view function, const Datum& text,
                                                  const EvalContext& c);
// PostgreSQL's generate_series as the array its rows are made of
// (functions_generate_series.cc).
void AddGenerateSeriesFunctions(std::vector<ScalarFunction>* scalars);
// PostgreSQL's jsonb operators as functions: || (jsonb_concat), - (jsonb_delete), @> and <@
// (jsonb_contains), ?, ?| and ?& (jsonb_exists, _any, _all) (functions_jsonb_operators.cc).
void AddJsonbOperatorFunctions(std::vector<ScalarFunction>* scalars);
// PostgreSQL's JSON constructors: to_json, json_build_object, json_build_array, row_to_json,
// json_agg, json_object_agg, and their jsonb_ names (functions_json_build.cc).
void AddJsonBuildFunctions(std::vector<ScalarFunction>* scalars,
                           std::vector<AggregateFunction>* aggregates);

// format(pattern, value, ...), as Java's String.format (functions_format.cc).
void AddFormatFunction(std::vector<ScalarFunction>* scalars);

// PostgreSQL's catalog functions over pg_catalog's tables: format_type, pg_table_is_visible,
// pg_get_expr, obj_description, ... (functions_pg_catalog.cc).
void AddPgCatalogFunctions(std::vector<ScalarFunction>* scalars);

// URLs: url_extract_protocol, _host, _port, _path, _query, _fragment, _parameter,
// url_encode, url_decode (functions_url.cc).
void AddUrlFunctions(std::vector<ScalarFunction>* scalars);

// Math beyond the basics: constants, random numbers, trigonometry, bits,
// bases, width_bucket (functions_math.cc).
void AddMathFunctions(std::vector<ScalarFunction>* scalars);
// This thread's random numbers (random(), shuffle).
std::mt19937_64& ThreadRandom();

// Time as text and numbers: from_unixtime, date_format/date_parse (MySQL
// specifiers), format_datetime/parse_datetime (Joda patterns), durations,
// to_timestamp (functions_time_text.cc).
void AddTimeTextFunctions(std::vector<ScalarFunction>* scalars);
// at_timezone and with_timezone: wall-clock time in IANA zones (functions_time_zones.cc).
void AddTimeZoneFunctions(std::vector<ScalarFunction>* scalars);
// The zone named `name` (query/base/time_zone.h's LoadTimeZone), remembered for this thread's
// next row (a query names one zone); null for no zone.
const absl::TimeZone* FindZone(std::string_view name);
// The query's error for a zone FindZone does not know, of a function returning a timestamp.
Datum UnknownZone(std::string_view function, std::string_view name, const EvalContext& c);

// Statistics aggregates: correlation, covariance, regression, moments,
// geometric mean, bitwise folds (functions_statistics.cc).
void AddStatisticsAggregates(std::vector<AggregateFunction>* aggregates);

// What the families share.
absl::Status WrongArguments(std::string_view signature);

// Argument kinds a signature can ask for.
enum class Param { kAny, kNumeric, kBigint, kDouble, kVarchar, kBoolean, kTimestamp, kInterval };
// True if a value of type `t` fits `p` (NULL fits anything).
bool Accepts(Param p, DataType t);
// A binder for fixed parameters; `optional` trailing ones may be left out.
std::function<absl::StatusOr<DataType>(const std::vector<DataType>&)> Fixed(
    std::vector<Param> params, DataType result, std::string signature, size_t optional = 0);
// One numeric argument; the result keeps BIGINT or DOUBLE.
absl::StatusOr<DataType> SameNumeric(const std::vector<DataType>& types,
                                     std::string_view signature);
// A composite type for a binder: the type, or the "too many types" error.
absl::StatusOr<DataType> Interned(std::optional<DataType> type);
// The type numbers and NULLs of several values share: DOUBLE for BIGINT
// with DOUBLE, the one type otherwise; an error when they cannot share one.
absl::StatusOr<DataType> CommonElementType(const std::vector<DataType>& types,
                                           std::string_view signature);
// Records a query error (the first one wins) and answers NULL of `type`.
Datum FailQuery(const EvalContext& context, std::string message, DataType type);
// FailQuery for a text position before the first character (`function`'s start argument).
Datum FailStartBeforeFirst(const EvalContext& context, std::string_view function, int64_t start,
                           DataType type);
// `d` as `to` where `to` is DOUBLE and `d` a number; unchanged otherwise.
Datum CoerceTo(const Datum& d, DataType to);

}  // namespace strata::query
