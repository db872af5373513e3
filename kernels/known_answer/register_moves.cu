// Known-answer kernels for the HFMA2.MMA register-move idiom (issue 11, item 5).
//
// ptxas materialises 32-bit constants with `HFMA2.MMA Rd, -RZ, RZ, imm_hi, imm_lo`
// (-0·0 + the two halves of the constant), and ncu's
// smsp__sass_thread_inst_executed_op_hfma_pred_on counts each one as an FP16 FMA.
// Real __hfma2 math is issued as `HFMA2.MMA Rd, Ra, Rb, Rc` on the same pipe, so no
// pipe counter separates the two; only the SASS does. These kernels fix both counts
// by construction:
//   moves_fp32      FP32 FMA chains started from distinct constants: FP32 math, no FP16 math
//   moves_fp64      the same in FP64 (each double constant is two 32-bit halves)
//   math_hfma2      __hfma2 chains started from memory: FP16 math only
//   moves_and_math  both in one kernel: constant-started FP32 chains and __hfma2 chains
// Which instructions ptxas actually emitted is read off `cuobjdump -sass` of the build
// (sample_data/register_moves/register_moves.sass.xz); the FLOPs below do not depend on it.
//
// Build: nvcc -O3 -arch=sm_90 -o register_moves register_moves.cu
// Run:   ./register_moves expected.json   (runs every kernel once, checks every
//        result on the host, and writes the known answers to expected.json)
// Conventions as in known_answer.cu: an FMA is 2 FLOPs, an HFMA2 (two FMAs) 4;
// exactly one thread per unit of work, no tails.
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
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
#define CHECK_LAUNCH() CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize())

constexpr int kBlock = 256;
constexpr int kThreads = 1 << 20;
constexpr int kIters = 256;
constexpr int kConstChains = 16;  // FP32/FP64 chains started from constants
constexpr int kHalfChains = 8;    // __half2 chains started from memory
constexpr int kMixHalfChains = 16;  // __half2 chains in moves_and_math: 64 FP16 FLOPs an iteration vs 32 FP32

// Chain c starts at 1 + c/64: exact in float and double, distinct per chain, and
// known at compile time, so ptxas must put each one in a register.
__host__ __device__ constexpr float start_value(int c) { return 1.0f + c / 64.0f; }

template <typename T>
__device__ void moves_loop(T mul, T add, T* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  T acc[kConstChains];
#pragma unroll
  for (int c = 0; c < kConstChains; ++c) acc[c] = (T)start_value(c);
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kConstChains; ++c) acc[c] = fma(acc[c], mul, add);  // 1 FFMA/DFMA
  }
#pragma unroll
  for (int c = 0; c < kConstChains; ++c) out[t * kConstChains + c] = acc[c];
}

__global__ void moves_fp32(float mul, float add, float* out) { moves_loop<float>(mul, add, out); }
__global__ void moves_fp64(double mul, double add, double* out) { moves_loop<double>(mul, add, out); }

__global__ void math_hfma2(__half2 mul, __half2 add, __half2* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 acc[kHalfChains];
#pragma unroll
  for (int c = 0; c < kHalfChains; ++c) acc[c] = out[t * kHalfChains + c];
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kHalfChains; ++c) acc[c] = __hfma2(acc[c], mul, add);  // 1 HFMA2 = 4 FLOPs
  }
#pragma unroll
  for (int c = 0; c < kHalfChains; ++c) out[t * kHalfChains + c] = acc[c];
}

__global__ void moves_and_math(float mul, float add, __half2 hmul, __half2 hadd, float* out,
                               __half2* hout) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[kConstChains];
  __half2 hacc[kMixHalfChains];
#pragma unroll
  for (int c = 0; c < kConstChains; ++c) acc[c] = start_value(c);
#pragma unroll
  for (int c = 0; c < kMixHalfChains; ++c) hacc[c] = hout[t * kMixHalfChains + c];
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kConstChains; ++c) acc[c] = fmaf(acc[c], mul, add);
#pragma unroll
    for (int c = 0; c < kMixHalfChains; ++c) hacc[c] = __hfma2(hacc[c], hmul, hadd);
  }
#pragma unroll
  for (int c = 0; c < kConstChains; ++c) out[t * kConstChains + c] = acc[c];
#pragma unroll
  for (int c = 0; c < kMixHalfChains; ++c) hout[t * kMixHalfChains + c] = hacc[c];
}

// ---- host side ------------------------------------------------------------------
struct Answer {
  std::string name, pipeline;
  double flops_fp64 = 0, flops_fp32 = 0, flops_fp16 = 0;
};
static std::vector<Answer> answers;

static void fail(const char* what) {
  fprintf(stderr, "register_moves: wrong result in %s\n", what);
  exit(1);
}

// Every thread's chain c must equal the host's recurrence from start_value(c)
// (fma/fmaf are correctly rounded on both sides, so the match is exact).
template <typename T>
static void check_const_chains(const char* name, const std::vector<T>& r, T mul, T add) {
  for (int c = 0; c < kConstChains; ++c) {
    T want = (T)start_value(c);
    for (int i = 0; i < kIters; ++i) want = std::fma(want, mul, add);
    for (long t = 0; t < kThreads; t += 4093)
      if (r[t * kConstChains + c] != want) fail(name);
  }
}

// __half2 chains all start at the same value: every lane must agree and have moved.
static void check_half_chains(const char* name, const std::vector<__half2>& r, float start) {
  float first = __low2float(r[0]);
  if (first == start || !std::isfinite(first)) fail(name);
  for (long i = 0; i < (long)r.size(); i += 997)
    if (__low2float(r[i]) != first || __high2float(r[i]) != first) fail(name);
}

template <typename T>
static std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static __half2* half_chains(float start, int chains) {
  std::vector<__half2> h((long)kThreads * chains, __floats2half2_rn(start, start));
  __half2* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(__half2)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(__half2), cudaMemcpyHostToDevice));
  return d;
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "expected.json";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int grid = kThreads / kBlock;
  const double const_fmas = (double)kThreads * kIters * kConstChains;
  const double half_fmas = (double)kThreads * kIters * kHalfChains;  // HFMA2 instructions
  const double mix_half_fmas = (double)kThreads * kIters * kMixHalfChains;
  const long const_values = (long)kThreads * kConstChains;

  float* f;
  CHECK(cudaMalloc(&f, const_values * sizeof(float)));
  moves_fp32<<<grid, kBlock>>>(1.0001f, 1e-6f, f); CHECK_LAUNCH();
  check_const_chains<float>("moves_fp32", host_copy(f, const_values), 1.0001f, 1e-6f);
  answers.push_back({"moves_fp32", "fp32", 0, 2 * const_fmas, 0});

  double* d;
  CHECK(cudaMalloc(&d, const_values * sizeof(double)));
  moves_fp64<<<grid, kBlock>>>(1.0000001, 1e-9, d); CHECK_LAUNCH();
  check_const_chains<double>("moves_fp64", host_copy(d, const_values), 1.0000001, 1e-9);
  answers.push_back({"moves_fp64", "fp64", 2 * const_fmas, 0, 0});

  const __half2 hmul = __floats2half2_rn(0.999f, 0.999f), hadd = __floats2half2_rn(0.001f, 0.001f);
  __half2* h = half_chains(0.5f, kHalfChains);
  math_hfma2<<<grid, kBlock>>>(hmul, hadd, h); CHECK_LAUNCH();
  check_half_chains("math_hfma2", host_copy(h, (size_t)kThreads * kHalfChains), 0.5f);
  answers.push_back({"math_hfma2", "fp16", 0, 0, 4 * half_fmas});
  CHECK(cudaFree(h));

  h = half_chains(0.5f, kMixHalfChains);
  moves_and_math<<<grid, kBlock>>>(1.0001f, 1e-6f, hmul, hadd, f, h); CHECK_LAUNCH();
  check_const_chains<float>("moves_and_math", host_copy(f, const_values), 1.0001f, 1e-6f);
  check_half_chains("moves_and_math", host_copy(h, (size_t)kThreads * kMixHalfChains), 0.5f);
  answers.push_back({"moves_and_math", "fp16", 0, 2 * const_fmas, 4 * mix_half_fmas});
  CHECK(cudaFree(h)); CHECK(cudaFree(f)); CHECK(cudaFree(d));

  FILE* o = fopen(out, "w");
  if (!o) { perror(out); return 1; }
  fprintf(o, "{\n  \"device\": \"%s\",\n  \"cc\": \"%d.%d\",\n  \"kernels\": [\n", prop.name,
          prop.major, prop.minor);
  for (size_t i = 0; i < answers.size(); ++i) {
    const Answer& a = answers[i];
    fprintf(o,
            "    {\"name\": \"%s\", \"pipeline\": \"%s\", \"flops_fp64\": %.0f, \"flops_fp32\": %.0f, "
            "\"flops_fp16\": %.0f}%s\n",
            a.name.c_str(), a.pipeline.c_str(), a.flops_fp64, a.flops_fp32, a.flops_fp16,
            i + 1 < answers.size() ? "," : "");
  }
  fprintf(o, "  ]\n}\n");
  fclose(o);
  printf("register_moves: %zu kernels checked on %s, answers in %s\n", answers.size(), prop.name, out);
  return 0;
}
