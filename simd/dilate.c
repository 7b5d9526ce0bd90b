// dilate.c: bit dilation of 10^3 chunk neighbourhoods into 8^3 broadphase masks (seed 000, Roblox
// terrain physics, "Bit broadphase: construction"), a SIMDe kernel and its scalar twin, plus the
// gather of the neighbourhood rows from 27 chunks' occupancy bits.
#include <vxk/simd_dilate.h>

#include <simde/x86/avx2.h>

#include <string.h>

// ---- scalar twin: the article's three passes -------------------------------------------------

static uint8_t classify_rows(const vxk_dilate_rows* in)
{
    uint16_t any_solid = 0, any_water = 0, all_solid = 0x3FF, all_water = 0x3FF;
    for (int r = 0; r < 100; ++r) {
        any_solid |= in->rows[r][0];
        any_water |= in->rows[r][1];
        all_solid &= in->rows[r][0];
        all_water &= in->rows[r][1];
    }
    if (((any_solid | any_water) & 0x3FF) == 0)
        return VXK_DILATE_EMPTY;
    if (all_solid == 0x3FF)
        return VXK_DILATE_FULL_SOLID;
    if (all_water == 0x3FF)
        return VXK_DILATE_FULL_WATER;
    return VXK_DILATE_MASK;
}

static void dilate_one_scalar(uint64_t out[8], const vxk_dilate_rows* in, int kind)
{
    uint16_t data[10][10], temp[10][10];
    for (int y = 0; y < 10; ++y) {
        for (int z = 0; z < 10; ++z) {
            uint16_t r = in->rows[y * 10 + z][kind];
            data[y][z] = (uint16_t)((r << 1) | r | (r >> 1));
        }
    }
    for (int y = 0; y < 10; ++y) {
        for (int z = 1; z < 9; ++z)
            temp[y][z] = data[y][z - 1] | data[y][z] | data[y][z + 1];
    }
    for (int y = 1; y < 9; ++y) {
        uint64_t slice = 0;
        for (int z = 1; z < 9; ++z) {
            uint16_t d = temp[y - 1][z] | temp[y][z] | temp[y + 1][z];
            slice |= (uint64_t)((d >> 1) & 0xFF) << (8 * (z - 1));
        }
        out[y - 1] = slice;
    }
}

void vxk_dilate_chunks_scalar(vxk_dilate_mask* out_masks, uint8_t* out_kinds,
                              const vxk_dilate_rows* in_rows, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        dilate_one_scalar(out_masks[i].solid, &in_rows[i], 0);
        dilate_one_scalar(out_masks[i].water, &in_rows[i], 1);
        if (out_kinds)
            out_kinds[i] = classify_rows(&in_rows[i]);
    }
}

// ---- SIMD kernel -----------------------------------------------------------------------------
// Dilation is an OR of shifted copies, so the three passes commute: OR the 3x3 (y, z) rows first,
// dilate along x once at the end. One 256-bit vector holds rows z = 1..8 of one y for solid and
// water (16-bit lanes, kinds interleaved); the loads at z offsets 0, 1, 2 bring z - 1, z, z + 1.
// The x dilation is fused with the extraction of bits 1..8: (w | w >> 1 | w >> 2) & 0xFF.

static inline simde__m256i load_rows8(const vxk_dilate_rows* in, int row)
{
    return simde_mm256_loadu_si256((const void*)&in->rows[row][0]);
}

static inline simde__m256i extract_slice(simde__m256i w, simde__m256i low_byte)
{
    simde__m256i e = simde_mm256_or_si256(w, simde_mm256_srli_epi16(w, 1));
    e = simde_mm256_or_si256(e, simde_mm256_srli_epi16(w, 2));
    return simde_mm256_and_si256(e, low_byte);
}

static inline void dilate_one_simd(vxk_dilate_mask* out, uint8_t* out_kind,
                                   const vxk_dilate_rows* in)
{
    const simde__m256i low_byte = simde_mm256_set1_epi16(0x00FF);
    const simde__m256i ten_bits = simde_mm256_set1_epi16(0x03FF);
    // Per 128-bit lane: solid bytes of the first slice, of the second, then the water bytes.
    const simde__m256i split_kinds =
        simde_mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8,
                              10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const simde__m256i join_halves = simde_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);

    simde__m256i zor[10];
    simde__m256i all = ten_bits, any = simde_mm256_setzero_si256();
    for (int y = 0; y < 10; ++y) {
        simde__m256i a = load_rows8(in, y * 10 + 0);
        simde__m256i b = load_rows8(in, y * 10 + 1);
        simde__m256i c = load_rows8(in, y * 10 + 2);
        zor[y] = simde_mm256_or_si256(simde_mm256_or_si256(a, b), c);
        all = simde_mm256_and_si256(all, simde_mm256_and_si256(a, c)); // a, c cover z 0..9
        any = simde_mm256_or_si256(any, zor[y]);
    }
    for (int y = 1; y < 9; y += 2) {
        simde__m256i mid = simde_mm256_or_si256(zor[y], zor[y + 1]);
        simde__m256i w1 = simde_mm256_or_si256(zor[y - 1], mid);
        simde__m256i w2 = simde_mm256_or_si256(mid, zor[y + 2]);
        simde__m256i packed =
            simde_mm256_packus_epi16(extract_slice(w1, low_byte), extract_slice(w2, low_byte));
        packed = simde_mm256_shuffle_epi8(packed, split_kinds);
        packed = simde_mm256_permutevar8x32_epi32(packed, join_halves);
        simde_mm_storeu_si128((void*)&out->solid[y - 1], simde_mm256_castsi256_si128(packed));
        simde_mm_storeu_si128((void*)&out->water[y - 1], simde_mm256_extracti128_si256(packed, 1));
    }
    if (out_kind) {
        // Lane pairs: solid lanes own bytes 0,1 of every 4, water lanes bytes 2,3.
        uint32_t is_full = (uint32_t)simde_mm256_movemask_epi8(
            simde_mm256_cmpeq_epi16(simde_mm256_and_si256(all, ten_bits), ten_bits));
        uint32_t is_air = (uint32_t)simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi16(
            simde_mm256_and_si256(any, ten_bits), simde_mm256_setzero_si256()));
        uint8_t kind = VXK_DILATE_MASK;
        if (is_air == 0xFFFFFFFFu)
            kind = VXK_DILATE_EMPTY;
        else if ((is_full & 0x33333333u) == 0x33333333u)
            kind = VXK_DILATE_FULL_SOLID;
        else if ((is_full & 0xCCCCCCCCu) == 0xCCCCCCCCu)
            kind = VXK_DILATE_FULL_WATER;
        *out_kind = kind;
    }
}

void vxk_dilate_chunks(vxk_dilate_mask* out_masks, uint8_t* out_kinds,
                       const vxk_dilate_rows* in_rows, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        dilate_one_simd(&out_masks[i], out_kinds ? &out_kinds[i] : NULL, &in_rows[i]);
}

// ---- gather ----------------------------------------------------------------------------------
// Local coordinate c in 0..9 of the 10^3 box maps to neighbour offset d and coordinate s inside
// that neighbour: 0 -> (-1, 7), 1..8 -> (0, c - 1), 9 -> (+1, 0).

static inline int border_offset(int c)
{
    return c == 0 ? -1 : (c == 9 ? 1 : 0);
}
static inline int border_inner(int c)
{
    return c == 0 ? 7 : (c == 9 ? 0 : c - 1);
}
static inline int neighbour_index(int dx, int dy, int dz)
{
    return (dx + 1) + 3 * (dz + 1) + 9 * (dy + 1);
}

void vxk_dilate_gather_scalar(vxk_dilate_rows* out, const uint64_t* const solid[27],
                              const uint64_t* const water[27])
{
    for (int y = 0; y < 10; ++y) {
        int dy = border_offset(y), sy = border_inner(y);
        for (int z = 0; z < 10; ++z) {
            int dz = border_offset(z), shift = 8 * border_inner(z);
            for (int kind = 0; kind < 2; ++kind) {
                const uint64_t* const* src = kind ? water : solid;
                uint64_t left = src[neighbour_index(-1, dy, dz)][sy];
                uint64_t mid = src[neighbour_index(0, dy, dz)][sy];
                uint64_t right = src[neighbour_index(1, dy, dz)][sy];
                uint32_t row = (uint32_t)((mid >> shift) & 0xFF) << 1;
                row |= (uint32_t)((left >> (shift + 7)) & 1);
                row |= (uint32_t)((right >> shift) & 1) << 9;
                out->rows[y * 10 + z][kind] = (uint16_t)row;
            }
        }
    }
}

// Bytes z = 0..9 of the box for one x column chunk (dx) and slice: [A byte 7, B bytes 0..7,
// C byte 0] where A, B, C are the dz = -1, 0, +1 neighbours' slices.
static inline simde__m128i column_bytes(const uint64_t* const* src, int dx, int dy, int sy)
{
    uint64_t a = src[neighbour_index(dx, dy, -1)][sy];
    uint64_t b = src[neighbour_index(dx, dy, 0)][sy];
    uint64_t c = src[neighbour_index(dx, dy, 1)][sy];
    uint64_t lo = (a >> 56) | (b << 8);
    uint64_t hi = (b >> 56) | (c << 8);
    return simde_mm_set_epi64x((int64_t)hi, (int64_t)lo);
}

void vxk_dilate_gather(vxk_dilate_rows* out, const uint64_t* const solid[27],
                       const uint64_t* const water[27])
{
    const simde__m256i one = simde_mm256_set1_epi16(1);
    for (int y = 0; y < 10; ++y) {
        int dy = border_offset(y), sy = border_inner(y);
        simde__m256i lo[3];
        simde__m128i hi[3];
        for (int dx = -1; dx <= 1; ++dx) {
            simde__m128i s = column_bytes(solid, dx, dy, sy);
            simde__m128i w = column_bytes(water, dx, dy, sy);
            lo[dx + 1] = simde_mm256_cvtepu8_epi16(simde_mm_unpacklo_epi8(s, w));
            hi[dx + 1] = simde_mm_cvtepu8_epi16(simde_mm_unpackhi_epi8(s, w));
        }
        simde__m256i rows = simde_mm256_slli_epi16(lo[1], 1);
        rows = simde_mm256_or_si256(rows, simde_mm256_srli_epi16(lo[0], 7));
        rows = simde_mm256_or_si256(rows,
                                    simde_mm256_slli_epi16(simde_mm256_and_si256(lo[2], one), 9));
        simde__m128i rows_hi = simde_mm_slli_epi16(hi[1], 1);
        rows_hi = simde_mm_or_si128(rows_hi, simde_mm_srli_epi16(hi[0], 7));
        rows_hi = simde_mm_or_si128(
            rows_hi, simde_mm_slli_epi16(simde_mm_and_si128(hi[2], simde_mm_set1_epi16(1)), 9));
        simde_mm256_storeu_si256((void*)&out->rows[y * 10][0], rows);
        simde_mm_storel_epi64((void*)&out->rows[y * 10 + 8][0], rows_hi);
    }
}
