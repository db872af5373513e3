#!/bin/sh
# The long fuzz run of issue #25 on a shared machine: one worker at the lowest priority,
# in chunks, each kept case by case in LOGDIR/*.jsonl (a run stopped midway keeps what it
# did), until DEADLINE (a `date -d` time). Chunks alternate: 300 cases in-process, then
# 30 through real `python -m rooftui` subprocesses (with each case's peak memory).
#
#   sh benchmarks/fuzz_long_run.sh LOGDIR DEADLINE [FIRST_SEED]
#   python benchmarks/fuzz_run.py --tally LOGDIR/*.jsonl      # the counts, per command
set -u
logdir=$1
end=$(date -d "$2" +%s)
seed=${3:-3000}
here=$(dirname "$0")
python=${PYTHON:-python3}
mkdir -p "$logdir"
chunk=0
while [ "$(date +%s)" -lt "$end" ]; do
  left=$((end - $(date +%s)))
  if [ $((chunk % 2)) -eq 1 ]; then
    mode="--jobs 1"; cases=30; tag=sub
  else
    mode="--in-process"; cases=300; tag=in
  fi
  nice -n 19 "$python" "$here/fuzz_run.py" --cases $cases --seed "$seed" $mode --budget "$left" \
    --jsonl "$logdir/$tag-s$seed.jsonl" --json "$logdir/$tag-s$seed.json" > "$logdir/$tag-s$seed.out" 2>&1
  seed=$((seed + 1))
  chunk=$((chunk + 1))
done
