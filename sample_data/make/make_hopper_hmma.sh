#!/usr/bin/env bash
# Does sm__inst_executed_pipe_tensor_op_hmma count HFMA2 (register moves and __hfma2
# math) on Hopper? (issue 28 item 2). On a GPU node with Nsight Compute:
#   bash sample_data/make/make_hopper_hmma.sh OUTDIR [all|torch]
# Profiles, with every Tensor/FP16/FMA pipe counter ncu offers on this chip plus
# SourceCounters (per-SASS-instruction executed counts):
#   - kernels/known_answer/register_moves.cu: moves_fp32/moves_fp64 (HFMA2.MMA register
#     moves only), math_hfma2 (__hfma2 math only), moves_and_math (both); no MMA;
#   - sample_data/make/hopper_hmma_torch.py: RMSNorm BF16, SiLU FP16, a random fill, and
#     a 2048³ BF16 GEMM (cuBLAS);
# then the torch step once more under ncu's `detailed` set (what public reports hold).
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: make_hopper_hmma.sh OUTDIR [all|torch]}
stage=${2:-all}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mkdir -p "$out"
log() { echo "[make_hopper_hmma $(date +%T)] $*"; }
NCU=${NCU:-ncu}
"$NCU" --version | tail -1 > "$out/ncu_version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
"$NCU" --query-metrics --chip gh100 > "$out/query.txt" 2>&1
# Every pipe counter that could see Tensor or FP16 work, as .sum, and the FLOP counters.
metrics=$(python3 - "$out/query.txt" <<'PY'
import re, sys
names = set(re.findall(r"^\s*(sm__[a-z0-9_]+)", open(sys.argv[1]).read(), re.M))
keep = sorted(n for n in names if re.match(
    r"sm__(inst_executed_pipe_(tensor|fp16|fma|fmaheavy|fp64)|pipe_(tensor|fp16|fma|fmaheavy|fp64)\w*_cycles_active$|ops_path_tensor)", n))
wanted = [f"{n}.sum" for n in keep]
wanted += [f"sm__{n}.sum.peak_sustained" for n in ("pipe_tensor_cycles_active", "ops_path_tensor_src_fp16", "ops_path_tensor_src_fp8") if f"sm__{n}" in names]
wanted += ["gpu__time_duration.sum", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second",
           "smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
           "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
           "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"]
print(",".join(wanted))
PY
)
echo "$metrics" | tr , '\n' > "$out/metrics.txt"
log "$(wc -l < "$out/metrics.txt") metrics"

if [ "$stage" = all ]; then
for k in register_moves; do
  nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/$k" "$repo/kernels/known_answer/$k.cu" || exit 1
  cuobjdump -sass "$out/$k" | grep -E "Function|HMMA|HGMMA|HFMA2" | sort | uniq -c | sort -rn | head -60 > "$out/$k.sass_counts.txt"
done
log "built"
# A name ncu refuses fails the whole run: then fall back to the counters known on sm_90.
fallback=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__pipe_tensor_op_hmma_cycles_active.sum,sm__pipe_tensor_cycles_active.sum,sm__inst_executed_pipe_tensor.sum,sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.sum,sm__inst_executed_pipe_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
for k in register_moves; do
  "$NCU" --clock-control none --metrics "$metrics" --section SourceCounters -f -o "$out/$k" \
    "$out/$k" "$out/$k.expected.json" > "$out/$k.ncu.log" 2>&1 || {
    tail -5 "$out/$k.ncu.log"; metrics=$fallback; echo "$metrics" | tr , '\n' > "$out/metrics.txt"
    "$NCU" --clock-control none --metrics "$metrics" --section SourceCounters -f -o "$out/$k" \
      "$out/$k" "$out/$k.expected.json" > "$out/$k.ncu.log" 2>&1 || { tail -5 "$out/$k.ncu.log"; exit 1; }
  }
  "$NCU" --import "$out/$k.ncu-rep" --csv --page raw --print-units base > "$out/$k.raw-base.csv"
  log "$k profiled"
done
fi
"$NCU" --clock-control none --profile-from-start off --metrics "$metrics" --section SourceCounters \
  -f -o "$out/torch" python3 "$here/hopper_hmma_torch.py" > "$out/torch.ncu.log" 2>&1 || { tail -5 "$out/torch.ncu.log"; exit 1; }
"$NCU" --import "$out/torch.ncu-rep" --csv --page raw --print-units base > "$out/torch.raw-base.csv"
log "torch profiled"
"$NCU" --clock-control none --profile-from-start off --set detailed --section SourceCounters \
  -f -o "$out/torch_detailed" python3 "$here/hopper_hmma_torch.py" > "$out/torch_detailed.ncu.log" 2>&1
"$NCU" --import "$out/torch_detailed.ncu-rep" --csv --page raw --print-units base > "$out/torch_detailed.raw-base.csv"
log "torch detailed profiled"
rm -f "$out/register_moves"
xz -9 "$out"/*.ncu-rep "$out/query.txt"
ls -la "$out"
log "done"
