#!/usr/bin/python3
"""Types TEXT into an interactive psql (under a pseudo-terminal) and presses
Tab twice; prints what psql shows. Usage: psql_tab.py PORT TEXT
"""
import os
import pty
import select
import signal
import sys
import time

port, text = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv("/usr/bin/psql", ["psql", "-X", "-h", "127.0.0.1", "-p", port, "-U", "me", "strata"])


def read(seconds):
    out = b""
    end = time.time() + seconds
    while time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out.decode(errors="replace")


read(3)
os.write(fd, text.encode() + b"\t\t")
print(read(3))
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
