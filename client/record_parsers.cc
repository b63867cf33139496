#include "client/absl_compat.h"
#include "client/record_parsers.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "client/text_values.h"
#include "common/line_protocol.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace strata::cli {
namespace {

enum class Role { kDimension, kMeasure, kTime, kMeasureName, kIgnore };

struct FieldRole {
  Role role = Role::kDimension;
  // For measures: the type every value of the field is read as.
  v1::MeasureValueType type = v1::MEASURE_VALUE_TYPE_UNSPECIFIED;
};

const char* RoleName(Role role) {
  switch (role) {
    case Role::kDimension:
      return "a dimension";
    case Role::kMeasure:
      return "a measure";
    case Role::kTime:
      return "the time";
    case Role::kMeasureName:
      return "the measure name";
    default:
      return "ignored";
  }
}

// Remembers what each field is: from the flags, or from its first value.
class FieldRoles {
 public:
  explicit FieldRoles(const ImportColumns& columns) : columns_(columns) {
    roles_[columns.time_field] = {Role::kTime};
    roles_[columns.measure_name_field] = {Role::kMeasureName};
    for (const auto& name : columns.dimensions) roles_[name] = {Role::kDimension};
    for (const auto& name : columns.ignored) roles_[name] = {Role::kIgnore};
    for (const auto& [name, type] : columns.measures) roles_[name] = {Role::kMeasure, type};
  }

  // Stable: a role's address does not change while the FieldRoles lives.
  FieldRole* Find(std::string_view name) {
    auto it = roles_.find(name);
    return it == roles_.end() ? nullptr : &it->second;
  }
  void Set(std::string_view name, FieldRole role) { roles_[std::string(name)] = role; }

  const ImportColumns& columns() const { return columns_; }

 private:
  // A copy: a parser outlives the columns it was made from (a test's temporary did; found
  // under AddressSanitizer).
  const ImportColumns columns_;
  std::map<std::string, FieldRole, std::less<>> roles_;
};

// Protobuf's JSON errors add the input and a caret on further lines.
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

absl::Status NoMeasureValues() {
  return absl::InvalidArgumentError(
      "no measure values: the row has no numeric, boolean or declared measure field "
      "(declare measures with --measures name[:type],...)");
}

// Collects one row's fields into a MULTI record. The record's dimension and
// attribute messages from the row before are set again in place, not
// cleared and allocated anew (Clear() would free each attribute's value
// message): an import fills millions of rows into a few reused records.
class RowBuilder {
 public:
  explicit RowBuilder(v1::Record* record) : record_(*record) {
    google::protobuf::RepeatedPtrField<v1::Dimension> dimensions;
    google::protobuf::RepeatedPtrField<v1::MultiMeasureValue> measures;
    dimensions.Swap(record_.mutable_dimensions());
    measures.Swap(record_.mutable_measure_values());
    record_.Clear();
    record_.mutable_dimensions()->Swap(&dimensions);
    record_.mutable_measure_values()->Swap(&measures);
  }
  void AddDimension(std::string_view name, std::string_view value) {
    v1::Dimension* dimension = Next(record_.mutable_dimensions(), &dimensions_);
    if (dimension->name() != name) dimension->set_name(name.data(), name.size());
    dimension->set_value(value.data(), value.size());
  }
  // The attribute `name`, its value to be set by the caller (then SetType).
  v1::MultiMeasureValue* AddMeasure(std::string_view name) {
    v1::MultiMeasureValue* measure = Next(record_.mutable_measure_values(), &measures_);
    if (measure->name() != name) measure->set_name(name.data(), name.size());
    return measure;
  }
  void AddMeasure(std::string_view name, v1::MeasureValue value) {
    v1::MultiMeasureValue* measure = AddMeasure(name);
    measure->set_type(TypeOf(value));
    *measure->mutable_value() = std::move(value);
  }
  void SetTime(const RecordTime& time) {
    record_.set_time(time.value);
    record_.set_time_unit(time.unit);
  }
  void SetMeasureName(std::string_view name) { record_.set_measure_name(name.data(), name.size()); }

  absl::Status Finish(const ImportColumns& columns) {
    // The messages this row did not use.
    while (record_.dimensions_size() > dimensions_) record_.mutable_dimensions()->RemoveLast();
    while (record_.measure_values_size() > measures_) record_.mutable_measure_values()->RemoveLast();
    if (!record_.has_time()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no time: the row needs a \"", columns.time_field,
          "\" field (or name the time field with --time-column)"));
    }
    if (record_.measure_values().empty()) return NoMeasureValues();
    if (!record_.has_measure_name()) record_.set_measure_name(columns.measure_name);
    record_.set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
    return absl::OkStatus();
  }

 private:
  // Element `*used` of `field` (reused, or added), and one more used.
  template <typename T>
  static T* Next(google::protobuf::RepeatedPtrField<T>* field, int* used) {
    return (*used)++ < field->size() ? field->Mutable(*used - 1) : field->Add();
  }

  v1::Record& record_;
  int dimensions_ = 0, measures_ = 0;  // of the record's messages, used by this row
};

// Applies the text `value` of field `name`, whose role is known, to the row.
// A measure named by flag without a type keeps the type of its first value,
// so that later rows are read the same way (and "1" stays a double after "1.5").
absl::Status ApplyRole(FieldRole& field, const ImportColumns& columns, std::string_view name,
                       std::string_view value, RowBuilder& row) {
  const FieldRole role = field;
  switch (role.role) {
    case Role::kIgnore:
      return absl::OkStatus();
    case Role::kDimension:
      row.AddDimension(name, value);
      return absl::OkStatus();
    case Role::kMeasureName:
      row.SetMeasureName(value);
      return absl::OkStatus();
    case Role::kTime: {
      auto time = ParseRecordTime(value, columns.time_unit);
      if (!time.ok()) return time.status();
      row.SetTime(*time);
      return absl::OkStatus();
    }
    case Role::kMeasure: {
      auto type = role.type == v1::MEASURE_VALUE_TYPE_UNSPECIFIED
                      ? std::nullopt
                      : std::optional<v1::MeasureValueType>(role.type);
      v1::MultiMeasureValue* measure = row.AddMeasure(name);
      if (absl::Status parsed = ParseMeasureValueInto(value, type, measure->mutable_value());
          !parsed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("measure \"", ToAbsl(name), "\": ", parsed.message()));
      }
      measure->set_type(TypeOf(measure->value()));
      if (!type) field = {Role::kMeasure, measure->type()};
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

// ApplyRole for a field whose role is known, looked up by name.
absl::Status ApplyText(FieldRoles& roles, std::string_view name, std::string_view value,
                       RowBuilder& row) {
  return ApplyRole(*roles.Find(name), roles.columns(), name, value, row);
}

// ---------------------------------------------------------------- CSV

class CsvParser : public RecordParser {
 public:
  explicit CsvParser(const ImportColumns& columns) : roles_(columns) {}

  absl::StatusOr<bool> ParseInto(std::string_view line, v1::Record* out) override {
    if (Trim(line).empty()) return false;
    // Most lines have no quotes: their cells are views of the line itself.
    cells_.clear();
    if (line.find('"') == std::string_view::npos) {
      for (size_t start = 0;;) {
        const size_t comma = line.find(',', start);
        cells_.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    } else {
      auto unquoted = SplitCsv(line);
      if (!unquoted.ok()) return unquoted.status();
      unquoted_ = *std::move(unquoted);
      cells_.assign(unquoted_.begin(), unquoted_.end());
    }
    if (header_.empty()) {
      ReadHeader(std::vector<std::string>(cells_.begin(), cells_.end()));
      if (!header_error_.ok()) return header_error_;
      column_roles_.assign(header_.size(), nullptr);
      return false;
    }
    if (!header_error_.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the header is invalid: ", header_error_.message()));
    }
    if (cells_.size() != header_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("expected ", header_.size(),
                                                     " fields as in the header, found ",
                                                     cells_.size()));
    }
    RowBuilder row(out);
    for (size_t i = 0; i < header_.size(); ++i) {
      const std::string_view value = cells_[i];
      if (value.empty()) continue;  // an absent value: no dimension / attribute
      const std::string& name = header_[i];
      FieldRole*& role = column_roles_[i];  // found once per column
      if (role == nullptr) {
        role = roles_.Find(name);
        if (role == nullptr) {
          roles_.Set(name, Infer(value));
          role = roles_.Find(name);
        }
      }
      if (absl::Status applied = ApplyRole(*role, roles_.columns(), name, value, row);
          !applied.ok()) {
        return applied;
      }
    }
    if (absl::Status finished = row.Finish(roles_.columns()); !finished.ok()) return finished;
    return true;
  }

  bool NeedsMoreLines(std::string_view partial) const override {
    size_t quotes = 0;
    for (char c : partial) quotes += c == '"';
    return quotes % 2 == 1;
  }

 private:
  // "name" or "name:kind" per column.
  void ReadHeader(const std::vector<std::string>& cells) {
    for (const std::string& cell : cells) {
      std::string name = cell;
      size_t colon = cell.rfind(':');
      if (colon != std::string::npos) {
        name = cell.substr(0, colon);
        std::string kind = absl::AsciiStrToLower(cell.substr(colon + 1));
        if (kind == "dimension") {
          roles_.Set(name, {Role::kDimension});
        } else if (kind == "time") {
          roles_.Set(name, {Role::kTime});
        } else if (kind == "measure_name") {
          roles_.Set(name, {Role::kMeasureName});
        } else if (kind == "ignore") {
          roles_.Set(name, {Role::kIgnore});
        } else if (auto type = ParseMeasureType(kind); type.ok()) {
          roles_.Set(name, {Role::kMeasure, *type});
        } else {
          header_error_ = absl::InvalidArgumentError(absl::StrCat(
              "header column \"", cell,
              "\": unknown kind; use dimension, time, measure_name, ignore, double, bigint, "
              "varchar, boolean or timestamp"));
        }
      }
      if (name.empty()) {
        header_error_ = absl::InvalidArgumentError(absl::StrCat(
            "header column ", header_.size() + 1, " has no name; every column needs one"));
      } else if (std::find(header_.begin(), header_.end(), name) != header_.end()) {
        header_error_ = absl::InvalidArgumentError(
            absl::StrCat("header names column \"", name, "\" twice"));
      }
      header_.push_back(name);
    }
  }

  static FieldRole Infer(std::string_view value) {
    std::string lower = absl::AsciiStrToLower(ToAbsl(Trim(value)));
    if (lower == "true" || lower == "false") return {Role::kMeasure, v1::MEASURE_VALUE_TYPE_BOOLEAN};
    double number;
    if (absl::SimpleAtod(ToAbsl(value), &number) && std::isfinite(number)) {
      return {Role::kMeasure, v1::MEASURE_VALUE_TYPE_DOUBLE};
    }
    return {Role::kDimension};
  }

  FieldRoles roles_;
  std::vector<std::string> header_;
  std::vector<FieldRole*> column_roles_;   // per column, once known
  std::vector<std::string_view> cells_;    // of the line being parsed
  std::vector<std::string> unquoted_;      // cells of a line with quotes
  absl::Status header_error_;
};

// ---------------------------------------------------------------- JSON Lines

class JsonLinesParser : public RecordParser {
 public:
  explicit JsonLinesParser(const ImportColumns& columns) : roles_(columns) {}

  absl::StatusOr<bool> ParseInto(std::string_view line, v1::Record* out) override {
    if (Trim(line).empty()) return false;
    google::protobuf::Struct object;
    auto parsed = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(line.data(), line.size()), &object);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("not a JSON object: ", FirstLine(std::string(parsed.message()))));
    }
    // Protobuf's map has no order; sort so that dimensions and errors come
    // out the same on every run.
    std::map<std::string, const google::protobuf::Value*> fields;
    for (const auto& [name, value] : object.fields()) fields[name] = &value;
    RowBuilder row(out);
    for (const auto& [name, value] : fields) {
      if (absl::Status applied = Apply(name, *value, row); !applied.ok()) return applied;
    }
    if (absl::Status finished = row.Finish(roles_.columns()); !finished.ok()) return finished;
    return true;
  }

 private:
  absl::Status Apply(const std::string& name, const google::protobuf::Value& value,
                     RowBuilder& row) {
    using Kind = google::protobuf::Value::KindCase;
    if (value.kind_case() == Kind::kNullValue) return absl::OkStatus();
    if (value.kind_case() == Kind::kStructValue || value.kind_case() == Kind::kListValue) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", name, "\" is an object or array; only strings, numbers and booleans "
                            "can be imported"));
    }
    const FieldRole* role = roles_.Find(name);
    if (role == nullptr) {
      FieldRole inferred{Role::kDimension};
      if (value.kind_case() == Kind::kNumberValue) {
        inferred = {Role::kMeasure, v1::MEASURE_VALUE_TYPE_DOUBLE};
      } else if (value.kind_case() == Kind::kBoolValue) {
        inferred = {Role::kMeasure, v1::MEASURE_VALUE_TYPE_BOOLEAN};
      }
      roles_.Set(name, inferred);
      role = roles_.Find(name);
    }
    switch (value.kind_case()) {
      case Kind::kStringValue:
        return ApplyText(roles_, name, value.string_value(), row);
      case Kind::kBoolValue:
        if (role->role != Role::kMeasure) return Contradiction(name, *role, "a boolean");
        return ApplyText(roles_, name, value.bool_value() ? "true" : "false", row);
      default:
        return ApplyNumber(*role, name, value.number_value(), row);
    }
  }

  // JSON numbers arrive as doubles; integer roles need an exact integer.
  absl::Status ApplyNumber(const FieldRole& role, const std::string& name, double number,
                           RowBuilder& row) {
    constexpr double kExactLimit = 9007199254740992.0;  // 2^53
    bool needs_integer = role.role == Role::kTime ||
                         (role.role == Role::kMeasure &&
                          (role.type == v1::MEASURE_VALUE_TYPE_BIGINT ||
                           role.type == v1::MEASURE_VALUE_TYPE_TIMESTAMP));
    if (needs_integer) {
      if (number != std::floor(number) || std::fabs(number) > kExactLimit) {
        return absl::InvalidArgumentError(absl::StrCat(
            "field \"", name, "\": ", number,
            " is not an exact integer in JSON; write large integers as strings"));
      }
      return ApplyText(roles_, name, absl::StrCat(static_cast<int64_t>(number)), row);
    }
    if (role.role == Role::kMeasure && (role.type == v1::MEASURE_VALUE_TYPE_DOUBLE ||
                                         role.type == v1::MEASURE_VALUE_TYPE_UNSPECIFIED)) {
      if (role.type == v1::MEASURE_VALUE_TYPE_UNSPECIFIED) {
        roles_.Set(name, {Role::kMeasure, v1::MEASURE_VALUE_TYPE_DOUBLE});
      }
      v1::MeasureValue value;
      value.set_double_value(number);
      row.AddMeasure(name, std::move(value));
      return absl::OkStatus();
    }
    if (role.role == Role::kMeasure || role.role == Role::kIgnore) {
      // Shortest text that reads back as the same double (StrCat keeps 6 digits).
      char text[32];
      auto [end, ec] = std::to_chars(text, text + sizeof text, number);
      return ApplyText(roles_, name, std::string(text, end), row);
    }
    return Contradiction(name, role, "a number");
  }

  static absl::Status Contradiction(const std::string& name, const FieldRole& role,
                                    const char* found) {
    return absl::InvalidArgumentError(absl::StrCat("field \"", name, "\" is ", found, " but is ",
                                                   RoleName(role.role),
                                                   " (from earlier rows or the flags)"));
  }

  FieldRoles roles_;
};

// ---------------------------------------------------------------- line protocol

void SetMeasureValue(const Value& value, v1::MultiMeasureValue* measure) {
  v1::MeasureValue& out = *measure->mutable_value();
  switch (value.type) {
    case ValueType::kDouble: out.set_double_value(value.real); break;
    case ValueType::kBigint: out.set_bigint_value(value.number); break;
    case ValueType::kVarchar: out.set_varchar_value(value.text); break;
    case ValueType::kBoolean: out.set_boolean_value(value.number != 0); break;
    case ValueType::kTimestamp: out.set_timestamp_value(value.number); break;
  }
  measure->set_type(TypeOf(out));
}

class LineProtocolParser : public RecordParser {
 public:
  explicit LineProtocolParser(const ImportColumns& columns) : columns_(columns) {}

  absl::StatusOr<bool> ParseInto(std::string_view line, v1::Record* out) override {
    absl::StatusOr<bool> read = ParseLinePointInto(line, &point_);
    if (!read.ok() || !*read) return read;
    RowBuilder row(out);
    row.SetMeasureName(point_.measurement);
    for (const auto& [key, value] : point_.tags) row.AddDimension(key, value);
    for (const auto& [key, value] : point_.fields) SetMeasureValue(value, row.AddMeasure(key));
    row.SetTime(Time());
    if (absl::Status finished = row.Finish(columns_); !finished.ok()) return finished;
    return true;
  }

  bool EncodesRecords() const override { return true; }

  // The fields in ParseInto's record's order (protobuf's, by number).
  absl::StatusOr<bool> EncodeInto(std::string_view line, EncodedRecords* out) override {
    absl::StatusOr<bool> read = ParseLinePointInto(line, &point_);
    if (!read.ok() || !*read) return read;
    if (point_.fields.empty()) return NoMeasureValues();
    const RecordTime time = Time();
    WireWriter w(&out->bytes, out->used);
    w.Nested(4, WireWriter::kRecordLengthGuess, [&] {
      // Pairs, not structured bindings: clang 14 (the sanitizers' build) cannot capture those.
      for (const auto& tag : point_.tags) {
        w.Nested(1, WireWriter::kSmallLengthGuess, [&] {
          w.String(1, tag.first);
          w.String(2, tag.second);
        });
      }
      w.StringAlways(2, point_.measurement);
      w.Int(4, v1::MEASURE_VALUE_TYPE_MULTI);
      for (const auto& field : point_.fields) {
        const auto& value = field.second;
        w.Nested(5, WireWriter::kSmallLengthGuess, [&] {
          w.String(1, field.first);
          w.Int(2, WireType(value.type));
          w.Nested(3, WireWriter::kSmallLengthGuess, [&] {
            switch (value.type) {
              case ValueType::kDouble: w.Double(1, value.real); break;
              case ValueType::kBigint: w.IntAlways(2, value.number); break;
              case ValueType::kVarchar: w.StringAlways(3, value.text); break;
              case ValueType::kBoolean: w.IntAlways(4, value.number != 0 ? 1 : 0); break;
              case ValueType::kTimestamp: w.IntAlways(5, value.number); break;
            }
          });
        });
      }
      w.IntAlways(6, time.value);
      w.Int(7, time.unit);
    });
    out->used = w.used();
    ++out->count;
    return true;
  }

 private:
  // The line's time; as InfluxDB does, a line without one takes the current time.
  RecordTime Time() const {
    if (point_.timestamp.has_value()) return {*point_.timestamp, columns_.time_unit};
    return {std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count(),
            v1::TIME_UNIT_NANOSECONDS};
  }

  // TypeOf (text_values.h) of a line protocol value's MeasureValue.
  static v1::MeasureValueType WireType(ValueType type) {
    switch (type) {
      case ValueType::kDouble: return v1::MEASURE_VALUE_TYPE_DOUBLE;
      case ValueType::kBigint: return v1::MEASURE_VALUE_TYPE_BIGINT;
      case ValueType::kVarchar: return v1::MEASURE_VALUE_TYPE_VARCHAR;
      case ValueType::kBoolean: return v1::MEASURE_VALUE_TYPE_BOOLEAN;
      case ValueType::kTimestamp: return v1::MEASURE_VALUE_TYPE_TIMESTAMP;
    }
    return v1::MEASURE_VALUE_TYPE_UNSPECIFIED;
  }

  const ImportColumns columns_;  // a copy, as FieldRoles keeps
  LinePoint point_;  // the line being read, reused
};

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitCsv(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  bool was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"' && cells.back().empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
      was_quoted = false;
    } else if (c == '\r' && i + 1 == line.size()) {
      // The CR of a CRLF line ending.
    } else if (was_quoted) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected text after a closing quote (column ", i + 1, ")"));
    } else {
      cells.back() += c;
    }
  }
  if (quoted) return absl::InvalidArgumentError("a quoted field is not closed");
  return cells;
}

v1::Record* RecordPool::Add(v1::WriteRecordsRequest* request) {
  if (kept_.empty()) return request->add_records();
  request->mutable_records()->AddAllocated(kept_.back().release());
  kept_.pop_back();
  return request->mutable_records(request->records_size() - 1);
}

void RecordPool::Recycle(v1::WriteRecordsRequest* request) {
  while (request->records_size() > 0) kept_.emplace_back(request->mutable_records()->ReleaseLast());
  request->Clear();
}

std::unique_ptr<RecordParser> MakeCsvParser(const ImportColumns& columns) {
  return std::make_unique<CsvParser>(columns);
}
std::unique_ptr<RecordParser> MakeJsonLinesParser(const ImportColumns& columns) {
  return std::make_unique<JsonLinesParser>(columns);
}
std::unique_ptr<RecordParser> MakeLineProtocolParser(const ImportColumns& columns) {
  return std::make_unique<LineProtocolParser>(columns);
}

}  // namespace strata::cli
