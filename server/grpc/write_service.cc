#include "server/grpc/write_service.h"

#include <atomic>

#include "common/status.h"
#include "common/strings.h"
#include "google/protobuf/arena.h"
#include "server/wire/wire_write_source.h"
#include "server/wire/write_convert.h"

namespace strata {

// One WriteRecords or BulkWriteRecords call: awaited on one of the server's
// CallQueues, its request decoded there and handed to the ingest door, and
// finished on the writer's committer thread. Two holds keep it alive, its
// step on the queue's thread and its finish; it deletes itself when both are
// done, so neither can outlive it whatever order they end in.
class WriteService::Call final {
 public:
  enum class Method { kWriteRecords, kBulkWriteRecords };

  // Asks gRPC for the service's next call of `method` on `queue`.
  static void Await(WriteService* service, Method method, grpc::ServerCompletionQueue* queue) {
    auto* call = new Call(service, method, queue);
    if (method == Method::kWriteRecords) {
      service->RequestWriteRecords(&call->context_, &call->request_, &call->responder_, queue,
                                   queue, &call->requested_tag_);
    } else {
      service->RequestBulkWriteRecords(&call->context_, &call->request_, &call->responder_, queue,
                                       queue, &call->requested_tag_);
    }
  }

 private:
  Call(WriteService* service, Method method, grpc::ServerCompletionQueue* queue)
      : service_(*service), method_(method), queue_(queue), lease_(service->queues_) {}

  // A request came (ok), or the server is shutting down and none will.
  void Requested(bool ok) {
    if (!ok) {
      delete this;  // never begun: no finish to wait for
      return;
    }
    try {
      Write();
    } catch (const std::exception& e) {
      Finish(absl::InternalError(StrCat("unexpected error: ", e.what())));
    }
    Await(&service_, method_, queue_);  // once this call's step is done: call_queues.h
    Release();
  }

  void Write() {
    Ingest& ingest = service_.ingest_;
    absl::StatusOr<std::shared_ptr<const Principal>> caller =
        AuthenticateCall(service_.auth_, context_);
    if (!caller.ok()) return Finish(caller.status());
    if (absl::Status admitted = ingest.CheckAdmission(); !admitted.ok()) return Finish(admitted);
    const int max_records =
        method_ == Method::kWriteRecords ? kMaxRecordsPerWrite : kMaxRecordsPerBulkWrite;
    // Runs on the writer's committer thread.
    auto done = [this](absl::StatusOr<WriteResult> result) { Finish(std::move(result)); };
    // The request's bytes in one piece (a copy only when gRPC holds them in
    // several slices), read in place; protobuf parses what the reader leaves.
    grpc::Slice bytes;
    if (!request_.TrySingleSlice(&bytes).ok() && !request_.DumpToSingleSlice(&bytes).ok()) {
      return Finish(absl::InternalError("could not read the request's bytes"));
    }
    WireWriteRequest wire;
    if (wire.Decode({reinterpret_cast<const char*>(bytes.begin()), bytes.size()}, max_records)) {
      WireWriteSource source(wire);
      ingest.WriteAsync(**caller, source, std::move(done));
      return;
    }
    google::protobuf::Arena arena(CallArenaOptions());
    auto* request = google::protobuf::Arena::CreateMessage<v1::WriteRecordsRequest>(&arena);
    if (absl::Status parsed = ParseRequest(request_, request); !parsed.ok()) return Finish(parsed);
    ProtoWriteSource source(*request, max_records);
    ingest.WriteAsync(**caller, source, std::move(done));
  }

  // The call's answer; the first one asked for goes out. On the committer
  // thread it must not see an exception: one here (bad_alloc building the
  // response) fails this call only.
  void Finish(absl::StatusOr<WriteResult> result) {
    if (answered_.exchange(true)) return;  // an exception after the writer took the call
    absl::Status status = result.status();
    try {
      if (status.ok()) {
        v1::WriteRecordsResponse response;
        ToProto(*result, &response);
        status = SerializeResponse(response, &response_);
      }
    } catch (const std::exception& e) {
      status = absl::InternalError(StrCat("unexpected error answering the write: ", e.what()));
    }
    if (status.ok()) {
      responder_.Finish(response_, grpc::Status::OK, &finished_tag_);
    } else {
      responder_.FinishWithError(ToGrpcStatus(status), &finished_tag_);
    }
  }

  void Finished(bool /*ok*/) { Release(); }

  void Release() {
    if (holds_.fetch_sub(1) == 1) delete this;
  }

  WriteService& service_;
  const Method method_;
  grpc::ServerCompletionQueue* const queue_;  // the one the call came on
  CallQueues::Lease lease_;
  grpc::ServerContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  grpc::ServerAsyncResponseWriter<grpc::ByteBuffer> responder_{&context_};
  std::atomic<bool> answered_{false};
  std::atomic<int> holds_{2};  // the step on the queue's thread and the finish
  CallQueues::StepTag<Call, &Call::Requested> requested_tag_{this};
  CallQueues::StepTag<Call, &Call::Finished> finished_tag_{this};
};

void WriteService::Serve(CallQueues* queues) {
  queues_ = queues;
  for (const auto& queue : queues->queues()) {
    Call::Await(this, Call::Method::kWriteRecords, queue.get());
    Call::Await(this, Call::Method::kBulkWriteRecords, queue.get());
  }
}

}  // namespace strata
