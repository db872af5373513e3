#!/bin/bash
# What the measure scripts record about the GPU machine before they run (sourced):
#   gpu_environment OUTDIR   writes OUTDIR/environment.txt and prints it.
gpu_environment() {
  {
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
    ncu --version | tail -1
    cuobjdump --version | tail -1
    python3 -c "import cuda.core, numpy; print('cuda.core', cuda.core.__version__, 'numpy', numpy.__version__)"
  } >"$1/environment.txt" 2>&1
  cat "$1/environment.txt"
}
