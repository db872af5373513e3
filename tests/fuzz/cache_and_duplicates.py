"""Fuzz cases for rooftui's report cache and for the same report given twice (issue #25).

``cache``: a report is read once into the case's cache (``$XDG_CACHE_HOME`` is the case's
folder), then its entry or the cache folder is damaged -- cut, bytes flipped, a valid CRC
over a bad header, a FIFO or a ``/dev/zero`` link in its place, no permission, a read-only
folder, a file where the folder goes, a folder name over 255 bytes -- and the report is
summarised again. The cache must never cause an error nor change a number: exit 0 and
the same totals as a read without the cache.

``duplicates``: one report given twice (the same path, a copy, a symlink, a hard link,
``.xz`` and plain, raw and raw-base units, a ``.ncu-rep`` and its own export) must count
once, with the totals of one report and a "counted once" note; two exports of one run
that disagree (one time doubled) must be refused; two ranks of one job count both.

The answers are known by construction: the totals of the one report read alone.
"""

from __future__ import annotations

import functools
import json
import lzma
import os
import random
import stat
import tempfile
import zlib
from pathlib import Path

from tests.fuzz.generators import KNOWN, Case

MULTIGPU = KNOWN.parent / "multigpu"
RAW = KNOWN / "known_answer.raw-base.csv"
RAW_SCALED = KNOWN / "known_answer.raw.csv"
REPORT = KNOWN / "known_answer.ncu-rep"
CACHE_STATES = (
    "entry-cut",
    "entry-flipped",
    "entry-bad-header",
    "entry-fifo",
    "entry-dev-zero",
    "entry-no-permission",
    "entry-empty",
    "read-only-folder-damaged-entry",
    "folder-is-a-file",
    "folder-name-too-long",
    "intact",
)
DUPLICATES = (
    "same-path",
    "copy",
    "symlink",
    "hard-link",
    "xz-and-plain",
    "raw-and-raw-base",
    "ncu-rep-and-its-export",
    "disagreeing-copy",
    "two-ranks",
)
_SUMMARY = ("kernels", "time_s", "table3")


def _summary_of(stdout: str) -> dict | None:
    try:
        doc = json.loads(stdout)
        return {key: doc["summary"][key] for key in _SUMMARY} | {"notes": doc.get("notes", [])}
    except (ValueError, KeyError, TypeError):
        return None


@functools.cache
def totals_alone(*names: str) -> dict:
    """The totals of ``names`` (files of sample_data) summarised without a cache."""
    from tests.fuzz.runner import run_in_process

    files = {Path(n).name: Path(n).read_bytes() for n in names}
    argv = ["summary", *("{dir}/" + name for name in files), "--format", "json"]
    with tempfile.TemporaryDirectory(prefix="rooftui-fuzz-") as folder:
        outcome = run_in_process(
            Case("reference", "alone", files, argv, True, {"ROOFTUI_NO_CACHE": "1"}), Path(folder)
        )
    found = _summary_of(outcome.stdout)
    assert outcome.returncode == 0 and found is not None, outcome.stderr
    return found


def _same_totals(*names: str, note: str | None = None):
    """A stdout check: the totals of ``names`` read alone (and ``note`` among the notes)."""

    def check(stdout: str) -> str | None:
        found, expected = _summary_of(stdout), totals_alone(*names)
        if found is None:
            return "silent damage: no JSON summary on stdout"
        for key in _SUMMARY:
            if json.dumps(found[key], sort_keys=True) != json.dumps(expected[key], sort_keys=True):
                return f"silent damage: {key} differs from the report read alone"
        if note and not any(note in n for n in found["notes"]):
            return f"silent damage: no '{note}' note"
        return None

    return check


def _both_ranks(*names: str):
    """A stdout check: two ranks of one job count both (kernels and time summed)."""

    def check(stdout: str) -> str | None:
        found, alone = _summary_of(stdout), [totals_alone(name) for name in names]
        if found is None:
            return "silent damage: no JSON summary on stdout"
        if found["kernels"] != sum(a["kernels"] for a in alone):
            return "silent damage: two ranks of one job not both counted"
        if abs(found["time_s"] - sum(a["time_s"] for a in alone)) > 1e-9 * found["time_s"]:
            return "silent damage: the two ranks' time is not the sum of each"
        return None

    return check


# ---------------------------------------------------------------- the cache


def _damage_cache(state: str, name: str, rng_seed: int, folder: Path) -> None:
    """Read ``name`` once into the case's cache, then leave the cache in ``state``."""
    from rooftui.ingest.cache import MAGIC, ReportCache
    from rooftui.ingest.parallel import read_paths

    rng = random.Random(rng_seed)
    base = folder / "cache"
    if state == "folder-is-a-file":
        base.write_text("")
        return
    if state == "folder-name-too-long":
        return  # the case's XDG_CACHE_HOME names it (see cache_case)
    store = ReportCache(base / "rooftui" / "reports")
    read_paths([folder / name], cache=store)
    (entry,) = store.directory.glob("*.report")
    blob = entry.read_bytes()
    if state == "entry-cut":
        entry.write_bytes(blob[: rng.randrange(1, len(blob))])
    elif state == "entry-flipped":
        flipped = bytearray(blob)
        for _ in range(rng.randint(1, 8)):
            flipped[rng.randrange(len(MAGIC), len(flipped))] ^= 1 << rng.randrange(8)
        entry.write_bytes(bytes(flipped))
    elif state == "entry-bad-header":  # a valid CRC over a header that lies
        body = blob[len(MAGIC) + 4 :]
        length = int.from_bytes(body[:8], "little")
        header = json.loads(body[8 : 8 + length])
        key = rng.choice([k for k in header if k != "key"] if isinstance(header, dict) else ["rows"])
        header[key] = rng.choice(["x", 10**15, -1, 0, 5, [], {}, None, [5], 1.5])
        new_header = json.dumps(header).encode()
        new_body = len(new_header).to_bytes(8, "little") + new_header + body[8 + length :]
        entry.write_bytes(MAGIC + zlib.crc32(new_body).to_bytes(4, "little") + new_body)
    elif state == "entry-fifo":
        entry.unlink()
        os.mkfifo(entry)
    elif state == "entry-dev-zero":
        entry.unlink()
        entry.symlink_to("/dev/zero")
    elif state == "entry-no-permission":
        entry.chmod(0)
    elif state == "entry-empty":
        entry.write_bytes(b"")
    elif state == "read-only-folder-damaged-entry":
        entry.write_bytes(blob[: len(blob) // 2])
        store.directory.chmod(stat.S_IRUSR | stat.S_IXUSR)


def cache_case(rng: random.Random) -> Case:
    state = rng.choice(CACHE_STATES)
    source = rng.choice([RAW, RAW_SCALED, REPORT])
    name, data = source.name, source.read_bytes()
    if rng.random() < 0.3:
        name, data = name + ".xz", lzma.compress(data, preset=0)
    env = {"XDG_CACHE_HOME": "{dir}/" + "c" * 300} if state == "folder-name-too-long" else {}
    return Case(
        "cache",
        f"cache-{state}:{name}",
        {name: data},
        ["summary", "{dir}/" + name, "--format", "json"],
        exact_stdout=True,
        env=env,
        setup=functools.partial(_damage_cache, state, name, rng.randrange(1 << 30)),
        check_stdout=_same_totals(str(source)),
        must_succeed=True,
    )


# ---------------------------------------------------------------- one report twice


def _link(how: str, first: str, second: str, folder: Path) -> None:
    target = folder / second
    if how == "symlink":
        target.symlink_to(folder / first)
    else:
        os.link(folder / first, target)


def duplicate_case(rng: random.Random) -> Case:
    how = rng.choice(DUPLICATES)
    raw = RAW.read_bytes()
    argv_tail = ["--format", "json"]
    first = "run.raw-base.csv"
    files = {first: raw}
    second = first
    setup = None
    check = _same_totals(str(RAW), note="counted once")
    must_fail = False
    if how == "copy":
        second, files["copy.csv"] = "copy.csv", raw
    elif how in ("symlink", "hard-link"):
        second = "link.csv"
        setup = functools.partial(_link, how, first, second)
    elif how == "xz-and-plain":
        second, files["run.raw-base.csv.xz"] = "run.raw-base.csv.xz", lzma.compress(raw, preset=0)
    elif how == "raw-and-raw-base":
        second, files["run.raw.csv"] = "run.raw.csv", RAW_SCALED.read_bytes()
    elif how == "ncu-rep-and-its-export":
        second, files["run.ncu-rep"] = "run.ncu-rep", REPORT.read_bytes()
    elif how == "disagreeing-copy":
        lines = raw.decode().splitlines(keepends=True)
        header = lines[0].rstrip("\n").split('","')
        column = next(i for i, h in enumerate(header) if h.startswith("gpu__time_duration.sum"))
        cells = lines[2].rstrip("\n").split('","')
        cells[column] = str(float(cells[column].replace(",", "")) * 2)
        lines[2] = '","'.join(cells) + "\n"
        second, files["edited.csv"] = "edited.csv", "".join(lines).encode()
        check, must_fail = None, True
    elif how == "two-ranks":
        files = {n: (MULTIGPU / n).read_bytes() for n in ("ddp.rank0.raw.csv.xz", "ddp.rank1.raw.csv.xz")}
        first, second = list(files)
        check = _both_ranks(*(str(MULTIGPU / n) for n in files))
    must_succeed = not must_fail
    order = [first, second] if rng.random() < 0.5 else [second, first]
    return Case(
        "duplicates",
        f"duplicates-{how}",
        files,
        ["summary", *("{dir}/" + n for n in order), *argv_tail],
        exact_stdout=True,
        env={"ROOFTUI_NO_CACHE": "1"} if rng.random() < 0.5 else {},
        setup=setup,
        check_stdout=check,
        must_fail=must_fail,
        must_succeed=must_succeed,
    )
