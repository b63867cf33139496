#include "client/column_pages.h"

#include "absl/strings/str_cat.h"

namespace strata::cli {
namespace {

// How many values a column of `type` holds (one per row, NULLs included);
// UNIMPLEMENTED for a type columnar pages do not carry.
absl::StatusOr<int> ValueCount(const v1::ColumnValues& column, v1::ScalarType type) {
  switch (type) {
    case v1::SCALAR_TYPE_UNKNOWN: return -1;  // holds none: every row is NULL
    case v1::SCALAR_TYPE_VARCHAR: return column.string_ends_size();
    case v1::SCALAR_TYPE_DOUBLE: return column.doubles_size();
    case v1::SCALAR_TYPE_BOOLEAN: return column.booleans_size();
    case v1::SCALAR_TYPE_BIGINT:
    case v1::SCALAR_TYPE_INTEGER:
    case v1::SCALAR_TYPE_TIMESTAMP:
    case v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND:
    case v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH:
    case v1::SCALAR_TYPE_DATE:
    case v1::SCALAR_TYPE_TIME: return column.ints_size();
    default:
      return absl::UnimplementedError(absl::StrCat("a type columnar pages do not carry (",
                                                   v1::ScalarType_Name(type), ")"));
  }
}

// Row `r` of `column` (checked to hold a value per row) into `d`.
void SetValue(const v1::ColumnValues& column, v1::ScalarType type, int r, v1::Datum* d) {
  switch (type) {
    case v1::SCALAR_TYPE_DOUBLE: d->set_double_value(column.doubles(r)); break;
    case v1::SCALAR_TYPE_BOOLEAN: d->set_boolean_value(column.booleans(r)); break;
    case v1::SCALAR_TYPE_TIMESTAMP: d->set_timestamp_value(column.ints(r)); break;
    case v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND:
    case v1::SCALAR_TYPE_TIME: d->set_interval_nanos_value(column.ints(r)); break;
    case v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH: d->set_interval_months_value(column.ints(r)); break;
    case v1::SCALAR_TYPE_DATE: d->set_date_value(static_cast<int32_t>(column.ints(r))); break;
    default: d->set_bigint_value(column.ints(r)); break;  // BIGINT, INTEGER
  }
}

}  // namespace

absl::StatusOr<v1::RowPage> RowsFromColumns(const v1::QueryMetadata& metadata,
                                            const v1::ColumnPage& page) {
  const int rows = page.row_count();
  if (rows < 0) {
    return absl::InvalidArgumentError(absl::StrCat("a columnar page has ", rows, " rows"));
  }
  if (page.columns_size() != metadata.columns_size()) {
    return absl::InvalidArgumentError(absl::StrCat("a columnar page has ", page.columns_size(),
                                                   " columns; the result has ",
                                                   metadata.columns_size()));
  }
  v1::RowPage out;
  out.mutable_rows()->Reserve(rows);
  for (int r = 0; r < rows; ++r) out.add_rows()->mutable_data()->Reserve(page.columns_size());
  for (int c = 0; c < page.columns_size(); ++c) {
    const v1::ColumnValues& column = page.columns(c);
    // An array, row or timeseries column carries a Datum per row in `values`.
    const bool nested = metadata.columns(c).type().type_case() != v1::ColumnType::kScalarType;
    const v1::ScalarType type = metadata.columns(c).type().scalar_type();
    const std::string& nulls = column.nulls();
    if (!nulls.empty() && nulls.size() != static_cast<size_t>((rows + 7) / 8)) {
      return absl::InvalidArgumentError(absl::StrCat("column ", c + 1, " has a null map of ",
                                                     nulls.size(), " bytes for ", rows, " rows"));
    }
    absl::StatusOr<int> count = nested ? column.values_size() : ValueCount(column, type);
    if (!count.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("column ", c + 1, " has ",
                                                     count.status().message()));
    }
    if (*count >= 0 && *count != rows) {
      return absl::InvalidArgumentError(absl::StrCat("column ", c + 1, " holds ", *count,
                                                     " values for ", rows, " rows"));
    }
    uint32_t start = 0;  // of the next VARCHAR value in string_data
    for (int r = 0; r < rows; ++r) {
      v1::Datum* d = out.mutable_rows(r)->add_data();
      const bool null = *count < 0 || (!nulls.empty() && (nulls[r / 8] >> (r % 8) & 1));
      if (type == v1::SCALAR_TYPE_VARCHAR) {
        const uint32_t end = column.string_ends(r);
        if (end < start || end > column.string_data().size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("column ", c + 1, " row ", r + 1, " ends outside its text"));
        }
        if (!null) d->set_varchar_value(column.string_data().substr(start, end - start));
        start = end;
      }
      if (null) {
        d->set_null_value(true);
      } else if (nested) {
        *d = column.values(r);
      } else if (type != v1::SCALAR_TYPE_VARCHAR) {
        SetValue(column, type, r, d);
      }
    }
  }
  return out;
}

}  // namespace strata::cli
