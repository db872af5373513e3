// A small FP32 kernel for counting ncu's replay passes per metric set, and for
// rooftui profile's exit-code and Ctrl-C paths on a real GPU (tests/profile/gpu_check.sh).
//   pass_probe LAUNCHES EXIT_CODE   launches the kernel LAUNCHES times, then exits
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void probe_fma(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    for (int k = 0; k < 64; ++k) v = v * 0.999f + 0.001f;
    x[i] = v;
  }
}

int main(int argc, char **argv) {
  long launches = argc > 1 ? atol(argv[1]) : 1;
  int exit_code = argc > 2 ? atoi(argv[2]) : 0;
  const int n = 1 << 20;
  float *x = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess) return 90;
  cudaMemset(x, 0, n * sizeof(float));
  for (long i = 0; i < launches; ++i) probe_fma<<<n / 256, 256>>>(x, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 91;
  cudaFree(x);
  printf("pass_probe: %ld launches\n", launches);
  return exit_code;
}
