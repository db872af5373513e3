import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
KNOWN = SAMPLES / "known_answer"
DEEPCAM = SAMPLES / "deepcam"


@pytest.fixture(scope="session")
def expected():
    """The known answers, written by kernels/known_answer itself on the GPU."""
    doc = json.loads((KNOWN / "expected.json").read_text())
    return {k["name"]: k for k in doc["kernels"]}


def run_cli(*args, cwd=None, env=None):
    """The real `rooftui` command in a subprocess."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", **(env or {})}
    return subprocess.run([sys.executable, "-m", "rooftui", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=full_env, timeout=120)
