#include "common/line_protocol.h"

#include <charconv>
#include <cmath>
#include <optional>

#include "common/decimal_text.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata {
namespace {

// Which bytes end a run of a name, tag value or field value: a table lookup
// per byte instead of three or four compares (the loader reads ~200 bytes a
// line through these).
struct ByteSet {
  bool has[256] = {};
  explicit constexpr ByteSet(std::string_view bytes) {
    for (char c : bytes) has[static_cast<unsigned char>(c)] = true;
  }
  bool operator()(char c) const { return has[static_cast<unsigned char>(c)]; }
};
constexpr ByteSet kEndsKey(",= \\");      // a measurement, tag or field key
constexpr ByteSet kEndsTagValue(", \\");  // a measurement or tag value
constexpr ByteSet kEndsFieldValue(", \t");

class LineReader {
 public:
  explicit LineReader(std::string_view line) : line_(line) {}

  // Fills `point` (its strings and vectors reused); false for a blank or
  // comment line.
  absl::StatusOr<bool> Read(LinePoint& point) {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    if (pos_ == line_.size() || line_[pos_] == '#') return false;
    size_t start = pos_;
    ReadEscaped(kEndsTagValue, &point.measurement);
    if (point.measurement.empty()) return Error("missing measurement name", start);
    size_t tags = 0;
    while (Peek(',')) {
      ++pos_;
      start = pos_;
      if (tags == point.tags.size()) point.tags.emplace_back();
      auto& [key, value] = point.tags[tags++];
      ReadEscaped(kEndsKey, &key);
      if (!Peek('=') || key.empty()) return Error("a tag must be key=value", start);
      ++pos_;
      ReadEscaped(kEndsTagValue, &value);
      if (value.empty()) return Error(StrCat("tag \"", key, "\" has no value"), start);
    }
    point.tags.resize(tags);
    if (!Peek(' ')) {
      return Error("expected a space and the fields after the measurement and tags", pos_);
    }
    while (Peek(' ')) ++pos_;
    size_t fields = 0;
    do {
      if (fields > 0) ++pos_;  // the comma
      start = pos_;
      if (fields == point.fields.size()) point.fields.emplace_back();
      auto& [key, value] = point.fields[fields++];
      ReadEscaped(kEndsKey, &key);
      if (!Peek('=') || key.empty()) return Error("a field must be key=value", start);
      ++pos_;
      const size_t value_start = pos_;
      if (absl::Status read = ReadFieldValue(value); !read.ok()) {
        return Error(StrCat("field \"", key, "\": ", read.message()), value_start);
      }
    } while (Peek(','));
    point.fields.resize(fields);
    while (Peek(' ') || Peek('\t')) ++pos_;
    std::string_view rest = StripWhitespace(line_.substr(pos_));
    point.timestamp.reset();
    if (!rest.empty()) {
      int64_t time = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), time);
      if (ec != std::errc() || end != rest.data() + rest.size()) {
        return Error(StrCat("timestamp \"", rest, "\" is not an integer"), pos_);
      }
      point.timestamp = time;
    }
    return true;
  }

 private:
  bool Peek(char c) const { return pos_ < line_.size() && line_[pos_] == c; }

  // Into *out: up to an unescaped byte of `ends` (other than the backslash),
  // without the escaping backslashes; the runs between escapes are copied
  // whole.
  void ReadEscaped(const ByteSet& ends, std::string* out) {
    out->clear();
    while (pos_ < line_.size()) {
      size_t end = pos_;
      while (end < line_.size() && !ends(line_[end])) ++end;
      out->append(line_.data() + pos_, end - pos_);
      pos_ = end;
      if (pos_ == line_.size() || line_[pos_] != '\\') return;
      if (pos_ + 1 < line_.size()) ++pos_;  // the escaped character follows
      out->push_back(line_[pos_++]);
    }
  }

  // Into *out, the field's previous value (its text's buffer reused).
  absl::Status ReadFieldValue(Value& out) {
    if (Peek('"')) {
      std::string& text = out.text;
      text.clear();
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
      out.type = ValueType::kVarchar;
      out.number = 0;
      out.real = 0;
      return absl::OkStatus();
    }
    const size_t start = pos_;
    while (pos_ < line_.size() && !kEndsFieldValue(line_[pos_])) ++pos_;
    std::string_view token = line_.substr(start, pos_ - start);
    if (token.empty()) return absl::InvalidArgumentError("missing value");
    if (std::optional<bool> boolean = ReadBoolean(token)) {
      SetScalar(out, ValueType::kBoolean, *boolean ? 1 : 0, 0);
      return absl::OkStatus();
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
      SetScalar(out, ValueType::kBigint, integer, 0);
      return absl::OkStatus();
    }
    if (std::optional<double> simple = SimpleDecimal(token)) {  // most values: "12.34"
      SetScalar(out, ValueType::kDouble, 0, *simple);
      return absl::OkStatus();
    }
    double number = 0;
    if (*first == '+') ++first;  // from_chars takes no plus sign; line protocol does
    auto [end, ec] = std::from_chars(first, last, number);
    if (ec != std::errc() || end != last || !std::isfinite(number)) {
      return absl::InvalidArgumentError(
          StrCat("\"", token, "\" is not a number, integer (1i), boolean (t/f) or quoted string"));
    }
    SetScalar(out, ValueType::kDouble, 0, number);
    return absl::OkStatus();
  }

  // Not by assigning a Value: that moves a string into `out.text` for every
  // number (~7 % of the loader's parse).
  static void SetScalar(Value& out, ValueType type, int64_t number, double real) {
    out.type = type;
    out.number = number;
    out.real = real;
    out.text.clear();
  }

  // t/T/true/True/TRUE or f/F/false/False/FALSE; the first byte rules out
  // numbers without a compare of the whole token.
  static std::optional<bool> ReadBoolean(std::string_view token) {
    switch (token[0]) {
      case 't': case 'T':
        if (token.size() == 1 || token == "true" || token == "True" || token == "TRUE") {
          return true;
        }
        return std::nullopt;
      case 'f': case 'F':
        if (token.size() == 1 || token == "false" || token == "False" || token == "FALSE") {
          return false;
        }
        return std::nullopt;
      default: return std::nullopt;
    }
  }

  static absl::Status Error(std::string_view what, size_t pos) {
    return absl::InvalidArgumentError(StrCat(what, " (column ", pos + 1, ")"));
  }

  std::string_view line_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<bool> ParseLinePointInto(std::string_view line, LinePoint* point) {
  // Names and values become UTF-8 strings: a bad byte is refused here, not
  // stored as U+FFFD.
  if (!IsAscii(line)) {
    for (size_t at = 0; at < line.size();) {
      const size_t length = Utf8CharLength(line.substr(at));
      if (length == 0) {
        return absl::InvalidArgumentError(StrCat("invalid UTF-8 at column ", at + 1,
                                                 "; line protocol is UTF-8 text"));
      }
      at += length;
    }
  }
  return LineReader(line).Read(*point);
}

absl::StatusOr<std::optional<LinePoint>> ParseLinePoint(std::string_view line) {
  LinePoint point;
  absl::StatusOr<bool> read = ParseLinePointInto(line, &point);
  if (!read.ok()) return read.status();
  if (!*read) return std::nullopt;
  return point;
}

}  // namespace strata
