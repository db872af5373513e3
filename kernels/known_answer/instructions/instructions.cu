// Known-answer kernels for the instruction roofline (Ding & Williams, "An Instruction
// Roofline Model for GPUs", PMBS'19): each kernel's memory access pattern is fixed by
// construction, and each is straight-line code (no loop, no branch, no bounds check:
// the grid covers the arrays exactly), so every SASS instruction up to EXIT runs
// exactly once per warp and every lane of every warp is active.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o instructions instructions.cu
// Run:   ./instructions launches.json   (runs every kernel once, checks every result
//        on the host, and writes each kernel's launch shape and parameters)
// Then:  python3 expected.py launches.json instructions.sass > expected.json
//        derives the expected counts from those parameters and the SASS
//        (cuobjdump -sass), before any profile is taken.
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

constexpr int kBlock = 256;             // threads per block: 8 warps
constexpr unsigned kThreads = 1u << 24;  // one element per thread; 64 MiB per float array
constexpr unsigned kStride = 32;         // floats between lanes in copy_stride32 (128 B)
constexpr int kIntSteps = 64;            // multiply-add-xor steps in int_chain
constexpr unsigned kIntMul = 2654435761u, kIntAdd = 12345u;

// ---- global memory: one 4-byte load and one 4-byte store per thread ------------------
__global__ void copy_unit(const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i];  // unit stride: a warp's 32 loads touch 4 sectors
}

__global__ void copy_stride32(const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[(size_t)i * kStride];  // 128 B apart: one sector per lane, 32 per warp
}

__global__ void copy_broadcast(const float* x, float* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[blockIdx.x];  // stride 0: every lane reads one word, one sector per warp
}

// ---- shared memory: one 4-byte store and one 4-byte load per thread ------------------
__global__ void shared_unit(const float* x, float* y) {
  __shared__ float s[kBlock];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = x[i];  // lane k -> bank k: one wavefront per warp
  __syncthreads();
  y[i] = s[(threadIdx.x + 32) % kBlock];  // the next warp's words, still one bank per lane
}

__global__ void shared_conflict32(const float* x, float* y) {
  __shared__ float s[32 * 32];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  s[lane * 32 + warp] = x[i];  // every lane in bank `warp`, 32 addresses: 32 wavefronts
  __syncthreads();
  y[i] = s[lane * 32 + (warp + 1) % (kBlock / 32)];  // again 32 lanes in one bank
}

// ---- integer only: no floating-point instruction at all ------------------------------
__global__ void int_chain(unsigned mul, unsigned add, unsigned* y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i;
#pragma unroll
  for (int k = 0; k < kIntSteps; ++k) {
    v = v * mul + add;
    v ^= v >> 13;
  }
  y[i] = v;
}

static void fail(const char* what) {
  fprintf(stderr, "instructions: wrong result in %s\n", what);
  exit(1);
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "launches.json";
  const unsigned grid = kThreads / kBlock;
  const size_t strided = (size_t)kThreads * kStride;
  std::vector<float> hx(strided);
  for (size_t k = 0; k < strided; ++k) hx[k] = (float)(k % 8191);
  float *x, *y;
  CHECK(cudaMalloc(&x, strided * sizeof(float)));
  CHECK(cudaMalloc(&y, kThreads * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), strided * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> hy(kThreads);
  auto fetch = [&]() {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hy.data(), y, kThreads * sizeof(float), cudaMemcpyDeviceToHost));
  };

  copy_unit<<<grid, kBlock>>>(x, y);
  fetch();
  for (unsigned i = 0; i < kThreads; ++i) if (hy[i] != hx[i]) fail("copy_unit");
  copy_stride32<<<grid, kBlock>>>(x, y);
  fetch();
  for (unsigned i = 0; i < kThreads; ++i) if (hy[i] != hx[(size_t)i * kStride]) fail("copy_stride32");
  copy_broadcast<<<grid, kBlock>>>(x, y);
  fetch();
  for (unsigned i = 0; i < kThreads; ++i) if (hy[i] != hx[i / kBlock]) fail("copy_broadcast");
  shared_unit<<<grid, kBlock>>>(x, y);
  fetch();
  for (unsigned i = 0; i < kThreads; ++i) {
    unsigned t = i % kBlock, base = i - t;
    if (hy[i] != hx[base + (t + 32) % kBlock]) fail("shared_unit");
  }
  shared_conflict32<<<grid, kBlock>>>(x, y);
  fetch();
  for (unsigned i = 0; i < kThreads; ++i) {
    unsigned t = i % kBlock, base = i - t, lane = t % 32, warp = t / 32;
    if (hy[i] != hx[base + ((warp + 1) % (kBlock / 32)) * 32 + lane]) fail("shared_conflict32");
  }
  unsigned* yi = reinterpret_cast<unsigned*>(y);
  int_chain<<<grid, kBlock>>>(kIntMul, kIntAdd, yi);
  fetch();
  const unsigned* hyi = reinterpret_cast<const unsigned*>(hy.data());
  for (unsigned i = 0; i < kThreads; ++i) {
    unsigned v = i;
    for (int k = 0; k < kIntSteps; ++k) { v = v * kIntMul + kIntAdd; v ^= v >> 13; }
    if (hyi[i] != v) fail("int_chain");
  }

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  FILE* f = fopen(out, "w");
  if (!f) { perror(out); return 1; }
  fprintf(f,
          "{\"device\": \"%s\", \"cc\": \"%d.%d\", \"grid\": %u, \"block\": %d, \"threads\": %u,\n"
          " \"stride\": %u, \"int_steps\": %d, \"element_bytes\": %zu,\n"
          " \"kernels\": [\"copy_unit\", \"copy_stride32\", \"copy_broadcast\", \"shared_unit\",\n"
          "             \"shared_conflict32\", \"int_chain\"]}\n",
          prop.name, prop.major, prop.minor, grid, kBlock, kThreads, kStride, kIntSteps, sizeof(float));
  fclose(f);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  printf("instructions: 6 kernels checked on %s, launch parameters in %s\n", prop.name, out);
  return 0;
}
