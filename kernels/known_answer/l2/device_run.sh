#!/usr/bin/env bash
# Which counter gives the bytes between L1 and L2 on an H200 (two L2 partitions), in one
# call (the device budget is short):
#   bash kernels/known_answer/l2/device_run.sh OUTDIR [PREBUILT_DIR]
# 1. which L2 counters this ncu offers on gh100 (and, from its tables, on ga100, gv100 and
#    others), with ncu's own descriptions; ncu's hierarchical-roofline section files;
# 2. the expected sectors (expected.py), before any profile;
# 3. l2.cu (inside and beyond the L2), instructions.cu, known_answer.cu's streaming
#    kernels and shared_memory.cu's tma_bulk, profiled with rooftui's list + every
#    candidate (pick_metrics.py); 4. l2.cu under ncu's own roofline set;
# 5. the replay passes each candidate list costs (passes.txt); 6. compare.txt.
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: device_run.sh OUTDIR [PREBUILT_DIR]}
prebuilt=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=/tmp/w28l2 && mkdir -p "$work" "$out"
log() { echo "[device_run $(date +%T)] $*"; }
pack() { tar -C "$work" -cJf "$out/l2_results.tar.xz" --exclude='*.ncu-rep' . 2>/dev/null; }

{ ncu --version; nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,driver_version --format=csv; } \
  > "$work/environment.txt" 2>&1
cat "$work/environment.txt"

log "1. L2 counters offered, ncu's roofline sections"
ncu --query-metrics > "$work/query_all.txt" 2>&1
l2_names='^(lts__t_(sectors|requests|bytes)[a-z0-9_]*|l1tex__m_(xbar2l1tex_read|l1tex2xbar_write)_(sectors|bytes)|lts__lts2xbar[a-z0-9_]*|lts__ltcfabric[a-z0-9_]*)[[:space:]]'
grep -A2 -E "$l2_names" "$work/query_all.txt" > "$work/query_l2_gh100.txt"
for chip in gv100 tu102 ga100 ga102 ad102 gh100 gb100 gb202; do
  echo "== $chip: $(ncu --query-metrics --chip "$chip" 2>&1 | grep -oE '^lts__t_(sectors|bytes)(_src(unit|node)_[a-z0-9]+)?[[:space:]]' | sort -u | tr -d ' \t' | paste -sd' ')"
done > "$work/query_l2_chips.txt"
cat "$work/query_l2_chips.txt"
python3 "$here/pick_metrics.py" "$work/query_all.txt" > "$work/candidates.txt"
rm -f "$work/query_all.txt"
sections=$(dirname "$(readlink -f "$(command -v ncu)")")/sections
mkdir -p "$work/sections"
cp "$sections"/*Roofline*.section "$work/sections/" 2>/dev/null
grep -l "lts__" "$sections"/*.section > "$work/sections/sections_naming_lts.txt" 2>/dev/null
grep -hoE "(derived__)?lts__[a-z0-9_.]+" "$work/sections"/*Roofline*.section | sort | uniq -c > "$work/sections/roofline_lts_metrics.txt"
cat "$work/sections/roofline_lts_metrics.txt"
required=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)
echo "$required" > "$work/required.txt"
log "$(tr ',' '\n' < "$work/candidates.txt" | wc -l) candidates"
pack

log "2. building, expected sectors"
bin=$work/bin && mkdir -p "$bin"
build() {  # name, source, nvcc arch flags...
  local name=$1 source=$2; shift 2
  if [ -n "$prebuilt" ] && [ -x "$prebuilt/$name" ]; then cp "$prebuilt/$name" "$bin/$name"; return; fi
  nvcc -O3 -std=c++17 "$@" -o "$bin/$name" "$source" || exit 1
}
build l2 "$here/l2.cu" -arch=sm_90
build instructions "$repo/kernels/known_answer/instructions/instructions.cu" -arch=sm_90
build known_answer "$repo/kernels/known_answer/known_answer.cu" -arch=sm_90
build shared_memory "$repo/kernels/known_answer/shared_memory/shared_memory.cu" -gencode=arch=compute_90a,code=sm_90a
"$bin/l2" "$work/launches.json" || { prebuilt=""; build l2 "$here/l2.cu" -arch=sm_90; "$bin/l2" "$work/launches.json" || exit 1; }
"$bin/shared_memory" "$work/params.json" > /dev/null || exit 1
python3 "$here/expected.py" "$work/launches.json" "$repo/sample_data/known_answer/instructions/expected.json" \
  "$repo/sample_data/known_answer/expected.json" "$work/params.json" > "$work/expected.json" || exit 1
pack

metrics="$required,launch__grid_size,$(cat "$work/candidates.txt")"
profile() {  # name, seconds allowed, metric list, command...
  local name=$1 limit=$2 list=$3; shift 3
  timeout "$limit" ncu --clock-control none --metrics "$list" -f -o "$work/$name" "$@" > "$work/$name.ncu.log" 2>&1
  if grep -q "==ERROR==" "$work/$name.ncu.log" || [ ! -s "$work/$name.ncu-rep" ]; then
    log "$name: ncu refused the full list; without lookup splits"
    mv "$work/$name.ncu.log" "$work/$name.full-failed.ncu.log"
    list=$(echo "$list" | tr ',' '\n' | grep -v lookup | paste -sd,)
    timeout "$limit" ncu --clock-control none --metrics "$list" -f -o "$work/$name" "$@" > "$work/$name.ncu.log" 2>&1
  fi
  ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base > "$work/$name.raw-base.csv"
  grep -E "passes|ERROR" "$work/$name.ncu.log" | head -12
}
log "3. l2.cu with every candidate"
profile l2 120 "$metrics" "$bin/l2" "$work/tmp.json"
pack
log "4. l2.cu under ncu's roofline set"
ncu --clock-control none --set roofline -f -o "$work/l2_roofline" "$bin/l2" "$work/tmp.json" > "$work/l2_roofline.ncu.log" 2>&1
ncu --import "$work/l2_roofline.ncu-rep" --csv --page raw --print-units base > "$work/l2_roofline.raw-base.csv"
pack
log "3b. instructions.cu with every candidate"
profile instructions 90 "$metrics" "$bin/instructions" "$work/tmp.json"
pack

log "5. passes (l2.cu's large copy, one launch)"
tex=lts__t_sectors_srcunit_tex.sum
split=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
for set in "required:$required" "required+tex:$required,$tex" "required+tex+split:$required,$tex,$split" \
           "required+tex+gpc:$required,$tex,lts__t_sectors_srcnode_gpc.sum" "required+candidates:$metrics"; do
  name=${set%%:*}; list=${set#*:}
  n=$(ncu --clock-control none --metrics "$list" -k regex:'^copy$' -s 1 -c 1 "$bin/l2" "$work/tmp.json" 2>&1 | grep -oE "([0-9]+ pass(es)?|ERROR.*)" | head -1)
  echo "$name	$(echo "$list" | tr ',' '\n' | wc -l) metrics	$n" | tee -a "$work/passes.txt"
done
pack

log "3c. known_answer.cu streaming kernels, tma_bulk"
profile known_answer 90 "$metrics" -k regex:'^(daxpy|saxpy|add_mul|copy_f32)$' "$bin/known_answer" "$work/tmp.json"
profile tma_bulk 40 "$metrics" -k regex:'^tma_bulk$' "$bin/shared_memory" "$work/tmp.json"
pack

log "6. compare"
python3 "$here/compare.py" "$work/expected.json" "$work"/*.raw-base.csv > "$work/compare.txt"
grep -E "^(==|--)|srcunit_tex\.sum|srcunit_tex_op_(read|write)\.sum|srcunit_ltcfabric\.sum|srcnode_gpc\.sum|lts__t_sectors\.sum|lts__t_bytes\.sum|xbar2l1tex_read_sectors|l1tex2xbar_write_sectors|lts2xbar_bytes" "$work/compare.txt"
for f in "$work"/*.ncu-rep; do xz -T0 -c "$f" > "$out/$(basename "$f").xz"; done
pack
ls -la "$out"
log done
