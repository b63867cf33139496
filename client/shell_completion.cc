#include "client/shell_completion.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

extern "C" {
#include <editline/readline.h>
}

namespace strata::cli {
namespace {

// Keywords, and the functions people type most (completed with their "("); the
// full function list is docs/sql.md.
constexpr const char* kKeywords[] = {
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "OFFSET", "HAVING", "AND", "OR",
    "NOT", "AS", "DISTINCT", "CASE", "WHEN", "THEN", "ELSE", "END", "BETWEEN", "IN", "LIKE", "IS",
    "NULL", "ASC", "DESC", "WITH", "JOIN", "LEFT", "INNER", "ON", "UNION", "SHOW", "TABLES",
    "DATABASES", "MEASURES", "QUERIES", "DESCRIBE", "EXPLAIN", "DELETE", "USE", "KILL", "QUERY",
    "INTERVAL", "TIMESTAMP", "FILTER", "measure_name", "time"};
constexpr const char* kFunctions[] = {
    "count", "sum", "avg", "min", "max", "max_by", "min_by", "approx_percentile", "stddev",
    "bin", "ago", "now", "date_trunc", "date_add", "date_diff", "from_milliseconds",
    "to_milliseconds", "to_iso8601", "from_iso8601_timestamp", "coalesce", "round", "abs",
    "regexp_like", "lower", "upper", "cast", "create_time_series", "interpolate_linear",
    "derivative_linear", "unnest", "array_agg", "count_if", "if"};

// The last word of `before` in lower case ("" for none): what the word being
// completed follows.
std::string PreviousWord(const std::string& before) {
  size_t end = before.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(before[end - 1]))) --end;
  size_t start = end;
  while (start > 0 && !std::isspace(static_cast<unsigned char>(before[start - 1])) &&
         before[start - 1] != '(' && before[start - 1] != ',') {
    --start;
  }
  std::string word = before.substr(start, end - start);
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return word;
}

ShellCompletion* installed = nullptr;
std::string line_before;  // the line before the word being completed
std::vector<std::string> matches;

char* Generate(const char* text, int state) {
  if (state == 0) matches = installed->Complete(text, line_before);
  if (static_cast<size_t>(state) >= matches.size()) return nullptr;
  return strdup(matches[static_cast<size_t>(state)].c_str());
}

char** Attempt(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // no file names
  line_before.assign(rl_line_buffer, static_cast<size_t>(std::max(start, 0)));
  char** found = rl_completion_matches(text, Generate);
  // A function completes to "name(": the arguments follow without a space.
  const bool function = found != nullptr && found[0] != nullptr && found[1] == nullptr &&
                        std::strlen(found[0]) > 0 && found[0][std::strlen(found[0]) - 1] == '(';
  rl_completion_append_character = function ? '\0' : ' ';
  return found;
}

bool StartsWithNoCase(const std::string& word, const std::string& prefix) {
  if (prefix.size() > word.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

void ShellCompletion::Install(ShellCompletion* completion) {
  installed = completion;
  rl_attempted_completion_function = completion != nullptr ? Attempt : nullptr;
  // db.table completes as one word.
  rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,";
}

void ShellCompletion::Fetch() {
  fetched_ = true;
  std::set<std::string> databases, tables, columns;
  for (const auto& row : lookup_("SHOW DATABASES")) {
    if (!row.empty()) databases.insert(row[0]);
  }
  std::vector<std::pair<std::string, std::string>> listed;
  for (const auto& row : lookup_("SHOW TABLES")) {
    if (row.size() < 2) continue;
    listed.emplace_back(row[0], row[1]);
    tables.insert(row[0] + "." + row[1]);
    if (row[0] == database_) tables.insert(row[1]);
  }
  // Columns of the first tables (a session rarely needs more than a few dozen).
  constexpr size_t kDescribed = 32;
  for (size_t i = 0; i < listed.size() && i < kDescribed; ++i) {
    for (const auto& row :
         lookup_("DESCRIBE \"" + listed[i].first + "\".\"" + listed[i].second + "\"")) {
      if (!row.empty()) columns.insert(row[0]);
    }
  }
  databases_.assign(databases.begin(), databases.end());
  tables_.assign(tables.begin(), tables.end());
  columns_.assign(columns.begin(), columns.end());
}

std::vector<std::string> ShellCompletion::Complete(const std::string& prefix,
                                                   const std::string& before) {
  if (!fetched_) Fetch();
  std::vector<std::string> out;
  auto names = [&](const std::vector<std::string>& list) {
    for (const std::string& name : list) {
      if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
    }
  };
  const std::string previous = PreviousWord(before);
  if (previous == "use") {
    names(databases_);
  } else if (previous == "from" || previous == "join" || previous == "describe" ||
             previous == "into") {
    names(tables_);
  } else {
    const bool lower = !prefix.empty() && std::islower(static_cast<unsigned char>(prefix[0]));
    for (const char* word : kKeywords) {
      std::string w = word;
      if (!StartsWithNoCase(w, prefix)) continue;
      // Keywords follow the case the user types.
      if (lower) std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
      out.push_back(w);
    }
    for (const char* function : kFunctions) {
      if (StartsWithNoCase(function, prefix)) out.push_back(std::string(function) + "(");
    }
    names(columns_);
    names(tables_);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace strata::cli
