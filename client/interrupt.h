// Ctrl-C handling for the CLI. SIGINT is taken by a dedicated thread (it is
// blocked everywhere else), so gRPC's threads never see it. Outside an
// InterruptScope it ends the process with 130, as a shell expects. Inside one
// it only sets a flag that the long operation polls (a query is then
// cancelled on the server); a thread blocked reading the terminal inside
// InputWait is woken so that it can look at the flag.
#pragma once

namespace strata::cli {

// Call first in main(), before any other thread starts.
void InstallInterruptHandling();

class InterruptScope {
 public:
  InterruptScope();   // clears the flag
  ~InterruptScope();  // Ctrl-C ends the process again
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// Marks the calling thread as blocked on terminal input for its lifetime: a
// Ctrl-C interrupts that read (it fails with EINTR).
class InputWait {
 public:
  InputWait();
  ~InputWait();
  InputWait(const InputWait&) = delete;
  InputWait& operator=(const InputWait&) = delete;
};

bool Interrupted();
void ClearInterrupted();

}  // namespace strata::cli
