// CopyRows: the rows of COPY table FROM STDIN as the front door that reads them from its client
// decodes them (server/pg/copy.h: PostgreSQL's text and CSV formats). The statement asks for them
// one at a time while it writes, so a copy of any length holds one batch in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace strata::query {

// One row as its fields' texts (nullopt: NULL), and the number of the line it starts on, which
// the statement's rejections name.
struct CopyRow {
  std::vector<std::optional<std::string>> fields;
  int64_t line = 0;
};

class CopyRows {
 public:
  virtual ~CopyRows() = default;
  // The next row into *row; false once the client's data has ended. An error ends the COPY:
  // data that is not in the format, a client that failed the copy or went away.
  virtual absl::StatusOr<bool> Next(CopyRow* row) = 0;
};

}  // namespace strata::query
