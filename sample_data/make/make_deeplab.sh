#!/usr/bin/env bash
# Profiles one DeepLabv3-ResNet50 training step (deeplab_step.py) on a GPU node:
#   bash sample_data/make/make_deeplab.sh OUTDIR fp32|amp
# with rooftui's metric list and NVTX, one step after warm-up (as make_samples.sh
# does for DeepCAM). Writes deeplab_PRECISION.ncu-rep, its raw CSV in base units and
# ncu's log (replay passes per kernel, wall time). Never changes clocks.
set -u
out=${1:?usage: make_deeplab.sh OUTDIR fp32|amp}
precision=${2:?usage: make_deeplab.sh OUTDIR fp32|amp}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
NCU=${NCU:-ncu}
metrics=${METRICS:-$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)}
s=$(date +%s)
timeout "${TIMEOUT:-560}" "$NCU" --clock-control none --nvtx --profile-from-start off --target-processes all \
  --metrics "$metrics" -f -o "$out/deeplab_$precision" \
  python3 "$here/deeplab_step.py" --precision "$precision" > "$out/deeplab_$precision.ncu.log" 2>&1
echo "wall_s $(( $(date +%s) - s ))" >> "$out/deeplab_$precision.ncu.log"
"$NCU" --import "$out/deeplab_$precision.ncu-rep" --csv --page raw --print-units base \
  > "$out/deeplab_$precision.raw-base.csv"
grep -c "==PROF== Profiling" "$out/deeplab_$precision.ncu.log"
tail -2 "$out/deeplab_$precision.ncu.log"
