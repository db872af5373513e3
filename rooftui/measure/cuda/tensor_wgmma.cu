// Peak Tensor Core rate on Hopper through warpgroup MMA (wgmma, sm_90a).
//
// On Hopper, mma.sync does not reach the Tensor Cores' peak; wgmma does. Each
// block is one warpgroup (128 threads) with its operands in shared memory:
// A (64 x K) and its negation -A, and B (256 x K) of ones, in the canonical
// K-major layout without swizzle (8-row x 16-byte core matrices, LBO = byte step
// between core matrices along K, SBO = along M/N; both are kernel parameters).
// Each trip issues WGMMA_UNROLL m64n256 wgmma instructions into one 64x256
// accumulator, alternating A and -A, so the accumulator swings between 0 and
// A*B (exact in every type, FP8's narrower accumulation included); one more wgmma
// with A after the loop leaves D = A * B. A launch issues
//     grid * (WGMMA_UNROLL * trips + 1)    wgmma instructions,
// each 2 * 64 * 256 * K operations; the host counts from those numbers.
//
// Check: with B all ones, the sum of D over the warpgroup is 256 times the sum
// of A's elements, whatever the layout, provided the descriptors make the
// hardware read every element of A exactly once. Each thread stores the sum of
// its 128 accumulators; the host compares each block's total.
//
// Compiled only for sm_90a; for any other target the kernels are empty and the
// host never launches them.
#include "clock_stamp.cuh"
#include "operand_bits.cuh"

#ifndef WGMMA_UNROLL
#define WGMMA_UNROLL 8
#endif
#ifndef WGMMA_BLOCKS_PER_SM
#define WGMMA_BLOCKS_PER_SM 2
#endif

#define WGMMA_THREADS 128
#define A_TILE_BYTES 2048  // 64 rows x 32 bytes of K
#define B_TILE_BYTES 8192  // 256 rows x 32 bytes of K

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_AVAILABLE 1
#endif

// A's element e (byte order in the tile): one of -2, -1, 1, 2 (the host has the same hash).
__device__ __forceinline__ int tile_value(unsigned int e) {
    unsigned int h = e * 2654435761u;
    const int values[4] = {1, -1, 2, -2};
    return values[(h >> 13) & 3u];
}


// Fills A, -A and B (ones) as 32-bit words; ELEMS elements per word.
template <int ELEMS, unsigned int (*BITS)(int)>
__device__ __forceinline__ void fill_tiles(unsigned int* a_pos, unsigned int* a_neg,
                                           unsigned int* b) {
    constexpr int WIDTH = 32 / ELEMS;
    for (unsigned int w = threadIdx.x; w < A_TILE_BYTES / 4; w += blockDim.x) {
        unsigned int pos = 0, neg = 0;
#pragma unroll
        for (int j = 0; j < ELEMS; ++j) {
            int v = tile_value(w * ELEMS + j);
            pos |= BITS(v) << (j * WIDTH);
            neg |= BITS(-v) << (j * WIDTH);
        }
        a_pos[w] = pos;
        a_neg[w] = neg;
    }
    unsigned int one = 0;
#pragma unroll
    for (int j = 0; j < ELEMS; ++j) one |= BITS(1) << (j * WIDTH);
    for (unsigned int w = threadIdx.x; w < B_TILE_BYTES / 4; w += blockDim.x) b[w] = one;
}

__device__ __forceinline__ unsigned int shared_address(const void* p) {
    unsigned int a;
    asm("{ .reg .u64 g; cvta.to.shared.u64 g, %1; cvt.u32.u64 %0, g; }" : "=r"(a) : "l"(p));
    return a;
}

// sm_90 shared-memory matrix descriptor, no swizzle: start address, LBO and SBO
// in 16-byte units; base offset and layout type (bits 49-51, 62-63) stay 0.
__device__ __forceinline__ unsigned long long descriptor(unsigned int address, unsigned int lbo,
                                                         unsigned int sbo) {
    return (unsigned long long)((address & 0x3FFFFu) >> 4) |
           ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
           ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32);
}

// The 128 accumulator operands %0..%127.
#define D_LIST                                                                                 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                  \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "         \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "         \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "         \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "         \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "         \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "    \
    "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "     \
    "%125, %126, %127}"
#define OP8(C, i) C(d[i]), C(d[i + 1]), C(d[i + 2]), C(d[i + 3]), C(d[i + 4]), C(d[i + 5]),   \
                  C(d[i + 6]), C(d[i + 7])
#define OPS128(C) OP8(C, 0), OP8(C, 8), OP8(C, 16), OP8(C, 24), OP8(C, 32), OP8(C, 40),       \
                  OP8(C, 48), OP8(C, 56), OP8(C, 64), OP8(C, 72), OP8(C, 80), OP8(C, 88),     \
                  OP8(C, 96), OP8(C, 104), OP8(C, 112), OP8(C, 120)

// One wgmma; TAIL is what follows "d, a-desc, b-desc, scale-d" for the type.
#define WGMMA(INSTR, TAIL, C, d, desc_a, desc_b)                                               \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" INSTR " " D_LIST                \
                 ", %128, %129, p" TAIL ";\n}\n"                                              \
                 : OPS128(C) : "l"(desc_a), "l"(desc_b), "r"(1))

#define WGMMA_KERNEL(NAME, INSTR, TAIL, ACC_T, C, ELEMS, BITS)                                 \
extern "C" __global__ void __launch_bounds__(WGMMA_THREADS, WGMMA_BLOCKS_PER_SM)              \
NAME(int trips, unsigned int lbo, unsigned int sbo, double* out, ClockStamp* stamps) {         \
    __shared__ __align__(1024) unsigned int tiles[(2 * A_TILE_BYTES + B_TILE_BYTES) / 4];      \
    unsigned int* a_pos = tiles;                                                               \
    unsigned int* a_neg = tiles + A_TILE_BYTES / 4;                                            \
    unsigned int* b = tiles + 2 * A_TILE_BYTES / 4;                                            \
    fill_tiles<ELEMS, BITS>(a_pos, a_neg, b);                                                  \
    WGMMA_BODY(INSTR, TAIL, ACC_T, C)                                                          \
}

#ifdef WGMMA_AVAILABLE
#define WGMMA_BODY(INSTR, TAIL, ACC_T, C)                                                      \
    /* the Tensor Cores read shared memory through the async proxy */                         \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                              \
    BlockClock clock;                                                                          \
    clock.start();                                                                             \
    const unsigned long long desc_pos = descriptor(shared_address(a_pos), lbo, sbo);           \
    const unsigned long long desc_neg = descriptor(shared_address(a_neg), lbo, sbo);           \
    const unsigned long long desc_b = descriptor(shared_address(b), lbo, sbo);                 \
    ACC_T d[128];                                                                              \
    _Pragma("unroll") for (int i = 0; i < 128; ++i) d[i] = 0;                                  \
    for (int t = 0; t < trips; ++t) {                                                          \
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                               \
        _Pragma("unroll") for (int u = 0; u < WGMMA_UNROLL; u += 2) {                          \
            WGMMA(INSTR, TAIL, C, d, desc_pos, desc_b);                                        \
            WGMMA(INSTR, TAIL, C, d, desc_neg, desc_b);                                        \
        }                                                                                      \
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                        \
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");                        \
    }                                                                                          \
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");                                   \
    WGMMA(INSTR, TAIL, C, d, desc_pos, desc_b);                                                \
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                            \
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");                            \
    double total = 0.0;                                                                        \
    _Pragma("unroll") for (int i = 0; i < 128; ++i) total += (double)d[i];                     \
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = total;                                \
    clock.stop(stamps);
#else
#define WGMMA_BODY(INSTR, TAIL, ACC_T, C)                                                      \
    (void)trips; (void)lbo; (void)sbo; (void)out; (void)stamps;
#endif

WGMMA_KERNEL(wgmma_fp16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", ", 1, 1, 0, 0",
             float, "+f", 2, f16_bits)
WGMMA_KERNEL(wgmma_bf16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0",
             float, "+f", 2, bf16_bits)
WGMMA_KERNEL(wgmma_tf32, "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", ", 1, 1",
             float, "+f", 1, tf32_bits)
WGMMA_KERNEL(wgmma_fp8, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", ", 1, 1",
             float, "+f", 4, e4m3_bits)
WGMMA_KERNEL(wgmma_int8, "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "",
             int, "+r", 4, s8_bits)
