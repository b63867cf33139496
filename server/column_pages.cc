#include "server/column_pages.h"

#include "common/utf8.h"

namespace strata {

void ToColumnPage(const std::vector<query::DataType>& types, const std::vector<query::Row>& rows,
                  v1::ColumnPage* out) {
  using query::DataType;
  const size_t n = rows.size();
  out->set_row_count(static_cast<int32_t>(n));
  for (size_t c = 0; c < types.size(); ++c) {
    v1::ColumnValues* column = out->add_columns();
    const DataType type = types[c];
    std::string nulls;
    auto mark_null = [&](size_t r) {
      if (nulls.empty()) nulls.assign((n + 7) / 8, '\0');
      nulls[r / 8] = static_cast<char>(nulls[r / 8] | (1 << (r % 8)));
    };
    switch (type) {
      case DataType::kDouble: {
        auto* values = column->mutable_doubles();
        values->Reserve(static_cast<int>(n));
        for (size_t r = 0; r < n; ++r) {
          const query::Datum& d = rows[r][c];
          if (d.null) mark_null(r);
          values->AddAlreadyReserved(d.null ? 0.0 : d.AsDouble());
        }
        break;
      }
      case DataType::kBigint:
      case DataType::kTimestamp:
      case DataType::kInterval: {
        auto* values = column->mutable_ints();
        values->Reserve(static_cast<int>(n));
        for (size_t r = 0; r < n; ++r) {
          const query::Datum& d = rows[r][c];
          if (d.null) mark_null(r);
          values->AddAlreadyReserved(d.null ? 0 : d.i);
        }
        break;
      }
      case DataType::kBoolean: {
        auto* values = column->mutable_booleans();
        values->Reserve(static_cast<int>(n));
        for (size_t r = 0; r < n; ++r) {
          const query::Datum& d = rows[r][c];
          if (d.null) mark_null(r);
          values->AddAlreadyReserved(!d.null && d.i != 0);
        }
        break;
      }
      case DataType::kVarchar: {
        std::string* data = column->mutable_string_data();
        auto* ends = column->mutable_string_ends();
        ends->Reserve(static_cast<int>(n));
        for (size_t r = 0; r < n; ++r) {
          const query::Datum& d = rows[r][c];
          if (d.null) {
            mark_null(r);
          } else if (IsValidUtf8(d.s)) {
            data->append(d.s);
          } else {
            data->append(ToValidUtf8(d.s));
          }
          ends->AddAlreadyReserved(static_cast<uint32_t>(data->size()));
        }
        break;
      }
      case DataType::kUnknown:
        for (size_t r = 0; r < n; ++r) mark_null(r);
        break;
    }
    if (!nulls.empty()) column->set_nulls(std::move(nulls));
  }
}

}  // namespace strata
