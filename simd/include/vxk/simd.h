// vxk/simd.h: the thin typed SIMD layer of vxk over SIMDe (x86 AVX2 API, native on x86-64-v3,
// portable C elsewhere or with SIMDE_NO_NATIVE): 8-wide float and 4-wide uint64 vectors as
// small inline functions, each with a plain-C scalar twin over lane arrays (suffix _scalar).
//
// The twins define the semantics; the tests compare every operation with its twin bit for bit.
// The float semantics are those of x86 SSE/AVX:
//   - min(a, b) = a < b ? a : b and max(a, b) = a > b ? a : b, so when either input is NaN, or
//     both are zeros of either sign, the result is b (the second operand), bit for bit.
//   - Comparisons are ordered and quiet (a NaN input makes every comparison false, cmpneq too)
//     and give per-lane masks of all ones (true) or all zeros (false).
//   - select reads only the sign bit of each mask lane (blendv), so a float's own sign can
//     steer it through vxk_mask8_from_sign.
//   - add/sub/mul/div are single IEEE operations (no FMA: the build sets -ffp-contract=off, and
//     no reciprocal estimates). Their NaN payloads are not part of the contract.
// All functions are pure and thread-safe; loads and stores are unaligned.
#ifndef VXK_SIMD_H
#define VXK_SIMD_H

#include <assert.h> // static_assert, in C as in C++
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <simde/x86/avx2.h>

#ifdef __cplusplus
extern "C" {
#endif

// Scalar twins of kernels are compiled without auto-vectorization, so that benchmarks compare
// the SIMD code with honest one-lane-at-a-time code (GCC; clang ignores the request).
#if defined(__GNUC__) && !defined(__clang__)
#define VXK_SCALAR_TWIN __attribute__((optimize("no-tree-vectorize")))
#else
#define VXK_SCALAR_TWIN
#endif

// 1 when SIMDe maps the AVX2 API onto native instructions, 0 for its portable C.
#if defined(SIMDE_X86_AVX2_NATIVE)
#define VXK_SIMD_NATIVE 1
#else
#define VXK_SIMD_NATIVE 0
#endif

typedef simde__m256 vxk_f32x8;  // 8 floats
typedef simde__m256 vxk_mask8;  // 8 lanes of all ones (true) or all zeros (false)
typedef simde__m256i vxk_u64x4; // 4 uint64 (bit rows)

// Scalar twins' types: the same lanes as plain arrays (lane i is vector element i).
typedef struct vxk_f32x8_lanes {
    float lane[8];
} vxk_f32x8_lanes;
typedef struct vxk_mask8_lanes {
    uint32_t lane[8]; // 0xFFFFFFFF or 0
} vxk_mask8_lanes;
typedef struct vxk_u64x4_lanes {
    uint64_t lane[4];
} vxk_u64x4_lanes;

static_assert(sizeof(vxk_f32x8) == 32, "vxk_f32x8 is 32 bytes");
static_assert(sizeof(vxk_u64x4) == 32, "vxk_u64x4 is 32 bytes");
static_assert(sizeof(vxk_f32x8_lanes) == 32, "twin lanes match the vector size");
static_assert(sizeof(vxk_mask8_lanes) == 32, "twin lanes match the vector size");
static_assert(sizeof(vxk_u64x4_lanes) == 32, "twin lanes match the vector size");

// ---- vxk_f32x8 ------------------------------------------------------------------------------

// Loads 8 floats from p (any alignment).
static inline vxk_f32x8 vxk_f32x8_load(const float* p)
{
    return simde_mm256_loadu_ps(p);
}
// Loads 8 uint16 from p (any alignment; 16 bytes read) as 8 floats (exact).
static inline vxk_f32x8 vxk_f32x8_load_u16(const uint16_t* p)
{
    return simde_mm256_cvtepi32_ps(simde_mm256_cvtepu16_epi32(simde_mm_loadu_si128(p)));
}
// Stores 8 floats to p (any alignment).
static inline void vxk_f32x8_store(float* p, vxk_f32x8 a)
{
    simde_mm256_storeu_ps(p, a);
}
// All lanes = s.
static inline vxk_f32x8 vxk_f32x8_broadcast(float s)
{
    return simde_mm256_set1_ps(s);
}
static inline vxk_f32x8 vxk_f32x8_add(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_add_ps(a, b);
}
static inline vxk_f32x8 vxk_f32x8_sub(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_sub_ps(a, b);
}
static inline vxk_f32x8 vxk_f32x8_mul(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_mul_ps(a, b);
}
// Exact IEEE division (no reciprocal estimate).
static inline vxk_f32x8 vxk_f32x8_div(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_div_ps(a, b);
}
// a < b ? a : b per lane (NaN or equal zeros give b).
static inline vxk_f32x8 vxk_f32x8_min(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_min_ps(a, b);
}
// a > b ? a : b per lane (NaN or equal zeros give b).
static inline vxk_f32x8 vxk_f32x8_max(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_max_ps(a, b);
}
// Bitwise and / or of the float bits (masks included).
static inline vxk_f32x8 vxk_f32x8_and(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_and_ps(a, b);
}
static inline vxk_f32x8 vxk_f32x8_or(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_or_ps(a, b);
}
// Ordered quiet comparisons: a NaN lane compares false.
static inline vxk_mask8 vxk_f32x8_cmplt(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ);
}
static inline vxk_mask8 vxk_f32x8_cmple(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ);
}
static inline vxk_mask8 vxk_f32x8_cmpgt(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ);
}
static inline vxk_mask8 vxk_f32x8_cmpge(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ);
}
static inline vxk_mask8 vxk_f32x8_cmpeq(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ);
}
// a < b or a > b (false when either is NaN, unlike C's !=).
static inline vxk_mask8 vxk_f32x8_cmpneq(vxk_f32x8 a, vxk_f32x8 b)
{
    return simde_mm256_cmp_ps(a, b, SIMDE_CMP_NEQ_OQ);
}
// True where a is not NaN.
static inline vxk_mask8 vxk_f32x8_cmpord(vxk_f32x8 a)
{
    return simde_mm256_cmp_ps(a, a, SIMDE_CMP_ORD_Q);
}
// Per lane: sign bit of m set ? if_true : if_false.
static inline vxk_f32x8 vxk_f32x8_select(vxk_mask8 m, vxk_f32x8 if_true, vxk_f32x8 if_false)
{
    return simde_mm256_blendv_ps(if_false, if_true, m);
}

// ---- vxk_mask8 ------------------------------------------------------------------------------

static inline vxk_mask8 vxk_mask8_and(vxk_mask8 a, vxk_mask8 b)
{
    return simde_mm256_and_ps(a, b);
}
static inline vxk_mask8 vxk_mask8_or(vxk_mask8 a, vxk_mask8 b)
{
    return simde_mm256_or_ps(a, b);
}
// a and not b.
static inline vxk_mask8 vxk_mask8_andnot(vxk_mask8 a, vxk_mask8 b)
{
    return simde_mm256_andnot_ps(b, a);
}
// All ones where the sign bit of a is set (-0.0 and -inf included), zeros elsewhere.
static inline vxk_mask8 vxk_mask8_from_sign(vxk_f32x8 a)
{
    return simde_mm256_castsi256_ps(simde_mm256_srai_epi32(simde_mm256_castps_si256(a), 31));
}
// All ones in lane i where bit i of bits is set.
static inline vxk_mask8 vxk_mask8_from_bits(uint32_t bits)
{
    simde__m256i lane_bits = simde_mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    simde__m256i b = simde_mm256_and_si256(simde_mm256_set1_epi32((int32_t)bits), lane_bits);
    return simde_mm256_castsi256_ps(simde_mm256_cmpeq_epi32(b, lane_bits));
}
// Bit i = sign bit of lane i (movemask); an 8-bit value.
static inline uint32_t vxk_mask8_movemask(vxk_mask8 m)
{
    return (uint32_t)simde_mm256_movemask_ps(m);
}

// ---- vxk_u64x4 ------------------------------------------------------------------------------

static inline vxk_u64x4 vxk_u64x4_load(const uint64_t* p)
{
    return simde_mm256_loadu_si256((const simde__m256i*)(const void*)p);
}
static inline void vxk_u64x4_store(uint64_t* p, vxk_u64x4 a)
{
    simde_mm256_storeu_si256((simde__m256i*)(void*)p, a);
}
static inline vxk_u64x4 vxk_u64x4_broadcast(uint64_t s)
{
    return simde_mm256_set1_epi64x((int64_t)s);
}
static inline vxk_u64x4 vxk_u64x4_and(vxk_u64x4 a, vxk_u64x4 b)
{
    return simde_mm256_and_si256(a, b);
}
static inline vxk_u64x4 vxk_u64x4_or(vxk_u64x4 a, vxk_u64x4 b)
{
    return simde_mm256_or_si256(a, b);
}
static inline vxk_u64x4 vxk_u64x4_xor(vxk_u64x4 a, vxk_u64x4 b)
{
    return simde_mm256_xor_si256(a, b);
}
// a and not b.
static inline vxk_u64x4 vxk_u64x4_andnot(vxk_u64x4 a, vxk_u64x4 b)
{
    return simde_mm256_andnot_si256(b, a);
}
// Every lane shifted by the same run-time count n; n > 63 gives zero.
static inline vxk_u64x4 vxk_u64x4_shl(vxk_u64x4 a, uint32_t n)
{
    return simde_mm256_sll_epi64(a, simde_mm_set_epi64x(0, (int64_t)n));
}
static inline vxk_u64x4 vxk_u64x4_shr(vxk_u64x4 a, uint32_t n)
{
    return simde_mm256_srl_epi64(a, simde_mm_set_epi64x(0, (int64_t)n));
}
// Lane i shifted by lane i of counts; a count > 63 gives zero in that lane.
static inline vxk_u64x4 vxk_u64x4_shlv(vxk_u64x4 a, vxk_u64x4 counts)
{
    return simde_mm256_sllv_epi64(a, counts);
}
static inline vxk_u64x4 vxk_u64x4_shrv(vxk_u64x4 a, vxk_u64x4 counts)
{
    return simde_mm256_srlv_epi64(a, counts);
}
// Shifts by a compile-time constant in [0, 63] (the immediate forms).
#define VXK_U64X4_SHLI(a, imm) simde_mm256_slli_epi64((a), (imm))
#define VXK_U64X4_SHRI(a, imm) simde_mm256_srli_epi64((a), (imm))
// True when any bit of a is set.
static inline bool vxk_u64x4_any(vxk_u64x4 a)
{
    return simde_mm256_testz_si256(a, a) == 0;
}

// ---- scalar twins ---------------------------------------------------------------------------

static inline uint32_t vxk_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}
static inline float vxk_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}
// The one-lane min/max the vector min/max match (second operand on NaN or equal zeros).
static inline float vxk_f32_min(float a, float b)
{
    return a < b ? a : b;
}
static inline float vxk_f32_max(float a, float b)
{
    return a > b ? a : b;
}

static inline vxk_f32x8_lanes vxk_f32x8_load_scalar(const float* p)
{
    vxk_f32x8_lanes r;
    memcpy(r.lane, p, sizeof(r.lane));
    return r;
}
static inline vxk_f32x8_lanes vxk_f32x8_load_u16_scalar(const uint16_t* p)
{
    vxk_f32x8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = (float)p[i];
    return r;
}
static inline void vxk_f32x8_store_scalar(float* p, vxk_f32x8_lanes a)
{
    memcpy(p, a.lane, sizeof(a.lane));
}
static inline vxk_f32x8_lanes vxk_f32x8_broadcast_scalar(float s)
{
    vxk_f32x8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = s;
    return r;
}

#define VXK_F32X8_BINARY_TWIN(name, expr)                                                         \
    static inline vxk_f32x8_lanes vxk_f32x8_##name##_scalar(vxk_f32x8_lanes a, vxk_f32x8_lanes b) \
    {                                                                                             \
        vxk_f32x8_lanes r;                                                                        \
        for (int i = 0; i < 8; ++i) {                                                             \
            float x = a.lane[i], y = b.lane[i];                                                   \
            r.lane[i] = (expr);                                                                   \
        }                                                                                         \
        return r;                                                                                 \
    }
VXK_F32X8_BINARY_TWIN(add, x + y)
VXK_F32X8_BINARY_TWIN(sub, x - y)
VXK_F32X8_BINARY_TWIN(mul, x* y)
VXK_F32X8_BINARY_TWIN(div, x / y)
VXK_F32X8_BINARY_TWIN(min, vxk_f32_min(x, y))
VXK_F32X8_BINARY_TWIN(max, vxk_f32_max(x, y))
VXK_F32X8_BINARY_TWIN(and, vxk_f32_from_bits(vxk_f32_bits(x) & vxk_f32_bits(y)))
VXK_F32X8_BINARY_TWIN(or, vxk_f32_from_bits(vxk_f32_bits(x) | vxk_f32_bits(y)))
#undef VXK_F32X8_BINARY_TWIN

#define VXK_F32X8_CMP_TWIN(name, expr)                                                            \
    static inline vxk_mask8_lanes vxk_f32x8_##name##_scalar(vxk_f32x8_lanes a, vxk_f32x8_lanes b) \
    {                                                                                             \
        vxk_mask8_lanes r;                                                                        \
        for (int i = 0; i < 8; ++i) {                                                             \
            float x = a.lane[i], y = b.lane[i];                                                   \
            r.lane[i] = (expr) ? 0xFFFFFFFFu : 0u;                                                \
        }                                                                                         \
        return r;                                                                                 \
    }
VXK_F32X8_CMP_TWIN(cmplt, x < y)
VXK_F32X8_CMP_TWIN(cmple, x <= y)
VXK_F32X8_CMP_TWIN(cmpgt, x > y)
VXK_F32X8_CMP_TWIN(cmpge, x >= y)
VXK_F32X8_CMP_TWIN(cmpeq, x == y)
VXK_F32X8_CMP_TWIN(cmpneq, x<y || x> y)
#undef VXK_F32X8_CMP_TWIN

static inline vxk_mask8_lanes vxk_f32x8_cmpord_scalar(vxk_f32x8_lanes a)
{
    vxk_mask8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = a.lane[i] == a.lane[i] ? 0xFFFFFFFFu : 0u;
    return r;
}
static inline vxk_f32x8_lanes vxk_f32x8_select_scalar(vxk_mask8_lanes m, vxk_f32x8_lanes if_true,
                                                      vxk_f32x8_lanes if_false)
{
    vxk_f32x8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = (m.lane[i] >> 31) ? if_true.lane[i] : if_false.lane[i];
    return r;
}

static inline vxk_mask8_lanes vxk_mask8_and_scalar(vxk_mask8_lanes a, vxk_mask8_lanes b)
{
    for (int i = 0; i < 8; ++i)
        a.lane[i] &= b.lane[i];
    return a;
}
static inline vxk_mask8_lanes vxk_mask8_or_scalar(vxk_mask8_lanes a, vxk_mask8_lanes b)
{
    for (int i = 0; i < 8; ++i)
        a.lane[i] |= b.lane[i];
    return a;
}
static inline vxk_mask8_lanes vxk_mask8_andnot_scalar(vxk_mask8_lanes a, vxk_mask8_lanes b)
{
    for (int i = 0; i < 8; ++i)
        a.lane[i] &= ~b.lane[i];
    return a;
}
static inline vxk_mask8_lanes vxk_mask8_from_sign_scalar(vxk_f32x8_lanes a)
{
    vxk_mask8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = (vxk_f32_bits(a.lane[i]) >> 31) ? 0xFFFFFFFFu : 0u;
    return r;
}
static inline vxk_mask8_lanes vxk_mask8_from_bits_scalar(uint32_t bits)
{
    vxk_mask8_lanes r;
    for (int i = 0; i < 8; ++i)
        r.lane[i] = ((bits >> i) & 1u) ? 0xFFFFFFFFu : 0u;
    return r;
}
static inline uint32_t vxk_mask8_movemask_scalar(vxk_mask8_lanes m)
{
    uint32_t bits = 0;
    for (int i = 0; i < 8; ++i)
        bits |= (m.lane[i] >> 31) << i;
    return bits;
}

static inline vxk_u64x4_lanes vxk_u64x4_load_scalar(const uint64_t* p)
{
    vxk_u64x4_lanes r;
    memcpy(r.lane, p, sizeof(r.lane));
    return r;
}
static inline void vxk_u64x4_store_scalar(uint64_t* p, vxk_u64x4_lanes a)
{
    memcpy(p, a.lane, sizeof(a.lane));
}
static inline vxk_u64x4_lanes vxk_u64x4_broadcast_scalar(uint64_t s)
{
    vxk_u64x4_lanes r = {{s, s, s, s}};
    return r;
}
// One-lane shifts with the vector semantics: a count > 63 gives zero.
static inline uint64_t vxk_u64_shl(uint64_t a, uint64_t n)
{
    return n > 63 ? 0 : a << n;
}
static inline uint64_t vxk_u64_shr(uint64_t a, uint64_t n)
{
    return n > 63 ? 0 : a >> n;
}

#define VXK_U64X4_BINARY_TWIN(name, expr)                                                         \
    static inline vxk_u64x4_lanes vxk_u64x4_##name##_scalar(vxk_u64x4_lanes a, vxk_u64x4_lanes b) \
    {                                                                                             \
        vxk_u64x4_lanes r;                                                                        \
        for (int i = 0; i < 4; ++i) {                                                             \
            uint64_t x = a.lane[i], y = b.lane[i];                                                \
            r.lane[i] = (expr);                                                                   \
        }                                                                                         \
        return r;                                                                                 \
    }
VXK_U64X4_BINARY_TWIN(and, x& y)
VXK_U64X4_BINARY_TWIN(or, x | y)
VXK_U64X4_BINARY_TWIN(xor, x ^ y)
VXK_U64X4_BINARY_TWIN(andnot, x & ~y)
VXK_U64X4_BINARY_TWIN(shlv, vxk_u64_shl(x, y))
VXK_U64X4_BINARY_TWIN(shrv, vxk_u64_shr(x, y))
#undef VXK_U64X4_BINARY_TWIN

static inline vxk_u64x4_lanes vxk_u64x4_shl_scalar(vxk_u64x4_lanes a, uint32_t n)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] = vxk_u64_shl(a.lane[i], n);
    return a;
}
static inline vxk_u64x4_lanes vxk_u64x4_shr_scalar(vxk_u64x4_lanes a, uint32_t n)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] = vxk_u64_shr(a.lane[i], n);
    return a;
}
static inline bool vxk_u64x4_any_scalar(vxk_u64x4_lanes a)
{
    return (a.lane[0] | a.lane[1] | a.lane[2] | a.lane[3]) != 0;
}

#ifdef __cplusplus
}
#endif
#endif
