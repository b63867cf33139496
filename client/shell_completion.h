// Tab completion in `strata shell`: SQL keywords, common functions (with
// their "("), and the server's databases, tables (as db.table, and bare after
// USE) and columns, fetched once per session on the first Tab (and again
// after USE). What is offered follows the word before: after USE only
// databases, after FROM, JOIN, DESCRIBE or INTO only tables. Names are read
// with SHOW DATABASES / SHOW TABLES / DESCRIBE, so a token sees only what its
// grants reach.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace strata::cli {

class ShellCompletion {
 public:
  // Runs `sql` and returns the first column of its rows ("" on failure).
  using Lookup = std::function<std::vector<std::vector<std::string>>(const std::string& sql)>;

  explicit ShellCompletion(Lookup lookup) : lookup_(std::move(lookup)) {}

  // The words that complete `prefix` (case-insensitive for keywords), given
  // the line's text before it.
  std::vector<std::string> Complete(const std::string& prefix, const std::string& before = "");
  // Forgets the fetched names (after USE, or to see new tables).
  void Reset(const std::string& database) {
    database_ = database;
    databases_.clear();
    tables_.clear();
    columns_.clear();
    fetched_ = false;
  }

  // Installs `completion` as libedit's completer; null removes it.
  static void Install(ShellCompletion* completion);

 private:
  void Fetch();

  Lookup lookup_;
  std::string database_;
  bool fetched_ = false;
  std::vector<std::string> databases_;
  std::vector<std::string> tables_;   // db.table, and bare names of the USE database
  std::vector<std::string> columns_;
};

}  // namespace strata::cli
