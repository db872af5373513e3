#!/usr/bin/env bash
# Makes the instruction-roofline known-answer data (issue 23) on a GPU node with
# Nsight Compute and PyTorch:
#   bash sample_data/make/make_instructions.sh OUTDIR
# 1. Builds kernels/known_answer/instructions/instructions.cu, dumps its SASS
#    (cuobjdump -sass), runs it (it checks every result and writes its launch
#    parameters), and derives the expected counts from the parameters and the SASS
#    (expected.py) BEFORE any profile is taken.
# 2. Profiles the kernels with rooftui's metric list plus the instruction roofline's
#    (rooftui.model.instructions), exported as raw CSV and print-summary CSV (base units).
# 3. Counts ncu's replay passes for rooftui's list alone, the instruction list alone
#    and both (each kernel's "- N passes" in the logs).
# The DeepCAM-like steps with both lists (the bundled sample) are make_samples.sh's.
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: make_instructions.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kernels="$repo/kernels/known_answer/instructions"
mkdir -p "$out"
log() { echo "[make_instructions $(date +%T)] $*"; }
NCU=${NCU:-ncu}
scratch=$(mktemp -d)
{ "$NCU" --version; nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvcc --version | tail -2; } > "$out/environment.txt" 2>&1

base=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)
wanted=$(PYTHONPATH="$repo" python3 -m rooftui.model.instructions)
"$NCU" --query-metrics > "$scratch/query.txt" 2>&1
inst=""
for metric in ${wanted//,/ }; do
  if grep -qE "^${metric%%.*}[[:space:],]" "$scratch/query.txt"; then inst="$inst,$metric"; else echo "not offered: $metric" >> "$out/environment.txt"; fi
done
inst=${inst#,}
# A query whose layout this does not read offers nothing: then ask ncu for every one.
[ -n "$inst" ] || inst=$wanted
echo "instruction metrics: $inst" >> "$out/environment.txt"

log "building"
nvcc -O3 -std=c++17 -arch=sm_90 -o "$scratch/instructions" "$kernels/instructions.cu" || exit 1
cuobjdump -sass "$scratch/instructions" > "$out/instructions.sass" 2>&1
"$scratch/instructions" "$out/launches.json" || exit 1
log "expected counts (before profiling)"
python3 "$kernels/expected.py" "$out/launches.json" "$out/instructions.sass" > "$out/expected.json" || exit 1

log "profiling: rooftui + instruction metrics"
"$NCU" --clock-control none --metrics "$base,$inst" -f -o "$out/instructions" \
  "$scratch/instructions" "$scratch/tmp.json" > "$out/instructions.ncu.log" 2>&1
"$NCU" --import "$out/instructions.ncu-rep" --csv --page raw --print-units base > "$out/instructions.raw-base.csv"
"$NCU" --import "$out/instructions.ncu-rep" --csv --print-summary per-kernel --print-units base \
  > "$out/instructions.summary.csv"
log "passes: rooftui alone, instructions alone"
"$NCU" --clock-control none --metrics "$base" -f -o "$scratch/base" \
  "$scratch/instructions" "$scratch/tmp.json" > "$out/passes_rooftui.ncu.log" 2>&1
"$NCU" --clock-control none --metrics "$inst" -f -o "$scratch/inst" \
  "$scratch/instructions" "$scratch/tmp.json" > "$out/passes_instructions.ncu.log" 2>&1
for f in instructions passes_rooftui passes_instructions; do
  echo "$f: $(grep -o -- '- [0-9]* passes' "$out/$f.ncu.log" | sort | uniq -c | tr '\n' ' ')"
done | tee "$out/passes.txt"

rm -rf "$scratch"
ls -la "$out"
log "done"
