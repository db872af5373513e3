"""A pytest plugin that records each test's CPU time (benchmarks/suite_time.py loads it).

    python -m pytest -p benchmarks.cpu_per_test ...

appends one line per test, ``TEST_ID<TAB>CPU SECONDS``, to the file named by
``ROOFTUI_CPU_PER_TEST`` (each xdist worker appends its own lines). CPU time is user +
system of the test's process and of the child processes it waited for (setup, call and
teardown together): unlike wall time, it moves little with the load of a shared machine.
"""

from __future__ import annotations

import os
import resource

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu()
    yield
    took = _cpu() - start
    target = os.environ.get("ROOFTUI_CPU_PER_TEST")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{took:.4f}\n")
