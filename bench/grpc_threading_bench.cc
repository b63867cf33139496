// What gRPC's threading costs a small query, apart from everything Strata does: a server
// that answers strata.v1.QueryService/Query with the three messages a one-page answer takes
// (metadata, a page, statistics) and nothing else, in one of four threading models:
//   callback         the callback API, the answer written from the reactor's own thread
//   callback-worker  the callback API, handed to a worker thread first (QueryService's way)
//   async            the async API, one completion-queue thread that polls and writes inline
//   async-worker     the async API, the first write started by a worker thread
// --health adds gRPC's default health service, a callback-API service, as stratad has: its
// threads then poll beside the async models' completion-queue thread and take its calls'
// events (gRPC 1.51's callback API runs on threads of its own that also poll). --reflection
// adds server reflection, a sync-API service with a polling thread pool of its own, as stratad
// has.
// Drive it with query_bench (any statement: the answer is always the same) and count the
// server's context switches and CPU per call, e.g.
//   build/bench/grpc_threading_bench --mode async &   (127.0.0.1:19600; --port for another)
//   perf stat -e context-switches,task-clock -p $! -- sleep 4 &
//   build/bench/query_bench --target 127.0.0.1:19600 --runs 3000 --sql "SELECT 1"
// (docs/benchmarks.md, "Where a small query's time goes").
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "strata/v1/query.pb.h"

namespace {

grpc::ByteBuffer Serialized(const strata::v1::QueryResponse& message) {
  grpc::Slice slice(message.SerializeAsString());
  return grpc::ByteBuffer(&slice, 1);
}

// A one-page answer: the messages QueryService writes for a query of one small page.
std::vector<grpc::ByteBuffer> OnePageAnswer() {
  strata::v1::QueryResponse metadata, page, statistics;
  metadata.mutable_metadata()->set_query_id("q");
  page.mutable_column_page()->set_row_count(0);
  statistics.mutable_statistics()->set_rows_returned(0);
  return {Serialized(metadata), Serialized(page), Serialized(statistics)};
}

// One thread running posted tasks in order, as the query workers do. It lives as long as the
// process (which ends by a signal).
class Worker {
 public:
  Worker() {
    std::thread([this] { Run(); }).detach();
  }
  void Post(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    ready_.notify_one();
  }

 private:
  void Run() {
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [&] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;
};

// The callback models: the request read, the answer written a message at a time, each write
// started when the last completed (the callback API allows one in flight).
class AnswerReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit AnswerReactor(Worker* worker) : worker_(worker) { StartRead(&request_); }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    auto answer = [this] {
      std::lock_guard<std::mutex> lock(mu_);
      answer_ = OnePageAnswer();
      WriteNext();
    };
    if (worker_ != nullptr) {
      worker_->Post(answer);
    } else {
      answer();
    }
  }
  void OnWriteDone(bool /*ok*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    WriteNext();
  }
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    if (next_ + 1 < answer_.size()) {
      StartWrite(&answer_[next_++]);
    } else if (next_ + 1 == answer_.size()) {
      StartWriteAndFinish(&answer_[next_++], grpc::WriteOptions(), grpc::Status::OK);
    }
  }
  Worker* const worker_;  // null: answered on the reactor's thread
  std::mutex mu_;
  grpc::ByteBuffer request_;
  std::vector<grpc::ByteBuffer> answer_;
  size_t next_ = 0;
};

class CallbackAnswers final : public grpc::CallbackGenericService {
 public:
  explicit CallbackAnswers(Worker* worker) : worker_(worker) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext*) override {
    return new AnswerReactor(worker_);
  }

 private:
  Worker* const worker_;
};

// The async models: each call a state machine on the completion queue's thread.
struct AsyncCall {
  enum class Step { kRequested, kReading, kWriting, kFinishing };
  grpc::GenericServerContext context;
  grpc::GenericServerAsyncReaderWriter stream{&context};
  grpc::ByteBuffer request;
  std::vector<grpc::ByteBuffer> answer;
  size_t next = 0;
  Step step = Step::kRequested;
};

void ServeAsync(grpc::AsyncGenericService& service, grpc::ServerCompletionQueue& queue,
                Worker* worker) {
  std::mutex mu;  // a call's stream, between the queue's thread and the worker
  auto await_call = [&] {
    auto* call = new AsyncCall;
    service.RequestCall(&call->context, &call->stream, &queue, &queue, call);
  };
  await_call();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
    auto* call = static_cast<AsyncCall*>(tag);
    std::lock_guard<std::mutex> lock(mu);
    if (!ok && call->step == AsyncCall::Step::kRequested) {  // the server is shutting down
      delete call;
      continue;
    }
    if (!ok && call->step != AsyncCall::Step::kFinishing) {
      // No request message, or the client left mid-answer: end the call.
      call->step = AsyncCall::Step::kFinishing;
      call->stream.Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the call ended early"), call);
      continue;
    }
    switch (call->step) {
      case AsyncCall::Step::kRequested:
        await_call();
        call->step = AsyncCall::Step::kReading;
        call->stream.Read(&call->request, call);
        break;
      case AsyncCall::Step::kReading:
        call->answer = OnePageAnswer();
        call->step = AsyncCall::Step::kWriting;
        if (worker != nullptr) {
          worker->Post([call, &mu] {
            std::lock_guard<std::mutex> worker_lock(mu);
            call->stream.Write(call->answer[call->next++], call);
          });
        } else {
          call->stream.Write(call->answer[call->next++], call);
        }
        break;
      case AsyncCall::Step::kWriting:
        if (call->next + 1 < call->answer.size()) {
          call->stream.Write(call->answer[call->next++], call);
        } else {
          call->step = AsyncCall::Step::kFinishing;
          call->stream.WriteAndFinish(call->answer[call->next++], grpc::WriteOptions(),
                                      grpc::Status::OK, call);
        }
        break;
      case AsyncCall::Step::kFinishing:
        delete call;
        break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gRPC's threading models answering a one-page query, nothing else"};
  std::string mode = "callback";
  int port = 19600;
  app.add_option("--mode", mode, "callback, callback-worker, async or async-worker")
      ->check(CLI::IsMember({"callback", "callback-worker", "async", "async-worker"}));
  // Loopback only: the server has neither TLS nor tokens.
  app.add_option("--port", port, "port to serve on at 127.0.0.1")->check(CLI::Range(1, 65535));
  bool health = false;
  app.add_flag("--health", health, "also serve gRPC's default health service (callback API)");
  bool reflection = false;
  app.add_flag("--reflection", reflection, "also serve server reflection (sync API)");
  CLI11_PARSE(app, argc, argv);
  grpc::EnableDefaultHealthCheckService(health);
  if (reflection) grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  const bool with_worker = mode.ends_with("-worker");
  const bool async = mode.starts_with("async");
  Worker worker;
  const std::string listen = "127.0.0.1:" + std::to_string(port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials());
  CallbackAnswers callback_answers(with_worker ? &worker : nullptr);
  grpc::AsyncGenericService async_answers;
  std::unique_ptr<grpc::ServerCompletionQueue> queue;
  if (async) {
    builder.RegisterAsyncGenericService(&async_answers);
    queue = builder.AddCompletionQueue();
  } else {
    builder.RegisterCallbackGenericService(&callback_answers);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;
  std::printf("serving %s on %s\n", mode.c_str(), listen.c_str());
  std::fflush(stdout);
  if (async) {
    ServeAsync(async_answers, *queue, with_worker ? &worker : nullptr);
  } else {
    server->Wait();
  }
  return 0;
}
