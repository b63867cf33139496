#include <chrono>
#include <string>

#include "gtest/gtest.h"
#include "query/functions/functions.h"

namespace strata::query {
namespace {

EvalContext PastItsDeadline() {
  EvalContext context;
  context.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  return context;
}

// Evaluation within one row (lambdas over arrays) reads the clock every 256 cheap steps.
TEST(EvalContextTest, CheapStepsReadTheClockEvery256) {
  EvalContext context = PastItsDeadline();
  int steps = 0;
  while (context.KeepGoing()) ++steps;
  EXPECT_EQ(steps, 255);
  EXPECT_TRUE(context.stopped);
  EXPECT_EQ(context.error, "the query ran past its timeout");
  EXPECT_FALSE(context.KeepGoing());
}

// Regression (found by scripts/fuzz.sh sql): a step that copies megabytes (a lambda doubling
// a text) counted as one, so 256 of them ran far past the query's timeout. Bytes copied count
// as steps: after a 16 MiB copy the next step reads the clock.
TEST(EvalContextTest, MegabytesCopiedReadTheClockAtTheNextStep) {
  EvalContext context = PastItsDeadline();
  EXPECT_TRUE(context.KeepGoing());
  context.Charge(16 << 20);
  EXPECT_FALSE(context.KeepGoing());
  EXPECT_TRUE(context.stopped);
}

// A short text made costs nothing; a long one is work by its bytes and is checked at once.
TEST(EvalContextTest, OnlyALongTextMadeCountsAsWork) {
  EvalContext context = PastItsDeadline();
  EXPECT_TRUE(context.KeepGoingAfterText(EvalContext::kLongTextBytes - 1));
  EXPECT_EQ(context.steps, 0u);
  EXPECT_FALSE(context.KeepGoingAfterText(16 << 20));
  EXPECT_TRUE(context.stopped);
}

// The values a batch computes count while it is in flight: short ones not at all, long ones
// until the operator that made them gives them back; past the query's memory limit the query
// fails, saying so, unless the operator computes the batch again in smaller parts.
TEST(EvalContextTest, LongValuesInFlightAreHeldToTheMemoryLimit) {
  EvalContext context;
  context.max_value_bytes = 1 << 20;
  {
    ValuesInFlight batch(context);
    EXPECT_TRUE(context.HoldInFlight(EvalContext::kLongValueBytes - 1));
    EXPECT_EQ(context.value_bytes_in_flight, 0);
    EXPECT_TRUE(context.HoldInFlight(600 << 10));
    EXPECT_FALSE(context.HoldInFlight(600 << 10));
    EXPECT_TRUE(context.too_many_value_bytes);
    EXPECT_NE(context.error.find("would hold more than 1 MiB of long texts or arrays at once"),
              std::string::npos)
        << context.error;
    context.ForgetTooManyValueBytes();
    EXPECT_TRUE(context.error.empty());
    EXPECT_FALSE(context.too_many_value_bytes);
  }
  EXPECT_EQ(context.value_bytes_in_flight, 0);  // the batch's values are gone
  EXPECT_TRUE(context.HoldInFlight(1 << 20));
  // Another error is not one an operator may retry past.
  context.error = "division by zero";
  EXPECT_FALSE(context.HoldInFlight(1 << 20));
  context.ForgetTooManyValueBytes();
  EXPECT_EQ(context.error, "division by zero");
}

// A batch of more than one row is split once its own values pass kBatchBytes, well within the
// memory limit; a single row is held to the limit only, and so is what follows its evaluation.
TEST(EvalContextTest, ABatchOfSeveralRowsSplitsPastKBatchBytes) {
  EvalContext context;
  context.max_value_bytes = 256 << 20;
  {
    ValuesInFlight batch(context, /*split_rows=*/2);
    EXPECT_TRUE(context.HoldInFlight(kBatchBytes));
    EXPECT_FALSE(context.HoldInFlight(1 << 20));
    EXPECT_TRUE(context.too_many_value_bytes);
    context.ForgetTooManyValueBytes();
    batch.EndEvaluation();
    EXPECT_TRUE(context.HoldInFlight(1 << 20));  // the evaluation is over
  }
  EXPECT_EQ(context.split_above, INT64_MAX);
  ValuesInFlight row(context, /*split_rows=*/1);
  EXPECT_TRUE(context.HoldInFlight(3 * kBatchBytes));
  EXPECT_TRUE(context.error.empty());
}

}  // namespace
}  // namespace strata::query
