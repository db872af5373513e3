#!/usr/bin/env bash
# Issue #22, round 9: (1) what the instruction-level data for HFMA2 register moves costs,
# ncu's SourceCounters section against rooftui's own lean section
# (rooftui/profile/sections/RooftuiRegisterMoves.section) and against the same two metrics
# given with --metrics, on the same launches (the first launch of every function of the
# 4-block transformer step), with the register moves read from each report launch by launch;
# (2) what each candidate traffic counter costs in the one-pass probe, on the DeepCAM step
# and the 16-block step, every candidate in the same call.
#   OUT=dir [PARTS="moves probes"] [VARIANTS="none sourcecounters lean leanmetrics"] \
#     bash benchmarks/profile_lean_gpu.sh
# from the repository root on a GPU node, click_default_group importable from it.
# Never changes clocks (--clock-control none).
set -u
EXTRAS=$(ls -d /opt/nvidia/nsight-compute/*/extras/python 2>/dev/null | tail -1)
export PYTHONPATH=$PWD:${PYTHONPATH:-}:$EXTRAS PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=220
W=$(mktemp -d); K=$W/keep; mkdir -p "$K" "$OUT"
exec > >(tee "$OUT/console.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
passes() { sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p' "$1" | sort | uniq -c | tr '\n' ' '; }
keep() { (cd "$K" && tar cJf "$OUT/results.tar.xz.part" . && mv "$OUT/results.tar.xz.part" "$OUT/results.tar.xz"); }
NCU=(ncu --clock-control none --nvtx --target-processes all --profile-from-start off -f)
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c 'import rooftui.cli, click_default_group, ncu_report; print("imports ok")' || exit 1
SECTIONS=$(dirname "$(ls /opt/nvidia/nsight-compute/*/sections/SourceCounters.section | tail -1)")
cp "$SECTIONS/SourceCounters.section" "$K/" && echo "SourceCounters.section from $SECTIONS"
FULL=$(python3 -c "from rooftui.cli.metrics import chosen_metrics; from rooftui.profile import dedup
print(','.join(dedup.full_metrics(chosen_metrics('sm_90', None))))")
STEP4=(python3 sample_data/make/transformer_step.py --blocks 4)

VARIANTS=${VARIANTS:-none sourcecounters lean leanmetrics}
if [[ " ${PARTS:=moves probes} " == *" moves "* ]]; then
echo "=== 1. instruction-level data: the first launch of every function, 4 blocks"
declare -A EXTRA=(
  [none]=""
  [sourcecounters]="--section SourceCounters"
  [lean]="--section-folder rooftui/profile/sections --section RooftuiRegisterMoves"
  [leanmetrics]="METRICS"
)
for v in $VARIANTS; do
  metrics=$FULL; extra=${EXTRA[$v]}
  [ "$extra" = METRICS ] && { metrics=$FULL,thread_inst_executed_true,sass__thread_inst_executed_true_per_opcode; extra=""; }
  # shellcheck disable=SC2086
  t "${NCU[@]}" --metrics "$metrics" $extra --kernel-id ':::^1$' --log-file "$K/i_$v.log" -o "$W/i_$v" "${STEP4[@]}" > /dev/null
  echo "instruction data $v: passes $(passes "$K/i_$v.log") launches $(grep -c '==PROF== Profiling' "$K/i_$v.log") $(grep -m2 -E 'ERROR|WARNING' "$K/i_$v.log")"
  ls -la "$W/i_$v.ncu-rep" 2>&1 | awk '{print "report bytes", $5}'
done
python3 - "$W" $VARIANTS <<'PY' | tee "$K/register_moves.txt"
import sys
from pathlib import Path
from rooftui.profile.deduplicated import read_register_moves
from rooftui.ingest.ncu_rep import read_ncu_rep
w = Path(sys.argv[1])
got = {}
variants = sys.argv[2:]
for v in variants:
    report = w / f"i_{v}.ncu-rep"
    got[v] = read_register_moves(report) if report.exists() else None
    print(v, "launches", None if got[v] is None else len(got[v]), "moves", None if got[v] is None else sum(x for x in got[v] if x == x))
names = list(read_ncu_rep(w / "i_sourcecounters.ncu-rep").kernels["kernel_name"])
ref = got["sourcecounters"]
others = [v for v in variants if v in ("lean", "leanmetrics")]
for v in others:
    if ref is None or got[v] is None or len(got[v]) != len(ref):
        print(v, "cannot be compared launch by launch"); continue
    same = sum(1 for a, b in zip(ref, got[v]) if a == b or (a != a and b != b))
    print(f"{v}: {same} of {len(ref)} launches with the same register moves as SourceCounters;",
          f"{sum(1 for a in ref if a == a and a > 0)} launches with moves")
print("launch", "name", "sourcecounters", *others, sep="\t")
for i, n in enumerate(names):
    print(i, n[:60], *(None if got[v] is None or i >= len(got[v]) else got[v][i] for v in ("sourcecounters", *others)), sep="\t")
PY
keep
fi
[[ " $PARTS " == *" probes "* ]] || exit 0

echo "=== 2. probe candidates"
T=gpu__time_duration.sum; L=launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic
BASE=$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum
declare -A PROBE=(
  [base]=$BASE
  [dram]=$BASE,dram__bytes.sum
  [l1hit]=$BASE,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum
  [l2tex]=$BASE,lts__t_sectors_srcunit_tex.sum
)
for step in deepcam 16; do
  case $step in
    deepcam) cmd=(python3 sample_data/make/deepcam_step.py --precision amp); order="base dram l1hit l2tex dram base" ;;
    *) cmd=(python3 sample_data/make/transformer_step.py --blocks 16); order="dram base l1hit l2tex" ;;
  esac
  declare -A n=()
  for v in $order; do
    n[$v]=$(( ${n[$v]:-0} + 1 )); name=p${step}_${v}_${n[$v]}
    t "${NCU[@]}" --metrics "${PROBE[$v]}" --log-file "$K/$name.log" -o "$W/$name" "${cmd[@]}" > /dev/null
    echo "probe $name: passes $(passes "$K/$name.log")"
    ncu --import "$W/$name.ncu-rep" --csv --page raw --print-units base | xz > "$K/$name.raw.csv.xz"
  done
  unset n
  keep
done
ls -la "$OUT"
