"""Shared paths and traces for the timeline tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftui.timeline import analyze_trace
from tests.timeline.kineto_builder import write_fixed, write_naive
from tests.timeline.paths import FIXED_TRACE, NAIVE_TRACE


@pytest.fixture(scope="session")
def built_naive(tmp_path_factory) -> Path:
    """The hand-made naive trace (3 steps of 1000 µs), gzipped."""
    return write_naive(tmp_path_factory.mktemp("built") / "naive.json.gz")


@pytest.fixture(scope="session")
def built_fixed(tmp_path_factory) -> Path:
    return write_fixed(tmp_path_factory.mktemp("built") / "fixed.json")


@pytest.fixture(scope="session")
def naive_analysis():
    return analyze_trace(NAIVE_TRACE)


@pytest.fixture(scope="session")
def fixed_analysis():
    return analyze_trace(FIXED_TRACE)
