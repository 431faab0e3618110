"""Worker processes that never outlive the study that started them (docs/errors.md).

A study killed with SIGKILL cannot clean up, so its helpers must notice by themselves:
each worker (and the ``forkserver`` that forks them) asks the kernel to send it SIGKILL
when its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``); where that call does not
exist, a daemon thread polls the parent's pid and exits when it changes. Workers also
ignore SIGINT: Ctrl-C reaches the whole process group, and only the coordinating
process should answer it (one ``aborted`` line, no worker tracebacks).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: linux/prctl.h
_PR_SET_PDEATHSIG = 1


def _watch_parent(ppid: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != ppid:
            os._exit(1)


def die_with_parent() -> None:
    """Make this process die when its parent does (see the module docstring)."""
    ppid = os.getppid()
    armed = False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        armed = False
    if os.getppid() != ppid or ppid == 1:
        os._exit(1)  # the parent died before the signal was armed
    if not armed:
        threading.Thread(target=_watch_parent, args=(ppid,), daemon=True, name="burstlab-parent-watch").start()


def init_worker() -> None:
    """Initializer of the study's worker processes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C that comes inside the block until its end, then hand it to the handler
    that was in place (Python's own raises KeyboardInterrupt there).

    For the pool's ``submit``, which may start a worker: the forkserver forks the worker,
    then this process writes it its preparation data. A KeyboardInterrupt between the two
    left the worker reading a closed pipe, and it printed an ``EOFError`` traceback beside
    the study's one ``aborted`` line. Python runs signal handlers in the main thread only,
    so outside it (a study run from a thread) the block changes nothing."""
    prev = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(prev):
        yield  # not the main thread, or Ctrl-C ignored: nothing to hold
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, prev)
    if caught:
        prev(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
