// Fuzz target: arbitrary bytes as a magnetic-store block. Decoding must
// return an error or a block, never crash, hang or read out of bounds; a block
// that decodes must encode again, and decode the same when only some points'
// values are asked for.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "storage/blocks/block.h"
#include "storage/blocks/block_format.h"

namespace {

// Equal names and values, a double by its bits (a NaN equals itself here).
bool SameMeasures(const std::vector<strata::Measure>& a, const std::vector<strata::Measure>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const strata::Value& x = a[i].value;
    const strata::Value& y = b[i].value;
    if (a[i].name != b[i].name || x.type != y.type) return false;
    if (x.type == strata::ValueType::kDouble
            ? std::bit_cast<uint64_t>(x.real) != std::bit_cast<uint64_t>(y.real)
            : !(x == y)) {
      return false;
    }
  }
  return true;
}

}  // namespace

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
    // One point's measures from the columns (PointReader, the writer's check against a
    // block) are that point's in the whole decoding.
    auto columns = strata::format::DecodeBlockColumns(
        bytes, /*with_versions=*/true, [](const strata::format::ColumnSummary&) { return true; });
    if (!columns.ok()) std::abort();
    // A scan's second pass, decoding only some points' values (every third, from a
    // point the input picks): those are the whole decoding's, to the bit.
    strata::format::NeededValues needed;
    for (size_t i = size % 3; i < columns->times.size(); i += 3) {
      needed.push_back(static_cast<uint32_t>(i));
    }
    auto part = strata::format::DecodeBlockColumns(
        bytes, /*with_versions=*/false, [](const strata::format::ColumnSummary&) { return true; },
        /*with_times=*/true, &needed);
    if (!part.ok()) std::abort();
    for (size_t c = 0; c < columns->columns.size(); ++c) {
      const auto& whole = *columns->columns[c];
      const auto& some = *part->columns[c];
      if (whole.type != strata::ValueType::kDouble) continue;
      for (size_t i = 0, k = 0; i < whole.present.size(); ++i) {
        if (!whole.present[i]) continue;
        if (i % 3 == size % 3 &&
            std::bit_cast<uint64_t>(whole.reals[k]) != std::bit_cast<uint64_t>(some.reals[k])) {
          std::abort();
        }
        ++k;
      }
    }
    const strata::format::PointReader reader(*columns);
    for (size_t i = 0; i < points->size(); ++i) {
      if (!SameMeasures(reader.MeasuresAt(i), (*points)[i].measures)) {
        std::abort();
      }
    }
    auto again = strata::format::EncodeBlock(*points);
    // Two columns of one name are well-formed bytes the encoder never writes.
    if (again.ok() && !strata::format::DecodeBlock(*again).ok()) std::abort();
  }
  // Its two stored parts, decoded where they lie as a scan reads them: the same points, or
  // the same refusal.
  if (auto parts = strata::format::SplitBlock(bytes); parts.ok()) {
    auto view = strata::format::ViewBlock(parts->header, parts->bodies);
    if (!view.ok()) std::abort();
    auto from_parts = strata::format::DecodeBlock(*view);
    if (from_parts.ok() != points.ok()) std::abort();
    for (size_t i = 0; points.ok() && i < points->size(); ++i) {
      const strata::format::BlockPoint& a = (*points)[i];
      const strata::format::BlockPoint& b = (*from_parts)[i];
      if (a.time_nanos != b.time_nanos || a.version != b.version ||
          !SameMeasures(a.measures, b.measures)) {
        std::abort();
      }
    }
  }
  // Any cut of the input taken as a header and bodies: an error or a block, never a crash.
  if (size > 0) {
    const size_t cut = data[0] % size;
    const std::string bodies =
        std::string(strata::format::kBodiesMagic, sizeof(strata::format::kBodiesMagic)) +
        (size > 2 ? bytes[2] : '\0') + std::string(bytes.substr(cut));
    (void)strata::format::DecodeBlock(
        strata::format::BlockView{.header = bytes.substr(0, cut), .bodies = bodies});
  }
  return 0;
}
