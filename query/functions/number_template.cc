#include "query/functions/number_template.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "common/strings.h"
#include "common/utf8.h"
#include "fmt/format.h"

namespace strata::query {
namespace {

enum class Token {
  kDigit,     // 9 or 0
  kPoint,     // . or D
  kGroup,     // , or G
  kAnchored,  // S
  kMinus,     // MI
  kPlus,      // PL
  kEither,    // SG
  kBrackets,  // PR
  kExponent,  // EEEE
  kLiteral,
};

struct Item {
  Token token;
  std::string text;  // a literal's
};

struct Template {
  std::vector<Item> items;
  bool fill_mode = false;        // FM
  int pre = 0;                   // digit positions before the point
  int post = 0;                  // and after it
  int zeros_from = -1;           // the first integer position that keeps its zero (a 0), or -1
  int zeros_to = 0;              // fraction positions kept under FM (up to the last 0)
  bool anchored_before = false;  // S before the digits: the sign right before the number
  bool explicit_sign = false;    // S, MI, SG or PR: no implicit '-' or blank before it
  bool exponent = false;
};

absl::Status Refused(std::string_view pattern, std::string_view what, std::string_view function) {
  return absl::InvalidArgumentError(
      StrCat("the template '", EchoInput(pattern), "' uses ", what, ", which ", function,
             " does not support; use 9 0 . , D G FM S MI PL SG PR EEEE"));
}

absl::StatusOr<Template> Parse(std::string_view pattern, std::string_view function = "to_char") {
  Template t;
  bool after_point = false, digits_seen = false;
  for (size_t i = 0; i < pattern.size();) {
    const auto at = [&](std::string_view word) { return pattern.substr(i, word.size()) == word; };
    const auto add = [&](Token token, size_t length) {
      t.items.push_back({token, {}});
      i += length;
    };
    const char c = pattern[i];
    if (at("FM")) {
      t.fill_mode = true;
      i += 2;
    } else if (at("EEEE")) {
      t.exponent = true;
      add(Token::kExponent, 4);
    } else if (at("MI") || at("SG") || at("PR")) {
      t.explicit_sign = true;
      add(at("MI") ? Token::kMinus : at("SG") ? Token::kEither : Token::kBrackets, 2);
    } else if (at("PL")) {
      add(Token::kPlus, 2);
    } else if (at("RN") || at("rn") || at("TH") || at("th") || c == 'V' || c == 'L') {
      return Refused(pattern,
                     at("RN") || at("rn")   ? "RN (Roman numerals)"
                     : at("TH") || at("th") ? "TH (ordinal suffixes)"
                     : c == 'V'             ? "V (shifting digits)"
                                            : "L (a currency symbol)",
                     function);
    } else if (c == '9' || c == '0') {
      if (after_point) {
        ++t.post;
        if (c == '0') t.zeros_to = t.post;
      } else {
        if (c == '0' && t.zeros_from < 0) t.zeros_from = t.pre;
        ++t.pre;
      }
      digits_seen = true;
      add(Token::kDigit, 1);
    } else if (c == '.' || c == 'D') {
      if (after_point) {
        return absl::InvalidArgumentError(
            StrCat("the template '", EchoInput(pattern), "' has more than one decimal point"));
      }
      after_point = true;
      add(Token::kPoint, 1);
    } else if (c == ',' || c == 'G') {
      add(Token::kGroup, 1);
    } else if (c == 'S') {
      t.explicit_sign = true;
      t.anchored_before = !digits_seen;
      add(Token::kAnchored, 1);
    } else if (c == '"') {
      const size_t end = pattern.find('"', i + 1);
      if (end == std::string_view::npos) {
        return absl::InvalidArgumentError(
            StrCat("the template '", EchoInput(pattern), "' has a \" with no closing \""));
      }
      t.items.push_back({Token::kLiteral, std::string(pattern.substr(i + 1, end - i - 1))});
      i = end + 1;
    } else {
      t.items.push_back({Token::kLiteral, std::string(1, c)});
      ++i;
    }
  }
  if (t.exponent) {
    for (const Item& item : t.items) {
      if (item.token != Token::kDigit && item.token != Token::kPoint &&
          item.token != Token::kExponent) {
        return absl::InvalidArgumentError(StrCat("the template '", EchoInput(pattern),
                                                 "' mixes EEEE with other patterns; write it as "
                                                 "9.99EEEE"));
      }
    }
    if (t.fill_mode) {
      return absl::InvalidArgumentError(StrCat("the template '", EchoInput(pattern),
                                               "' mixes EEEE with FM; write it as 9.99EEEE"));
    }
  }
  return t;
}

// A number's decimal digits, rounded to the template's fraction positions.
struct Digits {
  bool negative = false;
  std::string integer;   // without leading zeros ("" for zero)
  std::string fraction;  // exactly `post` digits
  bool finite = true;
};

// An integer's digits, with `post` zeros after the point.
Digits DigitsOf(int64_t value, int post) {
  const uint64_t magnitude =
      value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return Digits{.negative = value < 0,
                .integer = magnitude == 0 ? "" : std::to_string(magnitude),
                .fraction = std::string(static_cast<size_t>(post), '0')};
}

// A double as PostgreSQL's to_char(float8) writes it: printf's digits (the binary value
// rounded half to even) with at most 15 significant digits in all, so fraction positions
// past those are not written (`*post` lowered); -0.4 at no places is -0.
Digits DigitsOf(double value, int* post) {
  if (!std::isfinite(value)) return Digits{.negative = value < 0, .finite = false};
  constexpr int kDoubleDigits = 15;  // DBL_DIG
  const int integer_digits = static_cast<int>(fmt::format("{:.0f}", std::fabs(value)).size());
  *post = integer_digits >= kDoubleDigits ? 0 : std::min(*post, kDoubleDigits - integer_digits);
  const std::string text = fmt::format("{:.{}f}", std::fabs(value), *post);
  const size_t point = text.find('.');
  Digits d{.negative = std::signbit(value)};
  d.integer = text.substr(0, point);
  d.integer.erase(0, std::min(d.integer.find_first_not_of('0'), d.integer.size()));
  d.fraction = point == std::string::npos ? "" : text.substr(point + 1);
  return d;
}

std::string Scientific(double value, const Template& t) {
  if (!std::isfinite(value))
    return std::isnan(value) ? " NaN" : value > 0 ? " Infinity" : "-Infinity";
  return StrCat(value < 0 ? "-" : " ", fmt::format("{:.{}e}", std::fabs(value), t.post));
}

std::string Render(const Digits& d, const Template& t) {
  const bool overflow = !d.finite || static_cast<int>(d.integer.size()) > t.pre;
  // The fraction digits written: all of them, or under FM up to the last 0 position or the
  // last digit that is not a zero.
  int fraction_written = t.post;
  if (t.fill_mode && !overflow) {
    const size_t last = d.fraction.find_last_not_of('0');
    fraction_written =
        std::max(t.zeros_to, last == std::string::npos ? 0 : static_cast<int>(last) + 1);
  }
  // A zero integer part is one 0 in the last position when no fraction digit is written.
  const bool zero_in_last = !overflow && d.integer.empty() && fraction_written == 0 && t.pre > 0;
  const std::string blank = t.fill_mode ? "" : " ";
  const std::string before_sign = [&]() -> std::string {
    if (!t.explicit_sign) return d.negative ? "-" : blank;
    if (t.anchored_before) return d.negative ? "-" : "+";
    for (const Item& item : t.items) {
      if (item.token == Token::kBrackets) return d.negative ? "<" : blank;
    }
    return "";
  }();
  const size_t offset = overflow ? 0 : static_cast<size_t>(t.pre) - d.integer.size();
  size_t last_digit_item = 0;
  bool trailing_sign = false;
  for (size_t k = 0; k < t.items.size(); ++k) {
    if (t.items[k].token == Token::kDigit || t.items[k].token == Token::kPoint) last_digit_item = k;
    trailing_sign |= t.items[k].token == Token::kAnchored && !t.anchored_before;
  }
  std::string out;
  bool started = false;  // the number's first character is written
  const auto start = [&] {
    if (!started) out += before_sign;
    started = true;
  };
  int position = 0, fraction_position = 0;
  bool after_point = false;
  for (size_t k = 0; k < t.items.size(); ++k) {
    const Item& item = t.items[k];
    switch (item.token) {
      case Token::kDigit:
        if (after_point) {
          if (fraction_position < fraction_written) {
            out.push_back(overflow ? '#' : d.fraction[fraction_position]);
          }
          ++fraction_position;
        } else {
          const size_t p = static_cast<size_t>(position++);
          char digit = 0;
          if (overflow) {
            digit = '#';
          } else if (p >= offset) {
            digit = d.integer[p - offset];
          } else if ((t.zeros_from >= 0 && static_cast<int>(p) >= t.zeros_from) ||
                     (zero_in_last && static_cast<int>(p) == t.pre - 1)) {
            digit = '0';
          }
          if (digit == 0) {
            out += blank;
          } else {
            start();
            out.push_back(digit);
          }
        }
        break;
      case Token::kPoint:
        after_point = true;
        if (t.post > 0) {
          start();
          out.push_back('.');
        }
        break;
      case Token::kGroup:
        out += started ? "," : blank;
        break;
      case Token::kAnchored:  // written before or after the number
        break;
      case Token::kMinus:
        out += d.negative ? "-" : blank;
        break;
      case Token::kPlus:
        out += d.negative ? blank : "+";
        break;
      case Token::kEither:
        out += d.negative ? "-" : "+";
        break;
      case Token::kBrackets:
        out += d.negative ? ">" : blank;
        break;
      case Token::kExponent:
        break;
      case Token::kLiteral:
        out += item.text;
        break;
    }
    // An S after the digits stands right after the number, before any text between.
    if (k == last_digit_item && trailing_sign) out += d.negative ? "-" : "+";
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> FormatNumberTemplate(int64_t value, std::string_view pattern) {
  absl::StatusOr<Template> t = Parse(pattern);
  if (!t.ok()) return t.status();
  if (t->exponent) return Scientific(static_cast<double>(value), *t);
  return Render(DigitsOf(value, t->post), *t);
}

absl::StatusOr<std::string> FormatNumberTemplate(double value, std::string_view pattern) {
  absl::StatusOr<Template> t = Parse(pattern);
  if (!t.ok()) return t.status();
  if (t->exponent) return Scientific(value, *t);
  if (std::isnan(value)) return t->fill_mode ? std::string("NaN") : std::string(" NaN");
  const Digits digits = DigitsOf(value, &t->post);
  t->zeros_to = std::min(t->zeros_to, t->post);
  return Render(digits, *t);
}

namespace {

// One of the positions PostgreSQL reads a number part at (9, 0, the point, S, PR): a blank
// skipped, a sign before any digit, then a digit, or the point; any other character is passed
// over. S after digits reads a trailing sign instead.
struct NumberReader {
  std::string_view text;
  size_t at = 0;
  bool brackets = false, has_point = false;
  bool negative = false, sign_read = false, point_read = false;
  std::string integer, fraction;

  bool AtEnd() const { return at >= text.size(); }
  bool NothingRead() const { return integer.empty() && fraction.empty() && !point_read; }

  bool ReadSign(bool minus_only) {
    const char c = text[at];
    if (c != '-' && c != '+' && !(brackets && c == '<')) return false;
    if (minus_only && c == '+') return false;
    negative = c != '+';
    sign_read = true;
    ++at;
    return true;
  }

  void ReadNumberPart(Token token) {
    if (text[at] == ' ' && ++at >= text.size()) return;
    if (NothingRead() && !sign_read) {
      if (ReadSign(false) && AtEnd()) return;
    } else if (token == Token::kAnchored && !sign_read && ReadSign(false)) {
      return;
    }
    const char c = text[at];
    at += std::max<size_t>(1, Utf8CharLength(text.substr(at)));
    if (c >= '0' && c <= '9') {
      (point_read ? fraction : integer) += c;
    } else if (c == '.' && has_point && !point_read) {
      point_read = true;
    }
  }
};

}  // namespace

absl::StatusOr<double> ReadNumberTemplate(std::string_view text, std::string_view pattern) {
  absl::StatusOr<Template> t = Parse(pattern, "to_number");
  if (!t.ok()) return t.status();
  if (t->exponent) {
    return absl::InvalidArgumentError(StrCat("the template '", EchoInput(pattern),
                                             "' uses EEEE, which to_number does not read; cast "
                                             "the text instead: '1.5e3'::double"));
  }
  NumberReader r{.text = text};
  for (const Item& item : t->items) {
    r.brackets |= item.token == Token::kBrackets;
    r.has_point |= item.token == Token::kPoint;
  }
  for (const Item& item : t->items) {
    if (r.AtEnd()) break;
    switch (item.token) {
      case Token::kDigit:
      case Token::kPoint:
      case Token::kAnchored:
      case Token::kBrackets:
        r.ReadNumberPart(item.token);
        break;
      case Token::kGroup:
        r.at += text[r.at] == ',' ? 1 : 0;
        break;
      case Token::kMinus:
      case Token::kEither:
        if (!r.sign_read && r.ReadSign(item.token == Token::kMinus)) break;
        ++r.at;
        break;
      case Token::kPlus:
        ++r.at;
        break;
      case Token::kExponent:
        break;
      case Token::kLiteral:
        r.at += Utf8Offset(text.substr(r.at), Utf8Length(item.text));
        break;
    }
  }
  if (r.integer.empty() && r.fraction.empty()) {
    return absl::InvalidArgumentError(StrCat("'", EchoInput(text),
                                             "' has no digit where the template '",
                                             EchoInput(pattern), "' reads one"));
  }
  r.integer.erase(0, std::min(r.integer.find_first_not_of('0'), r.integer.size()));
  if (static_cast<int>(r.integer.size()) > t->pre) {
    return absl::InvalidArgumentError(StrCat("'", EchoInput(text), "' has ", r.integer.size(),
                                             " digits before the point; the template '",
                                             EchoInput(pattern), "' has places for ", t->pre));
  }
  // Fraction digits past the template's places (a point read at a digit position leaves more)
  // are cut, as PostgreSQL cuts them.
  r.fraction.resize(std::min(r.fraction.size(), static_cast<size_t>(t->post)));
  const double value = std::strtod(StrCat(r.integer, ".", r.fraction, "0").c_str(), nullptr);
  return r.negative ? -value : value;
}

}  // namespace strata::query
