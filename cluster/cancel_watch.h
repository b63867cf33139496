// CancelWatch: relays a cancellation to where it cannot be seen. A query's remote fragment
// waits in a gRPC read for the serving node's answer, which comes only once that node has
// computed it (a split aggregation answers at its end), so its thread cannot look at the
// query's flag (KILL QUERY, CancelQuery, a client that left, its timeout). One watcher thread
// looks at every registered condition each kCheckEvery while any is registered (and sleeps
// otherwise), and runs its action once the condition holds: the fragment's call cancelled.
// (The serving node hears the cancellation from gRPC itself: rpc/streaming_call.h.)
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace strata::cluster {

class CancelWatch {
 public:
  static constexpr std::chrono::milliseconds kCheckEvery{10};

  CancelWatch();
  ~CancelWatch();
  CancelWatch(const CancelWatch&) = delete;
  CancelWatch& operator=(const CancelWatch&) = delete;

  // While it lives, `cancel` runs (once, on the watcher's thread) when `cancelled` returns
  // true. Destroy it before what the two functions touch: its destructor waits out a run.
  class Watch {
   public:
    Watch() = default;
    ~Watch() { Reset(); }
    Watch(Watch&& other) noexcept;
    Watch& operator=(Watch&& other) noexcept;
    void Reset();

   private:
    friend class CancelWatch;
    Watch(CancelWatch* owner, uint64_t id) : owner_(owner), id_(id) {}
    CancelWatch* owner_ = nullptr;
    uint64_t id_ = 0;
  };
  Watch Add(std::function<bool()> cancelled, std::function<void()> cancel);

 private:
  struct Entry {
    std::function<bool()> cancelled;
    std::function<void()> cancel;
    bool done = false;
  };
  void Remove(uint64_t id);
  void Loop();

  absl::Mutex mu_;
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;
};

}  // namespace strata::cluster
