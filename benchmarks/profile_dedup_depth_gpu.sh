#!/usr/bin/env bash
# Issue #22: `rooftui profile` (its deduplicated default, --dedup) against --exhaustive on
# the GPT-style step (sample_data/make/transformer_step.py --blocks N) and on the step the
# bundled sample was profiled from (sample_data/make/deepcam_step.py --precision amp).
#   OUT=dir RUNS="plain:16 dedup:16 exhaustive:16 exhaustive:8" bash benchmarks/profile_dedup_depth_gpu.sh
# from the repository root on a GPU node, rooftui's Python dependencies importable from it
# (click_default_group copied in). RUNS: MODE:STEP items, MODE plain, dedup or exhaustive,
# STEP a number of blocks or "deepcam"; a repeated item is a repeat (x8, x8.2, ...).
# Each profile keeps, in $OUT/results.tar.xz (rewritten after every run, so a call cut
# short keeps what finished): the per-launch table (the default's REPORT.raw.csv; the
# exhaustive .ncu-rep exported with `ncu --import --csv --page raw --print-units base`),
# the signatures sidecar, ncu's logs, rooftui's stderr and summary. Compare them with
# benchmarks/profile_dedup_compare.py. Prints "WALL <ms> rc=<exit>: <cmd>" per step; a step
# starts only while its estimate fits in $BUDGET_S seconds from the start.
# Never changes clocks: rooftui profile passes --clock-control none to every ncu call.
# (Round 7's 32-block run used this script's earlier BLOCKS=N form, at commit a7f516d.)
set -u
EXTRAS=$(ls -d /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | tail -1)  # ncu's ncu_report
export PYTHONPATH=$PWD:${PYTHONPATH:-}:$EXTRAS PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=220
W=$(mktemp -d); K=$W/keep; mkdir -p "$K" "$OUT"
exec > >(tee "$OUT/console.txt") 2>&1
START=$(date +%s); BUDGET_S=${BUDGET_S:-540}
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
fits() {
  local used=$(( $(date +%s) - START ))
  [ $(( used + $1 )) -le "$BUDGET_S" ] || { echo "SKIPPED (time: $used s used, ~$1 s more needed): $2"; return 1; }
}
# Seconds, from rounds 7-9's runs of each (2026-12-0[12]-profile-*.md) plus a margin.
estimate() {
  case $1:$2 in
    plain:deepcam) echo 30 ;; plain:*) echo $(( 15 + $2 / 4 )) ;;
    dedup:deepcam) echo 120 ;; dedup:*) echo $(( 80 + 3 * $2 )) ;;
    exhaustive:deepcam) echo 75 ;; exhaustive:*) echo $(( 35 + 12 * $2 )) ;;
  esac
}
step() {
  case $1 in
    deepcam) echo python3 sample_data/make/deepcam_step.py --precision amp ;;
    *) echo python3 sample_data/make/transformer_step.py --blocks "$1" ;;
  esac
}
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
python3 -c 'import rooftui.cli, click_default_group, ncu_report, pandas; print("imports ok")' || exit 1
git_rev=$(cat .rooftui_commit 2>/dev/null || echo unknown); echo "rooftui commit: $git_rev"
declare -A seen
for item in ${RUNS:?RUNS=\"MODE:STEP ...\"}; do
  mode=${item%%:*}; what=${item#*:}
  seen[$item]=$(( ${seen[$item]:-0} + 1 ))
  case $mode in plain) name=p$what ;; dedup) name=d$what ;; *) name=x$what ;; esac
  [ "${seen[$item]}" -gt 1 ] && name=$name.${seen[$item]}
  fits "$(estimate "$mode" "$what")" "$item" || continue
  read -r -a cmd <<< "$(step "$what")"
  echo "=== $mode, $what ($name)"
  case $mode in
    plain) t "${cmd[@]}" ;;
    dedup|exhaustive)
      t python3 -m rooftui profile --profile-from-start off --force "--$mode" -o "$W/$name" -- "${cmd[@]}" \
        > "$K/$name.summary.txt" 2> "$K/$name.stderr.txt"
      grep -E '^(rooftui|WALL)' "$K/$name.stderr.txt"
      if [ "$mode" = exhaustive ]; then
        t ncu --import "$W/$name.ncu-rep" --csv --page raw --print-units base > "$K/$name.raw.csv"
      else
        cp "$W/$name.raw.csv" "$W/$name.signatures.json" "$K/"
      fi
      cp "$W/$name".*ncu.log "$K/" 2>/dev/null
      for log in "$W/$name".*ncu.log; do
        echo "$(basename "$log"): passes $(sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p' "$log" | sort | uniq -c | tr '\n' ' ')"
      done
      tail -4 "$K/$name.summary.txt"
      ;;
  esac
  (cd "$K" && tar cJf "$OUT/results.tar.xz.part" . && mv "$OUT/results.tar.xz.part" "$OUT/results.tar.xz")
done
echo "used $(( $(date +%s) - START )) s"
ls -la "$OUT"
