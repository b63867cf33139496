// ScanCall: one Scan call (another node's fragment) served from raw bytes through gRPC's
// callback API. The fragment runs on a thread of its own (common/spare_threads.h), writing its
// answers as they are made (ScanStream): a few wait for the network, more make the fragment
// wait; the last goes with the call's status as one operation. The asking node's cancellation
// (or its going away) sets the flag the fragment's scan watches at once (OnCancel), so no
// watcher polls the call.
//
// Raw, not the generated sync method: a sync writer takes a message, which gRPC serializes
// into its own buffer, so a relayed page (the client's page, up to a megabyte) was copied
// twice more on its way out; ScanAnswerBytes hands it to gRPC as it is.
//
// Thread-safety: Write and End from the fragment's thread, the reactor's methods from gRPC's.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cluster/scan_writer_sink.h"
#include "grpcpp/support/server_callback.h"

namespace strata::cluster {

class ScanCall final : public grpc::ServerWriteReactor<grpc::ByteBuffer>, public ScanStream {
 public:
  // What the fragment's thread runs: the whole call, writing through `call`, until it returns
  // the call's status (OK after a last answer written with Write(…, true)).
  using Run = std::function<grpc::Status(ScanCall& call)>;

  // The reactor for gRPC, `run` started on a spare thread (the call is refused with
  // RESOURCE_EXHAUSTED when none can start).
  static grpc::ServerWriteReactor<grpc::ByteBuffer>* Start(Run run);
  // A reactor that ends the call with `status` at once (a refused request).
  static grpc::ServerWriteReactor<grpc::ByteBuffer>* Refuse(grpc::Status status);

  // ScanStream: waits while kMaxQueued answers wait for the network.
  bool Write(grpc::ByteBuffer answer, bool last) override;
  // The flag the fragment's scan watches: set when the call is cancelled or a write fails.
  std::atomic<bool>& cancelled() { return cancelled_; }

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // Answers queued ahead of the network before the fragment waits: one being written and one
  // ready (the sink holds one more back itself).
  static constexpr size_t kMaxQueued = 2;

  ScanCall() = default;
  // The end of the fragment's run: its status goes once the queued answers are written.
  void End(grpc::Status status);
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::atomic<bool> cancelled_{false};
  std::shared_ptr<ScanCall> self_;  // gRPC's reference, dropped in OnDone
  absl::Mutex mu_;
  struct Queued {
    grpc::ByteBuffer bytes;
    bool last = false;
  };
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;  // End called: status_ is the call's
  bool done_ ABSL_GUARDED_BY(mu_) = false;   // Finish called (or a last answer's write)
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::cluster
