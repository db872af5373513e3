#!/usr/bin/env bash
# Makes the register-move known-answer data (issue 11 item 5) on a GPU node with
# Nsight Compute:
#   bash sample_data/make/make_register_moves.sh OUTDIR [known|cost|all]
# 1. Builds kernels/known_answer/register_moves.cu and known_answer.cu, dumps their
#    SASS (cuobjdump -sass), runs them (each checks its results and writes its
#    known answers).
# 2. Profiles both with rooftui's metric list PLUS ncu's SourceCounters section,
#    which stores the SASS and executed counts per instruction in the report.
# 3. Profiles both with both spellings (sm__ and smsp__) of the FLOP counters,
#    exported as raw CSV in base units (for the alternate-spelling readers).
# 4. The cost of SourceCounters on the DeepCAM AMP step: replay passes and wall
#    time with it (compare with sample_data/profile/passes.tsv, same step without).
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: make_register_moves.sh OUTDIR [known|cost|all]}
stage=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
log() { echo "[make_register_moves $(date +%T)] $*"; }
NCU=${NCU:-ncu}
"$NCU" --version > "$out/ncu_version.txt"
"$NCU" --list-sections > "$out/ncu_sections.txt" 2>&1
# rooftui's own list (what `rooftui profile` collects); METRICS overrides it where
# rooftui is not importable.
metrics=${METRICS:-$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)}

spellings=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second
for unit in sm smsp; do
  for p in d f h; do
    for op in add mul fma; do
      spellings="$spellings,${unit}__sass_thread_inst_executed_op_${p}${op}_pred_on.sum"
    done
  done
  spellings="$spellings,${unit}__inst_executed_pipe_tensor.sum"
done

if [ "$stage" != cost ]; then
log "building"
for k in register_moves known_answer; do
  nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/$k" "$repo/kernels/known_answer/$k.cu" || exit 1
  cuobjdump -sass "$out/$k" > "$out/$k.sass" 2>&1
  "$out/$k" "$out/$k.expected.json" || exit 1
done

both="$out/register_moves $out/rm_tmp.json; $out/known_answer $out/ka_tmp.json"
log "profiling with SourceCounters"
for k in register_moves known_answer; do
  "$NCU" --clock-control none --nvtx --metrics "$metrics" --section SourceCounters \
    -f -o "$out/${k}_sourcecounters" "$out/$k" "$out/tmp.json" > "$out/${k}_sourcecounters.ncu.log" 2>&1
  "$NCU" --import "$out/${k}_sourcecounters.ncu-rep" --csv --page raw --print-units base \
    > "$out/${k}_sourcecounters.raw-base.csv"
done

log "profiling both spellings"
"$NCU" --clock-control none --target-processes all --metrics "$spellings" -f -o "$out/known_answer.spellings" \
  bash -c "$both" > "$out/known_answer.spellings.ncu.log" 2>&1
"$NCU" --import "$out/known_answer.spellings.ncu-rep" --csv --page raw --print-units base \
  > "$out/known_answer.spellings.raw-base.csv"
rm -f "$out/tmp.json" "$out/rm_tmp.json" "$out/ka_tmp.json" "$out/register_moves" "$out/known_answer"
fi

[ "$stage" = known ] && { ls -la "$out"; log "done"; exit 0; }

log "SourceCounters on the DeepCAM AMP step"
s=$(date +%s)
timeout 300 "$NCU" --clock-control none --nvtx --profile-from-start off --target-processes all \
  --metrics "$metrics" --section SourceCounters -f -o "$out/deepcam_amp_sourcecounters" \
  python3 "$here/deepcam_step.py" --precision amp > "$out/deepcam_amp_sourcecounters.ncu.log" 2>&1
echo "wall_s $(( $(date +%s) - s ))" >> "$out/deepcam_amp_sourcecounters.ncu.log"
"$NCU" --import "$out/deepcam_amp_sourcecounters.ncu-rep" --csv --page raw --print-units base \
  > "$out/deepcam_amp_sourcecounters.raw-base.csv"
grep -o -- "- [0-9]* passes" "$out/deepcam_amp_sourcecounters.ncu.log" | sort | uniq -c
tail -1 "$out/deepcam_amp_sourcecounters.ncu.log"
ls -la "$out"
log "done"
