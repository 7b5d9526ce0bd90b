// flood.c: bit rows along x gathered from 8^3 chunk slices (vxk/simd_flood.h), a SIMDe byte
// transpose and its scalar twin.
#include <vxk/simd.h>
#include <vxk/simd_flood.h>

#include <simde/x86/avx2.h>

#include <string.h>

static const uint64_t k_empty_chunk[8] = {0};

// The eight chunks (cx = 8 word .. 8 word + 7) of word `word` of chunk row (cy, cz); missing ones
// (past count_x, or NULL) read as empty.
static void word_chunks(const uint8_t* in[8], const uint64_t* const* chunks, uint32_t count_x,
                        uint32_t count_z, uint32_t cy, uint32_t cz, uint32_t word)
{
    for (uint32_t j = 0; j < 8; ++j) {
        uint32_t cx = 8 * word + j;
        const uint64_t* c =
            cx < count_x ? chunks[cx + count_x * (cz + (size_t)count_z * cy)] : NULL;
        in[j] = (const uint8_t*)(c ? c : k_empty_chunk);
    }
}

// Row word of chunk-local (ly, lz) is at rows[row_base + (ly * 8 count_z + lz) * W].
static inline size_t row_base(uint32_t count_z, uint32_t W, uint32_t cy, uint32_t cz, uint32_t word)
{
    return ((size_t)8 * cy * 8 * count_z + (size_t)8 * cz) * W + word;
}

// Writes the 64 row words of eight chunks side by side: word k = 8 ly + lz (byte j from chunk j)
// to out[ly * stride + lz * W].
typedef void transpose_fn(uint64_t* out, const uint8_t* in[8], size_t stride, uint32_t W);

static void gather(uint64_t* rows, const uint64_t* const* chunks, uint32_t count_x,
                   uint32_t count_y, uint32_t count_z, transpose_fn* transpose)
{
    uint32_t W = (8 * count_x + 63) / 64;
    size_t stride = (size_t)8 * count_z * W; // from slice ly to ly + 1
    for (uint32_t cy = 0; cy < count_y; ++cy) {
        for (uint32_t cz = 0; cz < count_z; ++cz) {
            for (uint32_t word = 0; word < W; ++word) {
                const uint8_t* in[8];
                word_chunks(in, chunks, count_x, count_z, cy, cz, word);
                transpose(rows + row_base(count_z, W, cy, cz, word), in, stride, W);
            }
        }
    }
}

VXK_SCALAR_TWIN static void transpose_scalar(uint64_t* out, const uint8_t* in[8], size_t stride,
                                             uint32_t W)
{
    for (uint32_t k = 0; k < 64; ++k) {
        uint64_t v = 0;
        for (uint32_t j = 0; j < 8; ++j)
            v |= (uint64_t)in[j][k] << (8 * j);
        out[(k >> 3) * stride + (size_t)(k & 7) * W] = v;
    }
}

void vxk_flood_gather_chunks_scalar(uint64_t* rows, const uint64_t* const* chunks, uint32_t count_x,
                                    uint32_t count_y, uint32_t count_z)
{
    gather(rows, chunks, count_x, count_y, count_z, transpose_scalar);
}

// Transposes bytes [32 half, 32 half + 32) of the eight chunks: out[i] holds the words of
// k = 32 half + 4 i .. + 3 (k = 8 ly + lz), byte j of each from chunk j.
static inline void transpose_half(simde__m256i out[8], const uint8_t* in[8], uint32_t half)
{
    simde__m256i r[8], p[8], q[8], o[8];
    for (int j = 0; j < 8; ++j)
        r[j] = simde_mm256_loadu_si256((const void*)(in[j] + 32 * half));
    // Per 128-bit lane: pairs of chunks, then quadruples, then all eight (lane 0: k 0..15 of the
    // half, lane 1: k 16..31).
    for (int m = 0; m < 4; ++m) {
        p[m] = simde_mm256_unpacklo_epi8(r[2 * m], r[2 * m + 1]);     // k 0-7 | 16-23
        p[m + 4] = simde_mm256_unpackhi_epi8(r[2 * m], r[2 * m + 1]); // k 8-15 | 24-31
    }
    for (int h = 0; h < 2; ++h) {
        for (int m = 0; m < 2; ++m) {
            const simde__m256i a = p[4 * h + 2 * m], b = p[4 * h + 2 * m + 1];
            q[4 * h + m] = simde_mm256_unpacklo_epi16(a, b);     // 4 k of chunks 4m..4m+3
            q[4 * h + m + 2] = simde_mm256_unpackhi_epi16(a, b); // the next 4 k
        }
    }
    // q[4h + g] (g = 0: low quad, g = 2: high quad; +1: chunks 4-7). o: 2 k per lane.
    for (int h = 0; h < 2; ++h) {
        for (int g = 0; g < 2; ++g) {
            const simde__m256i lo = q[4 * h + 2 * g], hi = q[4 * h + 2 * g + 1];
            o[4 * h + 2 * g] = simde_mm256_unpacklo_epi32(lo, hi);
            o[4 * h + 2 * g + 1] = simde_mm256_unpackhi_epi32(lo, hi);
        }
    }
    // o[2 i], o[2 i + 1] hold k = 4 i + {0, 1 | 16, 17} and 4 i + {2, 3 | 18, 19}.
    for (int i = 0; i < 4; ++i) {
        out[i] = simde_mm256_permute2x128_si256(o[2 * i], o[2 * i + 1], 0x20);
        out[i + 4] = simde_mm256_permute2x128_si256(o[2 * i], o[2 * i + 1], 0x31);
    }
}

static void transpose_simd(uint64_t* out, const uint8_t* in[8], size_t stride, uint32_t W)
{
    for (uint32_t half = 0; half < 2; ++half) {
        simde__m256i v[8];
        transpose_half(v, in, half);
        for (uint32_t i = 0; i < 8; ++i) {
            uint32_t k = 32 * half + 4 * i; // lz = k & 7 is 0 or 4
            uint64_t* dst = out + (k >> 3) * stride + (size_t)(k & 7) * W;
            if (W == 1) {
                simde_mm256_storeu_si256((void*)dst, v[i]);
            } else {
                uint64_t lanes[4];
                simde_mm256_storeu_si256((void*)lanes, v[i]);
                for (uint32_t l = 0; l < 4; ++l)
                    dst[l * W] = lanes[l];
            }
        }
    }
}

void vxk_flood_gather_chunks(uint64_t* rows, const uint64_t* const* chunks, uint32_t count_x,
                             uint32_t count_y, uint32_t count_z)
{
    gather(rows, chunks, count_x, count_y, count_z, transpose_simd);
}
