// The scheduler's types and the API's messages: what the gRPC service
// converts and the stored records are made of (scheduled_query_proto.h).
#include "server/scheduler/scheduled_query_proto.h"

#include <string>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "server/scheduler/scheduled_query_codec.h"

namespace strata {
namespace {

using google::protobuf::util::MessageDifferencer;

v1::ScheduledQuery FullDefinition() {
  v1::ScheduledQuery q;
  q.set_name("rollup");
  q.set_query_string("SELECT host, @limit FROM mydb.cpu");
  v1::QueryParameter* p = q.add_parameters();
  p->set_name("limit");
  p->mutable_value()->set_bigint_value(5);
  v1::QueryParameter* when = q.add_parameters();
  when->set_name("since");
  when->mutable_value()->set_timestamp_value(1'700'000'000'000'000'000);
  q.set_schedule_expression("cron(0 * * * ? *)");
  q.set_state(v1::SCHEDULED_QUERY_STATE_DISABLED);
  v1::TargetConfiguration& t = *q.mutable_target_configuration();
  t.set_database_name("mydb");
  t.set_table_name("rollup");
  t.set_time_column("minute");
  t.set_measure_name_column("metric");
  t.add_dimension_mappings()->set_name("host");
  v1::MixedMeasureMapping* m = t.add_mixed_measure_mappings();
  m->set_measure_name("cpu");
  m->set_source_column("avg_cpu");
  m->set_target_measure_name("cpu_avg");
  m->set_measure_value_type(v1::MEASURE_VALUE_TYPE_MULTI);
  v1::MultiMeasureAttributeMapping* a = m->add_multi_measure_attribute_mappings();
  a->set_source_column("avg_cpu");
  a->set_target_multi_measure_attribute_name("avg");
  a->set_measure_value_type(v1::MEASURE_VALUE_TYPE_DOUBLE);
  q.mutable_error_report_configuration()->set_max_rejected_rows(7);
  *q.mutable_creation_time() = google::protobuf::Timestamp();
  q.mutable_creation_time()->set_seconds(1'700'000'000);
  q.set_owner("ops");
  return q;
}

TEST(ScheduledQueryProtoTest, ADefinitionReadsAndWritesBackTheSameMessage) {
  const v1::ScheduledQuery original = FullDefinition();
  absl::StatusOr<ScheduledQueryDefinition> definition = DefinitionFromProto(original);
  ASSERT_TRUE(definition.ok()) << definition.status();
  EXPECT_EQ(definition->state, ScheduledQueryState::kDisabled);
  ASSERT_EQ(definition->parameters.size(), 2u);
  EXPECT_EQ(definition->parameters[0].first, "limit");  // in the order given
  EXPECT_EQ(definition->target.mixed.at(0).type, MeasureKind::kMulti);
  v1::ScheduledQuery back;
  DefinitionToProto(*definition, &back);
  EXPECT_TRUE(MessageDifferencer::Equals(original, back)) << back.DebugString();

  // The stored bytes are the message's: a record written before these
  // types reads the same.
  absl::StatusOr<ScheduledQueryDefinition> stored = DecodeDefinition(original.SerializeAsString());
  ASSERT_TRUE(stored.ok()) << stored.status();
  v1::ScheduledQuery reread;
  ASSERT_TRUE(reread.ParseFromString(EncodeDefinition(*stored)));
  EXPECT_TRUE(MessageDifferencer::Equals(original, reread));
}

TEST(ScheduledQueryProtoTest, ARunReadsAndWritesBackTheSameMessage) {
  v1::ScheduledQueryRunSummary original;
  original.mutable_invocation_time()->set_seconds(1'700'000'060);
  original.mutable_trigger_time()->set_seconds(1'700'000'061);
  original.mutable_end_time()->set_seconds(1'700'000'062);
  original.set_run_status(v1::MANUAL_TRIGGER_FAILURE);
  original.mutable_execution_stats()->set_execution_time_in_millis(12);
  original.mutable_execution_stats()->set_query_result_rows(3);
  original.mutable_execution_stats()->set_records_ingested(1);
  original.mutable_execution_stats()->set_records_rejected(2);
  original.mutable_execution_stats()->set_cumulative_bytes_scanned(4096);
  original.mutable_execution_stats()->set_rows_skipped(1);
  original.set_failure_reason("the target table does not exist");
  original.set_attempt(2);
  v1::RejectedRow* conflict = original.add_rejected_rows();
  conflict->set_row(0);
  conflict->set_reason("version conflict");
  conflict->set_existing_version(0);  // present, and zero
  original.add_rejected_rows()->set_row(4);

  const ScheduledQueryRunSummary run = RunFromProto(original);
  EXPECT_EQ(run.status, RunStatus::kManualTriggerFailure);
  EXPECT_TRUE(Failed(run.status));
  EXPECT_TRUE(Manual(run.status));
  ASSERT_EQ(run.rejected_rows.size(), 2u);
  EXPECT_EQ(run.rejected_rows[0].existing_version, 0);
  EXPECT_FALSE(run.rejected_rows[1].existing_version.has_value());
  v1::ScheduledQueryRunSummary back;
  RunToProto(run, &back);
  EXPECT_TRUE(MessageDifferencer::Equals(original, back)) << back.DebugString();

  absl::StatusOr<ScheduledQueryRunSummary> stored = DecodeRun(EncodeRun(run));
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->failure_reason, run.failure_reason);
  EXPECT_EQ(RunStatusName(stored->status), "MANUAL_TRIGGER_FAILURE");
}

TEST(ScheduledQueryProtoTest, WhatTheSchedulerCannotUseIsRefusedWithTheField) {
  struct Case {
    void (*change)(v1::ScheduledQuery&);
    std::string message;
  };
  const Case cases[] = {
      {[](v1::ScheduledQuery& q) {
         q.mutable_target_configuration()
             ->mutable_mixed_measure_mappings(0)
             ->set_measure_value_type(static_cast<v1::MeasureValueType>(42));
       },
       "measure_value_type"},
      {[](v1::ScheduledQuery& q) {
         q.mutable_target_configuration()
             ->mutable_mixed_measure_mappings(0)
             ->mutable_multi_measure_attribute_mappings(0)
             ->set_measure_value_type(static_cast<v1::MeasureValueType>(-3));
       },
       "measure_value_type"},
      {[](v1::ScheduledQuery& q) { q.mutable_parameters(1)->clear_value(); },
       "parameter 2 (@since) has no value"},
  };
  for (const Case& c : cases) {
    v1::ScheduledQuery q = FullDefinition();
    c.change(q);
    absl::StatusOr<ScheduledQueryDefinition> read = DefinitionFromProto(q);
    ASSERT_FALSE(read.ok()) << c.message;
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(read.status().message()).find(c.message), std::string::npos)
        << read.status().message();
  }
}

TEST(ScheduledQueryProtoTest, BytesThatAreNoRecordAreRefused) {
  EXPECT_FALSE(DecodeDefinition("\xff\xff\xff").ok());
  EXPECT_FALSE(DecodeRun("\x0a\x05").ok());
}

}  // namespace
}  // namespace strata
