// The registry's contents: the core functions (functions_core.cc) and each
// family of its own file (function_families.h). Apart from functions.cc so
// that the families, which include functions.h, are not included back.
#include "query/functions/function_families.h"
#include "query/functions/functions.h"

namespace strata::query {

FunctionRegistry::FunctionRegistry() {
  AddCoreFunctions(&scalars_, &aggregates_);
  AddArrayFunctions(&scalars_, &aggregates_);
  AddArraySetFunctions(&scalars_);
  AddArrayConcatFunctions(&scalars_);
  AddMapFunctions(&scalars_, &aggregates_);
  AddTimeseriesFunctions(&scalars_, &aggregates_);
  AddLambdaFunctions(&scalars_);
  AddTextFunctions(&scalars_, &aggregates_);
  AddJsonFunctions(&scalars_);
  AddJsonBuildFunctions(&scalars_, &aggregates_);
  AddJsonbOperatorFunctions(&scalars_);
  AddGenerateSeriesFunctions(&scalars_);
  AddUrlFunctions(&scalars_);
  AddPgCatalogFunctions(&scalars_);
  AddFormatFunction(&scalars_);
  AddMathFunctions(&scalars_);
  AddTimeTextFunctions(&scalars_);
  AddTimeZoneFunctions(&scalars_);
  AddStatisticsAggregates(&aggregates_);
}

}  // namespace strata::query
