#include "server/grpc/row_page_encoder.h"

#include "absl/base/casts.h"
#include "common/utf8.h"
#include "google/protobuf/io/coded_stream.h"
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

void AppendBatchRows(const query::Batch& batch, size_t start, size_t n, std::string* rows) {
  std::string row, datum;
  for (size_t r = start; r < start + n; ++r) {
    row.clear();
    for (const query::Vector& v : batch.columns) {
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

grpc::ByteBuffer TakeAsByteBuffer(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  grpc::Slice slice(owned->data(), owned->size(),
                    [](void* p) { delete static_cast<std::string*>(p); }, owned);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace strata
