"""A pytest plugin that records each test's CPU time (benchmarks/suite_time.py loads it),
and what each process paid outside its tests: before its first test (start, plugins,
collection) and in the garbage collector.

    python -m pytest -p benchmarks.cpu_per_test ...

appends one line per test, ``TEST_ID<TAB>CPU SECONDS``, to the file named by
``ROOFTUI_CPU_PER_TEST`` (each xdist worker appends its own lines). CPU time is user +
system of the test's process and of the child processes it waited for (setup, call and
teardown together): unlike wall time, it moves little with the load of a shared machine.

At the end of its session each process (each xdist worker, and the controller) appends
one more line, ``#process<TAB>NAME<TAB>KEY=VALUE ...``:
``before_first_test`` (its own CPU from its start to its first test: the interpreter,
pytest and its plugins, conftest files, collection), ``total`` (its own CPU at the end),
``gc_s`` and ``gc_runs`` (the CPU time the cyclic garbage collector ran in this process,
from ``gc.callbacks``: the collecting thread's CPU time between its start and stop) and
per generation, ``gc_gen0_s`` ... ``gc_gen2_runs``.
"""

from __future__ import annotations

import gc
import os
import resource
import time

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


class _Collector:
    """Time spent in the cyclic garbage collector, from its start and stop callbacks."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0, 0.0]  # per generation
        self.runs = [0, 0, 0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.thread_time()
        else:
            generation = info["generation"]
            self.seconds[generation] += time.thread_time() - self._started
            self.runs[generation] += 1

    def fields(self) -> str:
        each = " ".join(f"gc_gen{g}_s={self.seconds[g]:.3f} gc_gen{g}_runs={self.runs[g]}" for g in range(3))
        return f"gc_s={sum(self.seconds):.3f} gc_runs={sum(self.runs)} {each}"


_COLLECTOR = _Collector()
gc.callbacks.append(_COLLECTOR)
_BEFORE_FIRST_TEST: list[float] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _BEFORE_FIRST_TEST:
        _BEFORE_FIRST_TEST.append(_own_cpu())
    start = _cpu()
    yield
    took = _cpu() - start
    target = os.environ.get("ROOFTUI_CPU_PER_TEST")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{took:.4f}\n")


def pytest_sessionfinish(session):
    target = os.environ.get("ROOFTUI_CPU_PER_TEST")
    if not target:
        return
    name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    first = f"{_BEFORE_FIRST_TEST[0]:.3f}" if _BEFORE_FIRST_TEST else "-"
    with open(target, "a", encoding="utf-8") as out:
        out.write(
            f"#process\t{name}\tbefore_first_test={first} total={_own_cpu():.3f} {_COLLECTOR.fields()}\n"
        )
