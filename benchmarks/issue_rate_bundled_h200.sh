#!/bin/bash
# The bundled H200 ceilings' instruction roofs, and the known answer of advise's issue term
# (docs/advise.md). What benchmarks/results/2026-12-02-issue-rate-bundled-h200.md reports
# was made by this script (the results page names the commit: a copy of the checkout
# runs there, so git inside it names whatever checkout encloses it).
#
#   bash benchmarks/issue_rate_bundled_h200.sh OUTDIR
#
# From the repository root, on the GPU machine (cuda-python, ncu and cuobjdump there; the
# clocks are left alone: ncu --clock-control none, no setting changed):
#   1. rooftui measure --add-issue-rate: only the warp-issue rate, added to the bundled
#      rooftui/data/ceilings/nvidia-h200_cc9.0.json (its bandwidth and FLOP roofs kept; the
#      transaction rates derived from its own bandwidths) -> OUTDIR/nvidia-h200_cc9.0.json;
#   2. rooftui profile --exhaustive --instructions of benchmarks/issue_rate_launches.py:
#      issue_mix at 40 and 2,000 trips and the FP32 FMA kernel at 2,000 trips, each launch's
#      warp instructions counted from its SASS into OUTDIR/issue_launches.expected.json.
set -u
OUT=${1:?usage: issue_rate_bundled_h200.sh OUTDIR}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/rooftui-cache XDG_DATA_HOME=/tmp/rooftui-data
. "$(dirname "$0")/gpu_environment.sh"
gpu_environment "$OUT"
timeout 180 python3 -m rooftui.measure --add-issue-rate rooftui/data/ceilings/nvidia-h200_cc9.0.json \
  --out "$OUT/nvidia-h200_cc9.0.json" 2>&1 | tee "$OUT/measure.log"
timeout 240 python3 -m rooftui profile --exhaustive --instructions --force -o "$OUT/issue_launches" \
  -- python3 benchmarks/issue_rate_launches.py "$OUT/issue_launches.expected.json" 2>&1 |
  tee "$OUT/profile.log"
ls -la "$OUT"
