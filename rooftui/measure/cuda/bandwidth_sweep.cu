// ERT-style working-set sweep: read bandwidth of L1, L2 and HBM.
//
// One block per SM (SWEEP_THREADS threads, launch bounds that leave room for no
// second block), each with its own contiguous chunk of the buffer of
// `vectors_per_thread * SWEEP_THREADS` 16-byte vectors, so chunks start 16 KiB
// aligned. Thread t reads vectors t, t + SWEEP_THREADS, ... of its block's chunk,
// coalesced across the block, cycling through its positions `passes` times with
// SWEEP_LOADS_IN_FLIGHT independent loads issued before their first use, however
// small the chunk. A small total working set (grid * chunk) stays in each SM's
// L1 across passes, a medium one in L2, and a large one streams from HBM; the
// host sweeps the chunk size and finds the plateaus.
//
// Two load flavours: `.ca` caches in L1 and L2 (the L1 curve), `.cg` caches in
// L2 only (the L2 and HBM curve: L1 hits cannot hide the L2 plateau).
// Loads are `asm volatile` and their addresses depend on a run-time position
// counter, so neither the compiler nor ptxas can merge or hoist them. Each
// thread sums the words it read (uint32, wrapping) and stores the sum; the host
// checks that the sum of all threads' sums equals passes * sum(chunk words)
// mod 2^32, which fails if any word was skipped or read twice.
// Bytes per launch, counted by the host: passes * grid * chunk (reads)
// + grid * SWEEP_THREADS * 4 (the sums written).
#include "clock_stamp.cuh"

#ifndef SWEEP_THREADS
#define SWEEP_THREADS 1024
#endif
#ifndef SWEEP_BLOCKS_PER_SM
#define SWEEP_BLOCKS_PER_SM 1
#endif
#ifndef SWEEP_LOADS_IN_FLIGHT
#define SWEEP_LOADS_IN_FLIGHT 8
#endif

// The buffer's contents: word i holds i * FILL_MULTIPLIER (mod 2^32), so its
// sum has a closed form and the words are all different.
#define FILL_MULTIPLIER 2654435761u

extern "C" __global__ void fill_words(unsigned int* words, unsigned long long count) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < count; i += (unsigned long long)gridDim.x * blockDim.x) {
        words[i] = (unsigned int)i * FILL_MULTIPLIER;
    }
}

struct uint4_bits { unsigned int x, y, z, w; };

__device__ __forceinline__ uint4_bits load_ca(const uint4_bits* p) {
    uint4_bits v;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

__device__ __forceinline__ uint4_bits load_cg(const uint4_bits* p) {
    uint4_bits v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

template <bool L1_CACHED>
__device__ __forceinline__ uint4_bits load_vector(const uint4_bits* p) {
    return L1_CACHED ? load_ca(p) : load_cg(p);
}

template <bool L1_CACHED>
__device__ __forceinline__ void read_chunks(const uint4_bits* data, unsigned int vectors_per_thread,
                                            int passes, unsigned int* sums, ClockStamp* stamps) {
    BlockClock clock;
    clock.start();
    const unsigned int n = vectors_per_thread;
    const uint4_bits* mine = data + (unsigned long long)blockIdx.x * n * blockDim.x + threadIdx.x;
    const unsigned long long loads = (unsigned long long)passes * n;
    unsigned int pos = 0;  // which of this thread's n vectors comes next
    unsigned int sum_a = 0, sum_b = 0;
    unsigned long long k = 0;
    for (; k + SWEEP_LOADS_IN_FLIGHT <= loads; k += SWEEP_LOADS_IN_FLIGHT) {
        uint4_bits v[SWEEP_LOADS_IN_FLIGHT];
#pragma unroll
        for (int j = 0; j < SWEEP_LOADS_IN_FLIGHT; ++j) {
            v[j] = load_vector<L1_CACHED>(mine + (unsigned long long)pos * blockDim.x);
            pos = (pos + 1 == n) ? 0 : pos + 1;
        }
#pragma unroll
        for (int j = 0; j < SWEEP_LOADS_IN_FLIGHT; ++j) {
            sum_a += v[j].x + v[j].y;
            sum_b += v[j].z + v[j].w;
        }
    }
    for (; k < loads; ++k) {
        uint4_bits v = load_vector<L1_CACHED>(mine + (unsigned long long)pos * blockDim.x);
        pos = (pos + 1 == n) ? 0 : pos + 1;
        sum_a += v.x + v.y;
        sum_b += v.z + v.w;
    }
    sums[(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x] = sum_a + sum_b;
    clock.stop(stamps);
}

extern "C" __global__ void __launch_bounds__(SWEEP_THREADS, SWEEP_BLOCKS_PER_SM)
read_sweep_l1(const uint4_bits* data, unsigned int vectors_per_thread, int passes,
              unsigned int* sums, ClockStamp* stamps) {
    read_chunks<true>(data, vectors_per_thread, passes, sums, stamps);
}

extern "C" __global__ void __launch_bounds__(SWEEP_THREADS, SWEEP_BLOCKS_PER_SM)
read_sweep_l2(const uint4_bits* data, unsigned int vectors_per_thread, int passes,
              unsigned int* sums, ClockStamp* stamps) {
    read_chunks<false>(data, vectors_per_thread, passes, sums, stamps);
}
