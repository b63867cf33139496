// Fuzz target: arbitrary bytes as an entry of a shard's log (cluster/log_entry.h) whose
// writes hold records (cluster/record_codec.h): what a replica decodes from NATS. Decoding
// must return an error or an entry, never crash or hang; an entry that decodes, and each of
// its records, must encode again to what decodes the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cluster/log_entry.h"
#include "cluster/record_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto entry = strata::cluster::DecodeLogEntry(bytes);
  if (!entry.ok()) return 0;
  const std::string again = strata::cluster::EncodeLogEntry(*entry);
  auto reread = strata::cluster::DecodeLogEntry(again);
  if (!reread.ok() || reread->id != entry->id || reread->writes.size() != entry->writes.size() ||
      reread->previous_digest != entry->previous_digest ||
      reread->intended_sequence != entry->intended_sequence) {
    std::abort();
  }
  for (const strata::cluster::LogWrite& write : entry->writes) {
    auto records = strata::cluster::DecodeRecords(write.records);
    if (!records.ok()) continue;
    std::string encoded;
    for (const auto& r : *records) strata::cluster::EncodeRecord(r.index, r.record, &encoded);
    auto round = strata::cluster::DecodeRecords(
        strata::cluster::EncodeRecords(static_cast<int>(records->size()), encoded));
    if (!round.ok() || round->size() != records->size()) std::abort();
    for (size_t i = 0; i < records->size(); ++i) {
      if (!((*round)[i].record == (*records)[i].record) ||
          (*round)[i].index != (*records)[i].index) {
        std::abort();
      }
    }
  }
  return 0;
}
