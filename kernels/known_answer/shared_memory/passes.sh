#!/usr/bin/env bash
# What the SMEM counters cost `rooftui profile` on an H200: ncu's replay passes and the
# wall time of profiling one GPT-style step, with rooftui's metric list before the SMEM
# level (BEFORE_LIST, a file) and with it (python3 -m rooftui.model.metrics --cc 9.0).
#   bash kernels/known_answer/shared_memory/passes.sh OUTDIR BEFORE_LIST BINARY
set -u
out=${1:?} before=$(cat "${2:?}") bin=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
after=$(PYTHONPATH="$repo" python3 -m rooftui.model.metrics --cc 9.0)
for name in before after; do
  list=${!name}
  echo "$name: $(echo "$list" | tr ',' '\n' | wc -l) metrics" | tee -a "$out/passes.txt"
  for k in smem_words tma_bulk wgmma_bf16; do
    n=$(ncu --clock-control none --metrics "$list" -k "$k" -c 1 "$bin" /tmp/p.json 2>&1 | grep -oE "[0-9]+ passes" | head -1)
    echo "  $k: $n" | tee -a "$out/passes.txt"
  done
  s=$(date +%s.%N)
  ncu --clock-control none --nvtx --profile-from-start off --metrics "$list" -f -o "/tmp/gpt_$name" \
    python3 "$repo/sample_data/make/transformer_step.py" --blocks 1 > "$out/gpt_step_$name.ncu.log" 2>&1
  e=$(date +%s.%N)
  echo "  gpt step (--blocks 1): $(grep -c 'passes' "$out/gpt_step_$name.ncu.log") kernels," \
    "passes $(grep -oE '[0-9]+ passes' "$out/gpt_step_$name.ncu.log" | sort | uniq -c | tr '\n' ' ')," \
    "wall $(python3 -c "print(round($e - $s, 1))") s" | tee -a "$out/passes.txt"
done
