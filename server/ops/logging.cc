#include "server/ops/logging.h"

#include <cstdarg>
#include <cstdio>
#include <memory>

#include "google/protobuf/stubs/logging.h"
#include "grpc/support/log.h"
#include "rocksdb/env.h"
#include "spdlog/pattern_formatter.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace strata {
namespace {

// Writes the message as a JSON string body, escaping what JSON requires.
class JsonEscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    static constexpr char kHex[] = "0123456789abcdef";
    for (char c : msg.payload) {
      switch (c) {
        case '"': dest.append(std::string_view("\\\"")); break;
        case '\\': dest.append(std::string_view("\\\\")); break;
        case '\n': dest.append(std::string_view("\\n")); break;
        case '\r': dest.append(std::string_view("\\r")); break;
        case '\t': dest.append(std::string_view("\\t")); break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            const char escaped[] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
            dest.append(escaped, escaped + sizeof(escaped));
          } else {
            dest.push_back(c);
          }
      }
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JsonEscapedMessage>();
  }
};

}  // namespace

void ConfigureLogging(const std::string& format, const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>(
      "stratad", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>(
        spdlog::pattern_time_type::utc);
    formatter->add_flag<JsonEscapedMessage>('*').set_pattern(
        R"({"time":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":"%*"})");
    logger->set_formatter(std::move(formatter));
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  }
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
  // Protobuf writes its own lines to stderr (one per request whose string
  // field is not UTF-8: a client can make as many as it likes), which would
  // also break --log-format json. Those requests are answered with
  // INVALID_ARGUMENT already; keep protobuf's words at debug level.
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int,
                                     const std::string& message) {
    spdlog::debug("protobuf: {}", message);
  });
  // gRPC core writes its own lines to stderr too (a failed TLS handshake, a
  // certificate that did not reload): through spdlog, they keep the format.
  // Its info lines are about its own internals: only with --log-level debug.
  gpr_set_log_verbosity(spdlog::get_level() <= spdlog::level::debug ? GPR_LOG_SEVERITY_DEBUG
                                                                     : GPR_LOG_SEVERITY_ERROR);
  gpr_set_log_function([](gpr_log_func_args* args) {
    const spdlog::level::level_enum level =
        args->severity == GPR_LOG_SEVERITY_ERROR  ? spdlog::level::warn
        : args->severity == GPR_LOG_SEVERITY_INFO ? spdlog::level::info
                                                  : spdlog::level::debug;
    // Errors of one connection (a client that fails its handshake) are not
    // the server's: warnings, with where gRPC said it.
    spdlog::log(level, "grpc: {} ({}:{})", args->message, args->file, args->line);
  });
}

}  // namespace strata

namespace strata {
namespace {

class SpdlogRocksDbLogger final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    Logv(rocksdb::InfoLogLevel::WARN_LEVEL, format, ap);
  }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel()) return;
    char line[1024];
    vsnprintf(line, sizeof line, format, ap);
    if (level >= rocksdb::InfoLogLevel::ERROR_LEVEL) {
      spdlog::error("rocksdb: {}", line);
    } else if (level == rocksdb::InfoLogLevel::WARN_LEVEL) {
      spdlog::warn("rocksdb: {}", line);
    } else {
      spdlog::debug("rocksdb: {}", line);
    }
  }
};

}  // namespace

std::shared_ptr<rocksdb::Logger> RocksDbLogger() { return std::make_shared<SpdlogRocksDbLogger>(); }

}  // namespace strata
