"""What several of the commands' tests read from one run of a command."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="session")
def advise_json_top_5(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path | None]:
    """``rooftui advise --format json --top 5`` on the bundled sample, and with it
    ``--figure budget.svg`` where matplotlib is installed (the step budget drawn: the same
    figure as without --top, which only cuts the findings): the run and the figure's path."""
    figure = None
    if importlib.util.find_spec("matplotlib") is not None:
        figure = tmp_path_factory.mktemp("advise") / "budget.svg"
    done = run_cli("advise", "--format", "json", "--top", "5", *(["--figure", figure] if figure else []))
    return done, figure
