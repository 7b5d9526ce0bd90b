// vxk/simd4.h: the 4-lane part of the typed SIMD layer (vxk/simd.h) over SIMDe's SSE API: a
// 4-float vector and its lane masks as small inline functions, each with a plain-C scalar twin
// over lane arrays (suffix _scalar). The kD trees' ray setup and float leaf tests use it.
//
// The twins define the semantics; the tests compare every operation with its twin bit for bit.
// The float semantics are those of SSE, as in vxk/simd.h:
//   - min(a, b) = a < b ? a : b and max(a, b) = a > b ? a : b, so when either input is NaN, or
//     both are zeros of either sign, the result is b (the second operand), bit for bit.
//   - Comparisons are ordered and quiet (a NaN input makes every comparison false) and give
//     per-lane masks of all ones (true) or all zeros (false).
//   - and/or/andnot/abs act on the bits, so they apply masks to floats and clear sign bits.
//   - add/sub/mul/div are single IEEE operations (no FMA: the build sets -ffp-contract=off, and
//     no reciprocal estimates). Their NaN payloads are not part of the contract.
// Lane 0 is the first element in memory and the first argument of vxk_f32x4_set. All functions
// are pure and thread-safe; loads and stores are unaligned.
#ifndef VXK_SIMD4_H
#define VXK_SIMD4_H

#include <assert.h> // static_assert, in C as in C++
#include <vxk/simd.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef simde__m128 vxk_f32x4; // 4 floats
typedef simde__m128 vxk_mask4; // 4 lanes of all ones (true) or all zeros (false)

// Scalar twins' types: the same lanes as plain arrays (lane i is vector element i).
typedef struct vxk_f32x4_lanes {
    float lane[4];
} vxk_f32x4_lanes;
typedef struct vxk_mask4_lanes {
    uint32_t lane[4]; // 0xFFFFFFFF or 0
} vxk_mask4_lanes;

static_assert(sizeof(vxk_f32x4) == 16, "vxk_f32x4 is 16 bytes");
static_assert(sizeof(vxk_f32x4_lanes) == 16, "twin lanes match the vector size");
static_assert(sizeof(vxk_mask4_lanes) == 16, "twin lanes match the vector size");

// ---- vxk_f32x4 ------------------------------------------------------------------------------

// Loads 4 floats from p (any alignment).
static inline vxk_f32x4 vxk_f32x4_load(const float* p)
{
    return simde_mm_loadu_ps(p);
}
// Loads p[0], p[1], p[2] into lanes 0-2 and 0 into lane 3, reading exactly 12 bytes (a packed
// float triple, never past it).
static inline vxk_f32x4 vxk_f32x4_load3(const float* p)
{
    return simde_mm_movelh_ps(simde_mm_loadl_pi(simde_mm_setzero_ps(), (const simde__m64*)p),
                              simde_mm_load_ss(p + 2));
}
// Stores 4 floats to p (any alignment).
static inline void vxk_f32x4_store(float* p, vxk_f32x4 a)
{
    simde_mm_storeu_ps(p, a);
}
// Lanes (x, y, z, w).
static inline vxk_f32x4 vxk_f32x4_set(float x, float y, float z, float w)
{
    return simde_mm_set_ps(w, z, y, x);
}
// All lanes = s.
static inline vxk_f32x4 vxk_f32x4_broadcast(float s)
{
    return simde_mm_set1_ps(s);
}
// All lanes +0.0.
static inline vxk_f32x4 vxk_f32x4_zero(void)
{
    return simde_mm_setzero_ps();
}
static inline vxk_f32x4 vxk_f32x4_add(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_add_ps(a, b);
}
static inline vxk_f32x4 vxk_f32x4_sub(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_sub_ps(a, b);
}
static inline vxk_f32x4 vxk_f32x4_mul(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_mul_ps(a, b);
}
// Exact IEEE division (no reciprocal estimate).
static inline vxk_f32x4 vxk_f32x4_div(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_div_ps(a, b);
}
// a < b ? a : b per lane (NaN or equal zeros give b).
static inline vxk_f32x4 vxk_f32x4_min(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_min_ps(a, b);
}
// a > b ? a : b per lane (NaN or equal zeros give b).
static inline vxk_f32x4 vxk_f32x4_max(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_max_ps(a, b);
}
// Bitwise and / or / and-not of the float bits (a float and a mask: the float where the mask is
// true, +0.0 where it is false, and the reverse for andnot).
static inline vxk_f32x4 vxk_f32x4_and(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_and_ps(a, b);
}
static inline vxk_f32x4 vxk_f32x4_or(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_or_ps(a, b);
}
// a and not b.
static inline vxk_f32x4 vxk_f32x4_andnot(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_andnot_ps(b, a);
}
// |a|: the sign bit cleared (NaNs keep their payload).
static inline vxk_f32x4 vxk_f32x4_abs(vxk_f32x4 a)
{
    return simde_mm_andnot_ps(simde_mm_set1_ps(-0.0f), a);
}
// Ordered quiet comparisons: a NaN lane compares false.
static inline vxk_mask4 vxk_f32x4_cmplt(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_cmplt_ps(a, b);
}
static inline vxk_mask4 vxk_f32x4_cmple(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_cmple_ps(a, b);
}
static inline vxk_mask4 vxk_f32x4_cmpgt(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_cmpgt_ps(a, b);
}
static inline vxk_mask4 vxk_f32x4_cmpge(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_cmpge_ps(a, b);
}
static inline vxk_mask4 vxk_f32x4_cmpeq(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_cmpeq_ps(a, b);
}
// (a0, b0, a1, b1) and (a2, b2, a3, b3): with vxk_f32x4_dup_high, two points' x, y, z lanes
// side by side.
static inline vxk_f32x4 vxk_f32x4_interleave_lo(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_unpacklo_ps(a, b);
}
static inline vxk_f32x4 vxk_f32x4_interleave_hi(vxk_f32x4 a, vxk_f32x4 b)
{
    return simde_mm_unpackhi_ps(a, b);
}
// (a2, a3, a2, a3).
static inline vxk_f32x4 vxk_f32x4_dup_high(vxk_f32x4 a)
{
    return simde_mm_movehl_ps(a, a);
}

// ---- vxk_mask4 ------------------------------------------------------------------------------

// All lanes false / all lanes true.
static inline vxk_mask4 vxk_mask4_zeros(void)
{
    return simde_mm_setzero_ps();
}
static inline vxk_mask4 vxk_mask4_ones(void)
{
    return simde_mm_castsi128_ps(simde_mm_set1_epi32(-1));
}
static inline vxk_mask4 vxk_mask4_and(vxk_mask4 a, vxk_mask4 b)
{
    return simde_mm_and_ps(a, b);
}
static inline vxk_mask4 vxk_mask4_or(vxk_mask4 a, vxk_mask4 b)
{
    return simde_mm_or_ps(a, b);
}
// a and not b.
static inline vxk_mask4 vxk_mask4_andnot(vxk_mask4 a, vxk_mask4 b)
{
    return simde_mm_andnot_ps(b, a);
}
// Bit i = sign bit of lane i (movemask); a 4-bit value.
static inline uint32_t vxk_mask4_movemask(vxk_mask4 m)
{
    return (uint32_t)simde_mm_movemask_ps(m);
}
// Stores the 4 lanes' bits to p[0 .. 4) (any alignment).
static inline void vxk_mask4_store(uint32_t* p, vxk_mask4 m)
{
    simde_mm_storeu_si128((simde__m128i*)(void*)p, simde_mm_castps_si128(m));
}
// Stores each lane's sign bit to p[0 .. 4) as 1 or 0 (1 for a true lane).
static inline void vxk_mask4_store_sign(uint32_t* p, vxk_mask4 m)
{
    simde_mm_storeu_si128((simde__m128i*)(void*)p,
                          simde_mm_srli_epi32(simde_mm_castps_si128(m), 31));
}

// ---- scalar twins ---------------------------------------------------------------------------

static inline vxk_f32x4_lanes vxk_f32x4_load_scalar(const float* p)
{
    vxk_f32x4_lanes r;
    memcpy(r.lane, p, sizeof(r.lane));
    return r;
}
static inline vxk_f32x4_lanes vxk_f32x4_load3_scalar(const float* p)
{
    vxk_f32x4_lanes r = {{p[0], p[1], p[2], 0.0f}};
    return r;
}
static inline void vxk_f32x4_store_scalar(float* p, vxk_f32x4_lanes a)
{
    memcpy(p, a.lane, sizeof(a.lane));
}
static inline vxk_f32x4_lanes vxk_f32x4_set_scalar(float x, float y, float z, float w)
{
    vxk_f32x4_lanes r = {{x, y, z, w}};
    return r;
}
static inline vxk_f32x4_lanes vxk_f32x4_broadcast_scalar(float s)
{
    vxk_f32x4_lanes r = {{s, s, s, s}};
    return r;
}
static inline vxk_f32x4_lanes vxk_f32x4_zero_scalar(void)
{
    return vxk_f32x4_broadcast_scalar(0.0f);
}

#define VXK_F32X4_BINARY_TWIN(name, expr)                                                         \
    static inline vxk_f32x4_lanes vxk_f32x4_##name##_scalar(vxk_f32x4_lanes a, vxk_f32x4_lanes b) \
    {                                                                                             \
        vxk_f32x4_lanes r;                                                                        \
        for (int i = 0; i < 4; ++i) {                                                             \
            float x = a.lane[i], y = b.lane[i];                                                   \
            r.lane[i] = (expr);                                                                   \
        }                                                                                         \
        return r;                                                                                 \
    }
VXK_F32X4_BINARY_TWIN(add, x + y)
VXK_F32X4_BINARY_TWIN(sub, x - y)
VXK_F32X4_BINARY_TWIN(mul, x* y)
VXK_F32X4_BINARY_TWIN(div, x / y)
VXK_F32X4_BINARY_TWIN(min, vxk_f32_min(x, y))
VXK_F32X4_BINARY_TWIN(max, vxk_f32_max(x, y))
VXK_F32X4_BINARY_TWIN(and, vxk_f32_from_bits(vxk_f32_bits(x) & vxk_f32_bits(y)))
VXK_F32X4_BINARY_TWIN(or, vxk_f32_from_bits(vxk_f32_bits(x) | vxk_f32_bits(y)))
VXK_F32X4_BINARY_TWIN(andnot, vxk_f32_from_bits(vxk_f32_bits(x) & ~vxk_f32_bits(y)))
#undef VXK_F32X4_BINARY_TWIN

static inline vxk_f32x4_lanes vxk_f32x4_abs_scalar(vxk_f32x4_lanes a)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] = vxk_f32_from_bits(vxk_f32_bits(a.lane[i]) & 0x7FFFFFFFu);
    return a;
}

#define VXK_F32X4_CMP_TWIN(name, expr)                                                            \
    static inline vxk_mask4_lanes vxk_f32x4_##name##_scalar(vxk_f32x4_lanes a, vxk_f32x4_lanes b) \
    {                                                                                             \
        vxk_mask4_lanes r;                                                                        \
        for (int i = 0; i < 4; ++i) {                                                             \
            float x = a.lane[i], y = b.lane[i];                                                   \
            r.lane[i] = (expr) ? 0xFFFFFFFFu : 0u;                                                \
        }                                                                                         \
        return r;                                                                                 \
    }
VXK_F32X4_CMP_TWIN(cmplt, x < y)
VXK_F32X4_CMP_TWIN(cmple, x <= y)
VXK_F32X4_CMP_TWIN(cmpgt, x > y)
VXK_F32X4_CMP_TWIN(cmpge, x >= y)
VXK_F32X4_CMP_TWIN(cmpeq, x == y)
#undef VXK_F32X4_CMP_TWIN

static inline vxk_f32x4_lanes vxk_f32x4_interleave_lo_scalar(vxk_f32x4_lanes a, vxk_f32x4_lanes b)
{
    vxk_f32x4_lanes r = {{a.lane[0], b.lane[0], a.lane[1], b.lane[1]}};
    return r;
}
static inline vxk_f32x4_lanes vxk_f32x4_interleave_hi_scalar(vxk_f32x4_lanes a, vxk_f32x4_lanes b)
{
    vxk_f32x4_lanes r = {{a.lane[2], b.lane[2], a.lane[3], b.lane[3]}};
    return r;
}
static inline vxk_f32x4_lanes vxk_f32x4_dup_high_scalar(vxk_f32x4_lanes a)
{
    vxk_f32x4_lanes r = {{a.lane[2], a.lane[3], a.lane[2], a.lane[3]}};
    return r;
}

static inline vxk_mask4_lanes vxk_mask4_zeros_scalar(void)
{
    vxk_mask4_lanes r = {{0u, 0u, 0u, 0u}};
    return r;
}
static inline vxk_mask4_lanes vxk_mask4_ones_scalar(void)
{
    vxk_mask4_lanes r = {{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}};
    return r;
}
static inline vxk_mask4_lanes vxk_mask4_and_scalar(vxk_mask4_lanes a, vxk_mask4_lanes b)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] &= b.lane[i];
    return a;
}
static inline vxk_mask4_lanes vxk_mask4_or_scalar(vxk_mask4_lanes a, vxk_mask4_lanes b)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] |= b.lane[i];
    return a;
}
static inline vxk_mask4_lanes vxk_mask4_andnot_scalar(vxk_mask4_lanes a, vxk_mask4_lanes b)
{
    for (int i = 0; i < 4; ++i)
        a.lane[i] &= ~b.lane[i];
    return a;
}
static inline uint32_t vxk_mask4_movemask_scalar(vxk_mask4_lanes m)
{
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
        bits |= (m.lane[i] >> 31) << i;
    return bits;
}
static inline void vxk_mask4_store_scalar(uint32_t* p, vxk_mask4_lanes m)
{
    memcpy(p, m.lane, sizeof(m.lane));
}
static inline void vxk_mask4_store_sign_scalar(uint32_t* p, vxk_mask4_lanes m)
{
    for (int i = 0; i < 4; ++i)
        p[i] = m.lane[i] >> 31;
}

#ifdef __cplusplus
}
#endif
#endif
