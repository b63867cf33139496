#include "tests/support/child_spawner.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace strata::testing {
namespace {

class Spawner {
 public:
  static Spawner& Instance() {
    // Never destroyed: its thread must outlive every other (it ends with the process).
    static Spawner* spawner = new Spawner();
    return *spawner;
  }

  pid_t Fork(const std::function<void()>& in_child) {
    Request request{.in_child = &in_child};
    std::unique_lock lock(mu_);
    queue_.push_back(&request);
    changed_.notify_all();
    changed_.wait(lock, [&] { return request.done; });
    return request.pid;
  }

 private:
  struct Request {
    const std::function<void()>* in_child = nullptr;
    pid_t pid = -1;
    bool done = false;
  };

  Spawner() {
    std::thread([this] { Serve(); }).detach();
  }

  void Serve() {
    const pid_t parent = getpid();
    std::unique_lock lock(mu_);
    while (true) {
      changed_.wait(lock, [&] { return !queue_.empty(); });
      Request* request = queue_.front();
      queue_.pop_front();
      request->pid = fork();
      if (request->pid == 0) {
        // Killed when this thread ends; if the process already ended, at once.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        (*request->in_child)();
        _exit(127);
      }
      request->done = true;
      changed_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Request*> queue_;
};

}  // namespace

pid_t ForkTiedToThisProcess(const std::function<void()>& in_child) {
  return Spawner::Instance().Fork(in_child);
}

}  // namespace strata::testing
