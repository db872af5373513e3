#!/bin/bash
# The measured run behind sample_data/multigpu/README.md ("rooftui's default on two H200s"):
# the DDP step plain, under `rooftui profile` (its default for launched jobs), the same
# per-rank work on one GPU under `rooftui profile`, `rooftui summary` on the outputs, and
# the same job under a bare ncu with rooftui's metric list (kept to 150 s by `timeout`).
# Run from a folder holding rooftui/ and sample_data/ on a machine with 2 GPUs and ncu:
#   OUT=results bash sample_data/multigpu/real_run.sh
# Every step's wall time is printed as "WALL <ms> rc=<exit code>: <command>".
# NVLink multicast stays off (the machine's rules; it does not change what ncu does).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONPATH=$PWD NO_COLOR=1 COLUMNS=200 PYTHONUNBUFFERED=1
W=/tmp/mg; rm -rf $W; mkdir -p $W "$OUT"
S=$PWD/sample_data/multigpu/ddp_step.py
exec > >(tee "$OUT/console.txt") 2>&1
# (In the committed run `t` echoed to stdout, so the WALL lines of (a) and (b) went into their
# stdout files, kept as real_run.ddp.stdout.txt and real_run.single.stdout.txt; now stderr.)
t() { local s=$(date +%s%N); "$@"; local rc=$?; echo "WALL $(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" >&2; }

nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvidia-smi topo -m | head -4
ncu --version | tail -1
python -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'

echo "=== plain: torchrun --nproc_per_node 2 (no profiler)"
t torchrun --nproc_per_node 2 $S
echo "=== plain: one GPU (no profiler)"
t python $S

echo "=== (a) rooftui profile, default for a launched job"
# --stop-on-stall only matters if something hangs (it did not need to act when this was measured)
t timeout -s INT -k 60 300 python -m rooftui profile --profile-from-start off --stop-on-stall --stall-timeout 60 \
  -o $W/ddp -- torchrun --nproc_per_node 2 $S > $W/ddp.summary.txt

echo "=== (b) rooftui profile, the same per-rank work on one GPU"
t timeout -k 10 150 python -m rooftui profile --profile-from-start off -o $W/single -- python $S > $W/single.summary.txt

echo "=== (c) rooftui summary on (a)'s outputs"
t python -m rooftui summary --top 12 $W/ddp.rank0.raw.csv $W/ddp.rank1.raw.csv
python -m rooftui summary --format json $W/ddp.rank0.raw.csv $W/ddp.rank1.raw.csv > $W/ddp.summary.json
echo "json rc=$? $(wc -c < $W/ddp.summary.json) bytes"
head -5 $W/ddp.communication.csv; echo "NCCL rows: $(($(wc -l < $W/ddp.communication.csv) - 1))"
head -12 $W/single.summary.txt

echo "=== (d) bare ncu with rooftui's metric list, every rank at once"
M=$(python -m rooftui metrics --arch sm_90)
echo "metrics: $(echo $M | tr , '\n' | wc -l)"
t timeout -k 10 150 ncu --metrics "$M" --nvtx --clock-control none --target-processes all \
  --profile-from-start off --log-file $W/bare.ncu.log -f -o $W/bare torchrun --nproc_per_node 2 $S
echo "bare: $(grep -c '==PROF== Profiling' $W/bare.ncu.log) kernels profiled"
grep -n -m3 -E 'nccl|taking more time' $W/bare.ncu.log
tail -4 $W/bare.ncu.log
ls -la $W

cd $W && tar cJf "$OUT/results.tar.xz" *.log *.txt *.csv *.json *.sh *.comm.rank*.ncu-rep 2>/dev/null
ls -la "$OUT"
