#include "server/wire/datum_proto.h"

#include "common/utf8.h"

namespace strata {
namespace {

v1::ScalarType ScalarToProto(query::DataType type) {
  switch (type) {
    case query::DataType::kBoolean: return v1::SCALAR_TYPE_BOOLEAN;
    case query::DataType::kBigint: return v1::SCALAR_TYPE_BIGINT;
    case query::DataType::kDouble: return v1::SCALAR_TYPE_DOUBLE;
    case query::DataType::kVarchar:
    case query::DataType::kJson:
      return v1::SCALAR_TYPE_VARCHAR;  // Timestream has no JSON type
    case query::DataType::kTimestamp: return v1::SCALAR_TYPE_TIMESTAMP;
    case query::DataType::kInterval: return v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND;
    case query::DataType::kDate: return v1::SCALAR_TYPE_DATE;
    case query::DataType::kTime: return v1::SCALAR_TYPE_TIME;
    case query::DataType::kIntervalYearToMonth: return v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH;
    case query::DataType::kUnknown:
    case query::DataType::kFirstComposite: return v1::SCALAR_TYPE_UNKNOWN;
  }
  return v1::SCALAR_TYPE_UNKNOWN;
}

}  // namespace

// A column's type as Timestream's API spells it: an array's element and a
// timeseries' value as an unnamed ColumnInfo, a row's fields named.
void TypeToProto(query::DataType type, v1::ColumnType* out) {
  switch (query::KindOf(type)) {
    case query::TypeKind::kScalar: out->set_scalar_type(ScalarToProto(type)); return;
    case query::TypeKind::kArray:
      TypeToProto(query::ElementType(type), out->mutable_array_column_info()->mutable_type());
      return;
    case query::TypeKind::kTimeseries:
      TypeToProto(query::ElementType(type),
                  out->mutable_time_series_measure_value_column_info()->mutable_type());
      return;
    case query::TypeKind::kMap: {
      // Timestream's Datum has no map: a map is an array of (key, value) rows.
      v1::RowColumnInfo* entry =
          out->mutable_array_column_info()->mutable_type()->mutable_row_column_info();
      for (auto [name, field] : {std::pair{"key", query::MapKeyType(type)},
                                 std::pair{"value", query::ElementType(type)}}) {
        v1::ColumnInfo* info = entry->add_fields();
        info->set_name(name);
        TypeToProto(field, info->mutable_type());
      }
      return;
    }
    case query::TypeKind::kRow:
      for (const query::RowField& f : query::RowFields(type)) {
        v1::ColumnInfo* field = out->mutable_row_column_info()->add_fields();
        field->set_name(f.name);
        TypeToProto(f.type, field->mutable_type());
      }
      return;
  }
}

// Text as it may leave the server: protobuf refuses to parse a string field
// that is not UTF-8, so one bad byte would make the client lose the whole
// page. The engine's functions keep text well formed; this is the guard that
// makes it so for any value.
void SetWellFormed(std::string_view s, std::string* out) {
  if (IsValidUtf8(s)) {
    *out = s;
  } else {
    *out = ToValidUtf8(s);
  }
}

void DatumToProto(const query::Datum& d, v1::Datum* out) {
  if (d.null) {
    out->set_null_value(true);
    return;
  }
  switch (query::KindOf(d.type)) {
    case query::TypeKind::kScalar: break;
    case query::TypeKind::kArray: {
      v1::ArrayValue* array = out->mutable_array_value();  // set even when empty
      for (const query::Datum& v : d.items()) DatumToProto(v, array->add_values());
      return;
    }
    case query::TypeKind::kMap: {
      v1::ArrayValue* entries = out->mutable_array_value();  // set even when empty
      for (size_t i = 0; i < d.items().size(); ++i) {
        v1::Row* entry = entries->add_values()->mutable_row_value();
        DatumToProto(d.nested->keys[i], entry->add_data());
        DatumToProto(d.items()[i], entry->add_data());
      }
      return;
    }
    case query::TypeKind::kRow: {
      v1::Row* row = out->mutable_row_value();
      for (const query::Datum& v : d.items()) DatumToProto(v, row->add_data());
      return;
    }
    case query::TypeKind::kTimeseries: {
      v1::TimeSeriesValue* series = out->mutable_time_series_value();
      for (size_t i = 0; i < d.items().size(); ++i) {
        v1::TimeSeriesDataPoint* point = series->add_points();
        point->set_time(d.nested->times[i]);
        DatumToProto(d.items()[i], point->mutable_value());
      }
      return;
    }
  }
  switch (d.type) {
    case query::DataType::kBoolean: out->set_boolean_value(d.i != 0); break;
    case query::DataType::kBigint: out->set_bigint_value(d.i); break;
    case query::DataType::kDouble: out->set_double_value(d.d); break;
    case query::DataType::kVarchar:
    case query::DataType::kJson:
      SetWellFormed(d.s, out->mutable_varchar_value());
      break;
    case query::DataType::kTimestamp: out->set_timestamp_value(d.i); break;
    case query::DataType::kInterval: out->set_interval_nanos_value(d.i); break;
    // Dates span the timestamps' range: their day numbers fit in 32 bits.
    case query::DataType::kDate: out->set_date_value(static_cast<int32_t>(d.i)); break;
    case query::DataType::kTime: out->set_interval_nanos_value(d.i); break;
    case query::DataType::kIntervalYearToMonth: out->set_interval_months_value(d.i); break;
    case query::DataType::kUnknown:
    case query::DataType::kFirstComposite: out->set_null_value(true); break;
  }
}

}  // namespace strata
