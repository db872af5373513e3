"""The two DeepCAM sample runs (FP32 and AMP on one H200) and their comparison."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from tests.conftest import DEEPCAM

FP32 = DEEPCAM / "deepcam_fp32.raw-base.csv.xz"
AMP = DEEPCAM / "deepcam_amp.raw-base.csv.xz"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests on a fresh event loop (no async plugin is a dependency)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None


@pytest.fixture(scope="session")
def fp32_run():
    from rooftui.analysis import load_run

    return load_run([FP32])


@pytest.fixture(scope="session")
def amp_run():
    from rooftui.analysis import load_run

    return load_run([AMP])


@pytest.fixture(scope="session")
def comparison(fp32_run, amp_run):
    from rooftui.analysis.compare import compare_runs

    return compare_runs(fp32_run, amp_run, "deepcam_fp32", "deepcam_amp")
