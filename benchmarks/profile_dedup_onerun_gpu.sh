#!/usr/bin/env bash
# Issue #22, round 6: the deduplicated profile with ONE full run of the program (probe +
# one run), against today's every-launch profile (--exhaustive), on the transformer step
# (sample_data/make/transformer_step.py) at 4 and 2 blocks, then --dedup at 16 and 8
# blocks and --exhaustive at 8 while the time budget lasts. First,
# on benchmarks/ncu_filters.cu, how ncu's --kernel-id numbers launches (function or
# demangled name base, per launch configuration) and whether it takes two --kernel-id.
#   OUT=dir bash benchmarks/profile_dedup_onerun_gpu.sh   (repository root, on a GPU node;
#   click_default_group importable from the root)
# Never changes clocks: every ncu call has --clock-control none. Every step prints
# "WALL <ms> rc=<exit code>: <command>"; a step starts only while its estimate fits in
# $BUDGET_S seconds from the start.
set -u
EXTRAS=$(ls -d /opt/nvidia/nsight-compute/*/extras/python | tail -1)  # ncu's own ncu_report
export PYTHONPATH=$PWD:$EXTRAS PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=220
W=/tmp/d1; rm -rf $W; mkdir -p $W "$OUT"
exec > >(tee "$OUT/console.txt") 2>&1
START=$(date +%s); BUDGET_S=${BUDGET_S:-410}
fits() { local used=$(( $(date +%s) - START )); [ $(( used + $1 )) -le "$BUDGET_S" ] || { echo "SKIPPED (time: ${used} s used, ~$1 s more needed): $2"; return 1; }; }
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import rooftui.cli, click_default_group, ncu_report, pandas; print("imports ok")' || exit 1

echo "=== A. ncu's filters (benchmarks/ncu_filters.cu; launch order in its header)"
ncu --help | grep -A4 -E '^ +--(kernel-id|kernel-name-base|filter-mode|kill|range-filter)\b'
nvcc -O2 -arch=sm_90 -o $W/filters benchmarks/ncu_filters.cu || exit 1
filters() {  # label, ncu options...: which launches ncu profiled (ID, name, grid)
  local label=$1; shift
  ncu --clock-control none --metrics gpu__time_duration.sum "$@" --log-file $W/f_$label.log -f -o $W/f_$label $W/filters > /dev/null
  echo "--- $label ($*): rc=$?"; grep -E '==(PROF|ERROR|WARNING)==' $W/f_$label.log | grep -v -E 'Connected|Disconnected|Report:' | cut -c1-150
  [ -f $W/f_$label.ncu-rep ] && ncu --import $W/f_$label.ncu-rep --csv --page raw --print-kernel-base demangled |
    python3 -c 'import csv, sys; rows = list(csv.DictReader(sys.stdin))[1:]; print("profiled:", [(r["ID"], r["Kernel Name"].split("(")[0], r["Grid Size"]) for r in rows])'
}
filters two_ids --kernel-id ::alpha:2 --kernel-id ::beta:3
filters demangled_2 --kernel-name-base demangled --kernel-id ':::^(2)$'
filters function_2 --kernel-id ':::^(2)$'
filters per_config_2 --filter-mode per-launch-config --kernel-id ':::^(2)$'
filters name_regex_2 --kernel-id '::regex:^(alpha|widen)$:^(2|3)$'

STEP=(python3 sample_data/make/transformer_step.py)
PROFILE=(python3 -m rooftui profile --profile-from-start off --force)
dedup() { fits "$2" "--dedup, $1 blocks" || return 0; echo "=== --dedup, $1 blocks"
  t "${PROFILE[@]}" --dedup -o $W/d$1 -- "${STEP[@]}" --blocks $1 > $W/d$1.summary.txt; tail -8 $W/d$1.summary.txt; }
exhaustive() { fits "$2" "--exhaustive, $1 blocks" || return 0; echo "=== --exhaustive, $1 blocks"
  t "${PROFILE[@]}" --exhaustive -o $W/x$1 -- "${STEP[@]}" --blocks $1 > $W/x$1.summary.txt
  ncu --import $W/x$1.ncu-rep --csv --page raw --print-units base > $W/x$1.raw.csv; }
dedup 4 90
exhaustive 4 70
dedup 2 65
exhaustive 2 55
dedup 16 120
dedup 8 100
exhaustive 8 110
for f in $W/*.ncu.log; do echo "$(basename $f): $(sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p' $f | sort | uniq -c | tr '\n' ' ')"; done
cd $W && tar cJf $OUT/results.tar.xz *.raw.csv *.signatures.json *.summary.txt *.log 2>/dev/null
ls -la $OUT
