// vxk/simd_dilate.h: bit dilation of chunk neighbourhoods into broadphase masks, vectorized with
// SIMDe, with a scalar twin. Follows seed 000 (Roblox terrain physics, "Bit broadphase:
// construction"): a 10^3 box of occupancy bits -> 10^2 16-bit rows -> 3x3x3 dilation with shifts
// and ORs -> 8^2 8-bit rows, for solid and water separately.
//
// This library depends on nothing else in vxk.
#ifndef VXK_SIMD_DILATE_H
#define VXK_SIMD_DILATE_H

#include <assert.h> // static_assert, in C as in C++
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The 10^3 neighbourhood of one 8^3 chunk (the chunk plus a one-voxel border), as 10^2 rows of
// 10 bits. Row index y*10 + z, bit x (local coordinates 0..9; the chunk's voxels are 1..8).
// Solid and water rows are interleaved: rows[r][0] is solid, rows[r][1] is water, so one
// 256-bit load carries eight rows of both kinds. Bits 10..15 of a row must be zero. 400 bytes.
typedef struct vxk_dilate_rows {
    uint16_t rows[100][2];
} vxk_dilate_rows;
static_assert(sizeof(vxk_dilate_rows) == 400, "dilation input is 100 rows x 2 kinds x 16 bit");

// A dilated 8^3 mask pair: bit x + 8*z of slice y is set when any voxel of the 3x3x3
// neighbourhood of chunk voxel (x, y, z) is solid (water). 128 bytes.
typedef struct vxk_dilate_mask {
    uint64_t solid[8];
    uint64_t water[8];
} vxk_dilate_mask;
static_assert(sizeof(vxk_dilate_mask) == 128, "mask pair is 2 x 8 x 64 bit");

// Classification of a neighbourhood (seed 000: redundant chunks are filtered out).
typedef enum vxk_dilate_kind {
    VXK_DILATE_EMPTY = 0,      // the whole 10^3 box is air: no broadphase entry
    VXK_DILATE_MASK = 1,       // a mask is needed
    VXK_DILATE_FULL_SOLID = 2, // every one of the 1000 voxels is solid: tagged, no mask
    VXK_DILATE_FULL_WATER = 3, // every one of the 1000 voxels is water (and not solid)
} vxk_dilate_kind;

// Dilates `count` neighbourhoods. out_masks[i] receives the dilated masks of in_rows[i] (written
// for every kind; all zero for EMPTY, all ones in the matching mask for FULL), out_kinds[i] (may
// be NULL) its vxk_dilate_kind. A box whose solid rows are all full is FULL_SOLID even when water
// bits are also set (inputs built from terrain never set both).
// Buffers: count elements each; they must not overlap. No alignment needed.
// Thread-safety: pure function. Cost: a few dozen cycles per chunk with AVX2 (8 rows of both kinds
// per 256-bit vector, about 140 vector operations); the scalar twin is about 13x slower.
void vxk_dilate_chunks(vxk_dilate_mask* out_masks, uint8_t* out_kinds,
                       const vxk_dilate_rows* in_rows, size_t count);

// The scalar twin, written as the article states it: rows dilated along x with
// (r << 1) | r | (r >> 1), then along z, then along y, then the inner 8^2 rows extracted.
// Bit-identical to vxk_dilate_chunks for every input. Same contract.
void vxk_dilate_chunks_scalar(vxk_dilate_mask* out_masks, uint8_t* out_kinds,
                              const vxk_dilate_rows* in_rows, size_t count);

// Gathers the 10^3 neighbourhood rows of one chunk from the occupancy bits of the 27 chunks
// around it. solid[i] / water[i] point at 8 uint64 slices (bit x + 8*z of slice y) of the chunk at
// offset (dx, dy, dz) = (i % 3 - 1, i / 9 - 1, (i / 3) % 3 - 1), i.e. i = (dx+1) + 3*(dz+1) +
// 9*(dy+1). Only the slices, bytes and bits that touch the border are read.
// Thread-safety: pure function. Cost: a few hundred vector operations.
void vxk_dilate_gather(vxk_dilate_rows* out, const uint64_t* const solid[27],
                       const uint64_t* const water[27]);
// The scalar twin of vxk_dilate_gather (bit-identical).
void vxk_dilate_gather_scalar(vxk_dilate_rows* out, const uint64_t* const solid[27],
                              const uint64_t* const water[27]);

#ifdef __cplusplus
}
#endif
#endif
