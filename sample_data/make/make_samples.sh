#!/usr/bin/env bash
# Makes rooftui's sample data on a GPU node with Nsight Compute and PyTorch.
#   bash sample_data/make/make_samples.sh OUTDIR [known|deepcam|all]
# Writes the known-answer and DeepCAM-like reports (.ncu-rep), their raw CSV
# exports (ncu's default auto-scaled units and --print-units base) and details CSV,
# ncu's logs (replay passes per kernel) and the metric list the GPU supports.
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: make_samples.sh OUTDIR [known|deepcam|all]}
stage=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
log() { echo "[make_samples $(date +%T)] $*"; }

NCU=${NCU:-ncu}
"$NCU" --version | tee "$out/ncu_version.txt"
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv | tee "$out/gpu.txt"

# The metrics this GPU offers, and rooftui's list restricted to them.
"$NCU" --query-metrics --csv > "$out/query_metrics.csv" 2>&1 || "$NCU" --query-metrics > "$out/query_metrics.csv" 2>&1
metrics=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --sample-superset --available "$out/query_metrics.csv")
required=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)
echo "$metrics" | tr ',' '\n' > "$out/metrics_used.txt"
log "collecting $(echo "$metrics" | tr ',' '\n' | wc -l) metrics"

export_csv() {  # report -> raw (default units), raw (base units), details
  local rep=$1 stem=${1%.ncu-rep}
  "$NCU" --import "$rep" --csv --page raw > "$stem.raw.csv"
  "$NCU" --import "$rep" --csv --page raw --print-units base > "$stem.raw-base.csv"
  "$NCU" --import "$rep" --csv --page details > "$stem.details.csv"
  "$NCU" --import "$rep" --csv --page details --print-units base > "$stem.details-base.csv"
}

# rooftui's own list (what `rooftui profile` collects), unless SUPERSET=1 asks for
# every Tensor Core counter too (used once to pin which counter counts what).
[ "${SUPERSET:-0}" = 1 ] || metrics=$required
echo "$metrics" | tr ',' '\n' > "$out/metrics_used.txt"

if [ "$stage" != deepcam ]; then
# 1. Known-answer kernels.
log "building known-answer kernels"
nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/known_answer" "$repo/kernels/known_answer/known_answer.cu" || exit 1
cuobjdump --dump-sass "$out/known_answer" > "$out/known_answer.sass" 2>&1
"$out/known_answer" "$out/known_answer.expected.json" || exit 1
log "profiling known-answer kernels"
"$NCU" --clock-control none --nvtx --metrics "$metrics" -f -o "$out/known_answer" \
  "$out/known_answer" "$out/ka_tmp.json" > "$out/known_answer.ncu.log" 2>&1
if [ ! -s "$out/known_answer.ncu-rep" ] || grep -q "==ERROR==" "$out/known_answer.ncu.log"; then
  log "the superset failed (see known_answer.ncu.log); falling back to rooftui's required list"
  cp "$out/known_answer.ncu.log" "$out/known_answer.superset-failed.log"
  metrics=$required
  echo "$metrics" | tr ',' '\n' > "$out/metrics_used.txt"
  "$NCU" --clock-control none --nvtx --metrics "$metrics" -f -o "$out/known_answer" \
    "$out/known_answer" "$out/ka_tmp.json" > "$out/known_answer.ncu.log" 2>&1
fi
export_csv "$out/known_answer.ncu-rep"
# The same kernels with only ncu's default set, and only its roofline set:
# reports without rooftui's counters, for the derive-or-explain path.
"$NCU" --clock-control none -f -o "$out/known_answer_basic" "$out/known_answer" "$out/ka_tmp.json" \
  > "$out/known_answer_basic.ncu.log" 2>&1
"$NCU" --clock-control none --set roofline -f -o "$out/known_answer_roofline" "$out/known_answer" "$out/ka_tmp.json" \
  > "$out/known_answer_roofline.ncu.log" 2>&1
export_csv "$out/known_answer_basic.ncu-rep"
export_csv "$out/known_answer_roofline.ncu-rep"
rm -f "$out/ka_tmp.json" "$out/known_answer"
fi

[ "$stage" = known ] && { ls -la "$out"; log "done"; exit 0; }
# 2. One DeepCAM-like training step, FP32 and AMP, after 5 warm-up steps.
for precision in fp32 amp; do
  log "profiling deepcam $precision"
  s=$(date +%s)
  timeout 240 "$NCU" --clock-control none --nvtx --profile-from-start off --target-processes all \
    --metrics "$metrics" -f -o "$out/deepcam_$precision" \
    python3 "$here/deepcam_step.py" --precision "$precision" > "$out/deepcam_$precision.ncu.log" 2>&1
  echo "wall_s $(( $(date +%s) - s ))" >> "$out/deepcam_$precision.ncu.log"
  export_csv "$out/deepcam_$precision.ncu-rep"
done
ls -la "$out"
log "done"
