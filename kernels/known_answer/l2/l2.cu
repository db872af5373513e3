// Known-answer kernels for the L2 level (how many bytes cross between L1 and L2): each
// kernel's global traffic is fixed by construction, at two footprints, one well inside
// the H200's 60 MiB L2 and one well beyond it. Every access is unit stride and 4 bytes
// per lane, so a warp's request covers 4 whole 32-byte sectors, no two warps touch the
// same sector, and the grid covers each array exactly (no bounds check, no tail).
//   read_sum:  reads n floats once; one store per block (grid sectors written)
//   fill:      writes n floats; reads nothing
//   copy:      reads n floats, writes n floats
//   reread_cg: reads a buffer of n floats kReps times with ld.global.cg (cached in L2
//              only, so every load reaches L2: hits once the buffer is there), writes n
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o l2 l2.cu
// Run:   ./l2 launches.json  (runs each kernel once per footprint, checks every result on
//        the host, writes the launch parameters); expected.py derives the sectors from them.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,               \
              cudaGetErrorString(err_));                                         \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

constexpr int kBlock = 256;
constexpr int kReps = 16;                   // passes of reread_cg over its buffer
constexpr unsigned kSmall = 1u << 21;       // 8 MiB per array: inside the 60 MiB L2
constexpr unsigned kLarge = 1u << 27;       // 512 MiB per array: 8.5x the L2

__global__ void read_sum(const float* x, float* out) {
  __shared__ float partial[kBlock / 32];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < kBlock / 32; ++w) s += partial[w];
    out[blockIdx.x] = s;  // one 4-byte store per block: one sector per request
  }
}

__global__ void fill(float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = (float)(i % 8191);
}

__global__ void copy(const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];
}

__global__ void reread_cg(const float* x, float* y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kReps; ++k) {
    // pass k reads the buffer rotated by k * n / kReps (a multiple of 32 floats): still
    // one whole sector per 8 lanes, a different address every pass (nothing to hoist)
    acc += __ldcg(x + ((i + k * (n / kReps)) & (n - 1)));
  }
  y[i] = acc;
}

static void fail(const char* what, unsigned n) {
  fprintf(stderr, "l2: wrong result in %s (n=%u)\n", what, n);
  exit(1);
}

static void run(unsigned n, float* x, float* y, std::vector<float>& hx, std::vector<float>& hy) {
  const unsigned grid = n / kBlock;
  auto fetch = [&](unsigned count) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hy.data(), y, count * sizeof(float), cudaMemcpyDeviceToHost));
  };
  read_sum<<<grid, kBlock>>>(x, y);
  fetch(grid);
  for (unsigned b = 0; b < grid; ++b) {
    double s = 0;  // the values are integers below 8191: the float sum is exact
    for (unsigned t = 0; t < kBlock; ++t) s += hx[b * kBlock + t];
    if (hy[b] != (float)s) fail("read_sum", n);
  }
  fill<<<grid, kBlock>>>(y);
  fetch(n);
  for (unsigned i = 0; i < n; ++i) if (hy[i] != (float)(i % 8191)) fail("fill", n);
  copy<<<grid, kBlock>>>(x, y);
  fetch(n);
  for (unsigned i = 0; i < n; ++i) if (hy[i] != hx[i]) fail("copy", n);
  reread_cg<<<grid, kBlock>>>(x, y, n);
  fetch(n);
  for (unsigned i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int k = 0; k < kReps; ++k) acc += hx[(i + k * (n / kReps)) & (n - 1)];
    if (hy[i] != acc) fail("reread_cg", n);
  }
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "launches.json";
  std::vector<float> hx(kLarge), hy(kLarge);
  for (unsigned k = 0; k < kLarge; ++k) hx[k] = (float)(k % 8191);
  float *x, *y;
  CHECK(cudaMalloc(&x, kLarge * sizeof(float)));
  CHECK(cudaMalloc(&y, kLarge * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), kLarge * sizeof(float), cudaMemcpyHostToDevice));
  run(kSmall, x, y, hx, hy);
  run(kLarge, x, y, hx, hy);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  FILE* f = fopen(out, "w");
  if (!f) { perror(out); return 1; }
  fprintf(f,
          "{\"device\": \"%s\", \"cc\": \"%d.%d\", \"l2_bytes\": %d, \"block\": %d, \"reps\": %d,\n"
          " \"element_bytes\": %zu, \"sizes\": [%u, %u],\n"
          " \"kernels\": [\"read_sum\", \"fill\", \"copy\", \"reread_cg\"]}\n",
          prop.name, prop.major, prop.minor, prop.l2CacheSize, kBlock, kReps, sizeof(float), kSmall, kLarge);
  fclose(f);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  printf("l2: 4 kernels x 2 sizes checked on %s, launch parameters in %s\n", prop.name, out);
  return 0;
}
