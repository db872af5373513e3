"""How fast, and in how much memory, rooftui reads a large PyTorch profiler trace.

    python benchmarks/timeline_stream.py [--source TRACE] [--size-mb 300] [--workdir DIR]

Builds a synthetic trace of about ``--size-mb`` of JSON by replicating the events
of a real trace (default: sample_data/timeline/naive.json.gz), each copy shifted
in time and given fresh correlation ids, then measures, each in a fresh process
so peak memory (ru_maxrss) is its own:

  stream-parse     rooftui's streaming parser alone (json_stream.iter_array_items)
  rooftui-read     the full Kineto reader: parse + columnar tables
  rooftui-analyze  read + every finding
  ijson-parse      ijson.items(f, "traceEvents.item") alone, if ijson is importable
  json-load        json.load of the whole file: the non-streaming baseline

and prints seconds, MB/s of JSON, events/s and peak RSS for each. Uncompressed
JSON is measured (gzip adds its own, roughly constant, decompression cost).
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = REPO / "sample_data" / "timeline" / "naive.json.gz"


def build_synthetic(source: Path, target: Path, size_mb: float) -> int:
    """Write a trace of about size_mb MB by replicating source's events; returns event count."""
    opener = gzip.open if source.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(source, "rt", encoding="utf-8") as f:
        document = json.load(f)
    events = document.pop("traceEvents")
    metadata = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    t0 = min(float(e["ts"]) for e in timed)
    span = max(float(e["ts"]) + float(e.get("dur", 0)) for e in timed) - t0
    max_id = (
        max(
            [int(e.get("args", {}).get("correlation", 0)) for e in timed]
            + [int(e.get("id", 0)) for e in timed if isinstance(e.get("id"), int)]
        )
        + 1
    )
    header = json.dumps(document)[:-1]  # the other keys, without the closing brace
    written, count, copy = 0, 0, 0
    with target.open("w", encoding="utf-8") as out:
        out.write(header + ', "traceEvents": [\n')
        for event in metadata:
            out.write(json.dumps(event) + ",\n")
        while written < size_mb * 1e6:
            shift, id_shift = copy * span * 1.01, copy * max_id
            lines = []
            for event in timed:
                event = dict(event, ts=float(event["ts"]) + shift)
                if "args" in event and "correlation" in event["args"]:
                    event["args"] = dict(event["args"], correlation=event["args"]["correlation"] + id_shift)
                if event.get("ph") in ("s", "f") and isinstance(event.get("id"), int):
                    event["id"] += id_shift
                if isinstance(event.get("name"), str) and event["name"].startswith("ProfilerStep#"):
                    number = int(event["name"].split("#")[1])
                    event["name"] = f"ProfilerStep#{number + copy * 1000}"
                lines.append(json.dumps(event))
            chunk = ",\n".join(lines)
            out.write(("" if copy == 0 else ",\n") + chunk)
            written += len(chunk) + 2
            count += len(lines)
            copy += 1
        out.write("\n]}\n")
    return count + len(metadata)


def measure(method: str, path: Path) -> None:
    """Run one method in this process and print one JSON line of results."""
    started = time.perf_counter()
    if method == "stream-parse":
        from rooftui.timeline.readers.json_stream import iter_array_items

        with path.open(encoding="utf-8") as f:
            events = sum(1 for _ in iter_array_items(f, "traceEvents", {}))
    elif method == "rooftui-read":
        from rooftui.timeline.readers import read_trace

        trace = read_trace(path)
        events = len(trace.gpu) + len(trace.host_calls) + len(trace.host_ranges)
    elif method == "rooftui-analyze":
        from rooftui.timeline import analyze_trace

        analysis = analyze_trace(path)
        events = len(analysis.trace.gpu) + len(analysis.trace.host_calls) + len(analysis.trace.host_ranges)
    elif method == "ijson-parse":
        import ijson

        with path.open("rb") as f:
            events = sum(1 for _ in ijson.items(f, "traceEvents.item", use_float=True))
    elif method == "json-load":
        with path.open(encoding="utf-8") as f:
            events = len(json.load(f)["traceEvents"])
    else:
        raise SystemExit(f"unknown method {method}")
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"method": method, "seconds": seconds, "events": events, "peak_rss_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--size-mb", type=float, default=300)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp"))
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help="measure this trace instead of building one")
    args = parser.parse_args()
    if args.measure:
        measure(args.measure, args.trace)
        return
    trace = args.trace
    if trace is None:
        trace = args.workdir / f"timeline_synthetic_{args.size_mb:g}MB.json"
        started = time.perf_counter()
        count = build_synthetic(args.source, trace, args.size_mb)
        print(
            f"built {trace} ({trace.stat().st_size / 1e6:.0f} MB, {count:,} events) "
            f"in {time.perf_counter() - started:.0f} s from {args.source.name}"
        )
    size_mb = trace.stat().st_size / 1e6
    baseline = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, numpy; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    print(f"interpreter + numpy alone: {float(baseline.stdout):.0f} MB peak RSS")
    print(f"{'method':<16} {'seconds':>8} {'MB/s':>7} {'events/s':>10} {'peak RSS':>9}")
    for method in ("stream-parse", "rooftui-read", "rooftui-analyze", "ijson-parse", "json-load"):
        result = subprocess.run(
            [sys.executable, __file__, "--measure", method, "--trace", str(trace)],
            capture_output=True,
            text=True,
            cwd=REPO,
        )
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["failed"])[-1]
            print(f"{method:<16} skipped: {last}")
            continue
        r = json.loads(result.stdout.strip().splitlines()[-1])
        print(
            f"{method:<16} {r['seconds']:8.1f} {size_mb / r['seconds']:7.1f} "
            f"{r['events'] / r['seconds']:10,.0f} {r['peak_rss_mb']:7.0f} MB"
        )


if __name__ == "__main__":
    main()
