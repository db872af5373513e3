#!/usr/bin/env bash
# The launch floor on the GPU machine (issue 21): a full `rooftui measure` (ceilings and
# the new launch_floor object), run from this checkout with the machine's python3 (click,
# rich, numpy and cuda.core are installed there; click_default_group comes from a carried
# copy in DIR, the second argument). Then ncu's own page for five empty launches, so the
# parsed value can be read against ncu's output.
#   bash benchmarks/launch_floor_gpu_machine.sh OUTDIR DIR
set -u
out=${1:-/tmp/floor}
export PYTHONPATH="$PWD:${2:-.}" PYTHONUNBUFFERED=1 XDG_DATA_HOME=/tmp/xdg XDG_CACHE_HOME=/tmp/cache
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
ncu --version | tail -1
python3 -c 'import sys; from rooftui.cli.measure import measure; measure(sys.argv[1:])' \
    --out "$out/h200.json" --log "$out/measure.log"
echo "measure rc=$?"
ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second \
    --kernel-name empty_kernel -c 5 python3 -m rooftui.measure.launch_floor 0 >"$out/ncu_empty.txt" 2>&1
echo "ncu rc=$?"
grep -E "empty_kernel|gpu__time|sm__cycles" "$out/ncu_empty.txt" | head -20
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["launch_floor"], indent=1))' "$out/h200.json"
