// ScheduledQueryService handlers over ScheduledQueries (scheduled_queries.h),
// and the TestingService that moves a --testing-fixed-time clock.
#pragma once

#include "common/clock.h"
#include "server/grpc/unary.h"
#include "server/scheduler/scheduled_queries.h"
#include "strata/v1/scheduled_query.grpc.pb.h"

namespace strata {

using RawScheduledQueryService = v1::ScheduledQueryService::WithRawMethod_CreateScheduledQuery<
    v1::ScheduledQueryService::WithRawMethod_DescribeScheduledQuery<
        v1::ScheduledQueryService::WithRawMethod_ListScheduledQueries<
            v1::ScheduledQueryService::WithRawMethod_UpdateScheduledQuery<
                v1::ScheduledQueryService::WithRawMethod_DeleteScheduledQuery<
                    v1::ScheduledQueryService::WithRawMethod_ExecuteScheduledQuery<
                        v1::ScheduledQueryService::Service>>>>>>;

class ScheduledQueryService final : public RawScheduledQueryService {
 public:
  // The arguments must outlive the service.
  ScheduledQueryService(ScheduledQueries* scheduled, Authenticator* auth)
      : scheduled_(*scheduled), auth_(*auth) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(CreateScheduledQuery, v1::CreateScheduledQueryRequest,
                     v1::CreateScheduledQueryResponse);
  STRATA_SERVE_UNARY(DescribeScheduledQuery, v1::DescribeScheduledQueryRequest,
                     v1::DescribeScheduledQueryResponse);
  STRATA_SERVE_UNARY(ListScheduledQueries, v1::ListScheduledQueriesRequest,
                     v1::ListScheduledQueriesResponse);
  STRATA_SERVE_UNARY(UpdateScheduledQuery, v1::UpdateScheduledQueryRequest,
                     v1::UpdateScheduledQueryResponse);
  STRATA_SERVE_UNARY(DeleteScheduledQuery, v1::DeleteScheduledQueryRequest,
                     v1::DeleteScheduledQueryResponse);
  STRATA_SERVE_UNARY(ExecuteScheduledQuery, v1::ExecuteScheduledQueryRequest,
                     v1::ExecuteScheduledQueryResponse);

 private:
  ScheduledQueries& scheduled_;
  Authenticator& auth_;
};

using RawTestingService = v1::TestingService::WithRawMethod_SetClock<v1::TestingService::Service>;

class TestingService final : public RawTestingService {
 public:
  // `clock`: the fixed clock of --testing-fixed-time, or null (then every
  // call is FAILED_PRECONDITION). The arguments must outlive the service.
  TestingService(ManualClock* clock, ScheduledQueries* scheduled, Authenticator* auth)
      : clock_(clock), scheduled_(*scheduled), auth_(*auth) {}

  // Serves every method on `queues` (which must outlive their calls) once the
  // server is built.
  void Serve(CallQueues* queues);
  STRATA_SERVE_UNARY(SetClock, v1::SetClockRequest, v1::SetClockResponse);

 private:
  ManualClock* const clock_;
  ScheduledQueries& scheduled_;
  Authenticator& auth_;
};

}  // namespace strata
