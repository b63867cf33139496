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

// Keywords and the functions people type most; the full function list is docs/sql.md.
constexpr const char* kWords[] = {
    "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "HAVING", "AND", "OR", "NOT",
    "AS", "DISTINCT", "CASE", "WHEN", "THEN", "ELSE", "END", "BETWEEN", "IN", "LIKE", "IS",
    "NULL", "ASC", "DESC", "WITH", "SHOW", "TABLES", "DATABASES", "MEASURES", "QUERIES",
    "DESCRIBE", "EXPLAIN", "DELETE", "USE", "KILL", "QUERY", "INTERVAL", "TIMESTAMP", "CAST",
    "count", "sum", "avg", "min", "max", "max_by", "min_by", "approx_percentile", "stddev",
    "bin", "ago", "now", "date_trunc", "from_milliseconds", "to_milliseconds", "to_iso8601",
    "coalesce", "round", "abs", "regexp_like", "lower", "upper", "measure_name", "time"};

ShellCompletion* installed = nullptr;
std::vector<std::string> matches;

char* Generate(const char* text, int state) {
  if (state == 0) matches = installed->Complete(text);
  if (static_cast<size_t>(state) >= matches.size()) return nullptr;
  return strdup(matches[static_cast<size_t>(state)].c_str());
}

char** Attempt(const char* text, int /*start*/, int /*end*/) {
  rl_attempted_completion_over = 1;  // no file names
  return rl_completion_matches(text, Generate);
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
  std::set<std::string> names;
  for (const auto& row : lookup_("SHOW DATABASES")) {
    if (!row.empty()) names.insert(row[0]);
  }
  std::vector<std::pair<std::string, std::string>> tables;
  for (const auto& row : lookup_("SHOW TABLES")) {
    if (row.size() < 2) continue;
    tables.emplace_back(row[0], row[1]);
    names.insert(row[0] + "." + row[1]);
    if (row[0] == database_) names.insert(row[1]);
  }
  // Columns of the first tables (a session rarely needs more than a few dozen).
  constexpr size_t kDescribed = 32;
  for (size_t i = 0; i < tables.size() && i < kDescribed; ++i) {
    for (const auto& row :
         lookup_("DESCRIBE \"" + tables[i].first + "\".\"" + tables[i].second + "\"")) {
      if (!row.empty()) names.insert(row[0]);
    }
  }
  names_.assign(names.begin(), names.end());
}

std::vector<std::string> ShellCompletion::Complete(const std::string& prefix) {
  if (!fetched_) Fetch();
  std::vector<std::string> out;
  const bool lower = !prefix.empty() && std::islower(static_cast<unsigned char>(prefix[0]));
  for (const char* word : kWords) {
    std::string w = word;
    if (!StartsWithNoCase(w, prefix)) continue;
    // Keywords follow the case the user types.
    if (lower) std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
    out.push_back(w);
  }
  for (const std::string& name : names_) {
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace strata::cli
