// How much of the calling thread's stack is left: recursion over a client's
// input (the SQL parser's nesting) asks before each level and refuses the
// input with an error while room remains, instead of overflowing the stack.
// Depth limits alone (query/parse/parser.h) hold only for the frame sizes they
// were measured with; a sanitizer build's frames are several times larger,
// and a thread with a small stack (the main thread under a low ulimit -s)
// has less room.
#pragma once

#include <cstddef>

namespace strata {

// Bytes between the caller's frame and the low end of this thread's stack
// (stacks grow down on every platform Strata builds for). The stack's bounds
// are read once per thread; where they cannot be read, a very large number.
size_t StackBytesLeft();

}  // namespace strata
