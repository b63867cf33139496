// spdlog set-up for stratad: human text, or one JSON object per line for log
// collectors. Log lines go to stderr.
#pragma once

#include <memory>
#include <string>

namespace rocksdb {
class Logger;
}

namespace strata {

// `format` is "text" or "json"; `level` one of spdlog's level names.
void ConfigureLogging(const std::string& format, const std::string& level);

// RocksDB's own messages (warnings and errors) as lines of this log, instead
// of a LOG file in the data directory (storage/kv/store.h says why).
std::shared_ptr<rocksdb::Logger> RocksDbLogger();

}  // namespace strata
