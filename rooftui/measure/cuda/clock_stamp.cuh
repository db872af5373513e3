// The clock a kernel really ran at, read inside the kernel.
//
// Thread 0 of every block reads the SM cycle counter (%clock64) and the global
// nanosecond timer (%globaltimer) when the block starts and after all its
// threads are done. Host code divides the cycles by the nanoseconds: that is
// the SM clock during this very kernel, with no driver query and no change to
// the GPU's settings. Headerless on purpose: NVRTC compiles it with no CUDA
// include path.
#pragma once

struct ClockStamp {
    unsigned long long cycles;
    unsigned long long nanoseconds;
};

__device__ __forceinline__ unsigned long long read_cycles() {
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
    return c;
}

__device__ __forceinline__ unsigned long long read_global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

struct BlockClock {
    unsigned long long cycles0;
    unsigned long long ns0;

    __device__ __forceinline__ void start() {
        __syncthreads();
        cycles0 = read_cycles();
        ns0 = read_global_ns();
    }

    // Call from every thread of the block, after its work.
    __device__ __forceinline__ void stop(ClockStamp* stamps) {
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned long long c1 = read_cycles();
            unsigned long long t1 = read_global_ns();
            stamps[blockIdx.x].cycles = c1 - cycles0;
            stamps[blockIdx.x].nanoseconds = t1 - ns0;
        }
    }
};
