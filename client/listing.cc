#include "client/listing.h"

namespace strata::cli {

Listing::Listing(const std::vector<Column>& columns) {
  for (const auto& [name, type] : columns) {
    v1::ColumnInfo* column = metadata_.add_columns();
    column->set_name(name);
    column->mutable_type()->set_scalar_type(type);
  }
}

void Listing::AddRow(std::vector<v1::Datum> cells) {
  v1::Row* row = page_.add_rows();
  for (auto& cell : cells) *row->add_data() = std::move(cell);
}

void Listing::Print(OutputFormat format, std::ostream& out) const {
  auto writer = MakeResultWriter(format, out);
  writer->Begin(metadata_);
  writer->Page(page_);
  writer->Finish();
}

v1::Datum Listing::Text(const std::string& text) {
  v1::Datum datum;
  datum.set_varchar_value(text);
  return datum;
}

v1::Datum Listing::Int(int64_t value) {
  v1::Datum datum;
  datum.set_bigint_value(value);
  return datum;
}

v1::Datum Listing::Bool(bool value) {
  v1::Datum datum;
  datum.set_boolean_value(value);
  return datum;
}

v1::Datum Listing::Time(const google::protobuf::Timestamp& time) {
  v1::Datum datum;
  datum.set_timestamp_value(time.seconds() * 1'000'000'000 + time.nanos());
  return datum;
}

}  // namespace strata::cli
