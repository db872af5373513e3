// Shared-memory read bandwidth.
//
// Each block fills SMEM_VECTORS 16-byte vectors of shared memory, then each
// pass every thread reads SMEM_VECTORS / SMEM_THREADS of them: consecutive
// threads, consecutive 16 bytes (no bank conflicts), the whole tile once per
// pass. Each pass rotates the vectors by `rotate` (a kernel parameter, a
// multiple of 32), so the addresses differ from pass to pass in a way ptxas
// cannot see through: without it, ptxas keeps one pass's loads in registers
// and reuses them for the next passes (seen in the SASS), and the count of
// bytes read would be a fiction. Each thread stores the uint32 sum of what it read; the host
// checks the total against passes * grid * sum(tile) mod 2^32.
// Bytes per launch, counted by the host: passes * grid * SMEM_VECTORS * 16.
#include "clock_stamp.cuh"

#ifndef SMEM_THREADS
#define SMEM_THREADS 512
#endif
#ifndef SMEM_BLOCKS_PER_SM
#define SMEM_BLOCKS_PER_SM 2
#endif
#ifndef SMEM_VECTORS
#define SMEM_VECTORS 2048  // 32 KiB per block (a power of two): no opt-in past 48 KiB needed
#endif
#define FILL_MULTIPLIER 2654435761u

extern "C" __global__ void __launch_bounds__(SMEM_THREADS, SMEM_BLOCKS_PER_SM)
smem_read(int passes, unsigned int rotate, unsigned int* sums, ClockStamp* stamps) {
    __shared__ unsigned int tile[SMEM_VECTORS * 4];
    for (unsigned int i = threadIdx.x; i < SMEM_VECTORS * 4; i += blockDim.x) {
        tile[i] = i * FILL_MULTIPLIER;
    }
    BlockClock clock;
    clock.start();  // starts with a barrier: the tile is complete
    unsigned int base;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(base) : "l"(tile));
    constexpr int PER_THREAD = SMEM_VECTORS / SMEM_THREADS;
    unsigned int sum_a = 0, sum_b = 0;
    for (int p = 0; p < passes; ++p) {
#pragma unroll
        for (int j = 0; j < PER_THREAD; ++j) {
            unsigned int x, y, z, w;
            unsigned int index = (threadIdx.x + j * SMEM_THREADS + p * rotate) & (SMEM_VECTORS - 1);
            unsigned int addr = base + index * 16;
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(addr));
            sum_a += x + y;
            sum_b += z + w;
        }
    }
    sums[(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x] = sum_a + sum_b;
    clock.stop(stamps);
}
