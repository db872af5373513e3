// Known-answer kernels: each one's floating-point operations and bytes are fixed
// by construction, so a profile of them pins rooftui's metric formulas.
//
// Build: nvcc -O3 -arch=sm_90 -o known_answer known_answer.cu
// Run:   ./known_answer expected.json   (runs every kernel once, checks every
//        result on the host, and writes the known answers to expected.json)
//
// Conventions: an FMA is 2 FLOPs; a Tensor Core m×n×k product is 2·m·n·k FLOPs.
// Every kernel launches exactly one thread per unit of work (no tails, no
// predicated-off lanes), so per-thread counts multiply out exactly.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace nvcuda;

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
constexpr long kStreamN = 1L << 24;    // elements in the streaming kernels
constexpr int kLoopThreads = 1 << 20;  // threads in the register-only FMA loops
constexpr int kLoopIters = 256;        // iterations per thread
constexpr int kChains = 8;             // independent FMA chains per iteration
constexpr int kRereadSlice = 1024;     // floats each block re-reads (4 KiB, L1 resident)
constexpr int kRereadIters = 512;      // loads per thread
constexpr int kRereadThreads = 1 << 18;

// ---- streaming kernels: one element per thread --------------------------------
__global__ void daxpy(long n, double a, const double* x, double* y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  y[i] = fma(a, x[i], y[i]);  // 1 DFMA = 2 FLOPs; reads 16 B, writes 8 B
}

__global__ void saxpy(long n, float a, const float* x, float* y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  y[i] = fmaf(a, x[i], y[i]);  // 1 FFMA = 2 FLOPs; reads 8 B, writes 4 B
}

__global__ void add_mul(long n, const float* x, const float* y, float* z) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  // _rn intrinsics forbid contraction into an FMA: exactly 1 FADD + 1 FMUL.
  z[i] = __fmul_rn(__fadd_rn(x[i], y[i]), x[i]);
}

__global__ void copy_f32(long n, const float* x, float* y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  y[i] = x[i];  // zero-AI: no floating-point operation at all
}

// ---- register-only FMA loops: kLoopIters × kChains FMAs per thread --------------
template <typename T>
__device__ T fma_op(T a, T b, T c);
template <> __device__ float fma_op(float a, float b, float c) { return fmaf(a, b, c); }
template <> __device__ double fma_op(double a, double b, double c) { return fma(a, b, c); }
template <> __device__ __half2 fma_op(__half2 a, __half2 b, __half2 c) { return __hfma2(a, b, c); }
template <> __device__ __half fma_op(__half a, __half b, __half c) { return __hfma(a, b, c); }
template <> __device__ __nv_bfloat162 fma_op(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return __hfma2(a, b, c);  // HFMA2.BF16: two BF16 FMAs
}

template <typename T>
__global__ void fma_loop(T mul, T add, T* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  T acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = out[t * kChains + c];
  for (int i = 0; i < kLoopIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fma_op(acc[c], mul, add);
  }
#pragma unroll
  for (int c = 0; c < kChains; ++c) out[t * kChains + c] = acc[c];
}

// ---- cache-resident re-read: each block re-reads its own 4 KiB slice ------------
__global__ void reread_l1(const float* __restrict__ x, float* out) {
  const float* slice = x + (blockIdx.x % 64) * kRereadSlice;
  float acc = 0.0f;
  for (int i = 0; i < kRereadIters; ++i) {
    // A different, warp-coalesced address each iteration: nothing to hoist.
    acc = __fadd_rn(acc, slice[(threadIdx.x + i * 32) % kRereadSlice]);  // 1 FADD per load
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---- WMMA GEMMs: one warp per output tile, A row-major, B column-major -----------
template <typename In, typename Acc, int M, int N, int K, typename Frag>
__device__ void wmma_tile(int dim, const In* a, const In* b, Acc* c) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = dim / N;
  int row = (warp / tiles_n) * M, col = (warp % tiles_n) * N;
  wmma::fragment<wmma::matrix_a, M, N, K, Frag, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, Frag, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
  wmma::fill_fragment(fc, Acc(0));
  for (int k = 0; k < dim; k += K) {
    wmma::load_matrix_sync(fa, a + row * (long)dim + k, dim);
    wmma::load_matrix_sync(fb, b + col * (long)dim + k, dim);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c + row * (long)dim + col, fc, dim, wmma::mem_row_major);
}

// Named kernels so each product has a readable name in the report.
__global__ void wmma_gemm(int d, const __half* a, const __half* b, float* c) {
  wmma_tile<__half, float, 16, 16, 16, __half>(d, a, b, c);
}
__global__ void wmma_gemm_bf16(int d, const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  wmma_tile<__nv_bfloat16, float, 16, 16, 16, __nv_bfloat16>(d, a, b, c);
}
__global__ void wmma_gemm_tf32(int d, const float* a, const float* b, float* c) {
  wmma_tile<float, float, 16, 16, 8, wmma::precision::tf32>(d, a, b, c);
}
__global__ void wmma_gemm_fp64(int d, const double* a, const double* b, double* c) {
  wmma_tile<double, double, 8, 8, 4, double>(d, a, b, c);
}
__global__ void wmma_gemm_int8(int d, const signed char* a, const signed char* b, int* c) {
  wmma_tile<signed char, int, 16, 16, 16, signed char>(d, a, b, c);
}

// ---- host side ------------------------------------------------------------------
struct Answer {
  std::string name, pipeline;
  double flops_fp64 = 0, flops_fp32 = 0, flops_fp16 = 0, tensor = 0;
  double bytes_min = 0;  // fewest bytes the kernel must move through HBM
  double bytes_l1 = -1;  // exact L1 request bytes where construction fixes them
};
static std::vector<Answer> answers;

static void fail(const char* what) {
  fprintf(stderr, "known_answer: wrong result in %s\n", what);
  exit(1);
}

template <typename T>
static T* device_copy(const std::vector<T>& h) {
  T* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
static std::vector<T> host_copy(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
static float rnd(unsigned& s) {  // small exact values in [-2, 2], never all zero
  s = s * 1664525u + 1013904223u;
  return (float)((int)((s >> 16) % 9) - 4) * 0.5f;
}

static void run_streaming() {
  const long n = kStreamN;
  const int grid = (int)(n / kBlock);
  unsigned s = 1;
  std::vector<double> hx(n), hy(n);
  std::vector<float> fx(n), fy(n);
  for (long i = 0; i < n; ++i) { hx[i] = rnd(s); hy[i] = rnd(s); fx[i] = rnd(s); fy[i] = rnd(s); }

  double *dx = device_copy(hx), *dy = device_copy(hy);
  daxpy<<<grid, kBlock>>>(n, 3.0, dx, dy); CHECK_LAUNCH();
  auto ry = host_copy(dy, n);
  for (long i = 0; i < n; i += 4099) if (ry[i] != 3.0 * hx[i] + hy[i]) fail("daxpy");
  answers.push_back({"daxpy", "fp64", 2.0 * n, 0, 0, 0, 24.0 * n});
  CHECK(cudaFree(dx)); CHECK(cudaFree(dy));

  float *sx = device_copy(fx), *sy = device_copy(fy), *sz;
  CHECK(cudaMalloc(&sz, n * sizeof(float)));
  saxpy<<<grid, kBlock>>>(n, 3.0f, sx, sy); CHECK_LAUNCH();
  auto rs = host_copy(sy, n);
  for (long i = 0; i < n; i += 4099) if (rs[i] != 3.0f * fx[i] + fy[i]) fail("saxpy");
  answers.push_back({"saxpy", "fp32", 0, 2.0 * n, 0, 0, 12.0 * n});

  add_mul<<<grid, kBlock>>>(n, sx, sy, sz); CHECK_LAUNCH();
  auto rz = host_copy(sz, n);
  for (long i = 0; i < n; i += 4099) if (rz[i] != (fx[i] + rs[i]) * fx[i]) fail("add_mul");
  answers.push_back({"add_mul", "fp32", 0, 2.0 * n, 0, 0, 12.0 * n});

  copy_f32<<<grid, kBlock>>>(n, sx, sz); CHECK_LAUNCH();
  auto rc = host_copy(sz, n);
  for (long i = 0; i < n; i += 4099) if (rc[i] != fx[i]) fail("copy_f32");
  answers.push_back({"copy_f32", "none", 0, 0, 0, 0, 8.0 * n});
  CHECK(cudaFree(sx)); CHECK(cudaFree(sy)); CHECK(cudaFree(sz));
}

template <typename T>
static void run_fma_loop(const char* name, const char* pipeline, T mul, T add, T start,
                         double flops_per_fma, int which) {
  const long values = (long)kLoopThreads * kChains;
  std::vector<T> h(values, start);
  T* d = device_copy(h);
  fma_loop<T><<<kLoopThreads / kBlock, kBlock>>>(mul, add, d); CHECK_LAUNCH();
  auto r = host_copy(d, values);
  // Every chain ran the same recurrence; all values must agree and differ from start.
  double first, init;
  if constexpr (std::is_same_v<T, __half2>) { first = __low2float(r[0]); init = __low2float(start); }
  else if constexpr (std::is_same_v<T, __nv_bfloat162>) { first = __low2float(r[0]); init = __low2float(start); }
  else if constexpr (std::is_same_v<T, __half>) { first = __half2float(r[0]); init = __half2float(start); }
  else { first = (double)r[0]; init = (double)start; }
  if (first == init || !std::isfinite(first)) fail(name);
  for (long i = 0; i < values; i += 997) {
    double v;
    if constexpr (std::is_same_v<T, __half2>) v = __high2float(r[i]);
    else if constexpr (std::is_same_v<T, __nv_bfloat162>) v = __high2float(r[i]);
    else if constexpr (std::is_same_v<T, __half>) v = __half2float(r[i]);
    else v = (double)r[i];
    if (v != first) fail(name);
  }
  double fmas = (double)kLoopThreads * kLoopIters * kChains;
  Answer a{name, pipeline};
  double flops = fmas * flops_per_fma;
  if (which == 64) a.flops_fp64 = flops; else if (which == 32) a.flops_fp32 = flops; else a.flops_fp16 = flops;
  a.bytes_min = 2.0 * values * sizeof(T);  // each value read once and written once
  answers.push_back(a);
  CHECK(cudaFree(d));
}

static void run_reread() {
  const int threads = kRereadThreads;
  std::vector<float> h(64 * kRereadSlice);
  unsigned s = 7;
  for (auto& v : h) v = rnd(s);
  float* dx = device_copy(h);
  float* dout;
  CHECK(cudaMalloc(&dout, threads * sizeof(float)));
  reread_l1<<<threads / kBlock, kBlock>>>(dx, dout); CHECK_LAUNCH();
  auto r = host_copy(dout, threads);
  for (int t = 0; t < threads; t += 1021) {
    int b = t / kBlock, tid = t % kBlock;
    float acc = 0.0f;
    for (int i = 0; i < kRereadIters; ++i) acc += h[(b % 64) * kRereadSlice + (tid + i * 32) % kRereadSlice];
    if (r[t] != acc) fail("reread_l1");
  }
  Answer a{"reread_l1", "fp32"};
  a.flops_fp32 = (double)threads * kRereadIters;
  a.bytes_min = 4.0 * threads + 4.0 * 64 * kRereadSlice;
  // Each warp-wide 4-byte load is coalesced into 128 B (4 sectors); plus one 4-byte store a thread.
  a.bytes_l1 = 4.0 * threads * kRereadIters + 4.0 * threads;
  answers.push_back(a);
  CHECK(cudaFree(dx)); CHECK(cudaFree(dout));
}

template <typename In, typename Acc, int M, int N>
static void run_gemm(const char* name, const char* pipeline, int dim,
                     void (*kernel)(int, const In*, const In*, Acc*), double tolerance) {
  const long nn = (long)dim * dim;
  unsigned s = 11;
  std::vector<In> ha(nn), hb(nn);
  std::vector<float> fa(nn), fb(nn);
  for (long i = 0; i < nn; ++i) {
    fa[i] = (float)((int)rnd(s));  // integers in [-2, 2]: exact in every input type
    fb[i] = (float)((int)rnd(s));
    ha[i] = (In)fa[i];
    hb[i] = (In)fb[i];
  }
  In *da = device_copy(ha), *db = device_copy(hb);
  Acc* dc;
  CHECK(cudaMalloc(&dc, nn * sizeof(Acc)));
  CHECK(cudaMemset(dc, 0xff, nn * sizeof(Acc)));  // poison: every element must be written
  const long warps = nn / (M * N);
  kernel<<<(int)(warps * 32 / 128), 128>>>(dim, da, db, dc); CHECK_LAUNCH();
  auto rc = host_copy(dc, nn);
  for (int probe = 0; probe < 64; ++probe) {
    long row = (probe * 2654435761u) % dim, col = (probe * 40503u + 17) % dim;
    double ref = 0;
    for (int k = 0; k < dim; ++k) ref += (double)fa[row * dim + k] * fb[col * dim + k];
    if (std::fabs((double)rc[row * dim + col] - ref) > tolerance) fail(name);
  }
  Answer a{name, pipeline};
  a.tensor = 2.0 * dim * dim * (double)dim;
  a.bytes_min = 2.0 * nn * sizeof(In) + nn * sizeof(Acc);
  answers.push_back(a);
  CHECK(cudaFree(da)); CHECK(cudaFree(db)); CHECK(cudaFree(dc));
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "expected.json";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));

  run_streaming();
  run_fma_loop<double>("fma_loop<double>", "fp64", 1.0000001, 1e-9, 1.0, 2.0, 64);
  run_fma_loop<float>("fma_loop<float>", "fp32", 1.0001f, 1e-6f, 1.0f, 2.0, 32);
  // HFMA2 does two FMAs per instruction (4 FLOPs); scalar HFMA one (2 FLOPs).
  run_fma_loop<__half2>("fma_loop<__half2>", "fp16", __floats2half2_rn(0.999f, 0.999f),
                        __floats2half2_rn(0.001f, 0.001f), __floats2half2_rn(0.5f, 0.5f), 4.0, 16);
  run_fma_loop<__half>("fma_loop<__half>", "fp16", __float2half(0.999f), __float2half(0.001f),
                       __float2half(0.5f), 2.0, 16);
  // BF16 on CUDA cores: rooftui counts it with FP16 (ncu's hfma counter takes HFMA2.BF16).
  run_fma_loop<__nv_bfloat162>("fma_loop<__nv_bfloat162>", "fp16", __floats2bfloat162_rn(0.75f, 0.75f),
                               __floats2bfloat162_rn(0.125f, 0.125f), __floats2bfloat162_rn(2.0f, 2.0f),
                               4.0, 16);
  run_reread();
  run_gemm<__half, float, 16, 16>("wmma_gemm", "tensor_fp16", 4096, wmma_gemm, 0.0);
  run_gemm<__nv_bfloat16, float, 16, 16>("wmma_gemm_bf16", "tensor_bf16", 1024, wmma_gemm_bf16, 0.0);
  run_gemm<float, float, 16, 16>("wmma_gemm_tf32", "tensor_tf32", 1024, wmma_gemm_tf32, 0.0);
  run_gemm<double, double, 8, 8>("wmma_gemm_fp64", "tensor_fp64", 1024, wmma_gemm_fp64, 0.0);
  run_gemm<signed char, int, 16, 16>("wmma_gemm_int8", "tensor_int8", 1024, wmma_gemm_int8, 0.0);

  FILE* f = fopen(out, "w");
  if (!f) { perror(out); return 1; }
  fprintf(f, "{\n  \"device\": \"%s\",\n  \"cc\": \"%d.%d\",\n  \"kernels\": [\n", prop.name,
          prop.major, prop.minor);
  for (size_t i = 0; i < answers.size(); ++i) {
    const Answer& a = answers[i];
    fprintf(f,
            "    {\"name\": \"%s\", \"pipeline\": \"%s\", \"flops_fp64\": %.0f, \"flops_fp32\": %.0f, "
            "\"flops_fp16\": %.0f, \"flops_tensor\": %.0f, \"bytes_hbm_min\": %.0f, \"bytes_l1\": %.0f}%s\n",
            a.name.c_str(), a.pipeline.c_str(), a.flops_fp64, a.flops_fp32, a.flops_fp16, a.tensor,
            a.bytes_min, a.bytes_l1, i + 1 < answers.size() ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);
  printf("known_answer: %zu kernels checked on %s, answers in %s\n", answers.size(), prop.name, out);
  return 0;
}
