// format(pattern, args...): Presto's, which formats as Java's String.format does.
// The conversions kept are the ones of text and numbers: %s %S %d %x %X %o %f %e %E
// %b %B %c %% %n, with an argument's index (%2$s), the flags - 0 + space and ','
// (thousands), a width and a precision; and PostgreSQL's %I (an identifier, quoted where
// needed) and %L (a literal). A value's %s text is the one CAST(x AS varchar)
// gives; NULL is "null", as in Java. Dates and times (%t) are refused with a pointer
// to date_format and format_datetime, which take their patterns.
#include <cmath>
#include <cstdio>

#include "common/sql_quoting.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Args = std::vector<Datum>;

struct Spec {
  bool left = false, zero = false, plus = false, space = false, group = false;
  int width = -1, precision = -1;
  char conversion = 0;
};

// `digits` (an integer's, without a sign) with a ',' between each three.
std::string Grouped(std::string_view digits) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// A number's text laid out: its sign by the flags, its digits grouped, padded to the width.
std::string LayOutNumber(const Spec& spec, bool negative, std::string digits) {
  if (spec.group) {
    const size_t point = std::min(digits.find('.'), digits.find('e'));
    const std::string_view whole = std::string_view(digits).substr(0, point);
    digits = Grouped(whole) + digits.substr(whole.size());
  }
  const std::string sign = negative ? "-" : spec.plus ? "+" : spec.space ? " " : "";
  const size_t length = sign.size() + digits.size();
  if (spec.width > 0 && static_cast<size_t>(spec.width) > length) {
    const size_t pad = spec.width - length;
    if (spec.left) return sign + digits + std::string(pad, ' ');
    if (spec.zero) return sign + std::string(pad, '0') + digits;
    return std::string(pad, ' ') + sign + digits;
  }
  return sign + digits;
}

std::string Padded(const Spec& spec, std::string text) {
  const int64_t length = Utf8Length(text);
  if (spec.width <= length) return text;
  const std::string pad(spec.width - length, ' ');
  return spec.left ? text + pad : pad + text;
}

// One argument formatted by its conversion; an error names what does not fit.
absl::StatusOr<std::string> Convert(const Spec& spec, const Datum& value) {
  const char c = spec.conversion;
  auto needs = [&](std::string_view what) {
    return absl::InvalidArgumentError(
        StrCat("%", std::string(1, c), " takes ", what, ", not ", TypeName(value.type)));
  };
  switch (c) {
    case 's':
    case 'S': {
      std::string text = value.null ? "null" : value.ToString();
      if (spec.precision >= 0) text.resize(Utf8Offset(text, spec.precision));
      if (c == 'S') text = Utf8ToUpper(text);
      return Padded(spec, std::move(text));
    }
    case 'I':  // PostgreSQL's: a name, quoted where it needs quotes
      if (value.null) return absl::InvalidArgumentError("%I: NULL is no identifier");
      return Padded(spec, QuoteIdentIfNeeded(value.ToString()));
    case 'L':  // PostgreSQL's: a literal, NULL as NULL
      return Padded(spec, value.null ? "NULL" : QuoteLiteral(value.ToString()));
    case 'b':
    case 'B': {
      // Java's: NULL is false, a boolean itself, any other value true.
      std::string text = value.null                                         ? "false"
                         : value.type == DataType::kBoolean && value.i == 0 ? "false"
                                                                            : "true";
      if (c == 'B') text = Utf8ToUpper(text);
      return Padded(spec, std::move(text));
    }
    case 'c': {
      std::string text;
      if (value.null) {
        text = "null";
      } else if (value.type == DataType::kBigint) {
        if (!AppendCodePoint(value.i, &text)) {
          return absl::InvalidArgumentError(StrCat("%c: ", value.i, " is not a code point"));
        }
      } else if (value.type == DataType::kVarchar && Utf8Length(value.s) == 1) {
        text = value.s;
      } else {
        return needs("a code point or a one-character text");
      }
      return Padded(spec, std::move(text));
    }
    case 'd':
    case 'x':
    case 'X':
    case 'o': {
      if (value.null) return Padded(spec, "null");
      if (value.type != DataType::kBigint) return needs("a whole number");
      if (c == 'd') {
        const bool negative = value.i < 0;
        const uint64_t magnitude =
            negative ? 0 - static_cast<uint64_t>(value.i) : static_cast<uint64_t>(value.i);
        return LayOutNumber(spec, negative, std::to_string(magnitude));
      }
      // Java writes a negative number's 64 bits (two's complement), as here.
      char buffer[32];
      std::snprintf(buffer, sizeof buffer,
                    c == 'x'   ? "%llx"
                    : c == 'X' ? "%llX"
                               : "%llo",
                    static_cast<unsigned long long>(value.i));
      Spec unsigned_spec = spec;  // no sign and no thousands for Java's x and o either
      unsigned_spec.plus = unsigned_spec.space = unsigned_spec.group = false;
      return LayOutNumber(unsigned_spec, false, buffer);
    }
    case 'f':
    case 'e':
    case 'E': {
      if (value.null) return Padded(spec, "null");
      if (value.type != DataType::kDouble && value.type != DataType::kBigint) {
        return needs("a number");
      }
      const double d = value.type == DataType::kDouble ? value.d : static_cast<double>(value.i);
      if (std::isnan(d) || std::isinf(d)) {
        Spec plain = spec;
        plain.zero = plain.group = false;
        return LayOutNumber(plain, d < 0, std::isnan(d) ? "NaN" : "Infinity");
      }
      const int precision = spec.precision >= 0 ? spec.precision : 6;
      const std::string pattern = StrCat("%.", precision, std::string(1, c));
      // The longest text: 309 digits before the point and `precision` after.
      std::string digits(340 + precision, '\0');
      digits.resize(std::snprintf(digits.data(), digits.size(), pattern.c_str(), std::fabs(d)));
      return LayOutNumber(spec, std::signbit(d), std::move(digits));
    }
    default:
      return absl::InternalError("an unchecked conversion");
  }
}

absl::StatusOr<std::string> Format(std::string_view pattern, const Args& args) {
  std::string out;
  size_t next = 1;  // the argument a conversion without an index takes
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out.push_back(pattern[i]);
      continue;
    }
    const size_t start = i++;
    auto error = [&](std::string_view what) {
      return absl::InvalidArgumentError(StrCat("'", EchoInput(pattern.substr(start, i - start + 1)),
                                               "' at character ", start + 1, " ", what));
    };
    auto number = [&]() {
      int n = 0;
      for (; i < pattern.size() && pattern[i] >= '0' && pattern[i] <= '9'; ++i) {
        n = std::min(n * 10 + (pattern[i] - '0'), 100'000);
      }
      return n;
    };
    // %n$: the argument's index.
    size_t index = 0;
    if (const size_t dollar = pattern.find('$', i);
        dollar != std::string_view::npos && dollar > i &&
        pattern.substr(i, dollar - i).find_first_not_of("0123456789") == std::string_view::npos) {
      index = number();
      ++i;  // the '$'
      if (index == 0) return error("names argument 0; they count from 1");
    }
    Spec spec;
    for (;
         i < pattern.size() && std::string_view("-0+ ,").find(pattern[i]) != std::string_view::npos;
         ++i) {
      spec.left |= pattern[i] == '-';
      spec.zero |= pattern[i] == '0';
      spec.plus |= pattern[i] == '+';
      spec.space |= pattern[i] == ' ';
      spec.group |= pattern[i] == ',';
    }
    if (i < pattern.size() && pattern[i] >= '1' && pattern[i] <= '9') spec.width = number();
    if (i < pattern.size() && pattern[i] == '.') {
      ++i;
      spec.precision = number();
    }
    if (i >= pattern.size()) return error("ends before its conversion (such as %s or %d)");
    spec.conversion = pattern[i];
    if (spec.conversion == '%') {
      out.push_back('%');
      continue;
    }
    if (spec.conversion == 'n') {
      out.push_back('\n');
      continue;
    }
    if (spec.conversion == 't' || spec.conversion == 'T') {
      return error(
          "formats a time, which format() does not: use date_format(ts, '%Y-%m-%d') "
          "or format_datetime(ts, 'yyyy-MM-dd')");
    }
    if (std::string_view("sSILbBcdxXofeE").find(spec.conversion) == std::string_view::npos) {
      return error("is not a conversion format() knows (%s %I %L %d %x %o %f %e %b %c %% %n)");
    }
    if (spec.left && spec.width < 0) return error("has '-' but no width");
    if (index == 0) index = next++;
    if (index >= args.size()) {
      return error(StrCat("needs argument ", index, ", and ", args.size() - 1,
                          args.size() == 2 ? " was" : " were", " given"));
    }
    absl::StatusOr<std::string> converted = Convert(spec, args[index]);
    if (!converted.ok()) return error(StrCat("cannot format it: ", converted.status().message()));
    out += *converted;
    if (out.size() > kMaxTextBytes)
      return absl::ResourceExhaustedError(TextTooLongMessage("format()"));
  }
  return out;
}

}  // namespace

void AddFormatFunction(std::vector<ScalarFunction>* scalars) {
  ScalarFunction f{
      "format", "format(pattern, value, ...) -> varchar",
      "The values written into the pattern as Java's String.format writes them: %s (any "
      "value's text), %d, %x, %o (whole numbers), %f, %e (numbers), %b, %c, %% and %n, and "
      "PostgreSQL's %I (an identifier, quoted where needed) and %L (a literal; NULL as NULL), "
      "with "
      "an argument's index (%2$s), the flags - 0 + space and ',' (thousands), a width and a "
      "precision: format('%-8s|%,10.2f', host, x).",
      [](const std::vector<DataType>& t) -> absl::StatusOr<DataType> {
        if (t.empty() || !Accepts(Param::kVarchar, t[0])) {
          return WrongArguments("format(varchar, value, ...)");
        }
        return DataType::kVarchar;
      },
      [](const Args& a, const EvalContext& c) {
        if (a[0].null) return Datum::Null(DataType::kVarchar);
        absl::StatusOr<std::string> text = Format(a[0].s, a);
        if (!text.ok()) return FailQuery(c, StrCat("format(): ", text.status().message()), kStr);
        return Datum::Varchar(*std::move(text));
      }};
  f.null_propagating = false;  // a NULL value formats as "null"
  f.can_fail = true;
  scalars->push_back(std::move(f));
}

}  // namespace strata::query
