// Timestamps as text by a pattern, both ways, in the two pattern languages
// Timestream's functions take: MySQL's specifiers (date_format, date_parse:
// '%Y-%m-%d %H:%i:%s') and Joda-Time's letters (format_datetime,
// parse_datetime: 'yyyy-MM-dd HH:mm:ss'), and in PostgreSQL's templates
// (to_char, to_timestamp, to_date: 'YYYY-MM-DD HH24:MI:SS'). Each compiles to
// one list of fields and literals (datetime_parts.h), formatted and parsed by
// one implementation. All in UTC: a parsed offset ('+02:00') converts to UTC.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::query {

enum class PatternLanguage { kMysql, kJoda, kPostgres };

// `nanos` written by `pattern`; INVALID_ARGUMENT naming a specifier the
// language lacks or Strata does not support.
absl::StatusOr<std::string> FormatTimestampPattern(int64_t nanos, std::string_view pattern,
                                                   PatternLanguage language);

// The timestamp `text` writes by `pattern`; INVALID_ARGUMENT saying where the
// text and the pattern part (or which field is out of range).
absl::StatusOr<int64_t> ParseTimestampPattern(std::string_view text, std::string_view pattern,
                                              PatternLanguage language);

}  // namespace strata::query
