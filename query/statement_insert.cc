// INSERT INTO t [(columns)] VALUES ... | SELECT ...: each row of the query one MULTI record of
// the table, written as WriteRecords writes (through the InsertSink of a server: the caller's
// write grant, the write path's rules, a cluster's shard logs). docs/sql.md, "INSERT", says
// which column becomes what.
#include <memory>
#include <utility>
#include <vector>

#include "common/status.h"
#include "query/insert_writer.h"
#include "query/plan/planner.h"
#include "query/statements.h"

namespace strata::query {

absl::Status InsertRows(Statement stmt, const StatementRun& run) {
  ASSIGN_OR_RETURN(const InsertTarget target, OpenInsertTarget(stmt, run));
  Planner planner(run.storage, run.layouts, run.sql, &run.context, &run.stats);
  ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, planner.PlanSelect(std::move(stmt.select)));
  ASSIGN_OR_RETURN(std::vector<ColumnRole> roles,
                   ColumnRoles("INSERT", stmt, run, plan->output, *target.layout));
  const std::vector<ResultColumn> answer = {{"rows_inserted", DataType::kBigint}};
  if (run.options.describe_only) return run.sink.Columns(answer);
  InsertWriter writer(*target.table, std::move(roles), run, "INSERT", "row");
  RETURN_IF_ERROR(run.context.CheckAlive());
  absl::Status inserted = plan->Run(&run.context, &writer);
  if (inserted.ok()) inserted = writer.Finish();  // the last batch, if the run did not write it
  if (!inserted.ok()) return writer.Stopped(std::move(inserted));
  RETURN_IF_ERROR(writer.Rejections());
  run.stats.rows_returned = 0;
  return run.Emit(answer, {{Datum::Bigint(writer.written())}});
}

}  // namespace strata::query
