#include "client/column_pages.h"

#include "absl/strings/str_cat.h"

namespace strata::cli {

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
    const v1::ScalarType type = metadata.columns(c).type().scalar_type();
    const std::string& nulls = column.nulls();
    if (!nulls.empty() && nulls.size() != static_cast<size_t>((rows + 7) / 8)) {
      return absl::InvalidArgumentError(absl::StrCat("column ", c + 1, " has a null map of ",
                                                     nulls.size(), " bytes for ", rows, " rows"));
    }
    auto expect = [&](int count) -> absl::Status {
      if (count == rows) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat("column ", c + 1, " holds ", count,
                                                     " values for ", rows, " rows"));
    };
    uint32_t start = 0;
    for (int r = 0; r < rows; ++r) {
      v1::Datum* d = out.mutable_rows(r)->add_data();
      const bool null = !nulls.empty() && (nulls[r / 8] >> (r % 8) & 1);
      if (type == v1::SCALAR_TYPE_VARCHAR) {
        if (r == 0) {
          if (absl::Status s = expect(column.string_ends_size()); !s.ok()) return s;
        }
        const uint32_t end = column.string_ends(r);
        if (end < start || end > column.string_data().size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("column ", c + 1, " row ", r + 1, " ends outside its text"));
        }
        if (!null) d->set_varchar_value(column.string_data().substr(start, end - start));
        start = end;
        if (null) d->set_null_value(true);
        continue;
      }
      if (null || type == v1::SCALAR_TYPE_UNKNOWN) {
        d->set_null_value(true);
        continue;
      }
      switch (type) {
        case v1::SCALAR_TYPE_DOUBLE:
          if (column.doubles_size() != rows) return expect(column.doubles_size());
          d->set_double_value(column.doubles(r));
          break;
        case v1::SCALAR_TYPE_BOOLEAN:
          if (column.booleans_size() != rows) return expect(column.booleans_size());
          d->set_boolean_value(column.booleans(r));
          break;
        case v1::SCALAR_TYPE_BIGINT:
        case v1::SCALAR_TYPE_INTEGER:
          if (column.ints_size() != rows) return expect(column.ints_size());
          d->set_bigint_value(column.ints(r));
          break;
        case v1::SCALAR_TYPE_TIMESTAMP:
          if (column.ints_size() != rows) return expect(column.ints_size());
          d->set_timestamp_value(column.ints(r));
          break;
        case v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND:
        case v1::SCALAR_TYPE_TIME:
          if (column.ints_size() != rows) return expect(column.ints_size());
          d->set_interval_nanos_value(column.ints(r));
          break;
        default:
          return absl::InvalidArgumentError(
              absl::StrCat("column ", c + 1, " has a type columnar pages do not carry (",
                           v1::ScalarType_Name(type), ")"));
      }
    }
  }
  return out;
}

}  // namespace strata::cli
