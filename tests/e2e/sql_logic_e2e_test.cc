// A sample of the SQL-logic golden files, replayed over gRPC against the real
// stratad: tables created with CreateTable, records sent with WriteRecords,
// results read from the streamed pages and printed as the in-process run
// prints them. The server's clock stands still at the file's `clock`
// (--testing-fixed-time); files that move the clock or run `maintain`
// in-process stay in the in-process run.
#include "gtest/gtest.h"
#include "query/base/datum.h"
#include "strata/v1/catalog.grpc.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/sql/sql_logic_runner.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"

namespace strata {
namespace {

void ToProto(const Value& value, v1::MeasureValue* out) {
  switch (value.type) {
    case ValueType::kDouble: out->set_double_value(value.real); break;
    case ValueType::kBigint: out->set_bigint_value(value.number); break;
    case ValueType::kVarchar: out->set_varchar_value(value.text); break;
    case ValueType::kBoolean: out->set_boolean_value(value.number != 0); break;
    case ValueType::kTimestamp: out->set_timestamp_value(value.number); break;
  }
}

v1::Record ToProto(const InputRecord& r) {
  v1::Record out;
  for (const auto& d : r.dimensions) {
    auto* dimension = out.add_dimensions();
    dimension->set_name(d.name);
    dimension->set_value(d.value);
  }
  if (r.measure_name) out.set_measure_name(*r.measure_name);
  if (r.measure_value) ToProto(*r.measure_value, out.mutable_measure_value());
  for (const InputMeasure& m : r.measure_values) {
    auto* attribute = out.add_measure_values();
    attribute->set_name(m.name);
    if (m.value) {
      attribute->set_type(static_cast<v1::MeasureValueType>(m.value->type));
      ToProto(*m.value, attribute->mutable_value());
    }
  }
  if (!r.measure_values.empty()) out.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  if (r.time) out.set_time(*r.time);  // milliseconds, the default unit
  if (r.version) out.set_version(*r.version);
  return out;
}

// The column type as the engine's type (composites interned as it does).
query::DataType TypeOf(const v1::ColumnType& type) {
  switch (type.type_case()) {
    case v1::ColumnType::kArrayColumnInfo: {
      // A MAP travels as an array of (key, value) rows; the golden files
      // name no other row fields so.
      const v1::ColumnType& element = type.array_column_info().type();
      const auto& fields = element.row_column_info().fields();
      if (fields.size() == 2 && fields[0].name() == "key" && fields[1].name() == "value") {
        return *query::MapOf(TypeOf(fields[0].type()), TypeOf(fields[1].type()));
      }
      return *query::ArrayOf(TypeOf(element));
    }
    case v1::ColumnType::kTimeSeriesMeasureValueColumnInfo:
      return *query::TimeseriesOf(TypeOf(type.time_series_measure_value_column_info().type()));
    case v1::ColumnType::kRowColumnInfo: {
      std::vector<query::RowField> fields;
      for (const v1::ColumnInfo& f : type.row_column_info().fields()) {
        fields.push_back({.name = f.name(), .type = TypeOf(f.type())});
      }
      return *query::RowOf(std::move(fields));
    }
    default: break;
  }
  switch (type.scalar_type()) {
    case v1::SCALAR_TYPE_BOOLEAN: return query::DataType::kBoolean;
    case v1::SCALAR_TYPE_BIGINT: return query::DataType::kBigint;
    case v1::SCALAR_TYPE_DOUBLE: return query::DataType::kDouble;
    case v1::SCALAR_TYPE_VARCHAR: return query::DataType::kVarchar;
    case v1::SCALAR_TYPE_TIMESTAMP: return query::DataType::kTimestamp;
    case v1::SCALAR_TYPE_INTERVAL_DAY_TO_SECOND: return query::DataType::kInterval;
    case v1::SCALAR_TYPE_DATE: return query::DataType::kDate;
    case v1::SCALAR_TYPE_TIME: return query::DataType::kTime;
    case v1::SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH: return query::DataType::kIntervalYearToMonth;
    default: return query::DataType::kUnknown;
  }
}

// The wire's value as the engine's Datum, so it prints as it does in-process.
query::Datum FromWire(const v1::Datum& d, query::DataType type) {
  switch (d.value_case()) {
    case v1::Datum::kDoubleValue: return query::Datum::Double(d.double_value());
    case v1::Datum::kBigintValue: return query::Datum::Bigint(d.bigint_value());
    case v1::Datum::kVarcharValue: return query::Datum::Varchar(d.varchar_value());
    case v1::Datum::kBooleanValue: return query::Datum::Bool(d.boolean_value());
    case v1::Datum::kTimestampValue: return query::Datum::Timestamp(d.timestamp_value());
    case v1::Datum::kIntervalNanosValue:
      return type == query::DataType::kTime ? query::Datum::Time(d.interval_nanos_value())
                                            : query::Datum::Interval(d.interval_nanos_value());
    case v1::Datum::kIntervalMonthsValue: return query::Datum::Months(d.interval_months_value());
    case v1::Datum::kDateValue: return query::Datum::Date(d.date_value());
    case v1::Datum::kArrayValue: {
      if (query::KindOf(type) == query::TypeKind::kMap) {
        std::vector<std::pair<query::Datum, query::Datum>> entries;
        for (const v1::Datum& entry : d.array_value().values()) {
          entries.emplace_back(FromWire(entry.row_value().data(0), query::MapKeyType(type)),
                               FromWire(entry.row_value().data(1), query::ElementType(type)));
        }
        std::string problem;
        return query::MakeMap(type, std::move(entries), &problem).value_or(query::Datum::Null());
      }
      std::vector<query::Datum> values;
      for (const v1::Datum& v : d.array_value().values()) {
        values.push_back(FromWire(v, query::ElementType(type)));
      }
      return query::Datum::Composite(type, std::move(values));
    }
    case v1::Datum::kRowValue: {
      std::vector<query::Datum> values;
      const auto& fields = query::RowFields(type);
      for (int i = 0; i < d.row_value().data_size(); ++i) {
        values.push_back(FromWire(d.row_value().data(i),
                                  i < static_cast<int>(fields.size()) ? fields[i].type
                                                                      : query::DataType::kUnknown));
      }
      return query::Datum::Composite(type, std::move(values));
    }
    case v1::Datum::kTimeSeriesValue: {
      std::vector<query::Datum> values;
      std::vector<int64_t> times;
      for (const v1::TimeSeriesDataPoint& p : d.time_series_value().points()) {
        times.push_back(p.time());
        values.push_back(FromWire(p.value(), query::ElementType(type)));
      }
      return query::Datum::Composite(type, std::move(values), std::move(times));
    }
    default: return query::Datum::Null();
  }
}

class OverTheWire : public testing::SqlLogicBackend {
 public:
  void SetClock(int64_t now_nanos) override {
    ASSERT_FALSE(started_) << "a file run over the wire sets its clock once, first";
    ASSERT_TRUE(server_.Start({"--testing-fixed-time", query::FormatTimestamp(now_nanos)}))
        << server_.error();
    started_ = true;
    catalog_ = v1::CatalogService::NewStub(server_.channel());
    writer_ = v1::WriteService::NewStub(server_.channel());
  }
  absl::Status CreateDatabase(const std::string& name) override {
    grpc::ClientContext context;
    v1::CreateDatabaseRequest request;
    request.set_database_name(name);
    v1::CreateDatabaseResponse response;
    return Check(catalog_->CreateDatabase(&context, request, &response));
  }
  absl::Status CreateTable(const TableSpec& spec) override {
    grpc::ClientContext context;
    v1::CreateTableRequest request;
    request.set_database_name(spec.database_name);
    request.set_table_name(spec.table_name);
    auto* retention = request.mutable_retention_properties();
    retention->set_memory_store_retention_hours(spec.retention.memory_store_retention_hours);
    retention->set_magnetic_store_retention_days(spec.retention.magnetic_store_retention_days);
    request.mutable_magnetic_store_write_properties()->set_enable_magnetic_store_writes(
        spec.enable_magnetic_store_writes);
    if (spec.partition_key.type == PartitionKeyType::kDimension) {
      auto* key = request.mutable_schema()->add_composite_partition_key();
      key->set_type(v1::PARTITION_KEY_TYPE_DIMENSION);
      key->set_name(spec.partition_key.name);
      key->set_enforcement_in_record(spec.partition_key.enforcement == Enforcement::kRequired
                                         ? v1::PARTITION_KEY_ENFORCEMENT_REQUIRED
                                         : v1::PARTITION_KEY_ENFORCEMENT_OPTIONAL);
    }
    v1::CreateTableResponse response;
    return Check(catalog_->CreateTable(&context, request, &response));
  }
  absl::StatusOr<WriteResult> Write(const WriteRequest& request) override {
    grpc::ClientContext context;
    v1::WriteRecordsRequest wire;
    wire.set_database_name(request.database_name);
    wire.set_table_name(request.table_name);
    for (const InputRecord& r : request.records) *wire.add_records() = ToProto(r);
    v1::WriteRecordsResponse response;
    if (absl::Status s = Check(writer_->WriteRecords(&context, wire, &response)); !s.ok()) {
      return s;
    }
    WriteResult result{.memory_store = response.records_ingested().memory_store(),
                       .magnetic_store = response.records_ingested().magnetic_store()};
    for (const auto& r : response.rejected_records()) {
      result.rejected.push_back({r.record_index(), r.reason()});
    }
    return result;
  }
  absl::StatusOr<std::vector<std::string>> Query(const std::string& sql) override {
    testing::QueryResult result = testing::RunQuery(server_.channel(), sql);
    if (absl::Status s = Check(result.status); !s.ok()) return s;
    std::vector<std::string> lines;
    std::vector<query::DataType> types;
    for (const v1::ColumnInfo& c : result.metadata.columns()) types.push_back(TypeOf(c.type()));
    for (const v1::Row& row : result.rows) {
      std::string line;
      for (int i = 0; i < row.data_size(); ++i) {
        const query::DataType type =
            i < static_cast<int>(types.size()) ? types[i] : query::DataType::kUnknown;
        line += (i ? " | " : "") + FromWire(row.data(i), type).ToString();
      }
      lines.push_back(line);
    }
    return lines;
  }
  void Restart() override {
    ASSERT_EQ(server_.Stop(), 0);
    ASSERT_TRUE(server_.Restart()) << server_.error();
  }
  void Maintain() override { FAIL() << "`maintain` runs in-process only"; }
  absl::Status LegacyRename(const std::string&, const std::string&, const std::string&,
                            const std::string&) override {
    return absl::UnimplementedError("`legacy-rename` runs in-process only");
  }
  absl::Status LegacyWrite(const WriteRequest&) override {
    return absl::UnimplementedError("`legacy-write` runs in-process only");
  }

 private:
  static absl::Status Check(const grpc::Status& s) {
    if (s.ok()) return absl::OkStatus();
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  }

  testing::StratadProcess server_;
  bool started_ = false;
  std::unique_ptr<v1::CatalogService::Stub> catalog_;
  std::unique_ptr<v1::WriteService::Stub> writer_;
};

class SqlLogicE2ETest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicE2ETest, Run) {
  OverTheWire backend;
  testing::RunSqlLogicFile(std::string(STRATA_SQL_TEST_DIR) + "/" + GetParam(), GetParam(),
                           backend);
}

// The seed workloads, every function, aggregates and the errors: files with
// one clock and no `maintain`.
INSTANTIATE_TEST_SUITE_P(
    Sample, SqlLogicE2ETest,
    ::testing::Values("seed_iot.test", "seed_videostreaming.test", "functions.test",
                      "aggregates.test", "errors.test", "hostile_input.test", "schema_changes.test",
                      "one_type_per_name.test", "joins.test", "set_operations.test", "windows.test",
                      "subqueries.test", "dates.test", "arrays.test", "timeseries.test",
                      "lambdas.test", "maps.test", "postgres_spellings.test", "values.test",
                      "catalog_changes.test", "insert.test", "json.test"),
    [](const auto& info) { return testing::SqlLogicTestName(info.param); });

}  // namespace
}  // namespace strata
