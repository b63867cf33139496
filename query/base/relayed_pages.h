// Relayed pages: on a cluster, a query whose answer is one table's fragments' rows as they are
// (SELECT <columns> FROM t WHERE ..., no ORDER BY, grouping or LIMIT) has each fragment's
// node encode its rows as the client's own result pages (columnar or row pages), which the node the
// client asked only relays: it does not decode, copy and encode again every remote row (most of its
// time in a large read). The front door says how its pages are made (RelayForm) and makes them
// (PageEncoder); the engine and the cluster carry them as bytes they do not read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "query/base/datum.h"
#include "query/base/vector.h"

namespace strata::query {

// How the client's pages are cut: at `page_size` rows or once they hold `page_bytes` (a
// single row may pass it), as the sink cuts its own.
struct RelayForm {
  int32_t page_size = 1000;
  int64_t page_bytes = 1 << 20;
  bool row_pages = false;  // the client's pages are rows (v1.RowPage), not columns
};

// Makes pages of rows in the client's form: batches in, pages out, each handed to `page` as
// its encoded bytes and its row count.
class PageEncoder {
 public:
  using Page = std::function<absl::Status(std::string bytes, size_t rows)>;
  virtual ~PageEncoder() = default;
  // Adds `batch`'s rows (one column per type the encoder was made with; a column of size 0
  // is NULL), of the columns it was made to send, handing on each page that fills.
  virtual absl::Status Add(const Batch& batch, const Page& page) = 0;
  // Hands on the page being filled, if it holds rows.
  virtual absl::Status Flush(const Page& page) = 0;
};

// A front door's encoder for batches of columns of `types`, sending the columns `columns`
// (positions among them, in the client's order), cut as `form` says.
using PageEncoderFactory = std::function<std::unique_ptr<PageEncoder>(
    std::vector<DataType> types, std::vector<int> columns, RelayForm form)>;

}  // namespace strata::query
