"""The long fuzz run: thousands of damaged and hostile inputs through rooftui, every rule checked.

    python benchmarks/fuzz_run.py --cases 10000 --seed 1 --jobs 2            # real CLI, subprocesses
    python benchmarks/fuzz_run.py --cases 10000 --seed 1 --in-process         # faster, no memory figure
    python benchmarks/fuzz_run.py --bombs                                     # full-size bombs, default cap

Cases come from tests/fuzz/generators.py (seeded: the same seed, the same cases).
Each is checked for: exit code 0 or 2 (1 = the last-resort handler = a bug), no
traceback, errors on one line, no raw control characters on stdout (table outputs)
or stderr, inputs unchanged, no temporary or partial output left, a time limit
(hang), and -- in subprocess mode -- the peak RSS of the run. Prints one line per
failure class with an example and a summary; ``--json FILE`` writes the numbers.
"""

from __future__ import annotations

import argparse
import collections
import json
import lzma
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fuzz.generators import KNOWN, Case, cases  # noqa: E402
from tests.fuzz.runner import run_in_process, run_subprocess  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="subprocesses at once")
    parser.add_argument("--kinds", default="", help="comma-separated subset of input kinds")
    parser.add_argument("--in-process", action="store_true", help="no subprocess, no memory figure")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a run is a hang")
    parser.add_argument("--bombs", action="store_true", help="full-size bombs with the default cap")
    parser.add_argument(
        "--tally",
        type=Path,
        nargs="+",
        metavar="JSONL",
        help="count what --jsonl files of earlier (chunked) runs hold, by category",
    )
    parser.add_argument(
        "--boundary-cuts",
        action="store_true",
        help="every cut at a row/record boundary of each format: how many are caught",
    )
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--jsonl", type=Path, help="append one line per finished case here")
    parser.add_argument(
        "--budget", type=float, default=0, help="seconds: start no new case after this (0: no limit)"
    )
    args = parser.parse_args()
    if args.tally:
        return _tally(args.tally)
    if args.boundary_cuts:
        return _boundary_cuts(args.json)
    kinds = tuple(args.kinds.split(",")) if args.kinds else None
    batch = _bombs() if args.bombs else cases(args.seed, args.cases, kinds)  # made as needed
    deadline = time.perf_counter() + args.budget if args.budget else float("inf")

    def one(case: Case):
        if time.perf_counter() > deadline:
            return None
        with tempfile.TemporaryDirectory(prefix="rooftui-fuzz-") as folder:
            if args.in_process:
                outcome = run_in_process(case, Path(folder))
            else:
                outcome = run_subprocess(case, Path(folder), args.timeout)
            if args.jsonl:  # kept case by case: a run stopped midway keeps what it did
                with args.jsonl.open("a") as log:
                    log.write(
                        json.dumps(
                            {
                                "seed": args.seed,
                                "kind": case.kind,
                                "label": case.label,
                                "argv": case.argv,
                                "exit": outcome.returncode,
                                "must_fail": case.must_fail,
                                "problems": outcome.problems,
                                "rss_mb": round(outcome.peak_rss_bytes / 2**20, 1),
                                "seconds": round(outcome.seconds, 2),
                            }
                        )
                        + "\n"
                    )
            if args.bombs:  # slow: say each as it ends
                print(
                    f"{case.label}: exit {outcome.returncode}, {outcome.peak_rss_bytes / 2**20:.0f} MiB "
                    f"peak, {outcome.seconds:.1f} s, {outcome.stderr.strip()[:150]!r}",
                    flush=True,
                )
            return outcome

    started = time.perf_counter()
    if args.in_process or args.jobs == 1:
        outcomes = []
        for case in batch:  # lazily: each case is made just before its run
            if time.perf_counter() > deadline:
                break
            outcomes.append(one(case))
    else:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes = list(pool.map(one, batch))
    wall = time.perf_counter() - started
    outcomes = [o for o in outcomes if o is not None]

    classes: collections.Counter = collections.Counter()
    example: dict = {}
    for index, outcome in enumerate(outcomes):
        for problem in outcome.problems:
            key = (outcome.case.kind, outcome.case.label.split(":")[0], problem.split(":")[0])
            classes[key] += 1
            example.setdefault(key, (index, outcome.case.argv, outcome.stderr.strip()[-200:]))
    by_kind = collections.Counter(o.case.kind for o in outcomes)
    codes = collections.Counter(o.returncode for o in outcomes)
    peak = max((o.peak_rss_bytes for o in outcomes), default=0)
    summary = {
        "cases": len(outcomes),
        "seed": args.seed,
        "mode": "in-process" if args.in_process else "subprocess",
        "wall_s": round(wall, 1),
        "by_kind": dict(by_kind),
        "exit_codes": {str(k): v for k, v in codes.items()},
        "failing_cases": sum(1 for o in outcomes if o.problems),
        "tracebacks": sum("traceback" in o.problems for o in outcomes),
        "last_resort": sum(o.returncode == 1 for o in outcomes),
        "hangs": sum(any(p.startswith("hang") for p in o.problems) for o in outcomes),
        "must_fail_cases": sum(o.case.must_fail for o in outcomes),
        "silent_damage": sum(any(p.startswith("silent damage") for p in o.problems) for o in outcomes),
        "raw_escapes": sum(any("raw control" in p for p in o.problems) for o in outcomes),
        "inputs_changed": sum(any(p.startswith("input changed") for p in o.problems) for o in outcomes),
        "left_behind": sum(
            any(p.startswith(("files left", "partial")) for p in o.problems) for o in outcomes
        ),
        "peak_rss_mb": round(peak / 2**20, 1),
        "slowest_s": round(max((o.seconds for o in outcomes), default=0), 2),
    }
    if args.bombs:
        summary["bombs"] = [
            {
                "label": o.case.label,
                "exit": o.returncode,
                "rss_mb": round(o.peak_rss_bytes / 2**20),
                "seconds": round(o.seconds, 1),
                "stderr": o.stderr.strip()[:160],
            }
            for o in outcomes
        ]
    for key, count in classes.most_common():
        print(count, *key, example[key])
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
    return 1 if classes else 0


def _tally(files: list[Path]) -> int:
    """Cases, exit codes and problems of chunked runs' --jsonl files: per input kind, per
    command, per mutation (compression suffixes folded in), and the problems found."""
    rows = [
        {"file": f.name, **json.loads(line)}
        for f in files
        for line in f.read_text().splitlines()
        if line.strip()
    ]
    per: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    problems: collections.Counter = collections.Counter()
    for row in rows:
        mutation = row["label"].split(":")[0]
        for suffix in (".gz", ".xz", ".bz2"):
            mutation = mutation.split(suffix)[0]
        command = " ".join(a for a in row["argv"][:3] if not a.startswith("{dir}"))
        for axis, key in (
            ("kind", row["kind"]),
            ("command", command),
            ("mutation", mutation),
            ("compression", _compression(row["label"])),
            ("exit", str(row["exit"])),
        ):
            per[axis][key] += 1
        per["must_fail"][str(bool(row.get("must_fail")))] += 1
        for problem in row["problems"]:
            problems[(row["kind"], mutation, problem.split(":")[0])] += 1
    seeds = sorted({row["seed"] for row in rows})
    # fuzz_long_run.sh names its subprocess chunks sub-sSEED.jsonl (peak RSS only there)
    through = [row for row in rows if row["file"].startswith("sub-")]
    slowest = max(rows, key=lambda row: row["seconds"], default=None)

    def having(*starts: str) -> int:
        return sum(any(p.startswith(starts) for p in row["problems"]) for row in rows)

    summary = {
        "cases": len(rows),
        "through_subprocesses": len(through),
        "seeds": f"{len(seeds)} seeds, {seeds[0]}-{seeds[-1]}" if seeds else "",
        **{axis: dict(counter.most_common()) for axis, counter in per.items()},
        "failing_cases": sum(1 for row in rows if row["problems"]),
        "last_resort": sum(row["exit"] == 1 for row in rows),
        "tracebacks": having("traceback"),
        "hangs": having("hang"),
        "raw_escapes": having("raw control"),
        "inputs_changed": having("input changed"),
        "left_behind": having("files left", "partial"),
        "silent_damage": having("silent damage"),
        "wrong_refusals": having("wrong refusal"),
        "subprocess_peak_rss_mb": max((row["rss_mb"] for row in through), default=0),
        "slowest": {key: slowest[key] for key in ("file", "label", "argv", "seconds")} if slowest else {},
        "problems": {" / ".join(k): v for k, v in problems.most_common()},
    }
    print(json.dumps(summary, indent=1))
    return 1 if problems else 0


def _compression(label: str) -> str:
    """ "plain", ".gz", ".gz-truncated", ... from a case label ("crlf.gz-truncated")."""
    for suffix in (".gz", ".xz", ".bz2"):
        if suffix in label:
            return suffix + label.split(suffix, 1)[1].split(":")[0]
    return "plain"


def _boundary_cuts(json_path: Path | None) -> int:
    """Cut each known-answer export exactly at every row (CSV) or record (.ncu-rep) boundary,
    plain and compressed, and count the cuts rooftui refuses and those it loads. A cut
    it loads is silent damage unless the format holds no evidence of it (said per format)."""
    import struct

    from tests.fuzz.generators import COMPRESSORS, _line_starts

    def record_starts(data: bytes) -> list[int]:
        starts, offset = [], 4
        while offset < len(data):
            starts.append(offset)
            offset += 4 + struct.unpack_from("<I", data, offset)[0]
        return starts

    log = (KNOWN / "known_answer.ncu.log").read_bytes()
    raw = (KNOWN / "known_answer.raw-base.csv").read_bytes()
    details = (KNOWN / "known_answer.details-base.csv").read_bytes()
    report = (KNOWN / "known_answer.ncu-rep").read_bytes()
    formats = {  # name: (file name, whole file, where a row/record starts)
        "raw CSV (ncu --import)": ("r.raw.csv", raw, _line_starts(raw)[1:]),
        "raw CSV (ncu run live, log above)": (
            "r.raw.csv",
            log + raw,
            [len(log) + c for c in _line_starts(raw)[1:]],
        ),
        "details CSV (ncu --import)": ("r.details.csv", details, _line_starts(details)[1:]),
        "details CSV (ncu run live, log above)": (
            "r.details.csv",
            log + details,
            [len(log) + c for c in _line_starts(details)[1:]],
        ),
        ".ncu-rep": ("r.ncu-rep", report, record_starts(report)[1:]),
    }
    results = {}
    for label, (name, whole, cuts) in formats.items():
        for suffix in ("", *COMPRESSORS):
            caught = loaded = 0
            for cut in cuts:
                data = whole[:cut]
                if suffix:  # a compressed copy cut at the same place of its content
                    packed = COMPRESSORS[suffix](whole)
                    data = packed[: max(1, len(packed) * cut // len(whole))]
                case = Case(
                    "cut",
                    f"{label}{suffix}",
                    {name + suffix: data},
                    ["summary", "{dir}/" + name + suffix, "--format", "json"],
                    exact_stdout=True,
                )
                with tempfile.TemporaryDirectory(prefix="rooftui-fuzz-") as folder:
                    outcome = run_in_process(case, Path(folder))
                caught += outcome.returncode == 2
                loaded += outcome.returncode == 0
            results[f"{label}{suffix}"] = {"cuts": len(cuts), "caught": caught, "loaded": loaded}
            print(
                f"{label + suffix:<44} {len(cuts):>4} cuts: {caught:>4} caught, {loaded:>4} loaded",
                flush=True,
            )
    if json_path:
        json_path.write_text(json.dumps(results, indent=1) + "\n")
    return 0


def _bombs():
    """Full-size bombs with rooftui's default cap: memory must stay bounded (the issue's cases)."""
    import gzip

    base = (KNOWN / "known_answer.raw-base.csv").read_bytes()
    default_cap = {"ROOFTUI_MAX_INPUT_BYTES": ""}  # the default cap, not the fuzz one

    def packed(prefix: bytes, filler: bytes, total: int, suffix: str) -> bytes:
        packer = lzma.LZMACompressor(preset=1) if suffix == ".xz" else zlib_gzip()
        out = [packer.compress(prefix)]
        block = filler * ((1 << 24) // len(filler))
        for _ in range(total // len(block)):
            out.append(packer.compress(block))
        return b"".join(out) + packer.flush()

    def zlib_gzip():
        import zlib

        return zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip framing

    kernel = (
        b'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000, "dur": 5,'
        b' "args": {"device": 0, "stream": 7, "correlation": 1}},'
    )
    cases_ = [
        (
            "csv.gz: 4.5 GiB of blank lines (over the 4 GiB cap)",
            "bomb.csv.gz",
            base,
            b"\n",
            9 << 29,
            ["summary", "{dir}/bomb.csv.gz"],
        ),
        ("csv.gz: one 2 GiB line", "line.csv.gz", base, b"x", 2 << 30, ["summary", "{dir}/line.csv.gz"]),
        (
            "ceilings json.gz: 3 GiB of spaces",
            "c.json.gz",
            b"",
            b" ",
            3 << 30,
            ["summary", str(KNOWN / "known_answer.raw-base.csv"), "--ceilings", "{dir}/c.json.gz"],
        ),
        (
            "ncu-rep.gz: 3 GiB of empty records",
            "r.ncu-rep.gz",
            b"NVR\0",
            b"\0",
            3 << 30,
            ["summary", "{dir}/r.ncu-rep.gz"],
        ),
        (
            "trace json.gz: 1 GiB of kernel events",
            "t.json.gz",
            b'{"traceEvents": [',
            kernel,
            1 << 30,
            ["timeline", "{dir}/t.json.gz"],
        ),
    ]
    for label, name, prefix, filler, total, argv in cases_:
        data = packed(prefix, filler, total, Path(name).suffix)
        if name.endswith(".json.gz"):  # close the array so the trace is valid JSON
            data += gzip.compress(b'{"ph": "M"}]}')
        yield Case("bomb", label, {name: data}, argv, env=default_cap)
    # CSV exports of ~1 GiB under the 4 GiB cap (issue #25: one peaked at 2 GB before its
    # refusal), and the largest whole exports the table bound lets through (the worst case
    # that loads: ~9.8 million cells of the 10 million, raw and details).
    from tests.fuzz.bombs import CSV_BOMB_KINDS, csv_bomb

    sizes = [(kind, 1 << 30, CSV_BOMB_KINDS[kind]) for kind in CSV_BOMB_KINDS]
    sizes += [("raw-launches", 415 * 10**6, "raw CSV just under the table bound (199,000 launches)")]
    sizes += [("details-launches", 200 * 10**6, "details CSV just under the table bound (24,500 launches)")]
    for kind, total, what in sizes:
        label = f"csv.gz: {total / 2**20:,.0f} MiB, {what}"
        yield Case(
            "bomb",
            label,
            {"bomb.csv.gz": csv_bomb(kind, total)},
            ["summary", "{dir}/bomb.csv.gz"],
            env=default_cap,
        )
    # The costliest trace the limits let through: 900,000 distinct 60-character kernel
    # names (each kept once, just under the name limits), then events up to past the
    # event limit.
    packer = zlib_gzip()
    out = [packer.compress(b'{"traceEvents": [')]
    for block in range(60):
        out.append(
            packer.compress(
                b"".join(
                    kernel.replace(b'"name": "k"', b'"name": "k%059d"' % ((block * 100_000 + i) % 900_000))
                    for i in range(100_000)
                )
            )
        )
    out.append(packer.flush())
    yield Case(
        "bomb",
        "trace json.gz: 6M kernel events, 900k distinct 60-char names",
        {"n.json.gz": b"".join(out) + gzip.compress(b'{"ph": "M"}]}')},
        ["timeline", "{dir}/n.json.gz"],
        env=default_cap,
    )


if __name__ == "__main__":
    sys.exit(main())
