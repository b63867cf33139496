#include "server/grpc/scheduled_query_service.h"

#include "common/status.h"
#include "google/protobuf/util/time_util.h"
#include "server/scheduler/scheduled_query_proto.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// The handler's caller for the length of the call (no ownership: the call
// outlives everything the body does with it).
std::shared_ptr<const Principal> Borrow(const Principal& caller) {
  return std::shared_ptr<const Principal>(std::shared_ptr<void>(), &caller);
}

}  // namespace

absl::Status ScheduledQueryService::CreateScheduledQuery(
    const Principal& caller, const v1::CreateScheduledQueryRequest* request,
    v1::CreateScheduledQueryResponse* response) {
  ASSIGN_OR_RETURN(ScheduledQueryDefinition definition,
                   DefinitionFromProto(request->scheduled_query()));
  ASSIGN_OR_RETURN(ScheduledQueryDescription created,
                   scheduled_.Create(Borrow(caller), std::move(definition)));
  DescriptionToProto(created, response->mutable_scheduled_query());
  return absl::OkStatus();
}

absl::Status ScheduledQueryService::DescribeScheduledQuery(
    const Principal& caller, const v1::DescribeScheduledQueryRequest* request,
    v1::DescribeScheduledQueryResponse* response) {
  ASSIGN_OR_RETURN(ScheduledQueryDescription described,
                   scheduled_.Describe(caller, request->name()));
  DescriptionToProto(described, response->mutable_scheduled_query());
  return absl::OkStatus();
}

absl::Status ScheduledQueryService::ListScheduledQueries(
    const Principal& caller, const v1::ListScheduledQueriesRequest* request,
    v1::ListScheduledQueriesResponse* response) {
  ASSIGN_OR_RETURN(ScheduledQueryPage page,
                   scheduled_.List(caller, request->max_results(), request->next_token()));
  for (const ScheduledQueryDescription& q : page.queries) {
    DescriptionToProto(q, response->add_scheduled_queries());
  }
  response->set_next_token(page.next_token);
  return absl::OkStatus();
}

absl::Status ScheduledQueryService::UpdateScheduledQuery(
    const Principal& caller, const v1::UpdateScheduledQueryRequest* request,
    v1::UpdateScheduledQueryResponse* response) {
  ASSIGN_OR_RETURN(ScheduledQueryDescription updated,
                   scheduled_.Update(caller, request->name(), StateFromProto(request->state())));
  DescriptionToProto(updated, response->mutable_scheduled_query());
  return absl::OkStatus();
}

absl::Status ScheduledQueryService::DeleteScheduledQuery(
    const Principal& caller, const v1::DeleteScheduledQueryRequest* request,
    v1::DeleteScheduledQueryResponse*) {
  return scheduled_.Delete(caller, request->name());
}

absl::Status ScheduledQueryService::ExecuteScheduledQuery(
    const Principal& caller, const v1::ExecuteScheduledQueryRequest* request,
    v1::ExecuteScheduledQueryResponse* response) {
  const int64_t invocation =
      request->has_invocation_time()
          ? google::protobuf::util::TimeUtil::TimestampToNanoseconds(request->invocation_time())
          : 0;
  ASSIGN_OR_RETURN(ScheduledQueryRunSummary run, scheduled_.Execute(caller, request->name(), invocation));
  RunToProto(run, response->mutable_run());
  return absl::OkStatus();
}

absl::Status TestingService::SetClock(const Principal& caller, const v1::SetClockRequest* request,
                                      v1::SetClockResponse*) {
  RETURN_IF_ERROR(caller.RequireAdmin("move the test clock"));
  if (clock_ == nullptr) {
    return absl::FailedPreconditionError(
        "the clock can only be moved on a server started with --testing-fixed-time");
  }
  const int64_t now = google::protobuf::util::TimeUtil::TimestampToNanoseconds(request->time());
  spdlog::info("test clock set to {}", now);
  clock_->Set(now);
  scheduled_.RunDue();
  return absl::OkStatus();
}

void ScheduledQueryService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestCreateScheduledQuery,
             &ScheduledQueryService::CreateScheduledQuery);
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestDescribeScheduledQuery,
             &ScheduledQueryService::DescribeScheduledQuery);
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestListScheduledQueries,
             &ScheduledQueryService::ListScheduledQueries);
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestUpdateScheduledQuery,
             &ScheduledQueryService::UpdateScheduledQuery);
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestDeleteScheduledQuery,
             &ScheduledQueryService::DeleteScheduledQuery);
  ServeUnary(queues, auth_, this, &ScheduledQueryService::RequestExecuteScheduledQuery,
             &ScheduledQueryService::ExecuteScheduledQuery);
}

void TestingService::Serve(CallQueues* queues) {
  ServeUnary(queues, auth_, this, &TestingService::RequestSetClock, &TestingService::SetClock);
}

}  // namespace strata
