// A small result built on the client (a list of tables, a description),
// printed through the same writers as query results so that `--format`
// means the same thing everywhere.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "client/result_format.h"
#include "google/protobuf/timestamp.pb.h"
#include "strata/v1/query.pb.h"

namespace strata::cli {

class Listing {
 public:
  using Column = std::pair<std::string, v1::ScalarType>;
  explicit Listing(const std::vector<Column>& columns);

  void AddRow(std::vector<v1::Datum> cells);
  void Print(OutputFormat format, std::ostream& out) const;

  static v1::Datum Text(const std::string& text);
  static v1::Datum Int(int64_t value);
  static v1::Datum Bool(bool value);
  static v1::Datum Time(const google::protobuf::Timestamp& time);

 private:
  v1::QueryMetadata metadata_;
  v1::RowPage page_;
};

}  // namespace strata::cli
