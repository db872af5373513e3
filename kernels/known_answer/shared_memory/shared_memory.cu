// Shared-memory known-answer kernels: each one's shared-memory traffic is fixed by
// construction, so a profile of them says which ncu counters count which traffic.
//
// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o shared_memory shared_memory.cu
// Run:   ./shared_memory params.json   (runs every kernel once, checks every result on
//        the host, and writes each kernel's launch parameters to params.json;
//        expected.py turns those into bytes, independently of any profile)
//
// The kernels, and the shared-memory traffic each one makes by construction:
//   smem_words     each thread stores kWords 4-byte words (st.shared.u32) and loads
//                  kWords words written by another thread; no bank conflict
//   smem_vec4      the same bytes in 16-byte accesses (st/ld.shared.v4.u32)
//   smem_conflict  the same bytes as smem_words, every warp access bank-conflicted:
//                  lane l starts at word 32 l, so all lanes share banks. ptxas merges a
//                  thread's four consecutive words into one 16-byte access (SASS: STS.128,
//                  LDS.128), so each access is 32 wavefronts instead of smem_vec4's 4:
//                  bytes equal, wavefronts 8 times smem_words'
//   tma_bulk       the bulk copy engine (cp.async.bulk, Hopper's TMA, plain sm_90)
//                  writes kRounds chunks of kChunk bytes into shared memory per
//                  block; one thread loads one word of each chunk
//   wgmma_bf16     rooftui measure's own wgmma kernel (rooftui/measure/cuda/
//                  tensor_wgmma.cu): ordinary stores fill A, -A and B (12,288 bytes
//                  per block), then every m64n256k16 wgmma reads A (2,048 bytes) and
//                  B (8,192 bytes) from shared memory; WGMMA_UNROLL x trips + 1 per block
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../../rooftui/measure/cuda/tensor_wgmma.cu"

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)
#define CHECK_LAUNCH() CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize())

constexpr int kBlock = 256;     // threads per block, LSU kernels
constexpr int kGrid = 264;      // blocks, LSU kernels (2 per SM on a 132-SM H200)
constexpr int kWords = 32;      // 4-byte words each thread stores, then loads (32 KiB a block)
constexpr int kChunk = 32768;   // bytes per bulk copy
constexpr int kRounds = 16;     // bulk copies per block
constexpr int kTmaGrid = 132;
constexpr int kTmaBlock = 32;   // one warp; only lane 0 works
constexpr int kWgmmaGrid = 132;
constexpr int kWgmmaTrips = 64;

__device__ __forceinline__ unsigned int smem_address(const void* p) {
  return (unsigned int)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void st_u32(unsigned int a, unsigned int v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned int ld_u32(unsigned int a) {
  unsigned int v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}

// word i of thread t holds t * 1000 + i; thread t reads thread (t ^ 1)'s words.
extern "C" __global__ void __launch_bounds__(kBlock) smem_words(unsigned int* out) {
  __shared__ unsigned int s[kWords * kBlock];
  const unsigned int base = smem_address(s), t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < kWords; ++i) st_u32(base + 4u * (i * kBlock + t), t * 1000u + i);
  __syncthreads();
  unsigned int sum = 0;
#pragma unroll
  for (int i = 0; i < kWords; ++i) sum += ld_u32(base + 4u * (i * kBlock + (t ^ 1u)));
  out[blockIdx.x * kBlock + t] = sum;
}

extern "C" __global__ void __launch_bounds__(kBlock) smem_vec4(unsigned int* out) {
  __shared__ __align__(16) unsigned int s[kWords * kBlock];
  const unsigned int base = smem_address(s), t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < kWords / 4; ++i) {
    const unsigned int v = t * 1000u + 4u * i;
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(base + 16u * (i * kBlock + t)),
                 "r"(v), "r"(v + 1), "r"(v + 2), "r"(v + 3)
                 : "memory");
  }
  __syncthreads();
  unsigned int sum = 0;
#pragma unroll
  for (int i = 0; i < kWords / 4; ++i) {
    unsigned int a, b, c, d;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "r"(base + 16u * (i * kBlock + (t ^ 1u)))
                 : "memory");
    sum += a + b + c + d;
  }
  out[blockIdx.x * kBlock + t] = sum;
}

// Lane l of warp w uses words w*1024 + l*32 + i: all lanes of a warp access hit the same banks.
extern "C" __global__ void __launch_bounds__(kBlock) smem_conflict(unsigned int* out) {
  __shared__ unsigned int s[kWords * kBlock];
  const unsigned int base = smem_address(s), t = threadIdx.x;
  const unsigned int row = (t / 32u) * 1024u + (t % 32u) * 32u;
#pragma unroll
  for (int i = 0; i < kWords; ++i) st_u32(base + 4u * (row + i), t * 1000u + i);
  __syncthreads();
  const unsigned int other = ((t ^ 1u) / 32u) * 1024u + ((t ^ 1u) % 32u) * 32u;
  unsigned int sum = 0;
#pragma unroll
  for (int i = 0; i < kWords; ++i) sum += ld_u32(base + 4u * (other + i));
  out[blockIdx.x * kBlock + t] = sum;
}

// Lane 0 has the bulk copy engine write kRounds chunks into one shared buffer, waiting
// on an mbarrier for each, and loads word (r * 97) % (kChunk / 4) of chunk r.
extern "C" __global__ void __launch_bounds__(kTmaBlock) tma_bulk(const unsigned int* src, unsigned int* out) {
  __shared__ __align__(128) unsigned int buf[kChunk / 4];
  __shared__ __align__(8) unsigned long long bar;
  if (threadIdx.x != 0) return;
  const unsigned int buf_a = smem_address(buf), bar_a = smem_address(&bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_a) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  unsigned int sum = 0;
  for (int r = 0; r < kRounds; ++r) {
    const unsigned int* g = src + ((size_t)blockIdx.x * kRounds + r) * (kChunk / 4);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_a), "r"(kChunk)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            buf_a),
        "l"(g), "r"(kChunk), "r"(bar_a)
        : "memory");
    unsigned int done = 0;
    while (!done) {
      asm volatile(
          "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
          : "=r"(done)
          : "r"(bar_a), "r"((unsigned int)(r & 1))
          : "memory");
    }
    sum += ld_u32(buf_a + 4u * ((r * 97u) % (kChunk / 4)));
    // the next copy (async proxy) overwrites what this thread just read (generic proxy)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  out[blockIdx.x] = sum;
}

static void fail(const char* what) {
  fprintf(stderr, "shared_memory: wrong result in %s\n", what);
  exit(1);
}

static void run_lsu(unsigned int* d_out, std::vector<unsigned int>& h_out) {
  // Every thread t sums the kWords words of thread t ^ 1: (t^1)*1000*kWords + kWords*(kWords-1)/2.
  void (*kernels[])(unsigned int*) = {smem_words, smem_vec4, smem_conflict};
  const char* names[] = {"smem_words", "smem_vec4", "smem_conflict"};
  for (int k = 0; k < 3; ++k) {
    CHECK(cudaMemset(d_out, 0xFF, sizeof(unsigned int) * kGrid * kBlock));
    kernels[k]<<<kGrid, kBlock>>>(d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(unsigned int) * kGrid * kBlock, cudaMemcpyDeviceToHost));
    for (int b = 0; b < kGrid; ++b)
      for (unsigned int t = 0; t < kBlock; ++t)
        if (h_out[b * kBlock + t] != (t ^ 1u) * 1000u * kWords + kWords * (kWords - 1) / 2) fail(names[k]);
  }
}

static void run_tma() {
  const size_t words = (size_t)kTmaGrid * kRounds * (kChunk / 4);
  std::vector<unsigned int> h_src(words);
  for (size_t i = 0; i < words; ++i) h_src[i] = (unsigned int)(i * 2654435761u) >> 8;
  unsigned int *d_src, *d_out;
  CHECK(cudaMalloc(&d_src, words * 4));
  CHECK(cudaMalloc(&d_out, kTmaGrid * 4));
  CHECK(cudaMemcpy(d_src, h_src.data(), words * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xFF, kTmaGrid * 4));
  tma_bulk<<<kTmaGrid, kTmaBlock>>>(d_src, d_out);
  CHECK_LAUNCH();
  std::vector<unsigned int> h_out(kTmaGrid);
  CHECK(cudaMemcpy(h_out.data(), d_out, kTmaGrid * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < kTmaGrid; ++b) {
    unsigned int want = 0;
    for (int r = 0; r < kRounds; ++r)
      want += h_src[((size_t)b * kRounds + r) * (kChunk / 4) + (r * 97u) % (kChunk / 4)];
    if (h_out[b] != want) fail("tma_bulk");
  }
  CHECK(cudaFree(d_src));
  CHECK(cudaFree(d_out));
}

// The host side of tensor_wgmma.cu's check (rooftui/measure/kernels.py, wgmma_block_sum):
// with B all ones, a block's accumulators sum to 256 x the sum of A's 1,024 BF16 elements.
static void run_wgmma() {
  const int values[4] = {1, -1, 2, -2};
  long long a_sum = 0;
  for (unsigned int e = 0; e < A_TILE_BYTES / 2; ++e) a_sum += values[((e * 2654435761u) >> 13) & 3u];
  double* d_out;
  ClockStamp* d_stamps;
  CHECK(cudaMalloc(&d_out, sizeof(double) * kWgmmaGrid * WGMMA_THREADS));
  CHECK(cudaMalloc(&d_stamps, sizeof(ClockStamp) * kWgmmaGrid));
  wgmma_bf16<<<kWgmmaGrid, WGMMA_THREADS>>>(kWgmmaTrips, 128, 256, d_out, d_stamps);
  CHECK_LAUNCH();
  std::vector<double> h_out(kWgmmaGrid * WGMMA_THREADS);
  CHECK(cudaMemcpy(h_out.data(), d_out, sizeof(double) * h_out.size(), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kWgmmaGrid; ++b) {
    double total = 0;
    for (int t = 0; t < WGMMA_THREADS; ++t) total += h_out[b * WGMMA_THREADS + t];
    if (total != 256.0 * (double)a_sum) fail("wgmma_bf16");
  }
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_stamps));
}

int main(int argc, char** argv) {
  const char* out = argc > 1 ? argv[1] : "params.json";
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  unsigned int* d_out;
  CHECK(cudaMalloc(&d_out, sizeof(unsigned int) * kGrid * kBlock));
  std::vector<unsigned int> h_out(kGrid * kBlock);
  run_lsu(d_out, h_out);
  CHECK(cudaFree(d_out));
  run_tma();
  run_wgmma();
  FILE* f = fopen(out, "w");
  if (!f) { perror(out); return 1; }
  fprintf(f,
          "{\n  \"device\": \"%s\",\n  \"cc\": \"%d.%d\",\n"
          "  \"lsu\": {\"grid\": %d, \"block\": %d, \"words_per_thread\": %d, \"word_bytes\": 4},\n"
          "  \"tma_bulk\": {\"grid\": %d, \"block\": %d, \"rounds\": %d, \"chunk_bytes\": %d},\n"
          "  \"wgmma_bf16\": {\"grid\": %d, \"block\": %d, \"trips\": %d, \"unroll\": %d, "
          "\"a_tile_bytes\": %d, \"b_tile_bytes\": %d, \"m\": 64, \"n\": 256, \"k\": 16}\n}\n",
          prop.name, prop.major, prop.minor, kGrid, kBlock, kWords, kTmaGrid, kTmaBlock, kRounds, kChunk,
          kWgmmaGrid, WGMMA_THREADS, kWgmmaTrips, WGMMA_UNROLL, A_TILE_BYTES, B_TILE_BYTES);
  fclose(f);
  printf("shared_memory: 5 kernels checked on %s, parameters in %s\n", prop.name, out);
  return 0;
}
