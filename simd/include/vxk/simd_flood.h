// vxk/simd_flood.h: the bit rows that connectivity splitting floods (kernel/geometry/split.h),
// gathered from the occupancy bits of 8^3 terrain chunks, vectorized with SIMDe, with a scalar
// twin. A chunk holds its voxels as slices (uint64 y, bit x + 8z, the terrain's and the
// broadphase's layout); a flood wants rows along x, 64 voxels to a word: the byte z of slice y of
// eight chunks side by side along x is one row word, so a gather is a byte transpose of eight
// chunks (64 bytes each) into 64 words.
//
// A flood grows a claimed row word into its four y and z neighbour words; vxk_flood_probe4 tests
// the four at once, one per 64-bit lane (inline: it runs once per word a flood expands).
//
// This library depends on nothing else in vxk.
#ifndef VXK_SIMD_FLOOD_H
#define VXK_SIMD_FLOOD_H

#include <vxk/simd.h>

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

// What vxk_flood_probe4 finds in four neighbour words of a row word with voxels `bits`.
typedef struct vxk_flood_probe {
    uint64_t fresh[4];     // bits & solid & ~visited of lane i's word (0 for an invalid lane)
    uint64_t seen[4];      // bits & solid & visited
    uint32_t fresh_mask;   // bit i: fresh[i] != 0
    uint32_t foreign_mask; // bit i: seen[i] != 0 and owner[index[i]] != group
} vxk_flood_probe;

// Tests lanes i = 0..3: word index[i] of the solid, visited and owner arrays when bit i of `valid`
// is set (index[i] must then be a valid word; an invalid lane's index must still be readable).
// owner is any 64-bit tag per word: a lane's seen voxels count as foreign unless the tag equals
// group. Thread-safety: pure (reads only). Cost: three 4-lane gathers and a dozen vector
// operations; the scalar twin tests the lanes one by one.
static inline void vxk_flood_probe4(vxk_flood_probe* out, uint64_t bits, const uint32_t index[4],
                                    uint32_t valid, const uint64_t* solid, const uint64_t* visited,
                                    const uint64_t* owner, uint64_t group)
{
    const simde__m256i lane_bits = simde_mm256_setr_epi64x(1, 2, 4, 8);
    const simde__m256i zero = simde_mm256_setzero_si256();
    simde__m256i valid_lanes = simde_mm256_cmpeq_epi64(
        simde_mm256_and_si256(simde_mm256_set1_epi64x((int64_t)valid), lane_bits), lane_bits);
    // Four loads each rather than gathers: gathers of 4 words cost more on current x86 cores.
    simde__m256i s = simde_mm256_setr_epi64x((int64_t)solid[index[0]], (int64_t)solid[index[1]],
                                             (int64_t)solid[index[2]], (int64_t)solid[index[3]]);
    simde__m256i v =
        simde_mm256_setr_epi64x((int64_t)visited[index[0]], (int64_t)visited[index[1]],
                                (int64_t)visited[index[2]], (int64_t)visited[index[3]]);
    simde__m256i o = simde_mm256_setr_epi64x((int64_t)owner[index[0]], (int64_t)owner[index[1]],
                                             (int64_t)owner[index[2]], (int64_t)owner[index[3]]);
    simde__m256i c = simde_mm256_and_si256(
        simde_mm256_and_si256(s, simde_mm256_set1_epi64x((int64_t)bits)), valid_lanes);
    simde__m256i fresh = simde_mm256_andnot_si256(v, c);
    simde__m256i seen = simde_mm256_and_si256(c, v);
    simde_mm256_storeu_si256((void*)out->fresh, fresh);
    simde_mm256_storeu_si256((void*)out->seen, seen);
    uint32_t fresh_zero = (uint32_t)simde_mm256_movemask_pd(
        simde_mm256_castsi256_pd(simde_mm256_cmpeq_epi64(fresh, zero)));
    uint32_t seen_zero = (uint32_t)simde_mm256_movemask_pd(
        simde_mm256_castsi256_pd(simde_mm256_cmpeq_epi64(seen, zero)));
    uint32_t own = (uint32_t)simde_mm256_movemask_pd(simde_mm256_castsi256_pd(
        simde_mm256_cmpeq_epi64(o, simde_mm256_set1_epi64x((int64_t)group))));
    out->fresh_mask = ~fresh_zero & 0xFu;
    out->foreign_mask = ~(seen_zero | own) & 0xFu;
}

// The scalar twin: the same results, lane by lane.
VXK_SCALAR_TWIN static inline void vxk_flood_probe4_scalar(vxk_flood_probe* out, uint64_t bits,
                                                           const uint32_t index[4], uint32_t valid,
                                                           const uint64_t* solid,
                                                           const uint64_t* visited,
                                                           const uint64_t* owner, uint64_t group)
{
    out->fresh_mask = 0;
    out->foreign_mask = 0;
    for (uint32_t i = 0; i < 4; ++i) {
        uint64_t c = ((valid >> i) & 1) ? bits & solid[index[i]] : 0;
        uint64_t v = visited[index[i]];
        out->fresh[i] = c & ~v;
        out->seen[i] = c & v;
        out->fresh_mask |= (uint32_t)(out->fresh[i] != 0) << i;
        out->foreign_mask |= (uint32_t)(out->seen[i] != 0 && owner[index[i]] != group) << i;
    }
}

#ifdef __cplusplus
}
#endif
#endif
