// Fuzz target: arbitrary bytes as a magnetic-store block. Decoding must
// return an error or a block, never crash, hang or read out of bounds; a block
// that decodes must encode again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "storage/format/block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto summary = strata::format::DecodeBlockSummary(bytes);
  auto points = strata::format::DecodeBlock(bytes);
  // The full decode reads the header too: it cannot succeed where the
  // header alone failed.
  if (points.ok() && !summary.ok()) std::abort();
  // The scan's partial decodes (some columns, with or without times) read
  // the same bytes: no crash whichever columns are asked for, and success
  // wherever the full decode succeeded.
  bool every_other = false;
  for (bool with_times : {true, false}) {
    auto partial = strata::format::DecodeBlockColumns(
        bytes, /*with_versions=*/false,
        [&](const strata::format::ColumnSummary&) { return every_other = !every_other; },
        with_times);
    if (points.ok() && !partial.ok()) std::abort();
  }
  if (points.ok()) {
    auto again = strata::format::EncodeBlock(*points);
    // Two columns of one name are well-formed bytes the encoder never writes.
    if (again.ok() && !strata::format::DecodeBlock(*again).ok()) std::abort();
  }
  return 0;
}
