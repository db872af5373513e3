// Peak FMA rate of the CUDA cores: FP64, FP32, FP16 (HFMA2) and BF16 (HFMA2.BF16).
//
// Every thread runs FMA_CHAINS independent chains x <- x * b + c, FMA_UNROLL
// steps per chain per loop trip, `trips` trips. Each step is one inline-PTX fma
// instruction, so a launch does exactly
//     grid * block * FMA_CHAINS * FMA_UNROLL * trips   fma instructions
// (each 2 FLOP, or 4 FLOP for the two-lane f16x2/bf16x2 forms); the host
// counts FLOPs from those numbers. b and c are kernel parameters, so nothing can
// be folded at compile time, and every chain's final value is stored and checked
// by the host against the closed form b^N x0 + c (1 - b^N) / (1 - b).
#include "clock_stamp.cuh"

#ifndef FMA_CHAINS
#define FMA_CHAINS 8
#endif
#ifndef FMA_UNROLL
#define FMA_UNROLL 32
#endif
#ifndef FMA_THREADS
#define FMA_THREADS 256
#endif
#ifndef FMA_BLOCKS_PER_SM
#define FMA_BLOCKS_PER_SM 4
#endif

__device__ __forceinline__ double fma_step(double x, double b, double c) {
    double y;
    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(y) : "d"(x), "d"(b), "d"(c));
    return y;
}

__device__ __forceinline__ float fma_step(float x, float b, float c) {
    float y;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(y) : "f"(x), "f"(b), "f"(c));
    return y;
}

// Two f16 lanes packed in 32 bits.
struct half2_bits { unsigned int v; };
// Two bf16 lanes packed in 32 bits.
struct bf162_bits { unsigned int v; };

__device__ __forceinline__ half2_bits fma_step(half2_bits x, half2_bits b, half2_bits c) {
    half2_bits y;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(y.v) : "r"(x.v), "r"(b.v), "r"(c.v));
    return y;
}

__device__ __forceinline__ bf162_bits fma_step(bf162_bits x, bf162_bits b, bf162_bits c) {
    bf162_bits y;
#if __CUDA_ARCH__ >= 800
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(y.v) : "r"(x.v), "r"(b.v), "r"(c.v));
#else
    y.v = 0;  // no bf16 FMA before sm_80; the host never launches this there
#endif
    return y;
}

// x0 of chain k is passed in `start[k]`, the same for every thread.
template <typename T>
__device__ __forceinline__ void fma_chains(const T* start, T b, T c, int trips, T* out,
                                           ClockStamp* stamps) {
    BlockClock clock;
    clock.start();
    T x[FMA_CHAINS];
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; ++k) x[k] = start[k];
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int u = 0; u < FMA_UNROLL; ++u) {
#pragma unroll
            for (int k = 0; k < FMA_CHAINS; ++k) x[k] = fma_step(x[k], b, c);
        }
    }
    const size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < FMA_CHAINS; ++k) out[thread * FMA_CHAINS + k] = x[k];
    clock.stop(stamps);
}

extern "C" __global__ void __launch_bounds__(FMA_THREADS, FMA_BLOCKS_PER_SM)
fma_fp64(const double* start, double b, double c, int trips, double* out, ClockStamp* stamps) {
    fma_chains(start, b, c, trips, out, stamps);
}

extern "C" __global__ void __launch_bounds__(FMA_THREADS, FMA_BLOCKS_PER_SM)
fma_fp32(const float* start, float b, float c, int trips, float* out, ClockStamp* stamps) {
    fma_chains(start, b, c, trips, out, stamps);
}

extern "C" __global__ void __launch_bounds__(FMA_THREADS, FMA_BLOCKS_PER_SM)
fma_fp16x2(const half2_bits* start, unsigned int b, unsigned int c, int trips, half2_bits* out,
           ClockStamp* stamps) {
    fma_chains(start, half2_bits{b}, half2_bits{c}, trips, out, stamps);
}

extern "C" __global__ void __launch_bounds__(FMA_THREADS, FMA_BLOCKS_PER_SM)
fma_bf16x2(const bf162_bits* start, unsigned int b, unsigned int c, int trips, bf162_bits* out,
           ClockStamp* stamps) {
    fma_chains(start, bf162_bits{b}, bf162_bits{c}, trips, out, stamps);
}
