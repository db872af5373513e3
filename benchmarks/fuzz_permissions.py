"""Permission states for real: rooftui run as ``nobody`` on caches, inputs and output folders
it may not read, search or write (issue #25; the fuzz harness runs as root, where ``chmod``
stops nothing, so its "no permission" and "read-only cache" states only monkeypatch).

    sudo python benchmarks/fuzz_permissions.py [--python PY] [--json FILE]

Each case is set up as root in a fresh folder owned by ``nobody``, then one command runs as
``nobody`` (``setpriv --reuid=65534 --regid=65534 --clear-groups``). A cache state must give
exit 0 and the totals of the same report read without a cache (and leave no half-written
entry); an unreadable input or an unwritable output folder must give exit 2 and one line
naming the file. Inputs must be unchanged. ``--python``: an interpreter ``nobody`` can run
with rooftui's dependencies importable (rooftui itself is taken from this checkout); a
pyenv Python under ``/root`` cannot be, as ``/root`` is not searchable by others.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOWN = ROOT / "sample_data" / "known_answer"
NOBODY = 65534
REPORTS = ("run.raw-base.csv", "run.ncu-rep")
_SUMMARY = ("kernels", "time_s", "table3")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="an interpreter nobody can run")
    parser.add_argument("--json", type=Path, help="write the outcomes here")
    args = parser.parse_args()
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        print("needs root and setpriv (util-linux): it runs rooftui as nobody", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="rooftui-permissions-") as scratch:
        base = Path(scratch)
        os.chmod(base, 0o755)
        bench = Bench(base, args.python)
        probe = bench.run(base, ["--version"])
        if probe.returncode != 0:
            print(
                f"{args.python} cannot run rooftui as nobody: {probe.stderr.strip()[-200:]}", file=sys.stderr
            )
            return 2
        outcomes = bench.all_cases()
        for folder in base.iterdir():  # let root delete what nobody made unreadable
            subprocess.run(["chmod", "-R", "u+rwx", str(folder)], check=False)
    problems = [o for o in outcomes if o["problems"]]
    for outcome in outcomes:
        state = "ok" if not outcome["problems"] else "PROBLEM " + "; ".join(outcome["problems"])
        print(f"{outcome['case']:<40} exit {outcome['exit']}  {state}  {outcome['stderr_last'][:150]}")
    print(f"{len(outcomes)} cases as nobody, {len(problems)} with a problem")
    if args.json:
        args.json.write_text(
            json.dumps({"cases": len(outcomes), "problems": len(problems), "outcomes": outcomes}, indent=1)
        )
    return 1 if problems else 0


class Bench:
    def __init__(self, base: Path, python: str) -> None:
        self.base = base
        self.python = python
        self.outcomes: list[dict] = []
        self.alone: dict[str, dict] = {}

    def run(self, folder: Path, argv: list[str], env: dict[str, str] | None = None):
        environment = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(folder / "home"),
            "XDG_CACHE_HOME": str(folder / "cache"),
            "PYTHONPATH": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
            "NO_COLOR": "1",
            "COLUMNS": "100",
            **(env or {}),
        }
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        return subprocess.run(
            [*command, self.python, "-m", "rooftui", *argv],
            capture_output=True,
            text=True,
            env={k: v for k, v in environment.items() if v},
            cwd=folder,
            timeout=600,
        )

    def folder(self, name: str) -> Path:
        folder = self.base / name
        (folder / "home").mkdir(parents=True)
        shutil.copy(KNOWN / "known_answer.raw-base.csv", folder / "run.raw-base.csv")
        shutil.copy(KNOWN / "known_answer.ncu-rep", folder / "run.ncu-rep")
        for path in [folder, *folder.rglob("*")]:
            os.lchown(path, NOBODY, NOBODY)
        return folder

    def totals(self, stdout: str) -> dict | None:
        try:
            return {key: json.loads(stdout)["summary"][key] for key in _SUMMARY}
        except (ValueError, KeyError, TypeError):
            return None

    def reference(self, report: str) -> dict:
        """The report's totals read as nobody without a cache."""
        if report not in self.alone:
            folder = self.folder(f"alone-{report}")
            done = self.run(folder, ["summary", report, "--format", "json"], {"ROOFTUI_NO_CACHE": "1"})
            found = self.totals(done.stdout)
            assert done.returncode == 0 and found is not None, done.stderr
            self.alone[report] = found
        return self.alone[report]

    def prime(self, folder: Path, report: str) -> Path:
        """Fill the cache as nobody (one good run); its one entry."""
        done = self.run(folder, ["summary", report, "--format", "json"])
        assert done.returncode == 0, done.stderr
        (entry,) = (folder / "cache" / "rooftui" / "reports").glob("*.report")
        return entry

    def case(
        self,
        name: str,
        argv: list[str],
        setup: Callable[[Path], None],
        *,
        expect: int,
        env: dict[str, str] | None = None,
        words: tuple[str, ...] = (),
        totals_of: str | None = None,
    ) -> None:
        folder = self.folder(name)
        setup(folder)
        inputs = {p: _digest(p) for p in folder.iterdir() if p.name in REPORTS}
        done = self.run(folder, argv, env)
        problems = []
        errors = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("note:")]
        if done.returncode != expect:
            problems.append(f"exit {done.returncode}, expected {expect}")
        if "Traceback" in done.stderr:
            problems.append("traceback")
        if done.returncode == 2 and len(errors) != 1:
            problems.append(f"error on {len(errors)} lines")
        problems += [f"no '{word}' in the error" for word in words if word not in done.stderr]
        if totals_of and done.returncode == 0 and self.totals(done.stdout) != self.reference(totals_of):
            problems.append("totals differ from the report read without a cache")
        problems += [f"input changed: {p.name}" for p, digest in inputs.items() if _digest(p) != digest]
        if list((folder / "cache").rglob(".writing-*")) if (folder / "cache").exists() else []:
            problems.append("a half-written cache entry left behind")
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        self.outcomes.append(
            {"case": name, "exit": done.returncode, "problems": problems, "stderr_last": last}
        )

    def all_cases(self) -> list[dict]:
        for report in REPORTS:
            summary = ["summary", report, "--format", "json"]

            def entry_unreadable(folder: Path, report: str = report) -> None:
                os.chmod(self.prime(folder, report), 0)

            def damaged_in_read_only_cache(folder: Path, report: str = report) -> None:
                entry = self.prime(folder, report)
                entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
                os.chmod(entry.parent, 0o500)

            def read_only_cache(folder: Path, report: str = report) -> None:
                os.chmod(self.prime(folder, report).parent, 0o500)

            def unsearchable_cache(folder: Path, report: str = report) -> None:
                os.chmod(self.prime(folder, report).parent, 0)

            def cache_cannot_be_made(folder: Path) -> None:
                _own_folder(folder / "cache", 0o500)

            def home_read_only(folder: Path) -> None:
                os.chmod(folder / "home", 0o500)

            def unreadable(folder: Path, report: str = report) -> None:
                os.chmod(folder / report, 0)

            for state, setup in (
                ("cache entry unreadable", entry_unreadable),
                ("damaged entry in a read-only cache", damaged_in_read_only_cache),
                ("read-only cache", read_only_cache),
                ("unsearchable cache folder", unsearchable_cache),
                ("cache folder cannot be made", cache_cannot_be_made),
            ):
                self.case(f"{state}: {report}", summary, setup, expect=0, totals_of=report)
            self.case(
                f"no XDG_CACHE_HOME, read-only home: {report}",
                summary,
                home_read_only,
                expect=0,
                env={"XDG_CACHE_HOME": ""},
                totals_of=report,
            )
            self.case(f"unreadable input: {report}", summary, unreadable, expect=2, words=(report,))

        def out_read_only(folder: Path) -> None:
            _own_folder(folder / "out", 0o500)

        def unreadable_csv(folder: Path) -> None:
            os.chmod(folder / "run.raw-base.csv", 0)

        def unsearchable_parent(folder: Path) -> None:
            _own_folder(folder / "hidden", 0o700)
            shutil.copy(folder / "run.raw-base.csv", folder / "hidden" / "run.raw-base.csv")
            os.chmod(folder / "hidden", 0)

        csv_input = "run.raw-base.csv"
        for name, argv in (
            ("plot --csv", ["plot", csv_input, "--csv", "out/rows.csv"]),
            ("plot --svg", ["plot", csv_input, "--svg", "out/roofline.svg"]),
            ("advise --figure", ["advise", csv_input, "--figure", "out/waterfall.svg"]),
            ("profile -o", ["profile", "--ncu", "/bin/true", "-o", "out/run", "--", "true"]),
        ):
            self.case(f"read-only output folder: {name}", argv, out_read_only, expect=2, words=("out",))
        for name, argv in (
            ("diff", ["diff", csv_input, "run.ncu-rep"]),
            ("summary --ceilings", ["summary", "run.ncu-rep", "--ceilings", csv_input]),
            ("measure --show", ["measure", "--show", csv_input]),
            ("timeline", ["timeline", csv_input]),
        ):
            self.case(f"unreadable input: {name}", argv, unreadable_csv, expect=2, words=(csv_input,))
        self.case(
            "input in an unsearchable folder: summary",
            ["summary", "hidden/run.raw-base.csv"],
            unsearchable_parent,
            expect=2,
            words=("run.raw-base.csv",),
        )
        return self.outcomes


def _own_folder(path: Path, mode: int) -> None:
    path.mkdir()
    os.lchown(path, NOBODY, NOBODY)
    os.chmod(path, mode)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


if __name__ == "__main__":
    sys.exit(main())
