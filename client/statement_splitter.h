// Finds where SQL statements end in text typed into the shell: at a `;` that
// is not inside a 'string', a "quoted identifier", a -- comment or a /* */
// comment. Lets a statement span lines and several share one line.
#pragma once

#include <string>
#include <vector>

namespace strata::cli {

class StatementSplitter {
 public:
  // Adds a line of input (without its line break).
  void AddLine(const std::string& line);
  // Removes and returns the complete statements so far, without their `;`,
  // trimmed, empty ones dropped.
  std::vector<std::string> TakeStatements();
  // True when nothing but whitespace is pending.
  bool empty() const;
  void Clear();

 private:
  std::string pending_;
};

}  // namespace strata::cli
