// vxk/simd_flood.h: the bit rows that connectivity splitting floods (kernel/geometry/split.h),
// gathered from the occupancy bits of 8^3 terrain chunks, vectorized with SIMDe, with a scalar
// twin. A chunk holds its voxels as slices (uint64 y, bit x + 8z, the terrain's and the
// broadphase's layout); a flood wants rows along x, 64 voxels to a word: the byte z of slice y of
// eight chunks side by side along x is one row word, so a gather is a byte transpose of eight
// chunks (64 bytes each) into 64 words.
//
// This library depends on nothing else in vxk.
#ifndef VXK_SIMD_FLOOD_H
#define VXK_SIMD_FLOOD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Gathers a box of count_x * count_y * count_z chunks into the rows of a grid of
// (8 count_x, 8 count_y, 8 count_z) voxels: W = (8 count_x + 63) / 64 words per row, row (y, z) at
// word (y * 8 count_z + z) * W, voxel x at bit x & 63 of word x >> 6 (bits past 8 count_x zero).
// chunks[cx + count_x * (cz + count_z * cy)] points at the chunk's 8 slices (any alignment), or is
// NULL for an empty chunk (a uniform solid chunk is 8 words of all ones). rows receives
// 64 * count_y * count_z * W words, every one written. Counts must be >= 1; rows and the chunks
// must not overlap. Thread-safety: pure function. Cost: with AVX2 about 100 vector operations per
// 8 chunks along x (two 8 x 32-byte transposes: 3 unpack stages and a lane permute); the scalar
// twin assembles each word from 8 bytes, about 8 times slower.
void vxk_flood_gather_chunks(uint64_t* rows, const uint64_t* const* chunks, uint32_t count_x,
                             uint32_t count_y, uint32_t count_z);

// The scalar twin: bit-identical output for every input. Same contract.
void vxk_flood_gather_chunks_scalar(uint64_t* rows, const uint64_t* const* chunks, uint32_t count_x,
                                    uint32_t count_y, uint32_t count_z);

#ifdef __cplusplus
}
#endif
#endif
