"""What the load path gives, as digests: a faster load path must give the same bytes.

    python benchmarks/load_outputs.py digest [--tree DIR] [--out FILE]
    python benchmarks/load_outputs.py compare A B     # exit 1 if any line differs

``digest`` runs, in a child whose ``rooftui`` is the checkout at ``--tree`` (default:
this one), ``rooftui summary --format json`` and ``--format csv`` (in process, through
the real ``main``, as the tests' ``run_cli``) on every committed report under
sample_data/, rooftui/data/ and tests/ (``.csv`` and ``.ncu-rep``, compressed or not)
and on the corpus fixtures ``tests/corpus/fixtures.py`` writes, and the explorer's two
tables (``LoadedRun.from_run``: every launch, and grouped by kernel) as CSV with full
float precision plus their dtypes. It prints one line per report: the SHA-256 of each
output (exit code and stderr included). ``compare`` diffs two such files.

The report cache is off (``ROOFTUI_NO_CACHE``), so each report is parsed; ``COLUMNS`` and
``NO_COLOR`` are fixed so the output does not depend on the terminal.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("sample_data", "rooftui/data", "tests")
SUFFIXES = (".csv", ".ncu-rep")
COMPRESSED = ("", ".xz", ".gz", ".bz2", ".zst")


def committed_reports(tree: Path) -> list[str]:
    """Every committed ``.csv``/``.ncu-rep`` file (compressed or not) under ``FOLDERS``."""
    listed = subprocess.run(
        ["git", "ls-files", *FOLDERS], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    names = [name for name in listed if name.endswith(tuple(s + c for s in SUFFIXES for c in COMPRESSED))]
    return sorted(name for name in names if (tree / name).is_file())


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def _summary(args: list[str], cwd: Path) -> str:
    """``rooftui ARGS`` in this process: stdout, stderr and exit code, as one text."""
    from click.testing import CliRunner

    from rooftui.cli import main

    runner = CliRunner()
    previous = Path.cwd()
    with runner.isolation(env={"NO_COLOR": "1", "COLUMNS": "120"}) as (out, err, _):
        os.chdir(cwd)
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.chdir(previous)
        return f"{out.getvalue().decode()}\nexit {code}\n{err.getvalue().decode()}"


def _tables(report: str, cwd: Path) -> str:
    """The explorer's two tables of ``report`` as CSV (floats as Python's repr writes them:
    exact) with their dtypes; the error's one line where it cannot be loaded (or the
    exception where loading it crashes)."""
    from rooftui.analysis import load_run
    from rooftui.errors import RooftuiError
    from rooftui.views.tui.view_state import LoadedRun

    previous = Path.cwd()
    os.chdir(cwd)
    try:
        loaded = LoadedRun.from_run(load_run([report]))
    except RooftuiError as err:
        return f"error: {err}"
    except Exception as err:  # noqa: BLE001 -- a crash is an output too: both trees must give it
        return f"crash: {type(err).__name__}: {err}"
    finally:
        os.chdir(previous)
    parts = []
    for frame in (loaded.invocations, loaded.grouped):
        parts.append(repr(list(zip(frame.columns, map(str, frame.dtypes)))))
        parts.append(frame.to_csv())
    return "\n".join(parts)


def digest_here(out: Path) -> None:
    """Write the digest lines of the ``rooftui`` this process imports (see the docstring)."""
    tree = Path.cwd()
    lines = []
    inputs = [(name, tree) for name in committed_reports(tree)]
    with tempfile.TemporaryDirectory() as scratch:
        from tests.corpus.fixtures import write_all

        written = write_all(Path(scratch) / "corpus")
        inputs += [(str(path.relative_to(scratch)), Path(scratch)) for path in sorted(written.values())]
        for name, cwd in inputs:
            json_out = _summary(["summary", "--format", "json", name], cwd)
            csv_out = _summary(["summary", "--format", "csv", name], cwd)
            tables = _tables(name, cwd)
            lines.append(f"{name}  json {_sha(json_out)}  csv {_sha(csv_out)}  tables {_sha(tables)}")
            print(lines[-1], flush=True)
    out.write_text("\n".join(lines) + "\n")


def digest(tree: Path, out: Path) -> int:
    """``digest_here`` in a child that imports ``tree``'s rooftui, its working directory ``tree``."""
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "ROOFTUI_NO_CACHE": "1",
            "XDG_CACHE_HOME": home,
            "XDG_DATA_HOME": home,
            "XDG_CONFIG_HOME": home,
            "PYTHONDONTWRITEBYTECODE": "1",  # nothing written into the tree measured
        }
        code = f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import load_outputs; "
        code += f"load_outputs.digest_here(__import__('pathlib').Path({str(out.resolve())!r}))"
        return subprocess.run([sys.executable, "-c", code], cwd=tree, env=env).returncode


def compare(first: Path, second: Path) -> int:
    a, b = first.read_text().splitlines(), second.read_text().splitlines()
    differ = [f"- {x}\n+ {y}" for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        differ.append(f"{len(a)} lines against {len(b)}")
    print("\n".join(differ) if differ else f"all {len(a)} the same")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("digest")
    make.add_argument("--tree", type=Path, default=ROOT)
    make.add_argument("--out", type=Path, default=Path("load_outputs.txt"))
    both = commands.add_parser("compare")
    both.add_argument("first", type=Path)
    both.add_argument("second", type=Path)
    options = parser.parse_args()
    if options.command == "compare":
        return compare(options.first, options.second)
    return digest(options.tree.resolve(), options.out)


if __name__ == "__main__":
    sys.exit(main())
