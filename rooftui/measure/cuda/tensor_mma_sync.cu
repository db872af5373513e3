// Peak Tensor Core rate through warp-level mma.sync, one kernel per input type.
//
// Every warp holds one A fragment, its negation, and a B fragment of ones, and
// keeps MMA_CHAINS independent accumulators. Each loop trip issues, per chain,
// MMA_UNROLL mma.sync instructions alternating A and -A (MMA_UNROLL is even),
// so the accumulator swings between 0 and A*B and never grows: the results stay
// exact in every accumulator type, FP8's narrower accumulation included. After
// the loop one more mma with A leaves D = A * B. A launch therefore issues
//     grid * warps_per_block * MMA_CHAINS * (MMA_UNROLL * trips + 1)
// mma instructions, each 2*M*N*K operations; the host counts from those numbers.
// The instructions are `asm volatile`: the compiler cannot drop or merge them.
//
// Check: with B all ones, the sum of D over a warp is N times the sum of the
// warp's A elements (whatever the fragment layout); each thread stores the sum
// of its D registers and the host compares each warp's total.
// A's elements are small integers from a hash of (lane, element), so every
// product and sum is exact.
#include "clock_stamp.cuh"
#include "operand_bits.cuh"

#ifndef MMA_CHAINS
#define MMA_CHAINS 4
#endif
#ifndef MMA_UNROLL
#define MMA_UNROLL 8
#endif
#ifndef MMA_THREADS
#define MMA_THREADS 256
#endif
#ifndef MMA_BLOCKS_PER_SM
#define MMA_BLOCKS_PER_SM 2
#endif

// Element e of lane `lane`'s A fragment: one of -2, -1, 1, 2 (the host has the same hash).
__device__ __forceinline__ int a_value(unsigned int lane, unsigned int e) {
    unsigned int h = (lane * 64u + e) * 2654435761u;
    const int values[4] = {1, -1, 2, -2};
    return values[(h >> 13) & 3u];
}


// Four 32-bit A registers of a lane, holding elements 0.. of the fragment;
// `negate` gives the fragment of -A.
template <int ELEMENTS_PER_REG, unsigned int (*BITS)(int)>
__device__ __forceinline__ void make_a(unsigned int lane, bool negate, unsigned int a[4]) {
    constexpr int WIDTH = 32 / ELEMENTS_PER_REG;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        unsigned int word = 0;
#pragma unroll
        for (int j = 0; j < ELEMENTS_PER_REG; ++j) {
            int v = a_value(lane, r * ELEMENTS_PER_REG + j);
            word |= BITS(negate ? -v : v) << (j * WIDTH);
        }
        a[r] = word;
    }
}

__device__ __forceinline__ size_t global_thread() {
    return (size_t)blockIdx.x * blockDim.x + threadIdx.x;
}

// ---- 16x8xK with four A registers, two B registers, four 32-bit accumulators ----
// One macro per instruction form keeps the loop identical across types.
#define MMA_16x8_KERNEL(NAME, PTX, ACC_T, ACC_C, ELEMS, BITS, ONE_WORD)              \
extern "C" __global__ void __launch_bounds__(MMA_THREADS, MMA_BLOCKS_PER_SM)                   \
NAME(int trips, double* out, ClockStamp* stamps) {                                             \
    BlockClock clock;                                                                          \
    clock.start();                                                                             \
    double total = 0.0;                                                                        \
    {                                                                                          \
        const unsigned int lane = threadIdx.x & 31u;                                           \
        unsigned int a_pos[4], a_neg[4];                                                       \
        make_a<ELEMS, BITS>(lane, false, a_pos);                                               \
        make_a<ELEMS, BITS>(lane, true, a_neg);                                                \
        const unsigned int b0 = ONE_WORD, b1 = ONE_WORD;                                       \
        ACC_T d[MMA_CHAINS][4];                                                                \
        _Pragma("unroll") for (int k = 0; k < MMA_CHAINS; ++k)                                 \
            _Pragma("unroll") for (int i = 0; i < 4; ++i) d[k][i] = 0;                         \
        for (int t = 0; t < trips; ++t) {                                                      \
            _Pragma("unroll") for (int u = 0; u < MMA_UNROLL; ++u) {                           \
                const unsigned int* a = (u & 1) ? a_neg : a_pos;                               \
                _Pragma("unroll") for (int k = 0; k < MMA_CHAINS; ++k)                         \
                    MMA_16x8_ASM(PTX, ACC_C, d[k], a, b0, b1);                                 \
            }                                                                                  \
        }                                                                                      \
        _Pragma("unroll") for (int k = 0; k < MMA_CHAINS; ++k)                                 \
            MMA_16x8_ASM(PTX, ACC_C, d[k], a_pos, b0, b1);                                     \
        _Pragma("unroll") for (int k = 0; k < MMA_CHAINS; ++k)                                 \
            _Pragma("unroll") for (int i = 0; i < 4; ++i) total += (double)d[k][i];            \
    }                                                                                          \
    out[global_thread()] = total;                                                              \
    clock.stop(stamps);                                                                        \
}

#if __CUDA_ARCH__ >= 800
#define MMA_16x8_ASM(PTX, ACC_C, d, a, b0, b1)                                                 \
    asm volatile(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"        \
                 : "+" ACC_C(d[0]), "+" ACC_C(d[1]), "+" ACC_C(d[2]), "+" ACC_C(d[3])          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
#else
// Not on this architecture: the host never launches the kernel here.
#define MMA_16x8_ASM(PTX, ACC_C, d, a, b0, b1) asm volatile("" : "+" ACC_C(d[0]) : "r"(a[0]), "r"(b0), "r"(b1))
#endif

MMA_16x8_KERNEL(mma_fp16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                float, "f", 2, f16_bits, 0x3C003C00u)
MMA_16x8_KERNEL(mma_bf16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                float, "f", 2, bf16_bits, 0x3F803F80u)
MMA_16x8_KERNEL(mma_tf32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                float, "f", 1, tf32_bits, 0x3F800000u)
MMA_16x8_KERNEL(mma_int8, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
                int, "r", 4, s8_bits, 0x01010101u)

// FP8 (e4m3) mma.sync needs sm_89.
#undef MMA_16x8_ASM
#if __CUDA_ARCH__ >= 890
#define MMA_16x8_ASM(PTX, ACC_C, d, a, b0, b1)                                                 \
    asm volatile(PTX " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"        \
                 : "+" ACC_C(d[0]), "+" ACC_C(d[1]), "+" ACC_C(d[2]), "+" ACC_C(d[3])          \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
#else
// Not on this architecture: the host never launches the kernel here.
#define MMA_16x8_ASM(PTX, ACC_C, d, a, b0, b1) asm volatile("" : "+" ACC_C(d[0]) : "r"(a[0]), "r"(b0), "r"(b1))
#endif
MMA_16x8_KERNEL(mma_fp8, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
                float, "f", 4, e4m3_bits, 0x38383838u)

// ---- FP64 (DMMA) ----
// m8n8k4 (sm_80+): one f64 of A, one of B, two accumulators per lane.
extern "C" __global__ void __launch_bounds__(MMA_THREADS, MMA_BLOCKS_PER_SM)
mma_fp64_m8n8k4(int trips, double* out, ClockStamp* stamps) {
    BlockClock clock;
    clock.start();
    double total = 0.0;
#if __CUDA_ARCH__ >= 800
    const unsigned int lane = threadIdx.x & 31u;
    const double a_pos = (double)a_value(lane, 0), a_neg = -a_pos, b = 1.0;
    double d[MMA_CHAINS][2];
#pragma unroll
    for (int k = 0; k < MMA_CHAINS; ++k) d[k][0] = d[k][1] = 0.0;
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
            const double a = (u & 1) ? a_neg : a_pos;
#pragma unroll
            for (int k = 0; k < MMA_CHAINS; ++k)
                asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                             : "+d"(d[k][0]), "+d"(d[k][1]) : "d"(a), "d"(b));
        }
    }
#pragma unroll
    for (int k = 0; k < MMA_CHAINS; ++k) {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                     : "+d"(d[k][0]), "+d"(d[k][1]) : "d"(a_pos), "d"(b));
        total += d[k][0] + d[k][1];
    }
#endif
    out[global_thread()] = total;
    clock.stop(stamps);
}

// m16n8k16 (sm_90+): eight f64 of A, four of B, four accumulators per lane.
extern "C" __global__ void __launch_bounds__(MMA_THREADS, MMA_BLOCKS_PER_SM)
mma_fp64_m16n8k16(int trips, double* out, ClockStamp* stamps) {
    BlockClock clock;
    clock.start();
    double total = 0.0;
#if __CUDA_ARCH__ >= 900
    const unsigned int lane = threadIdx.x & 31u;
    double a_pos[8], a_neg[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        a_pos[e] = (double)a_value(lane, e);
        a_neg[e] = -a_pos[e];
    }
    const double b = 1.0;
    double d[MMA_CHAINS][4];
#pragma unroll
    for (int k = 0; k < MMA_CHAINS; ++k) d[k][0] = d[k][1] = d[k][2] = d[k][3] = 0.0;
#define DMMA_16x8x16(d, a)                                                                     \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "        \
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"  \
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])                              \
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), \
                   "d"(a[7]), "d"(b), "d"(b), "d"(b), "d"(b))
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int u = 0; u < MMA_UNROLL; ++u) {
#pragma unroll
            for (int k = 0; k < MMA_CHAINS; ++k) {
                if (u & 1) DMMA_16x8x16(d[k], a_neg);
                else DMMA_16x8x16(d[k], a_pos);
            }
        }
    }
#pragma unroll
    for (int k = 0; k < MMA_CHAINS; ++k) {
        DMMA_16x8x16(d[k], a_pos);
        total += d[k][0] + d[k][1] + d[k][2] + d[k][3];
    }
#undef DMMA_16x8x16
#endif
    out[global_thread()] = total;
    clock.stop(stamps);
}
