#!/usr/bin/env bash
# Issue #22 at a transformer's depth: the GPT-style step (sample_data/make/transformer_step.py)
# with BLOCKS blocks (default 32; GPT-2 large has 36), plain, under `rooftui profile --dedup`
# and under `--exhaustive`, one run each, on one GPU node. Prints "WALL <ms> rc=<exit>: <cmd>"
# per step and compares the two profiles' summaries (FLOPs per phase, bytes per level).
#   OUT=dir BLOCKS=32 bash benchmarks/profile_dedup_depth_gpu.sh   (repository root)
# rooftui's Python dependencies: installed, or on PYTHONPATH. Never changes clocks: rooftui
# profile passes --clock-control none to every ncu call.
set -u
BLOCKS=${BLOCKS:-32}
EXTRAS=$(ls -d /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | tail -1)
export PYTHONPATH=$PWD:${PYTHONPATH:-}:$EXTRAS PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=220
W=$(mktemp -d); mkdir -p "$OUT"
exec > >(tee "$OUT/console.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
STEP=(python3 sample_data/make/transformer_step.py --blocks "$BLOCKS")
PROFILE=(python3 -m rooftui profile --profile-from-start off)
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
echo "=== plain, $BLOCKS blocks"; t "${STEP[@]}"
echo "=== --dedup, $BLOCKS blocks"
t "${PROFILE[@]}" --dedup -o "$W/d" -- "${STEP[@]}" > "$W/d.summary.txt"
echo "=== --exhaustive, $BLOCKS blocks"
t "${PROFILE[@]}" --exhaustive -o "$W/x" -- "${STEP[@]}" > "$W/x.summary.txt"
for r in d x; do
  f=$(ls "$W"/$r*.raw.csv 2>/dev/null | head -1)
  [ -n "$f" ] && python3 -m rooftui summary --format json "$f" > "$OUT/$r.summary.json" 2> "$OUT/$r.summary.err"
  grep -c '==PROF== Profiling' "$W"/$r*.ncu.log 2>/dev/null | sed "s/^/$r launches profiled: /"
  tail -25 "$W/$r.summary.txt"
done
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
def load(r):
    p = out / f"{r}.summary.json"
    return json.loads(p.read_text()) if p.exists() and p.stat().st_size else None
d, x = load("d"), load("x")
def sums(doc):
    """Per phase: time, each FLOP and byte field summed over launches (None where any is blank)."""
    acc = {}
    for k in doc["kernels"]:
        ph = acc.setdefault(k.get("phase") or "none", {"launches": 0, "time_s": 0.0})
        ph["launches"] += 1
        ph["time_s"] += k["time_s"] or 0.0
        for group in ("flops", "bytes"):
            for name, v in (k.get(group) or {}).items():
                if isinstance(v, (int, float)):
                    key = f"{group}.{name}"
                    ph[key] = ph.get(key, 0.0) + v
    return acc
if d and x:
    sd, sx = sums(d), sums(x)
    for phase in sorted(set(sd) | set(sx)):
        for key in sorted(set(sd.get(phase, {})) | set(sx.get(phase, {}))):
            a, b = sd.get(phase, {}).get(key), sx.get(phase, {}).get(key)
            ratio = f"{a / b:.4f}" if a is not None and b else "-"
            print(f"{phase:10} {key:24} dedup {a!s:>24} exhaustive {b!s:>24} ratio {ratio}")
PY
cd "$W" && tar cJf "$OUT/depth.tar.xz" *.summary.txt *.signatures.json *.log 2>/dev/null
ls -la "$OUT"
