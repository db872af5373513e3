// Twelve launches of three kernel functions (one a template with two instantiations) on
// two grid sizes, in a fixed order, for seeing how ncu's --kernel-id numbers launches
// under --kernel-name-base and --filter-mode, and whether it takes two --kernel-id
// (benchmarks/profile_dedup_onerun_gpu.sh). The order, as "function<N> grid":
//    0 alpha 8    1 beta 8      2 widen<1> 8   3 widen<2> 8    4 alpha 16   5 alpha 8
//    6 beta 8     7 widen<1> 16 8 widen<2> 8   9 alpha 8      10 widen<1> 8 11 beta 16
#include <cstdio>
#include <cuda_runtime.h>

__global__ void alpha(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }
__global__ void beta(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }
template <int N>
__global__ void widen(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] += N; }

int main() {
  float *x = nullptr;
  if (cudaMalloc(&x, 16 * 128 * sizeof(float)) != cudaSuccess) return 90;
  cudaMemset(x, 0, 16 * 128 * sizeof(float));
  alpha<<<8, 128>>>(x);
  beta<<<8, 128>>>(x);
  widen<1><<<8, 128>>>(x);
  widen<2><<<8, 128>>>(x);
  alpha<<<16, 128>>>(x);
  alpha<<<8, 128>>>(x);
  beta<<<8, 128>>>(x);
  widen<1><<<16, 128>>>(x);
  widen<2><<<8, 128>>>(x);
  alpha<<<8, 128>>>(x);
  widen<1><<<8, 128>>>(x);
  beta<<<16, 128>>>(x);
  if (cudaDeviceSynchronize() != cudaSuccess) return 91;
  cudaFree(x);
  printf("ncu_filters: 12 launches\n");
  return 0;
}
