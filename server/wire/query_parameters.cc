#include "server/wire/query_parameters.h"

#include "common/strings.h"

namespace strata {

absl::StatusOr<query::QueryParameters> ParametersFromProto(
    const google::protobuf::RepeatedPtrField<v1::QueryParameter>& parameters) {
  query::QueryParameters out;
  for (int i = 0; i < parameters.size(); ++i) {
    const v1::QueryParameter& p = parameters[i];
    const v1::Datum& v = p.value();
    query::Datum d;
    switch (v.value_case()) {
      case v1::Datum::kNullValue: d = query::Datum::Null(); break;
      case v1::Datum::kDoubleValue: d = query::Datum::Double(v.double_value()); break;
      case v1::Datum::kBigintValue: d = query::Datum::Bigint(v.bigint_value()); break;
      case v1::Datum::kVarcharValue: d = query::Datum::Varchar(v.varchar_value()); break;
      case v1::Datum::kBooleanValue: d = query::Datum::Bool(v.boolean_value()); break;
      case v1::Datum::kTimestampValue: d = query::Datum::Timestamp(v.timestamp_value()); break;
      case v1::Datum::kIntervalNanosValue: d = query::Datum::Interval(v.interval_nanos_value()); break;
      case v1::Datum::kIntervalMonthsValue: d = query::Datum::Months(v.interval_months_value()); break;
      case v1::Datum::kDateValue: {
        // Only days whose midnight is a timestamp (the range every DATE has).
        const int64_t days = v.date_value();
        if (days < query::DateOfTimestamp(INT64_MIN) + 1 || days > query::DateOfTimestamp(INT64_MAX)) {
          return absl::InvalidArgumentError(
              StrCat("parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
                     ": date_value ", days, " is outside 1677-09-22 .. 2262-04-11"));
        }
        d = query::Datum::Date(days);
        break;
      }
      default:
        return absl::InvalidArgumentError(StrCat(
            "parameter ", i + 1, (p.name().empty() ? "" : StrCat(" (@", p.name(), ")")),
            " has no value or a type parameters cannot have; use null, double, bigint, varchar, "
            "boolean, timestamp, date, interval_nanos or interval_months"));
    }
    if (p.name().empty()) {
      out.positional.push_back(std::move(d));
    } else if (!out.named.emplace(p.name(), std::move(d)).second) {
      return absl::InvalidArgumentError(StrCat("parameter @", p.name(), " is sent twice"));
    }
  }
  return out;
}

}  // namespace strata
