#!/bin/bash
# The warp-instruction issue rate on a GPU machine (issue #23): what the committed
# benchmarks/results/*-issue-rate-h200.md reports was made by this script.
#
#   bash benchmarks/issue_rate_h200.sh OUTDIR
#
# From the repository root, on the GPU machine (cuda-python, ncu and cuobjdump there;
# the clocks are left alone: ncu --clock-control none, no setting changed):
#   1. tests.measure.ncu_counts: ncu's counters against rooftui's counts for the measure
#      kernels, issue_mix's smsp__inst_executed.sum against the count from its SASS
#      (the listing is kept as OUTDIR/issue_mix.sass);
#   2. rooftui measure (the default plan): every ceiling, the issue rate and the
#      instruction ceilings, into OUTDIR/h200_ceilings.json and OUTDIR/measure.log.
set -u
OUT=${1:?usage: issue_rate_h200.sh OUTDIR}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/rooftui-cache
. "$(dirname "$0")/gpu_environment.sh"
gpu_environment "$OUT"
ROOFTUI_SASS_OUT="$OUT/issue_mix.sass" timeout 240 python3 -m tests.measure.ncu_counts 2>&1 | tee "$OUT/ncu_counts.txt"
timeout 240 python3 -m rooftui.measure --out "$OUT/h200_ceilings.json" --log "$OUT/measure.log" 2>&1 |
  tee "$OUT/measure.stdout"
