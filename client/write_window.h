// How many of an import's requests are in flight: at most --parallel, fewer while the server
// refuses requests for being busy (its write queue full, or its memory store over budget).
// A refusal shrinks the window by a quarter, and every window's worth of accepted requests
// grows it by one again, as TCP's congestion window does: an import with more senders than
// the server queues settles at what the server takes, instead of sending request after
// request into a full queue (at --parallel 48, retrying each after a backoff halved the
// import's rate, docs/benchmarks.md).
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace strata::cli {

class WriteWindow {
 public:
  explicit WriteWindow(int most);

  // Waits until fewer requests than the window are in flight, then counts one more. Returns
  // the window's generation, for Done.
  uint64_t Acquire();

  // How a request came back.
  enum class Outcome {
    kTaken,    // the server took it (its records written or rejected one by one)
    kRefused,  // the server was too busy to take it
    kFailed,   // anything else (the server away, an error): says nothing of its load
  };

  // One request acquired in `generation` came back. Refusals of requests sent under one
  // window shrink it once (they answer the same question); taken ones grow it. Returns
  // whether the window is down to one request and this one was refused: then the server
  // refuses even that, and the sender backs off before it tries again.
  bool Done(uint64_t generation, Outcome outcome);

  int limit() const;

 private:
  const int most_;
  mutable std::mutex mu_;
  std::condition_variable below_limit_;
  int limit_;
  int in_flight_ = 0;
  int accepted_ = 0;         // since the window last grew or shrank
  uint64_t generation_ = 0;  // counts the window's shrinks
};

}  // namespace strata::cli
