#!/usr/bin/env bash
# Makes nested_nvtx.ncu-rep.xz and its raw CSV export (ncu 2025.3.1, H200):
# five launches of one tiny kernel under nested NVTX push/pop ranges in two
# domains, on two streams, one with a 3-D grid, so a test can check the
# .ncu-rep reader's NVTX order, streams and launch shapes against ncu's CSV.
#   bash tests/ingest/data/make_nested_nvtx.sh   (on a node with CUDA and ncu)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cat > "$work/nested.cu" <<'CU'
#include <nvtx3/nvToolsExt.h>
#include <cuda_runtime.h>
__global__ void k(float *x) { x[threadIdx.x] += 1; }
int main() {
  float *x; cudaMalloc(&x, 1024);
  cudaStream_t s; cudaStreamCreate(&s);
  k<<<1, 32>>>(x);                                   // 0: no range
  nvtxRangePushA("outer");
  k<<<dim3(2, 3, 4), dim3(32, 2, 1)>>>(x);           // 1: outer
  nvtxRangePushA("inner");
  k<<<1, 32, 0, s>>>(x);                             // 2: outer > inner, other stream
  nvtxDomainHandle_t d = nvtxDomainCreateA("mydom");
  nvtxEventAttributes_t a = {0};
  a.version = NVTX_VERSION; a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII; a.message.ascii = "dr";
  nvtxDomainRangePushEx(d, &a);
  k<<<1, 32>>>(x);                                   // 3: outer > inner | mydom: dr
  nvtxRangePushA("third");
  k<<<1, 32>>>(x);                                   // 4: outer > inner > third | mydom: dr
  nvtxRangePop();
  nvtxDomainRangePop(d);
  nvtxRangePop(); nvtxRangePop();
  cudaDeviceSynchronize();
  return 0;
}
CU
nvcc -o "$work/nested" "$work/nested.cu" -ldl
ncu --nvtx --metrics gpu__time_duration.sum,dram__bytes.sum.per_second,sm__cycles_elapsed.avg.per_second \
  -f -o "$work/nested" "$work/nested"
ncu --import "$work/nested.ncu-rep" --csv --page raw --print-units base > "$work/nested.raw-base.csv"
xz -9 -c "$work/nested.ncu-rep" > "$here/nested_nvtx.ncu-rep.xz"
xz -9 -c "$work/nested.raw-base.csv" > "$here/nested_nvtx.raw-base.csv.xz"
rm -rf "$work"
