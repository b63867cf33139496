// head_log_fuzz's driver without libFuzzer (driver.h): byte mutations
// (byte_mutator.h) of entries of both formats.
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"
#include "tests/fuzz/head_log_entry.h"

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "head_log", strata::fuzz::HeadLogSeeds(),
                                 strata::fuzz::MutateBytes, 300'000);
}
