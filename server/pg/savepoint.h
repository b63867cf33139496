// SAVEPOINT name, RELEASE [SAVEPOINT] name and ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name:
// the statements ORMs nest their transactions with (SQLAlchemy's begin_nested, Django's atomic
// blocks). Strata's statements are not transactions, so a savepoint undoes nothing; the session
// keeps the names to answer as PostgreSQL does (RELEASE and ROLLBACK TO of a name it never
// set fail), and ROLLBACK TO ends a failed block's error state, as PostgreSQL's does.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace strata::pg {

// PostgreSQL's longest identifier (NAMEDATALEN - 1).
inline constexpr size_t kMaxSavepointName = 63;

struct SavepointStatement {
  enum class Kind { kSavepoint, kRelease, kRollbackTo };
  Kind kind = Kind::kSavepoint;
  std::string name;  // folded to lower case unless written "quoted"
};

// nullopt: `sql` is no savepoint statement (ROLLBACK alone is the transaction's); an error for
// one without a valid name.
std::optional<absl::StatusOr<SavepointStatement>> ParseSavepointStatement(std::string_view sql);

}  // namespace strata::pg
