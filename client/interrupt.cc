#include "client/interrupt.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>

namespace strata::cli {
namespace {

std::atomic<bool> interrupted{false};
std::atomic<int> scopes{0};
std::atomic<bool> input_waiting{false};
pthread_t input_thread;

// Only there to make a blocked read return EINTR.
void Wake(int) {}

void WaitForInterrupts(sigset_t signals) {
  while (true) {
    int signal = 0;
    if (sigwait(&signals, &signal) != 0) continue;
    if (scopes.load() == 0) _exit(130);
    interrupted.store(true);
    // The reader may be between checking the flag and blocking in read(),
    // where one wake-up would be lost: repeat it until the reader has seen
    // the flag (it clears it) or stopped waiting.
    for (int i = 0; i < 100 && input_waiting.load() && interrupted.load(); ++i) {
      pthread_kill(input_thread, SIGUSR1);
      usleep(20'000);
    }
  }
}

}  // namespace

void InstallInterruptHandling() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  struct sigaction wake = {};
  wake.sa_handler = Wake;
  sigemptyset(&wake.sa_mask);
  wake.sa_flags = 0;  // no SA_RESTART: the read must fail with EINTR
  sigaction(SIGUSR1, &wake, nullptr);
  std::thread(WaitForInterrupts, signals).detach();
}

InterruptScope::InterruptScope() {
  interrupted.store(false);
  ++scopes;
}

InterruptScope::~InterruptScope() { --scopes; }

InputWait::InputWait() {
  input_thread = pthread_self();
  input_waiting.store(true);
}

InputWait::~InputWait() { input_waiting.store(false); }

bool Interrupted() { return interrupted.load(); }
void ClearInterrupted() { interrupted.store(false); }

}  // namespace strata::cli
