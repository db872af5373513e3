"""Helpers for driving the explorer with Pilot."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from rooftui.views.tui.app import RooftuiApp, make_app
from tests.tui import synthetic


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run ``async def`` tests on a fresh event loop (no async plugin is a dependency)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        asyncio.run(pyfuncitem.obj(**arguments))
        return True
    return None


def screen_text(app: RooftuiApp) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    return "\n".join(
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    )


async def loaded(pilot) -> None:
    """Wait until the load worker finished and its messages were handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


@pytest.fixture
def synthetic_app():
    def build(**options) -> RooftuiApp:
        return make_app(run=synthetic.synthetic_run(2), **options)

    return build


@pytest.fixture(autouse=True)
def grouping_until_core_lands(monkeypatch):
    """Until rooftui.analysis.grouping exists, group with the synthetic stand-in."""
    import importlib
    import sys
    import types

    try:
        importlib.import_module("rooftui.analysis.grouping")
    except ModuleNotFoundError:
        module = types.ModuleType("rooftui.analysis.grouping")
        module.group_by_name = synthetic.group_by_name
        monkeypatch.setitem(sys.modules, "rooftui.analysis.grouping", module)
