// A full disk, for real: stratad's data directory is a small tmpfs that the
// test fills. Writes are refused with RESOURCE_EXHAUSTED (no server paths),
// the write service reports NOT_SERVING, reads go on, writes resume by
// themselves once space is freed, SIGTERM exits 0 and every acknowledged
// record survives a restart. The second test takes away the reserve and
// writes through every door at once (gRPC, line protocol, remote write,
// PostgreSQL DELETE), round after round: RocksDB itself meets ENOSPC, and
// the server must neither die nor lose an acknowledged record. Needs root to
// mount; skipped otherwise.
#include <fcntl.h>
#include <snappy.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "prometheus/remote.pb.h"
#include "strata/v1/write.grpc.pb.h"
#include "tests/support/pg_raw_client.h"
#include "tests/support/query_helpers.h"
#include "tests/support/stratad_process.h"
#include "tests/support/write_helpers.h"

namespace strata {
namespace {

using std::chrono::steady_clock;

constexpr int64_t kReserveMb = 64;

class DiskFullE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting a small file system needs root";
    std::filesystem::create_directories(server_.data_dir());
    // 512 MB: once the filler is removed, RocksDB's recovery finds the 64 MB
    // it wants free whatever the doors wrote (160 MB was too little on a
    // loaded machine: writes did not resume).
    if (mount("tmpfs", server_.data_dir().c_str(), "tmpfs", 0, "size=512m") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
    }
    mounted_ = true;
  }
  void TearDown() override {
    server_.Stop();
    if (mounted_) umount2(server_.data_dir().c_str(), MNT_DETACH);
  }

  uint64_t FreeBytes() {
    struct statvfs fs;
    statvfs(server_.data_dir().c_str(), &fs);
    return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  }
  // Grows the filler file until `free_bytes` are left.
  void LeaveFree(uint64_t free_bytes) {
    const uint64_t free = FreeBytes();
    if (free <= free_bytes) return;
    filler_bytes_ += free - free_bytes;
    int fd = open(Filler().c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    // ENOSPC: the server took the space first, which leaves the disk as full.
    const int allocated = posix_fallocate(fd, 0, static_cast<off_t>(filler_bytes_));
    ASSERT_TRUE(allocated == 0 || allocated == ENOSPC) << std::strerror(allocated);
    close(fd);
  }
  std::string Filler() const { return server_.data_dir() + "/filler.bin"; }

  grpc::Status WriteBatch(int batch, int64_t* acknowledged) {
    auto writer = v1::WriteService::NewStub(server_.channel());
    std::vector<v1::Record> records;
    // One fixed "now": every (host, time) is new, so each acknowledged record
    // is one row (a repeat would be an idempotent no-op, counted but not
    // stored twice).
    const int64_t now = start_millis_;
    for (int i = 0; i < 100; ++i) {
      // 500-byte values: the write-ahead log grows by ~50 KB a batch.
      v1::Record r = testing::CpuRecord("host" + std::to_string(i), now - batch * 100 - i, 1.0);
      r.set_measure_name("log");
      r.set_measure_value_type(v1::MEASURE_VALUE_TYPE_VARCHAR);
      r.mutable_measure_value()->set_varchar_value(std::string(500, 'x'));
      records.push_back(std::move(r));
    }
    grpc::ClientContext context;
    v1::WriteRecordsResponse response;
    grpc::Status status =
        writer->WriteRecords(&context, testing::WriteRequest("mydb", "tbl", records), &response);
    if (status.ok()) *acknowledged += response.records_ingested().total();
    return status;
  }

  bool WritesServing() {
    auto stub = grpc::health::v1::Health::NewStub(server_.channel());
    grpc::ClientContext context;
    grpc::health::v1::HealthCheckRequest request;
    request.set_service("strata.v1.WriteService");
    grpc::health::v1::HealthCheckResponse response;
    return stub->Check(&context, request, &response).ok() &&
           response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  }

  int64_t Count() {
    testing::QueryResult r = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb.tbl");
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
    return r.rows.empty() ? -1 : r.rows[0].data(0).bigint_value();
  }

  testing::StratadProcess server_;
  bool mounted_ = false;
  uint64_t filler_bytes_ = 0;
  const int64_t start_millis_ = testing::NowMillis();
};

TEST_F(DiskFullE2ETest, WritesPauseOnAFullDiskAndResumeWhenSpaceIsFreed) {
  ASSERT_TRUE(server_.Start({"--disk-reserve-mb", std::to_string(kReserveMb)})) << server_.error();
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  // A watcher of the write service's health hears the pause and the resumption.
  auto health = grpc::health::v1::Health::NewStub(server_.channel());
  grpc::ClientContext watch_context;
  grpc::health::v1::HealthCheckRequest watch_request;
  watch_request.set_service("strata.v1.WriteService");
  auto watch = health->Watch(&watch_context, watch_request);
  std::vector<int> heard;
  std::thread watcher([&] {
    grpc::health::v1::HealthCheckResponse response;
    while (watch->Read(&response)) heard.push_back(response.status());
  });
  absl::Cleanup stop_watching = [&] {  // an assertion that returns early too
    watch_context.TryCancel();
    if (watcher.joinable()) watcher.join();
  };
  int64_t acknowledged = 0;
  int batch = 0;
  for (; batch < 5; ++batch) ASSERT_TRUE(WriteBatch(batch, &acknowledged).ok());

  // A few MiB above the reserve, then write until the server refuses.
  LeaveFree((kReserveMb + 4) << 20);
  grpc::Status refused;
  for (; batch < 20000 && refused.ok(); ++batch) refused = WriteBatch(batch, &acknowledged);
  ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("resume by themselves"), std::string::npos)
      << refused.error_message();
  EXPECT_EQ(refused.error_message().find(server_.data_dir()), std::string::npos)
      << "no server paths: " << refused.error_message();

  // While the disk stays full the write service says so (RocksDB may free a
  // little as it flushes: keep it full), and reads go on.
  const auto give_up = steady_clock::now() + std::chrono::seconds(20);
  while (WritesServing() && steady_clock::now() < give_up) {
    LeaveFree((kReserveMb - 16) << 20);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_FALSE(WritesServing());
  EXPECT_EQ(Count(), acknowledged);

  // Space returns: writes resume without a restart.
  std::filesystem::remove(Filler());
  const auto resume_by = steady_clock::now() + std::chrono::seconds(20);
  while (!WritesServing() && steady_clock::now() < resume_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(WritesServing());
  ASSERT_TRUE(WriteBatch(batch++, &acknowledged).ok());

  EXPECT_EQ(server_.Stop(), 0);
  watcher.join();  // the stop ends the watch
  using Health = grpc::health::v1::HealthCheckResponse;
  ASSERT_GE(heard.size(), 4u);
  EXPECT_EQ(heard.front(), Health::SERVING);
  auto paused = std::find(heard.begin(), heard.end(), Health::NOT_SERVING);
  EXPECT_NE(std::find(paused, heard.end(), Health::SERVING), heard.end()) << "no resumption";
  EXPECT_EQ(heard.back(), Health::NOT_SERVING);  // the stop's
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(Count(), acknowledged);
}

// ------------------------------------------------- every door, no reserve

class DiskFullEveryDoorE2ETest : public DiskFullE2ETest {
 protected:

  // Writes through every door at once until `stop`; counts what each door
  // acknowledged. Refusals are expected; a dead server is not.
  void WriteThroughEveryDoor(const std::atomic<bool>& stop) {
    std::vector<std::thread> doors;
    doors.emplace_back([&] {  // gRPC
      while (!stop.load()) {
        if (!WriteBatch(grpc_batch_++, &grpc_acknowledged_).ok()) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    });
    doors.emplace_back([&] {  // line protocol
      httplib::Client http("127.0.0.1", server_.http_port());
      http.set_read_timeout(30, 0);
      const std::string value(400, 'y');
      while (!stop.load()) {
        std::string lines;
        const int64_t batch = line_batch_++;
        for (int i = 0; i < 100; ++i) {
          lines += "lines,host=h" + std::to_string(i) + " text=\"" + value + "\" " +
                   std::to_string((start_millis_ - batch * 100 - i) * 1'000'000) + "\n";
        }
        auto res = http.Post("/write?db=mydb", lines, "text/plain");
        if (res && res->status == 204) {
          line_acknowledged_ += 100;
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    });
    doors.emplace_back([&] {  // Prometheus remote write
      httplib::Client http("127.0.0.1", server_.http_port());
      http.set_read_timeout(30, 0);
      while (!stop.load()) {
        prometheus::WriteRequest request;
        const int64_t batch = remote_batch_++;
        for (int s = 0; s < 10; ++s) {
          auto* series = request.add_timeseries();
          for (auto [name, value] : {std::pair<std::string, std::string>{"__name__", "disk_test"},
                                     {"series", std::to_string(s)}, {"pad", std::string(200, 'p')}}) {
            auto* label = series->add_labels();
            label->set_name(name);
            label->set_value(value);
          }
          for (int i = 0; i < 10; ++i) {
            auto* sample = series->add_samples();
            sample->set_timestamp(start_millis_ - batch * 10 - i);
            sample->set_value(i);
          }
        }
        std::string compressed;
        snappy::Compress(request.SerializeAsString().data(), request.ByteSizeLong(), &compressed);
        auto res = http.Post("/api/v1/write?db=mydb&table=remote",
                             {{"Content-Encoding", "snappy"}}, compressed, "application/x-protobuf");
        if (res && res->status == 204) {
          remote_acknowledged_ += 100;
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    });
    doors.emplace_back([&] {  // PostgreSQL DELETE of the doomed table's rows, a host at a time
      testing::PgRawClient session(server_.pg_port());
      ASSERT_TRUE(session.connected());
      ASSERT_EQ(session.Start("disk").back(), 'Z');
      for (int host = 0; !stop.load(); host = (host + 1) % 100) {
        session.Send('Q', testing::PgRawClient::Str("DELETE FROM mydb.doomed WHERE hostname = 'host" +
                                                    std::to_string(host) + "'"));
        // Deleted or refused (the disk is full), but answered.
        ASSERT_EQ(session.ReadUntilReady().back(), 'Z') << "the PostgreSQL session died";
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    for (std::thread& door : doors) door.join();
  }

  int64_t CountOf(const std::string& table) {
    testing::QueryResult r = testing::RunQuery(server_.channel(), "SELECT count(*) FROM mydb." + table);
    EXPECT_TRUE(r.status.ok()) << r.status.error_message();
    return r.rows.empty() ? -1 : r.rows[0].data(0).bigint_value();
  }

  std::atomic<int> grpc_batch_{0};
  std::atomic<int64_t> line_batch_{0};
  std::atomic<int64_t> remote_batch_{0};
  int64_t grpc_acknowledged_ = 0;
  std::atomic<int64_t> line_acknowledged_{0};
  std::atomic<int64_t> remote_acknowledged_{0};
};

TEST_F(DiskFullEveryDoorE2ETest, EveryDoorWritesIntoAFullDiskWithoutAReserveAndNothingDies) {
  ASSERT_TRUE(server_.Start({"--disk-reserve-mb", "0"})) << server_.error();
  ASSERT_TRUE(testing::CreateDatabaseAndTable(server_.channel(), "mydb", "tbl").ok());
  {
    // Rows for DELETE to take away while the disk is full (the table is
    // created by its first line).
    std::string lines;
    for (int i = 0; i < 100; ++i) {
      lines += "doomed,hostname=host" + std::to_string(i) + " v=1 " +
               std::to_string((start_millis_ - i) * 1'000'000) + "\n";
    }
    httplib::Client http("127.0.0.1", server_.http_port());
    auto res = http.Post("/write?db=mydb", lines, "text/plain");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 204) << res->body;
  }
  for (int round = 0; round < 3; ++round) {
    std::atomic<bool> stop{false};
    std::thread writers([&] { WriteThroughEveryDoor(stop); });
    // A second of writes with room, then almost nothing left: RocksDB's own
    // writes meet ENOSPC.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    for (int i = 0; i < 40; ++i) {
      LeaveFree(256 << 10);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    stop = true;
    writers.join();
    ASSERT_GT(server_.pid(), 0);
    ASSERT_EQ(kill(server_.pid(), 0), 0) << "stratad died in round " << round;
    std::filesystem::remove(Filler());
    filler_bytes_ = 0;
    // Writes resume by themselves. The round's last writes may meet the full disk just before
    // the filler goes, and the health check may answer SERVING before the server has seen that
    // error: a write refused then is tried again (a refused write wrote nothing).
    const auto resume_by = steady_clock::now() + std::chrono::seconds(30);
    grpc::Status resumed = grpc::Status(grpc::StatusCode::UNAVAILABLE, "not tried");
    while (!resumed.ok() && steady_clock::now() < resume_by) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (WritesServing()) resumed = WriteBatch(grpc_batch_++, &grpc_acknowledged_);
    }
    ASSERT_TRUE(resumed.ok()) << "writes did not resume in round " << round << ": "
                              << resumed.error_message();
  }
  // RocksDB itself met the full disk (not only the reserve check).
  EXPECT_NE(server_.log().find("a write failed for want of disk space"), std::string::npos);
  EXPECT_EQ(CountOf("tbl"), grpc_acknowledged_);
  EXPECT_EQ(CountOf("lines"), line_acknowledged_.load());
  EXPECT_EQ(CountOf("remote"), remote_acknowledged_.load());
  EXPECT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Restart()) << server_.error();
  EXPECT_EQ(CountOf("tbl"), grpc_acknowledged_);
  EXPECT_EQ(CountOf("lines"), line_acknowledged_.load());
  EXPECT_EQ(CountOf("remote"), remote_acknowledged_.load());
}

}  // namespace
}  // namespace strata
