// Creates `database` on `server` and writes `lines` of line protocol
// (seconds) through its HTTP /write: the few rows a PostgreSQL-wire test reads.
#pragma once

#include <string>

#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata::testing {

inline void CreateAndWriteLines(StratadProcess& server, const std::string& database,
                                const std::string& lines) {
  ASSERT_TRUE(CreateDatabase(server.channel(), database).ok());
  httplib::Client http("127.0.0.1", server.http_port());
  auto res = http.Post("/write?db=" + database + "&precision=s", lines, "text/plain");
  ASSERT_TRUE(res && res->status == 204) << (res ? res->body : "no answer");
}

}  // namespace strata::testing
