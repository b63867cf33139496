// PostgreSQL's catalog functions that tools call over pg_catalog's tables (query/exec/
// pg_catalog.h): SQLAlchemy's reflection, DBeaver, pgAdmin. Strata has no search path, no
// column defaults, sequences or comments, so most answer what such a catalog holds: every
// table visible, no default, no description.
#include <algorithm>

#include "common/strings.h"
#include "query/base/postgres_types.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<DataType>;

// A function of `arity` arguments (any types) that answers `value` whatever they hold.
ScalarFunction Constant(std::string name, std::string signature, std::string doc,
                        std::vector<size_t> arities, Datum value) {
  return {std::move(name),
          signature,
          std::move(doc),
          [signature, arities, type = value.type](const Types& t) -> absl::StatusOr<DataType> {
            if (std::find(arities.begin(), arities.end(), t.size()) == arities.end()) {
              return WrongArguments(signature);
            }
            return type;
          },
          [value](const Args&, const EvalContext&) { return value; },
          false};
}

}  // namespace

void AddPgCatalogFunctions(std::vector<ScalarFunction>* scalars) {
  scalars->push_back(
      {"format_type", "format_type(type_oid, typemod) -> varchar",
       "PostgreSQL's name of the type with that OID ('bigint', 'timestamp with time zone', "
       "'text[]'), as pg_catalog.pg_type lists them; '???' for another OID, NULL for NULL. The "
       "modifier is not read (Strata's types have none).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || (t[0] != kBig && t[0] != DataType::kUnknown)) {
           return WrongArguments("format_type(type_oid, typemod)");
         }
         return kStr;
       },
       [](const Args& a, const EvalContext&) {
         if (a[0].null) return Datum::Null(kStr);
         const PostgresType* type = PostgresTypeOf(static_cast<int32_t>(a[0].i));
         return Datum::Varchar(type == nullptr ? "???" : std::string(type->formatted));
       },
       false});
  for (std::string_view name : {"pg_table_is_visible", "pg_type_is_visible"}) {
    scalars->push_back(Constant(
        std::string(name), StrCat(name, "(oid) -> boolean"),
        "True: Strata has no search path, so every table the caller may see (and every type) "
        "is visible.",
        {1}, Datum::Bool(true)));
  }
  scalars->push_back(Constant("pg_get_expr", "pg_get_expr(expression, relation_oid) -> varchar",
                              "NULL: Strata keeps no column defaults or expressions.", {2, 3},
                              Datum::Null(kStr)));
  scalars->push_back(Constant("pg_get_serial_sequence",
                              "pg_get_serial_sequence(table, column) -> varchar",
                              "NULL: Strata has no sequences.", {2}, Datum::Null(kStr)));
  scalars->push_back(Constant("obj_description", "obj_description(oid [, catalog]) -> varchar",
                              "NULL: Strata keeps no comments on tables.", {1, 2},
                              Datum::Null(kStr)));
  scalars->push_back(Constant("col_description", "col_description(table_oid, column) -> varchar",
                              "NULL: Strata keeps no comments on columns.", {2},
                              Datum::Null(kStr)));
}

}  // namespace strata::query
