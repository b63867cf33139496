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

void AppendToColumnPage(const std::vector<query::DataType>& types, const query::Batch& batch,
                        size_t start, size_t n, v1::ColumnPage* page) {
  using query::DataType;
  const size_t base = static_cast<size_t>(page->row_count());
  while (page->columns_size() < static_cast<int>(types.size())) page->add_columns();
  for (size_t c = 0; c < types.size(); ++c) {
    v1::ColumnValues* column = page->mutable_columns(static_cast<int>(c));
    const query::Vector& v = batch.columns[c];
    const bool held = v.size() == batch.rows;
    std::string* nulls = column->mutable_nulls();
    auto mark_null = [&](size_t row) {  // `row` within the page
      if (nulls->size() < (base + n + 7) / 8) nulls->resize((base + n + 7) / 8, '\0');
      (*nulls)[row / 8] = static_cast<char>((*nulls)[row / 8] | (1 << (row % 8)));
    };
    for (size_t i = start; i < start + n; ++i) {
      const size_t row = base + i - start;
      const bool null = !held || v.null(i);
      if (null) mark_null(row);
      switch (types[c]) {
        case DataType::kDouble:
          column->add_doubles(null ? 0.0 : v.AsDouble(i));
          break;
        case DataType::kBigint:
        case DataType::kTimestamp:
        case DataType::kInterval:
          column->add_ints(null ? 0 : (v.type == DataType::kDouble ? static_cast<int64_t>(v.doubles[i])
                                                                    : v.ints[i]));
          break;
        case DataType::kBoolean:
          column->add_booleans(!null && v.ints[i] != 0);
          break;
        case DataType::kVarchar: {
          std::string* data = column->mutable_string_data();
          if (!null) {
            const std::string_view s = v.strings[i];
            if (IsValidUtf8(s)) {
              data->append(s);
            } else {
              data->append(ToValidUtf8(s));
            }
          }
          column->add_string_ends(static_cast<uint32_t>(data->size()));
          break;
        }
        case DataType::kUnknown:
          if (!null) mark_null(row);  // NULL is all an UNKNOWN column holds
          break;
      }
    }
    // A null map, once there is one, covers every row of the page.
    if (!nulls->empty()) nulls->resize((base + n + 7) / 8, '\0');
  }
  page->set_row_count(static_cast<int32_t>(base + n));
}

}  // namespace strata
