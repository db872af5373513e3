#!/bin/bash
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$PWD NO_COLOR=1 COLUMNS=160
W=/tmp/mg; mkdir -p $W $OUT
S=$PWD/sample_data/multigpu/ddp_step.py
exec > >(tee $OUT/console.txt) 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*"; }
ncu --help | grep -A4 -E "lockstep|communicator" | head -30
echo "=== rooftui profile torchrun (default)"; t timeout -k 15 200 python -m rooftui profile --profile-from-start off --stall-timeout 45 --stop-on-stall -o $W/ddp -- torchrun --nproc_per_node 2 $S > $W/ddp.summary.txt
head -70 $W/ddp.summary.txt
python -m rooftui summary --format json $W/ddp.rank0.raw.csv $W/ddp.rank1.raw.csv > $W/ddp.summary.json 2>$W/ddp.json.err; echo "json rc=$?"; head -c 400 $W/ddp.json.err
echo "=== rooftui profile single GPU"; t timeout -k 15 120 python -m rooftui profile --profile-from-start off -o $W/single -- python $S > $W/single.summary.txt; head -30 $W/single.summary.txt
echo "=== rooftui profile torchrun --comm lockstep"; t timeout -k 15 150 python -m rooftui profile --profile-from-start off --comm lockstep --stall-timeout 45 --stop-on-stall -o $W/ddp_ls -- torchrun --nproc_per_node 2 $S > $W/ddp_ls.summary.txt
ls -la $W
cd $W && tar cJf $OUT/results.tar.xz *.log *.txt *.csv *.json *.sh 2>/dev/null; ls -la $OUT
