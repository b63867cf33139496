#include "cluster/scan_pages.h"

#include <xxhash.h>

#include <deque>
#include <memory>
#include <numeric>
#include <string>

#include "common/status.h"
#include "common/strings.h"

namespace strata::cluster {

using query::DataType;

void EncodeColumns(const std::vector<query::ResultColumn>& columns,
                   internal::v1::ScanResponse* out) {
  for (const query::ResultColumn& c : columns) {
    auto* column = out->add_columns();
    column->set_name(c.name);
    column->set_type(static_cast<int>(c.type));
  }
}

std::vector<query::ResultColumn> DecodeColumns(const internal::v1::ScanResponse& page) {
  std::vector<query::ResultColumn> columns;
  for (const auto& c : page.columns()) {
    columns.push_back({c.name(), static_cast<DataType>(c.type())});
  }
  return columns;
}

uint64_t ColumnsFingerprint(const std::vector<query::ResultColumn>& columns) {
  std::string bytes;
  for (const query::ResultColumn& c : columns) {
    bytes.append(c.name).push_back('\0');
    bytes.append(std::to_string(static_cast<int>(c.type))).push_back('\0');
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

absl::Status EncodeBatch(const query::Batch& batch, const std::vector<DataType>& types,
                         internal::v1::ScanResponse* out) {
  const size_t rows = batch.rows;
  out->set_rows(static_cast<int>(rows));
  for (size_t c = 0; c < types.size(); ++c) {
    const DataType type = types[c];
    if (query::IsComposite(type)) {
      return absl::InvalidArgumentError(
          StrCat("a fragment's column of type ", query::TypeName(type), " cannot be sent"));
    }
    auto* column = out->add_columns();
    const bool read = c < batch.columns.size() && batch.columns[c].size() == rows;
    if (!read) {
      column->set_nulls(std::string(rows, '\1'));
      if (type == DataType::kDouble)
        column->mutable_doubles()->Resize(static_cast<int>(rows), 0);
      else if (query::IsText(type))
        column->mutable_string_ends()->Resize(static_cast<int>(rows), 0);
      else if (type != DataType::kUnknown)
        column->mutable_ints()->Resize(static_cast<int>(rows), 0);
      continue;
    }
    const query::Vector& v = batch.columns[c];
    column->set_nulls(std::string(v.nulls.begin(), v.nulls.end()));
    if (type == DataType::kDouble) {
      column->mutable_doubles()->Add(v.doubles.begin(), v.doubles.begin() + rows);
    } else if (query::IsText(type)) {
      std::string* data = column->mutable_string_data();
      for (size_t i = 0; i < rows; ++i) {
        if (!v.null(i)) data->append(v.strings[i]);
        column->add_string_ends(static_cast<uint32_t>(data->size()));
      }
    } else if (type != DataType::kUnknown) {
      column->mutable_ints()->Add(v.ints.begin(), v.ints.begin() + rows);
    }
  }
  return absl::OkStatus();
}

absl::Status EncodePages(
    const query::Batch& batch, const std::vector<DataType>& types, size_t max_page_bytes,
    const std::function<absl::Status(const internal::v1::ScanResponse&)>& send) {
  internal::v1::ScanResponse page;
  RETURN_IF_ERROR(EncodeBatch(batch, types, &page));
  if (page.ByteSizeLong() <= max_page_bytes || batch.rows <= 1) return send(page);
  // In halves, each split again while too large: depth log2(rows).
  std::vector<uint32_t> front(batch.rows / 2), back(batch.rows - front.size());
  std::iota(front.begin(), front.end(), 0);
  std::iota(back.begin(), back.end(), static_cast<uint32_t>(front.size()));
  RETURN_IF_ERROR(EncodePages(query::TakeRows(batch, front), types, max_page_bytes, send));
  return EncodePages(query::TakeRows(batch, back), types, max_page_bytes, send);
}

query::Batch RowsAsBatch(const std::vector<DataType>& types, const std::vector<query::Row>& rows) {
  query::Batch batch = query::NewBatch(types, rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < types.size(); ++c) batch.columns[c].Set(r, rows[r][c]);
  }
  return batch;
}

absl::StatusOr<query::Batch> DecodeBatch(const internal::v1::ScanResponse& page,
                                         const std::vector<DataType>& types) {
  if (page.rows() < 0 || page.columns_size() != static_cast<int>(types.size())) {
    return absl::InvalidArgumentError(
        StrCat("a fragment's page holds ", page.columns_size(), " columns, not ", types.size()));
  }
  const size_t rows = static_cast<size_t>(page.rows());
  query::Batch batch;
  batch.rows = rows;
  auto arena = std::make_shared<std::deque<std::string>>();
  for (size_t c = 0; c < types.size(); ++c) {
    const auto& column = page.columns(static_cast<int>(c));
    const DataType type = types[c];
    auto bad = [&] {
      return absl::InvalidArgumentError(
          StrCat("a fragment's page has a malformed column ", c, " of ", rows, " rows"));
    };
    if (column.nulls().size() != rows || query::IsComposite(type)) return bad();
    query::Vector& v = batch.columns.emplace_back(type);
    v.nulls.assign(column.nulls().begin(), column.nulls().end());
    if (type == DataType::kDouble) {
      if (static_cast<size_t>(column.doubles_size()) != rows) return bad();
      v.doubles.assign(column.doubles().begin(), column.doubles().end());
    } else if (query::IsText(type)) {
      if (static_cast<size_t>(column.string_ends_size()) != rows) return bad();
      // The page's bytes are kept once; the values are views of them.
      const std::string& data = arena->emplace_back(column.string_data());
      v.arena = arena;
      v.strings.resize(rows);
      uint32_t begin = 0;
      for (size_t i = 0; i < rows; ++i) {
        const uint32_t end = column.string_ends(static_cast<int>(i));
        if (end < begin || end > data.size()) return bad();
        v.strings[i] = std::string_view(data).substr(begin, end - begin);
        begin = end;
      }
    } else if (type != DataType::kUnknown) {
      if (static_cast<size_t>(column.ints_size()) != rows) return bad();
      v.ints.assign(column.ints().begin(), column.ints().end());
    }
  }
  return batch;
}

void EncodeStats(const query::QueryStats& stats, internal::v1::ScanResponse* out) {
  internal::v1::ScanStats* s = out->mutable_stats();
  s->set_rows_scanned(stats.rows_scanned);
  s->set_bytes_scanned(stats.bytes_scanned);
  s->set_buckets_scanned(stats.buckets_scanned);
  s->set_buckets_pruned(stats.buckets_pruned);
  s->set_partitions_scanned(stats.partitions_scanned);
  s->set_partitions_pruned(stats.partitions_pruned);
  s->set_series_scanned(stats.series_scanned);
  s->set_series_pruned(stats.series_pruned);
  s->set_blocks_scanned(stats.blocks_scanned);
  s->set_blocks_pruned(stats.blocks_pruned);
}

query::QueryStats DecodeStats(const internal::v1::ScanResponse& page) {
  const internal::v1::ScanStats& s = page.stats();
  return {.rows_scanned = s.rows_scanned(),
          .bytes_scanned = s.bytes_scanned(),
          .buckets_scanned = s.buckets_scanned(),
          .buckets_pruned = s.buckets_pruned(),
          .partitions_scanned = s.partitions_scanned(),
          .partitions_pruned = s.partitions_pruned(),
          .series_scanned = s.series_scanned(),
          .series_pruned = s.series_pruned(),
          .blocks_scanned = s.blocks_scanned(),
          .blocks_pruned = s.blocks_pruned()};
}

void EncodeList(const std::string& name, const query::Datum& array, internal::v1::ScanList* out) {
  out->set_name(name);
  const DataType element = query::ElementType(array.type);
  std::vector<query::Row> rows;
  rows.reserve(array.items().size());
  for (const query::Datum& value : array.items()) rows.push_back({value});
  internal::v1::ScanResponse page;
  // The lists ListParameters names are of scalars: EncodeBatch takes them.
  EncodeBatch(RowsAsBatch({element}, rows), {element}, &page).IgnoreError();
  if (page.columns_size() == 1) *out->mutable_values() = std::move(*page.mutable_columns(0));
  out->mutable_values()->set_type(static_cast<int32_t>(element));
}

absl::StatusOr<query::Datum> DecodeList(const internal::v1::ScanList& list) {
  const auto element = static_cast<DataType>(list.values().type());
  const std::optional<DataType> array = query::ArrayOf(element);
  if (query::IsComposite(element) || !array) {
    return absl::InvalidArgumentError(StrCat("list ", list.name(), " is not of scalars"));
  }
  internal::v1::ScanResponse page;
  page.set_rows(static_cast<int32_t>(list.values().nulls().size()));
  *page.add_columns() = list.values();
  ASSIGN_OR_RETURN(query::Batch batch, DecodeBatch(page, {element}));
  std::vector<query::Datum> values;
  values.reserve(batch.rows);
  for (size_t i = 0; i < batch.rows; ++i) values.push_back(batch.columns[0].Get(i));
  return query::Datum::Composite(*array, std::move(values));
}

}  // namespace strata::cluster
