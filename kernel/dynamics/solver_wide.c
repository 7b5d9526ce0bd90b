// solver_wide.c: the soft step's contact kernels over 8 manifolds at once (Box2D v3's wide
// contact solver, contact_solver.c, in 3D), and their scalar twins.
//
// Layout: one manifold per lane, its points looped inside the kernel (as Box2D's wide solver,
// and unlike a layout of one point per lane). A manifold's points then keep the scalar solver's
// Gauss-Seidel order (normal points one after the other, then friction per point), the two bodies
// are gathered and scattered once per manifold rather than once per point, and no two lanes can
// touch the same body, which the colouring guarantees per manifold. The price is idle lanes where
// a manifold has fewer points than the batch's most (boxes on boxes mostly have 4 or 2).
//
// Bodies are gathered lane by lane from the 96-byte states (velocities for every pass, the pose
// deltas for the solve) and scattered back for the dynamic ones. Only add, sub, mul, div, sqrt,
// max, comparisons and selects are used: exact IEEE operations, so the SIMD kernels and their
// twins agree bit for bit, native or SIMDE_NO_NATIVE.
#include "solver_wide.h"

#include <math.h>

#include <vxk/simd.h>

static inline vxk_f32x8 wide_sqrt(vxk_f32x8 a)
{
    return simde_mm256_sqrt_ps(a);
}
static inline vxk_f32x8_lanes wide_sqrt_scalar(vxk_f32x8_lanes a)
{
    for (int i = 0; i < 8; ++i)
        a.lane[i] = sqrtf(a.lane[i]);
    return a;
}

// out[k] lane i = in[i] lane k (an 8x8 transpose; its own inverse).
static inline void transpose8(vxk_f32x8* out, const vxk_f32x8* r)
{
    simde__m256 t[8], s[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = simde_mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = simde_mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        s[i] = simde_mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        s[i + 1] = simde_mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        s[i + 2] = simde_mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        s[i + 3] = simde_mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
        out[i] = simde_mm256_permute2f128_ps(s[i], s[i + 4], 0x20);
        out[i + 4] = simde_mm256_permute2f128_ps(s[i], s[i + 4], 0x31);
    }
}

// Lane i's 8 floats at float offset `offset` of states[slot[i]] into out[0..7] (out[k] holds
// float k of every lane): eight unaligned loads and a transpose.
static inline void gather8(const vxk_solver_state* states, const uint32_t* slot, int offset,
                           vxk_f32x8* out)
{
    simde__m256 r[8];
    for (int i = 0; i < 8; ++i)
        r[i] = simde_mm256_loadu_ps((const float*)(const void*)&states[slot[i]] + offset);
    transpose8(out, r);
}

// The inverse: in[k] holds float k of every lane; lane i's 8 floats go to the velocity row of
// states[slot[i]] where bit i of write is set.
static inline void scatter8(vxk_solver_state* states, const uint32_t* slot, uint32_t write,
                            const vxk_f32x8* in)
{
    simde__m256 r[8];
    transpose8(r, in);
    for (int i = 0; i < 8; ++i)
        if ((write >> i) & 1u)
            simde_mm256_storeu_ps((float*)(void*)&states[slot[i]], r[i]);
}

static inline void gather8_scalar(const vxk_solver_state* states, const uint32_t* slot, int offset,
                                  vxk_f32x8_lanes* out)
{
    for (int i = 0; i < 8; ++i) {
        const float* row = (const float*)(const void*)&states[slot[i]] + offset;
        for (int k = 0; k < 8; ++k)
            out[k].lane[i] = row[k];
    }
}

static inline void scatter8_scalar(vxk_solver_state* states, const uint32_t* slot, uint32_t write,
                                   const vxk_f32x8_lanes* in)
{
    for (int i = 0; i < 8; ++i) {
        if (!((write >> i) & 1u))
            continue;
        float* row = (float*)(void*)&states[slot[i]];
        for (int k = 0; k < 8; ++k)
            row[k] = in[k].lane[i];
    }
}

#define WF vxk_f32x8
#define WM vxk_mask8
#define W(op) vxk_f32x8_##op
#define WMASK(op) vxk_mask8_##op
#define WSQRT wide_sqrt
#define WNAME(name) name
#define WGATHER8 gather8
#define WSCATTER8 scatter8
#define WATTR
#include "solver_wide_kernel.h"
#undef WF
#undef WM
#undef W
#undef WMASK
#undef WSQRT
#undef WNAME
#undef WATTR
#undef WGATHER8
#undef WSCATTER8

#define WF vxk_f32x8_lanes
#define WM vxk_mask8_lanes
#define W(op) vxk_f32x8_##op##_scalar
#define WMASK(op) vxk_mask8_##op##_scalar
#define WSQRT wide_sqrt_scalar
#define WNAME(name) name##_scalar
#define WGATHER8 gather8_scalar
#define WSCATTER8 scatter8_scalar
#define WATTR VXK_SCALAR_TWIN
#include "solver_wide_kernel.h"
