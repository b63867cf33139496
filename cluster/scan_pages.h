// A fragment's rows on the wire between nodes (ScanResponse in
// proto/strata/internal/v1/shard.proto): query batches of a table's scalar columns to pages
// and back. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "query/base/result.h"
#include "query/base/vector.h"
#include "query/expr/expr.h"
#include "strata/internal/v1/shard.pb.h"

namespace strata::cluster {

// The first answer of a fragment: its columns.
void EncodeColumns(const std::vector<query::ResultColumn>& columns,
                   internal::v1::ScanResponse* out);
std::vector<query::ResultColumn> DecodeColumns(const internal::v1::ScanResponse& page);
// The error details of a fragment refused because its ColumnsCheck failed.
inline constexpr char kColumnsChangedDetail[] = "columns-changed";
// What tells two answers' columns (names, types, order) apart: a ColumnsCheck's fingerprint.
uint64_t ColumnsFingerprint(const std::vector<query::ResultColumn>& columns);

// `batch` (one column per entry of `types`; a column of size 0, which the query did not read,
// is NULL) as a page. INVALID_ARGUMENT for a column of a composite type (a table's columns
// are scalars).
absl::Status EncodeBatch(const query::Batch& batch, const std::vector<query::DataType>& types,
                         internal::v1::ScanResponse* out);
// `batch` as pages of at most `max_page_bytes` each (a page of one row may be larger), each
// handed to `send`: long strings would otherwise make a page the gRPC server refuses to send.
absl::Status EncodePages(
    const query::Batch& batch, const std::vector<query::DataType>& types, size_t max_page_bytes,
    const std::function<absl::Status(const internal::v1::ScanResponse&)>& send);

// Rows of a fragment's result (each one value per entry of `types`) as one batch: for
// statements the engine answers in rows.
query::Batch RowsAsBatch(const std::vector<query::DataType>& types,
                         const std::vector<query::Row>& rows);
// A fragment's scan statistics, on its last answer, and back.
void EncodeStats(const query::QueryStats& stats, internal::v1::ScanResponse* out);
query::QueryStats DecodeStats(const internal::v1::ScanResponse& page);

// A long IN list named `name` (an array of scalars) as a ScanRequest sends it, and back as that
// array; INVALID_ARGUMENT when the column does not hold one.
void EncodeList(const std::string& name, const query::Datum& array, internal::v1::ScanList* out);
absl::StatusOr<query::Datum> DecodeList(const internal::v1::ScanList& list);

// A page back as a batch of `types`; INVALID_ARGUMENT when it does not hold one.
absl::StatusOr<query::Batch> DecodeBatch(const internal::v1::ScanResponse& page,
                                         const std::vector<query::DataType>& types);

}  // namespace strata::cluster
