#include "server/wire/column_pages.h"

#include <algorithm>

#include "common/status.h"
#include "common/utf8.h"
#include "server/wire/datum_proto.h"

namespace strata {
namespace {

using query::DataType;

// Appends `n` cells of one column after the page's first `base` rows. `Cells`
// reads cell i: null(i), number(i) (as a double), integer(i), text(i),
// datum(i) (arrays, rows, timeseries). A
// null map, once a column has one, covers every row of the page.
template <typename Cells>
void AppendColumn(DataType type, const Cells& cells, size_t base, size_t n,
                  v1::ColumnValues* column) {
  std::string* nulls = column->mutable_nulls();
  const size_t bytes = (base + n + 7) / 8;
  auto mark_null = [&](size_t row) {  // `row` within the page
    if (nulls->size() < bytes) nulls->resize(bytes, '\0');
    (*nulls)[row / 8] = static_cast<char>((*nulls)[row / 8] | (1 << (row % 8)));
  };
  // One loop per type (the switch is out of the per-cell loop), appending
  // to arrays reserved for the whole run of cells.
  auto each = [&](auto&& append) {
    for (size_t i = 0; i < n; ++i) {
      const bool null = cells.null(i);
      if (null) mark_null(base + i);
      append(i, null);
    }
  };
  if (query::IsComposite(type)) {
    each([&](size_t i, bool) { DatumToProto(cells.datum(i), column->add_values()); });
  } else {
    switch (type) {
      case DataType::kDouble: {
        auto* doubles = column->mutable_doubles();
        if (const double* run = cells.doubles_without_nulls(n)) {
          doubles->Add(run, run + n);  // one copy of the whole run
          break;
        }
        doubles->Reserve(doubles->size() + static_cast<int>(n));
        each([&](size_t i, bool null) { doubles->AddAlreadyReserved(null ? 0.0 : cells.number(i)); });
        break;
      }
      case DataType::kBigint:
      case DataType::kTimestamp:
      case DataType::kInterval:
      case DataType::kDate:
      case DataType::kTime:
      case DataType::kIntervalYearToMonth: {
        auto* ints = column->mutable_ints();
        if (const int64_t* run = cells.ints_without_nulls(n)) {
          ints->Add(run, run + n);
          break;
        }
        ints->Reserve(ints->size() + static_cast<int>(n));
        each([&](size_t i, bool null) { ints->AddAlreadyReserved(null ? 0 : cells.integer(i)); });
        break;
      }
      case DataType::kBoolean: {
        auto* booleans = column->mutable_booleans();
        booleans->Reserve(booleans->size() + static_cast<int>(n));
        each([&](size_t i, bool null) {
          booleans->AddAlreadyReserved(!null && cells.integer(i) != 0);
        });
        break;
      }
      case DataType::kVarchar:
      case DataType::kJson: {
        std::string* data = column->mutable_string_data();
        auto* ends = column->mutable_string_ends();
        ends->Reserve(ends->size() + static_cast<int>(n));
        // A series' rows view the same dimension value: the view checked
        // last is not checked again (most of a wide page's strings are such).
        std::string_view checked;
        each([&](size_t i, bool null) {
          if (!null) {
            const std::string_view s = cells.text(i);
            if ((s.data() == checked.data() && s.size() == checked.size()) || IsValidUtf8(s)) {
              data->append(s);
              checked = s;
            } else {
              data->append(ToValidUtf8(s));
            }
          }
          ends->AddAlreadyReserved(static_cast<uint32_t>(data->size()));
        });
        break;
      }
      case DataType::kUnknown:
      case DataType::kFirstComposite:
        // NULL is all an UNKNOWN column holds.
        for (size_t i = 0; i < n; ++i) mark_null(base + i);
        break;
    }
  }
  if (!nulls->empty()) nulls->resize(bytes, '\0');
}

// Column `c` of materialized rows.
struct RowCells {
  const std::vector<query::Row>& rows;
  size_t c;
  bool null(size_t i) const { return rows[i][c].null; }
  double number(size_t i) const { return rows[i][c].AsDouble(); }
  int64_t integer(size_t i) const {
    const query::Datum& d = rows[i][c];
    return d.type == DataType::kDouble ? static_cast<int64_t>(d.d) : d.i;
  }
  std::string_view text(size_t i) const { return rows[i][c].s; }
  const query::Datum& datum(size_t i) const { return rows[i][c]; }
  // Rows hold no array of values to copy at once.
  const double* doubles_without_nulls(size_t) const { return nullptr; }
  const int64_t* ints_without_nulls(size_t) const { return nullptr; }
};

// Rows [start, start + n) of one batch column; a column the batch does not
// hold (size 0) is NULL.
struct VectorCells {
  const query::Vector& v;
  size_t start;
  bool held;
  bool null(size_t i) const { return !held || v.null(start + i); }
  double number(size_t i) const { return v.AsDouble(start + i); }
  int64_t integer(size_t i) const {
    return v.type == DataType::kDouble ? static_cast<int64_t>(v.doubles[start + i])
                                       : v.ints[start + i];
  }
  std::string_view text(size_t i) const { return v.strings[start + i]; }
  query::Datum datum(size_t i) const { return held ? v.Get(start + i) : query::Datum::Null(v.type); }
  // The `n` values from `start` as one array when none is NULL (else nullptr).
  const double* doubles_without_nulls(size_t n) const {
    return held && v.type == DataType::kDouble && NoNulls(n) ? v.doubles.data() + start : nullptr;
  }
  const int64_t* ints_without_nulls(size_t n) const {
    return held && query::UsesInts(v.type) && NoNulls(n) ? v.ints.data() + start : nullptr;
  }

 private:
  bool NoNulls(size_t n) const {
    const uint8_t* nulls = v.nulls.data() + start;
    uint8_t any = 0;
    for (size_t i = 0; i < n; ++i) any |= nulls[i];  // no early exit: the loop vectorizes
    return any == 0;
  }
};

}  // namespace

void ToColumnPage(const std::vector<DataType>& types, const std::vector<query::Row>& rows,
                  v1::ColumnPage* out) {
  for (size_t c = 0; c < types.size(); ++c) {
    AppendColumn(types[c], RowCells{rows, c}, 0, rows.size(), out->add_columns());
  }
  out->set_row_count(static_cast<int32_t>(rows.size()));
}

void AppendToColumnPage(const std::vector<DataType>& types, const query::Batch& batch,
                        size_t start, size_t n, v1::ColumnPage* page) {
  std::vector<int> all(types.size());
  for (size_t c = 0; c < types.size(); ++c) all[c] = static_cast<int>(c);
  AppendColumnsToPage(types, batch, all, start, n, page);
}

void AppendColumnsToPage(const std::vector<DataType>& types, const query::Batch& batch,
                         const std::vector<int>& columns, size_t start, size_t n,
                         v1::ColumnPage* page) {
  const size_t base = static_cast<size_t>(page->row_count());
  while (page->columns_size() < static_cast<int>(columns.size())) page->add_columns();
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto c = static_cast<size_t>(columns[i]);
    const query::Vector& v = batch.columns[c];
    AppendColumn(types[c], VectorCells{v, start, v.size() == batch.rows}, base, n,
                 page->mutable_columns(static_cast<int>(i)));
  }
  page->set_row_count(static_cast<int32_t>(base + n));
}

int64_t ColumnPageBytes(const v1::ColumnPage& page) {
  int64_t bytes = 0;
  for (const v1::ColumnValues& c : page.columns()) {
    bytes += 8 * (c.doubles_size() + c.ints_size()) + c.booleans_size() + 4 * c.string_ends_size() +
             static_cast<int64_t>(c.string_data().size() + c.nulls().size());
  }
  return bytes;
}

namespace {

class ColumnPageEncoder final : public query::PageEncoder {
 public:
  ColumnPageEncoder(std::vector<DataType> types, std::vector<int> columns, query::RelayForm form)
      : types_(std::move(types)), columns_(std::move(columns)), form_(form) {}

  absl::Status Add(const query::Batch& batch, const Page& page) override {
    const auto page_size = static_cast<size_t>(form_.page_size);
    for (size_t start = 0; start < batch.rows;) {
      // Asked again each time: Flush clears the response, whose page (of a oneof) goes too.
      v1::ColumnPage* pending = pending_.mutable_column_page();
      const auto held = static_cast<size_t>(pending->row_count());
      size_t n =
          query::RowsWithinBytes(batch, start, std::min(batch.rows - start, page_size - held),
                                 form_.page_bytes - pending_bytes_);
      if (n == 0 && held > 0) {  // the next row goes into a page of its own
        RETURN_IF_ERROR(Flush(page));
        continue;
      }
      n = std::max<size_t>(n, 1);  // a row longer than a page is one alone
      AppendColumnsToPage(types_, batch, columns_, start, n, pending);
      start += n;
      pending_bytes_ = ColumnPageBytes(*pending);
      if (static_cast<size_t>(pending->row_count()) >= page_size ||
          pending_bytes_ >= form_.page_bytes) {
        RETURN_IF_ERROR(Flush(page));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Flush(const Page& page) override {
    const auto rows = static_cast<size_t>(pending_.column_page().row_count());
    if (rows == 0) return absl::OkStatus();
    std::string bytes = pending_.SerializeAsString();
    pending_.Clear();
    pending_bytes_ = 0;
    return page(std::move(bytes), rows);
  }

 private:
  const std::vector<DataType> types_;
  const std::vector<int> columns_;
  const query::RelayForm form_;
  v1::QueryResponse pending_;
  int64_t pending_bytes_ = 0;
};

}  // namespace

std::unique_ptr<query::PageEncoder> NewColumnPageEncoder(std::vector<DataType> types,
                                                         std::vector<int> columns,
                                                         query::RelayForm form) {
  return std::make_unique<ColumnPageEncoder>(std::move(types), std::move(columns), form);
}

}  // namespace strata
