// Strata's errors as PostgreSQL ErrorResponse fields: the SQLSTATE clients
// branch on (psql, psycopg's exception classes, node-postgres's `code`) and
// the message without the LINE/caret lines, whose place goes in the
// Position field instead.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace strata::pg {

// The five-character SQLSTATE for `status`: 42601 syntax_error, 42703
// undefined_column, 42P01 undefined_table, 3D000 invalid_catalog_name (no
// such database), 42883 undefined_function, 42804 datatype_mismatch, 22012
// division_by_zero, 22P02 invalid_text_representation, 22023 invalid_parameter_value, 42501
// insufficient_privilege, 28P01 invalid_password, 53200 out_of_memory,
// 53000 insufficient_resources, 57014 query_canceled, 0A000
// feature_not_supported, 08006 connection_failure, XX000 otherwise.
std::string_view SqlState(const absl::Status& status);

}  // namespace strata::pg
