// The launch floor: the shortest a kernel launch can take on this GPU.
//
// empty_kernel does nothing: its duration (as ncu reports gpu__time_duration.sum)
// is the floor under every kernel in a report, and the interval between
// back-to-back launches of it on one stream is the floor under a run of kernels.
// spin_kernel holds the stream for `ns` nanoseconds first, so the host has queued
// every empty launch before the first one starts: the interval measured is the
// GPU's, not Python's launch rate.
#include "clock_stamp.cuh"

extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void spin_kernel(unsigned long long ns) {
    unsigned long long start = read_global_ns();
    while (read_global_ns() - start < ns) {
    }
}
