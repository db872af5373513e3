#!/usr/bin/env bash
# Makes rooftui's sample data on a GPU node with Nsight Compute and PyTorch.
#   bash sample_data/make/make_samples.sh OUTDIR [known|deepcam|all]
# Writes the known-answer and DeepCAM-like reports (.ncu-rep), their raw CSV
# exports (ncu's default auto-scaled units and --print-units base) and details CSV,
# ncu's logs (replay passes per kernel) and the metric list the GPU supports.
# The DeepCAM steps (the bundled sample) collect rooftui's list, the instruction
# roofline's (`rooftui profile --instructions`) and the L2 source counters below, each
# kept only where this GPU's `ncu --query-metrics` offers it (ncu fails a whole run on
# an unknown name); deepcam_metrics.txt says which were kept and which were not offered.
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

export_csv() {  # report -> raw (default units), raw (base units), details; four at once
  local rep=$1 stem=${1%.ncu-rep}
  "$NCU" --import "$rep" --csv --page raw > "$stem.raw.csv" &
  "$NCU" --import "$rep" --csv --page raw --print-units base > "$stem.raw-base.csv" &
  "$NCU" --import "$rep" --csv --page details > "$stem.details.csv" &
  "$NCU" --import "$rep" --csv --page details --print-units base > "$stem.details-base.csv" &
  wait
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
# 2. One DeepCAM-like training step, AMP and FP32, after 5 warm-up steps: rooftui's list,
# the instruction roofline's, and L2 counters by source unit (which requests reach L2
# from the SMs' L1/TEX, and which cross the fabric between the H200's two L2 partitions;
# lts__t_bytes may count both), each kept only if this GPU offers it.
offered() { grep -qw -- "${1%%.*}" "$out/query_metrics.csv"; }
offered gpu__time_duration || { log "ncu --query-metrics lists no metrics (see query_metrics.csv)"; exit 1; }
instructions=$(PYTHONPATH="$repo" python3 -m rooftui.model.instructions)
l2_candidates="lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcnode_gpc.sum"
l2_candidates="$l2_candidates,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum"
deepcam=$required
: > "$out/deepcam_metrics.txt"
for metric in ${instructions//,/ } ${l2_candidates//,/ }; do
  case ",$deepcam," in *",$metric,"*) continue ;; esac
  if offered "$metric"; then deepcam="$deepcam,$metric"; else echo "not offered: $metric" >> "$out/deepcam_metrics.txt"; fi
done
echo "$deepcam" | tr ',' '\n' >> "$out/deepcam_metrics.txt"
log "deepcam: $(echo "$deepcam" | tr ',' '\n' | wc -l) metrics"
for precision in amp fp32; do
  log "profiling deepcam $precision"
  s=$(date +%s)
  timeout "${DEEPCAM_TIMEOUT:-240}" "$NCU" --clock-control none --nvtx --profile-from-start off --target-processes all \
    --metrics "$deepcam" -f -o "$out/deepcam_$precision" \
    python3 "$here/deepcam_step.py" --precision "$precision" > "$out/deepcam_$precision.ncu.log" 2>&1
  echo "wall_s $(( $(date +%s) - s ))" >> "$out/deepcam_$precision.ncu.log"
  if grep -q "==ERROR==" "$out/deepcam_$precision.ncu.log" || [ ! -s "$out/deepcam_$precision.ncu-rep" ]; then
    log "deepcam $precision failed:"; grep "==ERROR==" "$out/deepcam_$precision.ncu.log" | head -5; exit 1
  fi
  echo "deepcam $precision: $(grep -o -- '- [0-9]* passes' "$out/deepcam_$precision.ncu.log" | sort | uniq -c | tr '\n' ' ') $(tail -1 "$out/deepcam_$precision.ncu.log")" \
    | tee -a "$out/passes.txt"
  # Exports in the background (they read a 150 MB report each) while the next step profiles.
  export_csv "$out/deepcam_$precision.ncu-rep" &
done
wait
ls -la "$out"
log "done"
