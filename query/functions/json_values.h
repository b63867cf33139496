// SQL values as JSON text, as PostgreSQL's to_json writes them: what the JSON constructors
// (to_json, json_build_object, json_agg, ...) and a cast to JSON make of a value.
#pragma once

#include <string>

#include "query/base/datum.h"

namespace strata::query::json {

// Appends `value` as JSON: NULL as null, a boolean as true or false, a number as written
// (a DOUBLE NaN or infinity as the string PostgreSQL writes: "NaN", "Infinity"), a VARCHAR
// as a JSON string, a JSON value as it is (its text kept as written), a timestamp, a date
// or a time as an ISO 8601 string ("2024-01-02T03:04:05.5+00:00": Strata's timestamps are
// UTC instants, PostgreSQL's timestamptz), an interval as its text, an array or a time
// series as an array, a row or a map as an object (a row's unnamed fields f1, f2, ...).
// No whitespace, as to_json writes arrays and rows.
void AppendValue(const Datum& value, std::string* out);

// AppendValue's text of `value`.
std::string ValueText(const Datum& value);

// A key of a JSON object made of `value`, a scalar that is not JSON (json_build_object's,
// json_object_agg's): a text as it is, any other value's JSON with a string's quotes taken off
// ("2024-01-02T03:04:05+00:00" for a timestamp).
std::string KeyText(const Datum& value);

}  // namespace strata::query::json
