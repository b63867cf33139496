#include "server/wire/query_parameters.h"

#include "common/status.h"
#include "common/strings.h"

namespace strata {

absl::StatusOr<query::Datum> ParameterValueFromProto(const v1::QueryParameter& p, int i) {
  const v1::Datum& v = p.value();
  switch (v.value_case()) {
    case v1::Datum::kNullValue: return query::Datum::Null();
    case v1::Datum::kDoubleValue: return query::Datum::Double(v.double_value());
    case v1::Datum::kBigintValue: return query::Datum::Bigint(v.bigint_value());
    case v1::Datum::kVarcharValue: return query::Datum::Varchar(v.varchar_value());
    case v1::Datum::kBooleanValue: return query::Datum::Bool(v.boolean_value());
    case v1::Datum::kTimestampValue: return query::Datum::Timestamp(v.timestamp_value());
    case v1::Datum::kIntervalNanosValue: return query::Datum::Interval(v.interval_nanos_value());
    case v1::Datum::kIntervalMonthsValue: return query::Datum::Months(v.interval_months_value());
    case v1::Datum::kDateValue: {
      // Only days whose midnight is a timestamp (the range every DATE has).
      const int64_t days = v.date_value();
      if (days < query::DateOfTimestamp(INT64_MIN) + 1 || days > query::DateOfTimestamp(INT64_MAX)) {
        return absl::InvalidArgumentError(
            StrCat("parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
                   ": date_value ", days, " is outside 1677-09-22 .. 2262-04-11"));
      }
      return query::Datum::Date(days);
    }
    default:
      return absl::InvalidArgumentError(StrCat(
          "parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
          " has no value or a type parameters cannot have; use null, double, bigint, varchar, "
          "boolean, timestamp, date, interval_nanos or interval_months"));
  }
}

absl::StatusOr<query::QueryParameters> ParametersFromProto(
    const google::protobuf::RepeatedPtrField<v1::QueryParameter>& parameters) {
  query::QueryParameters out;
  for (int i = 0; i < parameters.size(); ++i) {
    const v1::QueryParameter& p = parameters[i];
    ASSIGN_OR_RETURN(query::Datum d, ParameterValueFromProto(p, i));
    if (p.name().empty()) {
      out.positional.push_back(std::move(d));
    } else if (!out.named.emplace(p.name(), std::move(d)).second) {
      return absl::InvalidArgumentError(StrCat("parameter @", p.name(), " is sent twice"));
    }
  }
  return out;
}

}  // namespace strata
