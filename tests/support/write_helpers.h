// Setting up tables and building WriteRecords requests in tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "grpcpp/channel.h"
#include "grpcpp/support/status.h"
#include "strata/v1/write.pb.h"

namespace strata::testing {

// Milliseconds since the epoch, from the system clock.
int64_t NowMillis();

// A DOUBLE record for measure "cpu" with dimension host=`host`.
v1::Record CpuRecord(const std::string& host, int64_t time_millis, double value,
                     int64_t version = 0);

v1::WriteRecordsRequest WriteRequest(const std::string& database, const std::string& table,
                                     std::vector<v1::Record> records);

// Creates `database`, with `token` as the bearer token when set.
grpc::Status CreateDatabase(const std::shared_ptr<grpc::Channel>& channel,
                            const std::string& database, const std::string& token = "");

// Creates a token named `name` with one grant, as `admin`; its secret ("" on failure).
std::string CreateToken(const std::shared_ptr<grpc::Channel>& channel, const std::string& admin,
                        const std::string& name, const std::string& grant);

// Creates `database` and, in it, `table` with default properties.
grpc::Status CreateDatabaseAndTable(const std::shared_ptr<grpc::Channel>& channel,
                                    const std::string& database, const std::string& table);

}  // namespace strata::testing
