// bits.c: operations over arrays of uint64_t bit rows (or, and, andnot, xor, shifts, 3-tap
// dilation, any-nonzero), 4 rows per AVX2 vector, with scalar twins. They feed the bit
// broadphase of seed 000 (Roblox terrain physics: solid/water masks dilated with bit operations).
#include <vxk/simd.h>
#include <vxk/simd_kernels.h>

// The vector loops leave n % 4 rows; the tails use the twin's one-row expression.
#define VXK_BITS_BINARY(name, vector_op, row_expr)                                      \
    void vxk_bits_##name(uint64_t* dst, const uint64_t* a, const uint64_t* b, size_t n) \
    {                                                                                   \
        size_t i = 0;                                                                   \
        for (; i + 4 <= n; i += 4) {                                                    \
            vxk_u64x4 x = vxk_u64x4_load(a + i), y = vxk_u64x4_load(b + i);             \
            vxk_u64x4_store(dst + i, vector_op(x, y));                                  \
        }                                                                               \
        for (; i < n; ++i) {                                                            \
            uint64_t x = a[i], y = b[i];                                                \
            dst[i] = (row_expr);                                                        \
        }                                                                               \
    }                                                                                   \
    VXK_SCALAR_TWIN void vxk_bits_##name##_scalar(uint64_t* dst, const uint64_t* a,     \
                                                  const uint64_t* b, size_t n)          \
    {                                                                                   \
        for (size_t i = 0; i < n; ++i) {                                                \
            uint64_t x = a[i], y = b[i];                                                \
            dst[i] = (row_expr);                                                        \
        }                                                                               \
    }

VXK_BITS_BINARY(or, vxk_u64x4_or, x | y)
VXK_BITS_BINARY(and, vxk_u64x4_and, x& y)
VXK_BITS_BINARY(andnot, vxk_u64x4_andnot, x & ~y)
VXK_BITS_BINARY(xor, vxk_u64x4_xor, x ^ y)

void vxk_bits_shl(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        vxk_u64x4_store(dst + i, vxk_u64x4_shl(vxk_u64x4_load(src + i), shift));
    for (; i < n; ++i)
        dst[i] = vxk_u64_shl(src[i], shift);
}

void vxk_bits_shr(uint64_t* dst, const uint64_t* src, size_t n, uint32_t shift)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        vxk_u64x4_store(dst + i, vxk_u64x4_shr(vxk_u64x4_load(src + i), shift));
    for (; i < n; ++i)
        dst[i] = vxk_u64_shr(src[i], shift);
}

VXK_SCALAR_TWIN void vxk_bits_shl_scalar(uint64_t* dst, const uint64_t* src, size_t n,
                                         uint32_t shift)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = vxk_u64_shl(src[i], shift);
}

VXK_SCALAR_TWIN void vxk_bits_shr_scalar(uint64_t* dst, const uint64_t* src, size_t n,
                                         uint32_t shift)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = vxk_u64_shr(src[i], shift);
}

void vxk_bits_dilate3(uint64_t* dst, const uint64_t* src, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        vxk_u64x4 x = vxk_u64x4_load(src + i);
        vxk_u64x4 grown = vxk_u64x4_or(VXK_U64X4_SHLI(x, 1), VXK_U64X4_SHRI(x, 1));
        vxk_u64x4_store(dst + i, vxk_u64x4_or(x, grown));
    }
    for (; i < n; ++i)
        dst[i] = src[i] | (src[i] << 1) | (src[i] >> 1);
}

VXK_SCALAR_TWIN void vxk_bits_dilate3_scalar(uint64_t* dst, const uint64_t* src, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = src[i] | (src[i] << 1) | (src[i] >> 1);
}

bool vxk_bits_any(const uint64_t* a, size_t n)
{
    size_t i = 0;
    // Blocks of 16 rows: four loads OR-ed together, one test per block.
    for (; i + 16 <= n; i += 16) {
        vxk_u64x4 x = vxk_u64x4_or(vxk_u64x4_load(a + i), vxk_u64x4_load(a + i + 4));
        vxk_u64x4 y = vxk_u64x4_or(vxk_u64x4_load(a + i + 8), vxk_u64x4_load(a + i + 12));
        if (vxk_u64x4_any(vxk_u64x4_or(x, y)))
            return true;
    }
    for (; i + 4 <= n; i += 4) {
        if (vxk_u64x4_any(vxk_u64x4_load(a + i)))
            return true;
    }
    uint64_t rest = 0;
    for (; i < n; ++i)
        rest |= a[i];
    return rest != 0;
}

VXK_SCALAR_TWIN bool vxk_bits_any_scalar(const uint64_t* a, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (a[i])
            return true;
    }
    return false;
}
