#include "server/grpc/row_page_encoder.h"

#include <algorithm>

#include "absl/base/casts.h"
#include "common/status.h"
#include "common/utf8.h"
#include "google/protobuf/io/coded_stream.h"
#include "server/wire/column_pages.h"
#include "server/wire/datum_proto.h"
#include "strata/v1/query.pb.h"

namespace strata {
namespace {

using google::protobuf::io::CodedOutputStream;

// Field numbers, from the generated code (so they follow query.proto).
constexpr uint32_t kResponsePage = v1::QueryResponse::kPageFieldNumber;
constexpr uint32_t kPageRows = v1::RowPage::kRowsFieldNumber;
constexpr uint32_t kRowData = v1::Row::kDataFieldNumber;
constexpr uint32_t kNull = v1::Datum::kNullValueFieldNumber;
constexpr uint32_t kDouble = v1::Datum::kDoubleValueFieldNumber;
constexpr uint32_t kBigint = v1::Datum::kBigintValueFieldNumber;
constexpr uint32_t kVarchar = v1::Datum::kVarcharValueFieldNumber;
constexpr uint32_t kBoolean = v1::Datum::kBooleanValueFieldNumber;
constexpr uint32_t kTimestamp = v1::Datum::kTimestampValueFieldNumber;
constexpr uint32_t kIntervalNanos = v1::Datum::kIntervalNanosValueFieldNumber;
constexpr uint32_t kIntervalMonths = v1::Datum::kIntervalMonthsValueFieldNumber;
constexpr uint32_t kDate = v1::Datum::kDateValueFieldNumber;

// Wire types.
constexpr uint32_t kVarintType = 0;
constexpr uint32_t kFixed64Type = 1;
constexpr uint32_t kLengthType = 2;

void PutVarint(uint64_t value, std::string* out) {
  uint8_t buffer[10];
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(value, buffer);
  out->append(reinterpret_cast<const char*>(buffer), end - buffer);
}

void PutTag(uint32_t field, uint32_t wire_type, std::string* out) {
  PutVarint((field << 3) | wire_type, out);
}

void PutLengthDelimited(uint32_t field, std::string_view bytes, std::string* out) {
  PutTag(field, kLengthType, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

// int64 and int32 fields carry negative values as 10-byte varints of the
// sign-extended value.
void PutIntField(uint32_t field, int64_t value, std::string* out) {
  PutTag(field, kVarintType, out);
  PutVarint(static_cast<uint64_t>(value), out);
}

// A varchar_value field: text as it may leave the server (SetWellFormed's
// rule), without a copy when it is already valid UTF-8.
void PutText(std::string_view text, std::string* out) {
  if (IsValidUtf8(text)) {
    PutLengthDelimited(kVarchar, text, out);
  } else {
    PutLengthDelimited(kVarchar, ToValidUtf8(text), out);
  }
}

// A scalar Datum's bytes (without its own tag and length); `type` says
// which of `integer`, `real` and `text` holds the value.
void EncodeScalar(query::DataType type, int64_t integer, double real, std::string_view text,
                  std::string* out) {
  switch (type) {
    case query::DataType::kBoolean: PutIntField(kBoolean, integer != 0 ? 1 : 0, out); return;
    case query::DataType::kBigint: PutIntField(kBigint, integer, out); return;
    case query::DataType::kDouble: {
      PutTag(kDouble, kFixed64Type, out);
      uint8_t buffer[8];
      CodedOutputStream::WriteLittleEndian64ToArray(absl::bit_cast<uint64_t>(real), buffer);
      out->append(reinterpret_cast<const char*>(buffer), sizeof(buffer));
      return;
    }
    case query::DataType::kVarchar:
    case query::DataType::kJson:
      PutText(text, out);
      return;
    case query::DataType::kTimestamp: PutIntField(kTimestamp, integer, out); return;
    case query::DataType::kInterval:
    case query::DataType::kTime: PutIntField(kIntervalNanos, integer, out); return;
    case query::DataType::kIntervalYearToMonth: PutIntField(kIntervalMonths, integer, out); return;
    // Dates span the timestamps' range: their day numbers fit in 32 bits.
    case query::DataType::kDate: PutIntField(kDate, static_cast<int32_t>(integer), out); return;
    case query::DataType::kUnknown:
    case query::DataType::kFirstComposite: break;
  }
  PutIntField(kNull, 1, out);
}

// Nested values (arrays, maps, rows, time series) go through the message.
void EncodeNested(const query::Datum& d, std::string* out) {
  v1::Datum message;
  DatumToProto(d, &message);
  message.AppendToString(out);
}

// One Datum message's bytes (without its own tag and length).
void EncodeDatum(const query::Datum& d, std::string* out) {
  if (d.null) {
    PutIntField(kNull, 1, out);
  } else if (query::KindOf(d.type) != query::TypeKind::kScalar) {
    EncodeNested(d, out);
  } else {
    EncodeScalar(d.type, d.i, d.d, d.s, out);
  }
}

// Cell `i` of `v` as EncodeDatum(v.Get(i)) would write it, reading the
// vector in place (no Datum, no string copy) except for nested values.
void EncodeCell(const query::Vector& v, size_t i, std::string* out) {
  if (v.null(i)) {
    PutIntField(kNull, 1, out);
  } else if (query::IsComposite(v.type)) {
    EncodeNested(v.Get(i), out);
  } else if (v.type == query::DataType::kDouble) {
    EncodeScalar(v.type, 0, v.doubles[i], {}, out);
  } else if (query::IsText(v.type)) {
    EncodeScalar(v.type, 0, 0, v.strings[i], out);
  } else if (v.type == query::DataType::kUnknown) {
    PutIntField(kNull, 1, out);  // an UNKNOWN vector holds no values
  } else {
    EncodeScalar(v.type, v.ints[i], 0, {}, out);
  }
}

}  // namespace

std::string RowPageResponse(std::string_view rows) {
  std::string response;
  response.reserve(rows.size() + 11);
  PutLengthDelimited(kResponsePage, rows, &response);
  return response;
}

std::string EncodeRowPageResponse(const std::vector<query::Row>& rows) {
  std::string page, row, datum;
  for (const query::Row& values : rows) {
    row.clear();
    for (const query::Datum& d : values) {
      datum.clear();
      EncodeDatum(d, &datum);
      PutLengthDelimited(kRowData, datum, &row);
    }
    PutLengthDelimited(kPageRows, row, &page);
  }
  return RowPageResponse(page);
}

namespace {

// Rows [start, start + n) of `batch`, each the cells of the columns `column(i)` for i below
// `width`.
template <typename ColumnAt>
void AppendRows(const query::Batch& batch, size_t width, const ColumnAt& column, size_t start,
                size_t n, std::string* rows) {
  std::string row, datum;
  for (size_t r = start; r < start + n; ++r) {
    row.clear();
    for (size_t i = 0; i < width; ++i) {
      const query::Vector& v = batch.columns[column(i)];
      datum.clear();
      if (v.size() == batch.rows) {
        EncodeCell(v, r, &datum);
      } else {
        PutIntField(kNull, 1, &datum);  // a column the batch does not hold
      }
      PutLengthDelimited(kRowData, datum, &row);
    }
    PutLengthDelimited(kPageRows, row, rows);
  }
}

class RowPageEncoder final : public query::PageEncoder {
 public:
  RowPageEncoder(std::vector<int> columns, query::RelayForm form)
      : columns_(std::move(columns)), form_(form) {}

  absl::Status Add(const query::Batch& batch, const Page& page) override {
    const auto page_size = static_cast<size_t>(form_.page_size);
    for (size_t start = 0; start < batch.rows;) {
      size_t n =
          query::RowsWithinBytes(batch, start, std::min(batch.rows - start, page_size - held_),
                                 form_.page_bytes - static_cast<int64_t>(rows_.size()));
      if (n == 0 && held_ > 0) {  // the next row goes into a page of its own
        RETURN_IF_ERROR(Flush(page));
        continue;
      }
      n = std::max<size_t>(n, 1);  // a row longer than a page is one alone
      AppendBatchColumnsRows(batch, columns_, start, n, &rows_);
      held_ += n;
      start += n;
      if (held_ >= page_size || static_cast<int64_t>(rows_.size()) >= form_.page_bytes) {
        RETURN_IF_ERROR(Flush(page));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Flush(const Page& page) override {
    if (held_ == 0) return absl::OkStatus();
    std::string bytes = RowPageResponse(rows_);
    const size_t rows = held_;
    rows_.clear();
    held_ = 0;
    return page(std::move(bytes), rows);
  }

 private:
  const std::vector<int> columns_;
  const query::RelayForm form_;
  std::string rows_;  // the page's RowPage entries
  size_t held_ = 0;   // rows in rows_
};

}  // namespace

void AppendBatchRows(const query::Batch& batch, size_t start, size_t n, std::string* rows) {
  AppendRows(
      batch, batch.columns.size(), [](size_t i) { return i; }, start, n, rows);
}

void AppendBatchColumnsRows(const query::Batch& batch, const std::vector<int>& columns,
                            size_t start, size_t n, std::string* rows) {
  AppendRows(
      batch, columns.size(), [&](size_t i) { return static_cast<size_t>(columns[i]); }, start, n,
      rows);
}

std::unique_ptr<query::PageEncoder> NewResultPageEncoder(std::vector<query::DataType> types,
                                                         std::vector<int> columns,
                                                         query::RelayForm form) {
  if (form.row_pages) return std::make_unique<RowPageEncoder>(std::move(columns), form);
  return NewColumnPageEncoder(std::move(types), std::move(columns), form);
}

grpc::ByteBuffer TakeAsByteBuffer(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  grpc::Slice slice(owned->data(), owned->size(),
                    [](void* p) { delete static_cast<std::string*>(p); }, owned);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace strata
