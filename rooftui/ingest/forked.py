"""Forked children that each run one function and hand back its pickled result.

The mechanics under ``rooftui.ingest._ncu_rep_worker``'s reader children: fork, pipe,
pickle, reaping, a child that dies with its parent (Linux's ``PR_SET_PDEATHSIG``), a
crash told apart from a signal, and what the reader needs to decide whether it may fork
(``/proc`` for its memory and its threads). Imports no pandas, as the worker.
"""

from __future__ import annotations

import functools
import os
import pickle
import signal
import sys

# A child whose function raised; a process ended by end_by for a non-fatal signal. Not 1,
# Python's own code for an uncaught exception: the reader's parent reads 1 as "the reader
# never got to run" (its imports failed; ``ncu_rep.EXIT_DID_NOT_START``).
EXIT_FAILED = 5


def resident_bytes() -> int:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def can_fork() -> bool:
    if not hasattr(os, "fork"):
        return False
    try:
        resident_bytes()
    except (OSError, ValueError, IndexError):
        return False
    return True


def threads() -> int:
    """Threads of this process, native ones too (0 if unknown)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


class ChildFailed(Exception):
    """A reader child raised; it wrote its one-line message to stderr."""


class ChildKilled(Exception):
    """A reader child was killed by a signal."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.signal = number


class Child:
    """``work()`` running in a forked child, its pickled result coming down a pipe.

    The child dies with this process (a parent that stops this one on a timeout stops
    the child too)."""

    def __init__(self, work) -> None:
        readable, writable = os.pipe()
        parent, prctl = os.getpid(), _prctl()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = EXIT_FAILED
            try:
                os.close(readable)
                _die_with(parent, prctl)
                data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(writable, "wb") as out:
                    out.write(data)
                code = 0
            except BaseException as err:  # noqa: BLE001 - reported in one line, as main() does
                print(f"{type(err).__name__}: {err}".splitlines()[0], file=sys.stderr)
                sys.stderr.flush()
            finally:
                os._exit(code)
        os.close(writable)
        self.pid, self.pipe = pid, readable
        self._data = bytearray()

    def read_some(self) -> bool:
        """Read what the pipe holds now (blocking if nothing); True once it is closed."""
        chunk = os.read(self.pipe, 1 << 20)
        self._data += chunk
        return not chunk

    def result(self):
        """Its result, once ``read_some`` saw the pipe closed; raises ChildFailed, or
        ChildKilled if a signal ended it."""
        os.close(self.pipe)
        _, status = os.waitpid(self.pid, 0)
        if os.WIFSIGNALED(status):
            raise ChildKilled(os.WTERMSIG(status))
        if os.waitstatus_to_exitcode(status) != 0:
            raise ChildFailed
        return pickle.loads(self._data)  # noqa: S301 - written just now by this process's own fork

    def stop(self) -> None:
        os.close(self.pipe)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def end_by(number: int) -> None:
    """End this process with signal ``number``, so that the parent names it as it would
    a crash here."""
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(EXIT_FAILED)  # a signal that does not end a process


def _die_with(parent: int, prctl) -> None:
    """Have the kernel kill this process when ``parent`` ends (Linux's PR_SET_PDEATHSIG)."""
    if prctl is not None:
        prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the call above took effect
        os._exit(EXIT_FAILED)


@functools.cache
def _prctl():
    """The C library's ``prctl``, or None. Looked up in the parent, once: a child that
    imported ctypes itself would take ~3 ms more and copy ~1.7 MB of pages."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
