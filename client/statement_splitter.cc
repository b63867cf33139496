#include "client/absl_compat.h"
#include "client/statement_splitter.h"

#include "absl/strings/ascii.h"

namespace strata::cli {

void StatementSplitter::AddLine(const std::string& line) {
  if (!pending_.empty()) pending_ += '\n';
  pending_ += line;
}

std::vector<std::string> StatementSplitter::TakeStatements() {
  std::vector<std::string> statements;
  enum class State { kCode, kString, kIdentifier, kLineComment, kBlockComment } state = State::kCode;
  size_t start = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    char c = pending_[i];
    char next = i + 1 < pending_.size() ? pending_[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (c == '\'') {
          state = State::kString;
        } else if (c == '"') {
          state = State::kIdentifier;
        } else if (c == '-' && next == '-') {
          state = State::kLineComment;
        } else if (c == '/' && next == '*') {
          state = State::kBlockComment;
          ++i;
        } else if (c == ';') {
          std::string statement(Trim(pending_.substr(start, i - start)));
          if (!statement.empty()) statements.push_back(std::move(statement));
          start = i + 1;
        }
        break;
      case State::kString:  // '' inside a string is a quote: two state flips, same result
        if (c == '\'') state = State::kCode;
        break;
      case State::kIdentifier:
        if (c == '"') state = State::kCode;
        break;
      case State::kLineComment:
        if (c == '\n') state = State::kCode;
        break;
      case State::kBlockComment:
        if (c == '*' && next == '/') {
          state = State::kCode;
          ++i;
        }
        break;
    }
  }
  pending_.erase(0, start);
  return statements;
}

bool StatementSplitter::empty() const {
  return Trim(pending_).empty();
}

void StatementSplitter::Clear() { pending_.clear(); }

}  // namespace strata::cli
