#!/usr/bin/env bash
# Issue #22, first GPU call: what a one-pass probe can collect, how ncu's --kernel-id
# counts invocations, and today's `rooftui profile` (every launch) on the 4-block step.
#   OUT=dir bash benchmarks/profile_dedup_explore.sh   (repository root, on a GPU node)
# Never changes clocks: every ncu call has --clock-control none.
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 NO_COLOR=1 COLUMNS=200
W=/tmp/dedup; rm -rf $W; mkdir -p $W "$OUT"
exec > >(tee "$OUT/explore.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
passes() { sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p' "$1" | sort | uniq -c | tr '\n' ' '; }
STEP=(python3 sample_data/make/transformer_step.py)
NCU=(ncu --clock-control none --nvtx --target-processes all --profile-from-start off)
ncu --version | tail -1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
python3 -c 'import pandas, rich, click, numpy, torch; print("deps ok", torch.__version__)'
python3 -c 'import click_default_group' 2>&1 | tail -1
ls -d /opt/nvidia/nsight-compute/*/extras/python 2>&1
ncu --query-metrics 2>/dev/null | grep -iE 'tensor|^smsp__inst_executed |hfma' | cut -c1-110 | head -60

echo "=== 1. passes per probe set (tests/profile/pass_probe.cu)"
nvcc -O2 -arch=sm_90 -o $W/pass_probe tests/profile/pass_probe.cu || exit 1
L="launch__grid_size,launch__block_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__registers_per_thread"
T=gpu__time_duration.sum
declare -A SETS=(
  [time]="$T"
  [time_launch]="$T,$L"
  [inst]="$T,$L,smsp__inst_executed.sum"
  [inst_tensor]="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum"
  [inst_tensor_hfma]="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"
  [inst_tensor_hfma_sectors]="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,lts__t_sectors.sum,dram__sectors.sum"
  [inst_tensor_types]="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"
  [inst_tensor_hfma_l2]="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,lts__t_sectors.sum"
)
for k in "${!SETS[@]}"; do
  ncu --clock-control none --metrics "${SETS[$k]}" --log-file $W/p_$k.log $W/pass_probe 1 0 > /dev/null
  echo "probe set $k: $(passes $W/p_$k.log) $(grep -m1 ERROR $W/p_$k.log)"
done

echo "=== 2. the 4-block step, plain"
t "${STEP[@]}" --blocks 4
echo "=== 3. probe run over every launch"
PROBE="$T,$L,smsp__inst_executed.sum,sm__inst_executed_pipe_tensor.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,lts__t_sectors.sum,dram__sectors.sum"
t "${NCU[@]}" --metrics "$PROBE" --log-file $W/probe.log -o $W/probe "${STEP[@]}" --blocks 4
echo "probe passes: $(passes $W/probe.log)"
ncu --import $W/probe.ncu-rep --csv --page raw --print-units base > $OUT/probe4.csv
echo "=== 3b. time-only run over every launch"
t "${NCU[@]}" --metrics "$T" --log-file $W/time.log -o $W/time "${STEP[@]}" --blocks 4
echo "=== 4. kernel-id: first invocation of every launch configuration"
t "${NCU[@]}" --metrics "$T,$L" --kernel-id ':::1' --log-file $W/k1.log -o $W/k1 "${STEP[@]}" --blocks 4
ncu --import $W/k1.ncu-rep --csv --page raw --print-units base > $OUT/kid1.csv
echo "=== 4b. kernel-id: names by regex, invocations 2|3"
t "${NCU[@]}" --metrics "$T,$L" --kernel-id '::regex:^(?:nvjet.*|.*elementwise.*)$:regex:^(?:2|3)$' --log-file $W/k23.log -o $W/k23 "${STEP[@]}" --blocks 4
ncu --import $W/k23.ncu-rep --csv --page raw --print-units base > $OUT/kid23.csv
tail -2 $W/k23.log
echo "=== 5. today's rooftui profile (every launch), 4 blocks"
t python3 -m rooftui profile --profile-from-start off -o $W/ex4 -- "${STEP[@]}" --blocks 4 > $W/ex4.summary.txt
tail -25 $W/ex4.summary.txt
ls $W
xz -c $W/ex4.raw.csv > $OUT/exhaustive4.raw.csv.xz
echo "=== 6. ncu's own ncu_report module"
P=$(ls -d /opt/nvidia/nsight-compute/*/extras/python | tail -1)
PYTHONPATH=$P:$PYTHONPATH python3 -c 'import ncu_report; print("ncu_report", ncu_report.__file__)'
cd $W && tar cJf $OUT/logs.tar.xz *.log
