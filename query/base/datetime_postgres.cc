// PostgreSQL's template patterns compiled to parts (datetime_parts.h), as its
// manual's "Template Patterns for Date/Time Formatting" has them: keywords
// matched longest first, each in upper case and (but for names, whose case
// chooses how they are written) in lower case; FM, FX and TM before a
// keyword, TH or th after a number; "double-quoted" text and anything that
// is not a keyword copied as it is.
#include <array>

#include "common/strings.h"
#include "query/base/datetime_parts.h"

namespace strata::query::datetime {
namespace {

struct Keyword {
  std::string_view text;
  Field field;
  int width = 1;
  int tail = 0;
  LetterCase letter_case = LetterCase::kAsStored;
  bool dotted = false;
  int pad_to = 0;
};

constexpr LetterCase kUp = LetterCase::kUpper, kLow = LetterCase::kLower,
                     kCap = LetterCase::kAsStored;

// Upper-case spellings; NumberKeywords are also taken in lower case.
constexpr std::array kNumberKeywords = {
    Keyword{"Y,YYY", Field::kYearComma},
    Keyword{"YYYY", Field::kYear, 4},
    Keyword{"YYY", Field::kYear, 3, 3},
    Keyword{"YY", Field::kYear, 2, 2},
    Keyword{"Y", Field::kYear, 1, 1},
    Keyword{"IYYY", Field::kWeekYear, 4},
    Keyword{"IYY", Field::kWeekYear, 3, 3},
    Keyword{"IY", Field::kWeekYear, 2, 2},
    Keyword{"I", Field::kWeekYear, 1, 1},
    Keyword{"MM", Field::kMonth, 2},
    Keyword{"Q", Field::kQuarter},
    Keyword{"DDD", Field::kDayOfYear, 3},
    Keyword{"DD", Field::kDay, 2},
    Keyword{"D", Field::kWeekdaySunday1},
    Keyword{"IDDD", Field::kIsoDayOfYear, 3},
    Keyword{"ID", Field::kWeekdayNumber},
    Keyword{"HH24", Field::kHour24, 2},
    Keyword{"HH12", Field::kHour12, 2},
    Keyword{"HH", Field::kHour12, 2},
    Keyword{"MI", Field::kMinute, 2},
    Keyword{"SSSSS", Field::kSecondsOfDay},
    Keyword{"SSSS", Field::kSecondsOfDay},
    Keyword{"SS", Field::kSecond, 2},
    Keyword{"MS", Field::kFraction, 3},
    Keyword{"US", Field::kFraction, 6},
    Keyword{"FF1", Field::kFraction, 1},
    Keyword{"FF2", Field::kFraction, 2},
    Keyword{"FF3", Field::kFraction, 3},
    Keyword{"FF4", Field::kFraction, 4},
    Keyword{"FF5", Field::kFraction, 5},
    Keyword{"FF6", Field::kFraction, 6},
    Keyword{"IW", Field::kWeekOfYear, 2},
    Keyword{"WW", Field::kWeekOfYearJan1, 2},
    Keyword{"W", Field::kWeekOfMonth},
    Keyword{"CC", Field::kCentury, 2},
    Keyword{"J", Field::kJulianDay},
    Keyword{"TZM", Field::kOffsetMinutes, 2},
};

// Names, whose spelling is also how they are written.
constexpr std::array kNameKeywords = {
    Keyword{"MONTH", Field::kMonthLong, 0, 0, kUp, false, 9},
    Keyword{"Month", Field::kMonthLong, 0, 0, kCap, false, 9},
    Keyword{"month", Field::kMonthLong, 0, 0, kLow, false, 9},
    Keyword{"MON", Field::kMonthShort, 0, 0, kUp},
    Keyword{"Mon", Field::kMonthShort, 0, 0, kCap},
    Keyword{"mon", Field::kMonthShort, 0, 0, kLow},
    Keyword{"DAY", Field::kWeekdayLong, 0, 0, kUp, false, 9},
    Keyword{"Day", Field::kWeekdayLong, 0, 0, kCap, false, 9},
    Keyword{"day", Field::kWeekdayLong, 0, 0, kLow, false, 9},
    Keyword{"DY", Field::kWeekdayShort, 0, 0, kUp},
    Keyword{"Dy", Field::kWeekdayShort, 0, 0, kCap},
    Keyword{"dy", Field::kWeekdayShort, 0, 0, kLow},
    Keyword{"A.M.", Field::kAmPm, 0, 0, kUp, true},
    Keyword{"P.M.", Field::kAmPm, 0, 0, kUp, true},
    Keyword{"a.m.", Field::kAmPm, 0, 0, kLow, true},
    Keyword{"p.m.", Field::kAmPm, 0, 0, kLow, true},
    Keyword{"AM", Field::kAmPm, 0, 0, kUp},
    Keyword{"PM", Field::kAmPm, 0, 0, kUp},
    Keyword{"am", Field::kAmPm, 0, 0, kLow},
    Keyword{"pm", Field::kAmPm, 0, 0, kLow},
    Keyword{"A.D.", Field::kEra, 0, 0, kUp, true},
    Keyword{"B.C.", Field::kEra, 0, 0, kUp, true},
    Keyword{"a.d.", Field::kEra, 0, 0, kLow, true},
    Keyword{"b.c.", Field::kEra, 0, 0, kLow, true},
    Keyword{"AD", Field::kEra, 0, 0, kUp},
    Keyword{"BC", Field::kEra, 0, 0, kUp},
    Keyword{"ad", Field::kEra, 0, 0, kLow},
    Keyword{"bc", Field::kEra, 0, 0, kLow},
    Keyword{"RM", Field::kRomanMonth, 0, 0, kUp, false, 4},
    Keyword{"rm", Field::kRomanMonth, 0, 0, kLow, false, 4},
    Keyword{"TZH", Field::kOffsetHours, 0, 0, kUp},
    Keyword{"tzh", Field::kOffsetHours, 0, 0, kLow},
    Keyword{"TZ", Field::kZone, 0, 0, kUp},
    Keyword{"tz", Field::kZone, 0, 0, kLow},
    Keyword{"OF", Field::kOffsetHours, 0, 0, kUp},
    Keyword{"of", Field::kOffsetHours, 0, 0, kLow},
};

bool StartsWithLower(std::string_view text, std::string_view upper) {
  if (text.size() < upper.size()) return false;
  for (size_t i = 0; i < upper.size(); ++i) {
    const char u = upper[i];
    const char l = u >= 'A' && u <= 'Z' ? static_cast<char>(u - 'A' + 'a') : u;
    if (text[i] != l) return false;
  }
  return true;
}

// The longest keyword at the start of `text`, or nullptr.
const Keyword* Match(std::string_view text) {
  const Keyword* best = nullptr;
  auto consider = [&](const Keyword& k, bool matches) {
    if (matches && (best == nullptr || k.text.size() > best->text.size())) best = &k;
  };
  for (const Keyword& k : kNumberKeywords) {
    consider(k, text.substr(0, k.text.size()) == k.text || StartsWithLower(text, k.text));
  }
  for (const Keyword& k : kNameKeywords) consider(k, text.substr(0, k.text.size()) == k.text);
  return best;
}

bool TakePrefix(std::string_view* text, std::string_view upper) {
  if (text->substr(0, upper.size()) == upper || StartsWithLower(*text, upper)) {
    text->remove_prefix(upper.size());
    return true;
  }
  return false;
}

}  // namespace

void AddLiteral(std::vector<Part>* parts, std::string_view text) {
  if (!parts->empty() && parts->back().field == Field::kLiteral) {
    parts->back().literal += text;
  } else {
    parts->push_back({.field = Field::kLiteral, .width = 0, .literal = std::string(text)});
  }
}

absl::StatusOr<std::vector<Part>> CompilePostgres(std::string_view pattern) {
  std::vector<Part> parts;
  std::string_view rest = pattern;
  bool fill = false;  // FM seen, for the next keyword
  while (!rest.empty()) {
    if (rest[0] == '"') {  // quoted text; \" inside is a quote
      std::string text;
      size_t i = 1;
      for (; i < rest.size() && rest[i] != '"'; ++i) {
        if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
        text += rest[i];
      }
      if (i == rest.size())
        return absl::InvalidArgumentError("a double quote in the pattern is not closed");
      AddLiteral(&parts, text);
      rest.remove_prefix(i + 1);
      continue;
    }
    if (rest[0] == '\\' && rest.size() > 1 && rest[1] == '"') {
      AddLiteral(&parts, "\"");
      rest.remove_prefix(2);
      continue;
    }
    if (TakePrefix(&rest, "FM")) {
      fill = true;
      continue;
    }
    if (TakePrefix(&rest, "FX") || TakePrefix(&rest, "TM"))
      continue;  // strict parsing, translation: no-ops
    const Keyword* k = Match(rest);
    if (k == nullptr) {
      AddLiteral(&parts, rest.substr(0, 1));
      rest.remove_prefix(1);
      continue;
    }
    rest.remove_prefix(k->text.size());
    Part part{.field = k->field,
              .width = k->width,
              .tail = k->tail,
              .fill = fill,
              .pad_to = fill ? 0 : k->pad_to,
              .letter_case = k->letter_case,
              .dotted = k->dotted};
    fill = false;
    const bool number =
        k >= kNumberKeywords.data() && k < kNumberKeywords.data() + kNumberKeywords.size();
    if (number && rest.substr(0, 2) == "TH") part.ordinal = 1, rest.remove_prefix(2);
    if (number && rest.substr(0, 2) == "th") part.ordinal = 2, rest.remove_prefix(2);
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace strata::query::datetime
