// PostgreSQL's numeric template patterns, as to_char(number, template) writes a number:
// 9 (a digit, blank when a leading zero), 0 (a digit, zero kept), . or D (the decimal point),
// , or G (a group separator, blank before the first digit), FM (no blanks, no trailing
// fraction zeros past the last 0), S (a sign anchored to the number: + or -), MI, PL, SG (-,
// +, either, where they stand), PR (a negative number in angle brackets), EEEE (scientific
// notation), "quoted text" and other characters as written. Without a sign pattern the number
// is preceded by '-' or, for a positive one, a blank. A number with more integer digits than
// the template has is written as # in every digit position. All in the C locale (D is '.', G
// is ','). RN, TH, V and L are refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::query {

// `value` written by the template. INVALID_ARGUMENT naming what is wrong with the template.
absl::StatusOr<std::string> FormatNumberTemplate(int64_t value, std::string_view pattern);
absl::StatusOr<std::string> FormatNumberTemplate(double value, std::string_view pattern);

// The number a text writes by the template, as PostgreSQL's to_number reads it: each 9, 0, point,
// S or PR position reads one character (a blank before it skipped; a sign before the first
// digit; anything but a digit or the point passed over), a group separator only where the text
// has one, a literal as many characters as it has; digits past the template's fraction
// places are cut. INVALID_ARGUMENT when no digit was read or more integer digits than places.
absl::StatusOr<double> ReadNumberTemplate(std::string_view text, std::string_view pattern);

}  // namespace strata::query
