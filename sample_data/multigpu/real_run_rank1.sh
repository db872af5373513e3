#!/bin/bash
# The second call on 2 x H200, after the NCCL time unit fix (ncu exports gpu__time_duration.sum
# in ns under --print-units base; the first call's rooftui had taken them for seconds):
# rooftui's default on rank 1 only (--ranks 1), to see the fixed NCCL times end to end.
#   OUT=results bash sample_data/multigpu/real_run_rank1.sh
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$PWD NO_COLOR=1 COLUMNS=200 PYTHONUNBUFFERED=1
W=/tmp/mg; rm -rf $W; mkdir -p $W "$OUT"
S=$PWD/sample_data/multigpu/ddp_step.py
exec > >(tee "$OUT/console.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }
t timeout -s INT -k 30 200 python -m rooftui profile --profile-from-start off --ranks 1 --stop-on-stall \
  --stall-timeout 60 -o $W/r1 -- torchrun --nproc_per_node 2 $S > $W/r1.summary.txt
cat $W/r1.communication.csv
grep -A4 "Per rank" $W/r1.summary.txt
cd $W && tar cJf "$OUT/results.tar.xz" *.log *.txt *.csv *.sh 2>/dev/null
