#!/usr/bin/env bash
# Issue #22, the measured run: the transformer step (sample_data/make/transformer_step.py)
# plain, under today's every-launch profile (--exhaustive) and under rooftui profile's
# signature-deduplicated default, for 4 blocks, then the default for 16, 8 and 2 blocks and
# without SourceCounters; per-launch tables and ncu logs come back under $OUT.
#   OUT=dir bash benchmarks/profile_dedup_gpu.sh   (repository root, on a GPU node, wheels in .whl)
# Measured at commit 1caf27f, when deduplication was rooftui profile's default; since
# dc30a23 it is --dedup, named below. Never changes clocks: every ncu call has
# --clock-control none. Every step prints
# "WALL <ms> rc=<exit code>: <command>"; steps are skipped once $BUDGET_S seconds have passed.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
EXTRAS=$(ls -d /opt/nvidia/nsight-compute/*/extras/python | tail -1)  # ncu's own ncu_report
export PYTHONPATH=$PWD:/tmp/site:$EXTRAS PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=220
W=/tmp/dd; rm -rf $W; mkdir -p $W "$OUT"
exec > >(tee "$OUT/console.txt") 2>&1
START=$(date +%s); BUDGET_S=${BUDGET_S:-520}
left() { [ $(( $(date +%s) - START )) -lt "$BUDGET_S" ] || { echo "SKIPPED (time): $*"; return 1; }; }
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
passes() { sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p' "$1" | sort | uniq -c | tr '\n' ' '; }
STEP=(python3 sample_data/make/transformer_step.py)
PROFILE=(python3 -m rooftui profile --profile-from-start off)
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

echo "=== 0. the probe's passes; -k together with --kernel-id (tests/profile/pass_probe.cu)"
nvcc -O2 -arch=sm_90 -o $W/pass_probe tests/profile/pass_probe.cu
P=$(python3 -c 'from rooftui.profile.dedup import PROBE_METRICS; print(",".join(PROBE_METRICS))')
ncu --clock-control none --metrics "$P" --log-file $W/p.log $W/pass_probe 1 0 > /dev/null
echo "probe set: $(passes $W/p.log)"
ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:^(probe_fma)$' --kernel-id ':::^(2|3)$' \
  --log-file $W/kk.log $W/pass_probe 5 0 > /dev/null; echo "-k with --kernel-id rc=$?: $(grep -c '==PROF== Profiling' $W/kk.log) of 5 launches profiled (2: ncu takes both options; with one kernel this cannot show that it ignores -k, which the dedup run's log did)"

echo "=== 1. plain, 4 blocks"
t "${STEP[@]}" --blocks 4
echo "=== 2. default, 4 blocks"
t "${PROFILE[@]}" --dedup -o $W/d4 -- "${STEP[@]}" --blocks 4 > $W/d4.summary.txt
tail -22 $W/d4.summary.txt
echo "=== 3. --exhaustive, 4 blocks"
t "${PROFILE[@]}" --exhaustive -o $W/x4 -- "${STEP[@]}" --blocks 4 > $W/x4.summary.txt
ncu --import $W/x4.ncu-rep --csv --page raw --print-units base > $W/x4.raw.csv
for b in 16 8 2; do
  left "default, $b blocks" && { echo "=== default, $b blocks"; t "${PROFILE[@]}" --dedup -o $W/d$b -- "${STEP[@]}" --blocks $b > $W/d$b.summary.txt; }
done
left "default without SourceCounters, 4 blocks" && { echo "=== default --no-register-moves, 4 blocks"
  t "${PROFILE[@]}" --dedup --no-register-moves -o $W/n4 -- "${STEP[@]}" --blocks 4 > $W/n4.summary.txt; }
for f in $W/*.ncu.log; do echo "$(basename $f): $(passes $f)"; done
xz -c $W/d4.raw.csv > $OUT/d4.raw.csv.xz; xz -c $W/x4.raw.csv > $OUT/x4.raw.csv.xz
cd $W && tar cJf $OUT/results.tar.xz *.signatures.json *.summary.txt *.log d2.raw.csv d8.raw.csv d16.raw.csv n4.raw.csv 2>/dev/null
ls -la $OUT
