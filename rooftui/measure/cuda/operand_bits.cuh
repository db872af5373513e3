// The bit patterns of +-1 and +-2 in each Tensor Core input type: the operands
// of tensor_mma_sync.cu and tensor_wgmma.cu are built from these.
#pragma once

__device__ __forceinline__ unsigned int f16_bits(int v) {
    unsigned int mag = (v == 1 || v == -1) ? 0x3C00u : 0x4000u;
    return v < 0 ? (mag | 0x8000u) : mag;
}
__device__ __forceinline__ unsigned int bf16_bits(int v) {
    unsigned int mag = (v == 1 || v == -1) ? 0x3F80u : 0x4000u;
    return v < 0 ? (mag | 0x8000u) : mag;
}
__device__ __forceinline__ unsigned int tf32_bits(int v) {
    unsigned int mag = (v == 1 || v == -1) ? 0x3F800000u : 0x40000000u;
    return v < 0 ? (mag | 0x80000000u) : mag;
}
__device__ __forceinline__ unsigned int e4m3_bits(int v) {
    unsigned int mag = (v == 1 || v == -1) ? 0x38u : 0x40u;
    return v < 0 ? (mag | 0x80u) : mag;
}
__device__ __forceinline__ unsigned int s8_bits(int v) { return (unsigned int)v & 0xFFu; }
