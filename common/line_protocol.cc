#include "common/line_protocol.h"

#include <charconv>
#include <cmath>

#include "common/strings.h"

namespace strata {
namespace {

class LineReader {
 public:
  explicit LineReader(std::string_view line) : line_(line) {}

  absl::StatusOr<std::optional<LinePoint>> Read() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    if (pos_ == line_.size() || line_[pos_] == '#') return std::nullopt;
    LinePoint point;
    size_t start = pos_;
    point.measurement = ReadEscaped(", ");
    if (point.measurement.empty()) return Error("missing measurement name", start);
    while (Peek(',')) {
      ++pos_;
      start = pos_;
      std::string key = ReadEscaped("=, ");
      if (!Peek('=') || key.empty()) return Error("a tag must be key=value", start);
      ++pos_;
      std::string value = ReadEscaped(", ");
      if (value.empty()) return Error(StrCat("tag \"", key, "\" has no value"), start);
      point.tags.emplace_back(std::move(key), std::move(value));
    }
    if (!Peek(' ')) {
      return Error("expected a space and the fields after the measurement and tags", pos_);
    }
    while (Peek(' ')) ++pos_;
    do {
      if (!point.fields.empty()) ++pos_;  // the comma
      start = pos_;
      std::string key = ReadEscaped("=, ");
      if (!Peek('=') || key.empty()) return Error("a field must be key=value", start);
      ++pos_;
      const size_t value_start = pos_;
      auto value = ReadFieldValue();
      if (!value.ok()) {
        return Error(StrCat("field \"", key, "\": ", value.status().message()), value_start);
      }
      point.fields.emplace_back(std::move(key), std::move(*value));
    } while (Peek(','));
    while (Peek(' ') || Peek('\t')) ++pos_;
    std::string_view rest = StripWhitespace(line_.substr(pos_));
    if (!rest.empty()) {
      int64_t time = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), time);
      if (ec != std::errc() || end != rest.data() + rest.size()) {
        return Error(StrCat("timestamp \"", rest, "\" is not an integer"), pos_);
      }
      point.timestamp = time;
    }
    return point;
  }

 private:
  bool Peek(char c) const { return pos_ < line_.size() && line_[pos_] == c; }

  // Up to an unescaped delimiter, without the escaping backslashes.
  std::string ReadEscaped(std::string_view delimiters) {
    std::string out;
    while (pos_ < line_.size() && delimiters.find(line_[pos_]) == std::string_view::npos) {
      if (line_[pos_] == '\\' && pos_ + 1 < line_.size()) ++pos_;
      out += line_[pos_++];
    }
    return out;
  }

  absl::StatusOr<Value> ReadFieldValue() {
    if (Peek('"')) {
      std::string text;
      ++pos_;
      while (pos_ < line_.size() && line_[pos_] != '"') {
        if (line_[pos_] == '\\' && pos_ + 1 < line_.size() &&
            (line_[pos_ + 1] == '"' || line_[pos_ + 1] == '\\')) {
          ++pos_;
        }
        text += line_[pos_++];
      }
      if (pos_ >= line_.size()) return absl::InvalidArgumentError("unterminated string");
      ++pos_;
      return Value::Varchar(std::move(text));
    }
    const size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ',' && line_[pos_] != ' ' &&
           line_[pos_] != '\t') {
      ++pos_;
    }
    std::string_view token = line_.substr(start, pos_ - start);
    if (token.empty()) return absl::InvalidArgumentError("missing value");
    if (token == "t" || token == "T" || token == "true" || token == "True" || token == "TRUE") {
      return Value::Boolean(true);
    }
    if (token == "f" || token == "F" || token == "false" || token == "False" ||
        token == "FALSE") {
      return Value::Boolean(false);
    }
    const char* first = token.data();
    const char* last = token.data() + token.size();
    if (token.back() == 'i' || token.back() == 'u') {
      int64_t integer = 0;
      auto [end, ec] = std::from_chars(first, last - 1, integer);
      if (ec == std::errc::result_out_of_range) {
        return absl::InvalidArgumentError(
            StrCat("\"", token, "\" is out of BIGINT's range (-2^63 .. 2^63-1)"));
      }
      if (ec != std::errc() || end != last - 1 || (token.back() == 'u' && integer < 0)) {
        return absl::InvalidArgumentError(StrCat("\"", token, "\" is not a valid integer"));
      }
      return Value::Bigint(integer);
    }
    double number = 0;
    if (*first == '+') ++first;  // from_chars takes no plus sign; line protocol does
    auto [end, ec] = std::from_chars(first, last, number);
    if (ec != std::errc() || end != last || !std::isfinite(number)) {
      return absl::InvalidArgumentError(
          StrCat("\"", token, "\" is not a number, integer (1i), boolean (t/f) or quoted string"));
    }
    return Value::Double(number);
  }

  static absl::Status Error(std::string_view what, size_t pos) {
    return absl::InvalidArgumentError(StrCat(what, " (column ", pos + 1, ")"));
  }

  std::string_view line_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::optional<LinePoint>> ParseLinePoint(std::string_view line) {
  return LineReader(line).Read();
}

}  // namespace strata
