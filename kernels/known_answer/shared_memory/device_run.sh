#!/usr/bin/env bash
# The shared-memory known answers on an H200, in one call (the device budget is short):
#   bash kernels/known_answer/shared_memory/device_run.sh OUTDIR [PREBUILT_BINARY]
# 1. which counters this ncu offers for shared memory and TMA (query_metrics_smem.txt,
#    candidates.txt); 2. the known-answer kernels (shared_memory.cu) profiled with
#    rooftui's list + every candidate; 3. a cuBLAS BF16 GEMM and two attention kernels
#    (gemm_attention.py) likewise; 4. the replay passes each metric list costs (passes.txt).
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: device_run.sh OUTDIR [BINARY]}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=/tmp/w27smem && mkdir -p "$work" "$out"
log() { echo "[device_run $(date +%T)] $*"; }
pack() { tar -C "$work" -cJf "$out/results.tar.xz" . 2>/dev/null; }

ncu --version > "$work/ncu_version.txt"
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,driver_version --format=csv > "$work/gpu.txt"
cat "$work/ncu_version.txt" "$work/gpu.txt"

log "1. metric discovery"
ncu --query-metrics > "$work/query_metrics_all.txt" 2>&1
grep -iE "shared|tma|dsmem|gmma|ldsm|ldgsts|bulk" "$work/query_metrics_all.txt" > "$work/query_metrics_smem.txt"
python3 "$here/pick_metrics.py" "$work/query_metrics_all.txt" > "$work/candidates.txt"
required=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)
echo "$required" > "$work/required.txt"
log "$(tr ',' '\n' < "$work/candidates.txt" | wc -l) candidates, $(echo "$required" | tr ',' '\n' | wc -l) required"
xz -k "$work/query_metrics_all.txt"; rm -f "$work/query_metrics_all.txt"
pack

log "2. known-answer kernels"
bin=${2:-}
if [ -z "$bin" ] || ! "$bin" "$work/params.json"; then
  bin=$work/shared_memory
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o "$bin" "$here/shared_memory.cu" || exit 1
  "$bin" "$work/params.json" || exit 1
fi
cuobjdump --dump-sass "$bin" | xz > "$work/shared_memory.sass.xz"
metrics="$required,$(cat "$work/candidates.txt")"
profile() {  # name, metric list, command...
  local name=$1 list=$2; shift 2
  ncu --clock-control none --metrics "$list" -f -o "$work/$name" "$@" > "$work/$name.ncu.log" 2>&1
  if grep -q "==ERROR==" "$work/$name.ncu.log" || [ ! -s "$work/$name.ncu-rep" ]; then
    log "$name: ncu refused the full list; bytes-only candidates instead"
    mv "$work/$name.ncu.log" "$work/$name.full-failed.ncu.log"
    list="$required,$(tr ',' '\n' < "$work/candidates.txt" | grep bytes | paste -sd,)"
    ncu --clock-control none --metrics "$list" -f -o "$work/$name" "$@" > "$work/$name.ncu.log" 2>&1
  fi
  ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base > "$work/$name.raw-base.csv"
  xz -f "$work/$name.ncu-rep"
  grep -E "passes|ERROR|WARN" "$work/$name.ncu.log" | head -20
}
profile shared_memory "$metrics" "$bin" "$work/params_profiled.json"
pack

log "3. GEMM and attention"
profile gemm_attention "$metrics" --profile-from-start off python3 "$here/gemm_attention.py" "$work/shapes.json"
pack

log "4. replay passes per metric list (smem_words, one launch)"
smem=$(tr ',' '\n' < "$work/candidates.txt" | grep -E "^smsp__sass_data_bytes_mem_shared\.sum$" | paste -sd,)
tma=$(tr ',' '\n' < "$work/candidates.txt" | grep -E "tma" | grep bytes | paste -sd,)
for set in "required:$required" "required+smem:$required,$smem" "required+smem+tma:$required,$smem,$tma" \
           "required+candidates:$metrics"; do
  name=${set%%:*}; list=$(echo "${set#*:}" | sed 's/,,*/,/g; s/,$//')
  n=$(ncu --clock-control none --metrics "$list" -k smem_words -c 1 "$bin" "$work/tmp.json" 2>&1 | grep -oE "[0-9]+ pass(es)?" | head -1)
  echo "$name	$(echo "$list" | tr ',' '\n' | wc -l) metrics	$n" | tee -a "$work/passes.txt"
done
pack

log "5. one GPT-style BF16 step (sample_data/make/transformer_step.py --blocks 1), byte candidates"
bytes_list="$required,$(tr ',' '\n' < "$work/candidates.txt" | grep bytes | paste -sd,)"
timeout "${STEP_TIMEOUT:-80}" ncu --clock-control none --nvtx --profile-from-start off --metrics "$bytes_list" \
  -f -o "$work/gpt_step" python3 "$repo/sample_data/make/transformer_step.py" --blocks 1 > "$work/gpt_step.ncu.log" 2>&1
echo "gpt_step exit $?" >> "$work/gpt_step.ncu.log"
[ -s "$work/gpt_step.ncu-rep" ] && ncu --import "$work/gpt_step.ncu-rep" --csv --page raw --print-units base \
  | xz > "$work/gpt_step.raw-base.csv.xz" && xz -f "$work/gpt_step.ncu-rep"
pack
ls -la "$work"
log done
