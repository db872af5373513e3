"""Fetch the public corpus (tests/corpus/public_corpus.json) into a folder for
tests/corpus/test_public_corpus.py: ``python -m tests.corpus.fetch_public DEST``, then
``ROOFTUI_CORPUS=DEST python -m pytest tests/corpus``.

Each file is taken from its repository by its git blob id (the exact bytes the corpus was
checked with), each of the paper's one-metric-run folders by its path at the commit named.
The files stay in their repositories: rooftui commits none of them (docs/corpus.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

MANIFEST = Path(__file__).with_name("public_corpus.json")


def fetch(destination: Path) -> None:
    entries = json.loads(MANIFEST.read_text())
    by_repo: dict[str, list[dict]] = {}
    for entry in entries:
        by_repo.setdefault(entry["repo"], []).append(entry)
    with tempfile.TemporaryDirectory() as scratch:
        for repo, wanted in by_repo.items():
            clone = Path(scratch) / repo.replace("/", "+")
            url = f"https://github.com/{repo}"
            subprocess.run(["git", "clone", "--quiet", "--no-checkout", url, str(clone)], check=True)
            for entry in wanted:
                target = destination / entry["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                if "blob" in entry:
                    target.write_bytes(_git(clone, "cat-file", "blob", entry["blob"]))
                    continue
                target.mkdir(exist_ok=True)  # a folder of one-metric runs
                names = _git(clone, "ls-tree", "--name-only", entry["commit"], entry["path"] + "/").decode()
                for name in names.split():
                    (target / Path(name).name).write_bytes(_git(clone, "show", f"{entry['commit']}:{name}"))
                for extra in entry.get("with", []):  # the peer notebook's table of the same run
                    table = _git(clone, "show", f"{entry['commit']}:{extra}")
                    (target.parent / Path(extra).name).write_bytes(table)


def _git(clone: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True).stdout


if __name__ == "__main__":
    fetch(Path(sys.argv[1] if len(sys.argv) > 1 else "public_corpus"))
