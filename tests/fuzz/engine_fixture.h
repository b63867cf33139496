// A real engine in a fresh data directory for the write-side fuzz targets:
// the clock stands at 2024-03-01T12:00:00Z, durability is buffered (fsync
// would only slow the fuzzer), database "mydb" exists. Removed at exit.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/clock.h"
#include "google/protobuf/stubs/logging.h"
#include "spdlog/sinks/null_sink.h"
#include "spdlog/spdlog.h"
#include "storage/engine.h"

namespace strata::fuzz {

inline constexpr int64_t kFixtureNow = 1'709'294'400'000'000'000;  // 2024-03-01T12:00:00Z

struct EngineFixture {
  explicit EngineFixture(const std::string& name) : clock(kFixtureNow) {
    // Protobuf logs every string field that is not UTF-8; here that is most inputs.
    google::protobuf::SetLogHandler(nullptr);
    // The server logs each refused request (a warning): under libFuzzer hundreds a second, ~760
    // MB in ten minutes. Its messages are still formatted at the usual level, so the logging
    // of hostile input stays under the fuzzer; only their output goes nowhere.
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>()));
    dir = std::filesystem::temp_directory_path() /
          ("strata-" + name + "-fuzz-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto opened = Engine::Open({.data_dir = dir.string(),
                                .durability = Durability::kBuffered,
                                .clock = &clock});
    if (!opened.ok()) Fail(std::string(opened.status().message()));
    engine = std::move(*opened);
    if (!engine->catalog().CreateDatabase("mydb", "").ok()) Fail("cannot create the database");
  }
  ~EngineFixture() {
    (void)engine->Close();
    std::filesystem::remove_all(dir);
  }
  [[noreturn]] static void Fail(const std::string& why) {
    std::fprintf(stderr, "fuzz fixture: %s\n", why.c_str());
    std::abort();
  }
  ManualClock clock;
  std::filesystem::path dir;
  std::unique_ptr<Engine> engine;
};

}  // namespace strata::fuzz
