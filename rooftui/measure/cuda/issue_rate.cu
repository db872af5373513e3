// Warp-instruction issue rate: how many warp instructions an SM issues per cycle when
// nothing but issue limits it.
//
// Every thread runs ISSUE_FLOAT_CHAINS independent FP32 chains x <- x * b + c (one
// FFMA each, FMA pipe) and ISSUE_INT_CHAINS independent integer chains
// u <- (u ^ key) + add (a LOP3 and an IADD3, ALU pipe), ISSUE_UNROLL steps per loop
// trip. With 8 FFMA to 4 ALU instructions the FMA pipe (one warp instruction per
// cycle per scheduler on sm_80+) is asked for 2/3 of the issue slots and the ALU pipe
// (half that rate) for 1/3: neither pipe is full when every slot issues, so issue is
// what limits. Ten independent chains per thread and ISSUE_BLOCKS_PER_SM blocks of
// ISSUE_THREADS per SM hide the latency of each.
//
// How many warp instructions a launch issues is not assumed from this source: the host
// counts the loop's SASS in the cubin (cuobjdump -sass) and multiplies by the trips
// (rooftui/measure/issue_rate.py). b, c, key and add are kernel parameters, so nothing
// folds at compile time; each chain's last value is stored and checked by the host
// (floats reach the fixed point c / (1 - b) = 1 exactly; integers are replayed).
#include "clock_stamp.cuh"

#ifndef ISSUE_FLOAT_CHAINS
#define ISSUE_FLOAT_CHAINS 8
#endif
#ifndef ISSUE_INT_CHAINS
#define ISSUE_INT_CHAINS 2
#endif
#ifndef ISSUE_UNROLL
#define ISSUE_UNROLL 16
#endif
#ifndef ISSUE_THREADS
#define ISSUE_THREADS 256
#endif
#ifndef ISSUE_BLOCKS_PER_SM
#define ISSUE_BLOCKS_PER_SM 4
#endif

__device__ __forceinline__ float ffma(float x, float b, float c) {
    float y;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(y) : "f"(x), "f"(b), "f"(c));
    return y;
}

__device__ __forceinline__ unsigned xor_add(unsigned u, unsigned key, unsigned add) {
    unsigned y;
    asm("xor.b32 %0, %1, %2;" : "=r"(y) : "r"(u), "r"(key));
    asm("add.u32 %0, %1, %2;" : "=r"(y) : "r"(y), "r"(add));
    return y;
}

// Float chain k starts at start_f[k], integer chain k at start_u[k], in every thread.
extern "C" __global__ void __launch_bounds__(ISSUE_THREADS, ISSUE_BLOCKS_PER_SM)
issue_mix(const float* start_f, const unsigned* start_u, float b, float c, unsigned key,
          unsigned add, int trips, float* out_f, unsigned* out_u, ClockStamp* stamps) {
    BlockClock clock;
    clock.start();
    float x[ISSUE_FLOAT_CHAINS];
    unsigned u[ISSUE_INT_CHAINS];
#pragma unroll
    for (int k = 0; k < ISSUE_FLOAT_CHAINS; ++k) x[k] = start_f[k];
#pragma unroll
    for (int k = 0; k < ISSUE_INT_CHAINS; ++k) u[k] = start_u[k];
#pragma unroll 1
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int s = 0; s < ISSUE_UNROLL; ++s) {
#pragma unroll
            for (int k = 0; k < ISSUE_FLOAT_CHAINS; ++k) x[k] = ffma(x[k], b, c);
#pragma unroll
            for (int k = 0; k < ISSUE_INT_CHAINS; ++k) u[k] = xor_add(u[k], key, add);
        }
    }
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ISSUE_FLOAT_CHAINS; ++k) out_f[thread * ISSUE_FLOAT_CHAINS + k] = x[k];
#pragma unroll
    for (int k = 0; k < ISSUE_INT_CHAINS; ++k) out_u[thread * ISSUE_INT_CHAINS + k] = u[k];
    clock.stop(stamps);
}
