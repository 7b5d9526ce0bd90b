// ray.c: ray kernels with scalar twins: 8 rays against one box (slab test with sign-selected
// near planes, Williams et al. 2005) and one ray against 8 triangles or quads (Moller-Trumbore
// 1997; axis-aligned rectangles by a watertight slab test whose decisions compare plane crossings
// that neighbours share, after Woop, Benthin and Wald 2013), the primitives of the loose kD tree
// queries of seed 000 (Roblox terrain physics).
#include <vxk/simd.h>
#include <vxk/simd_kernels.h>

#include <math.h>

void vxk_ray8_set(vxk_ray8* rays, uint32_t lane, const float o[3], const float d[3], float tmin,
                  float tmax)
{
    lane &= 7;
    rays->ox[lane] = o[0];
    rays->oy[lane] = o[1];
    rays->oz[lane] = o[2];
    rays->inv_dx[lane] = 1.0f / d[0];
    rays->inv_dy[lane] = 1.0f / d[1];
    rays->inv_dz[lane] = 1.0f / d[2];
    rays->tmin[lane] = tmin;
    rays->tmax[lane] = tmax;
}

// ---- ray8 vs box ----------------------------------------------------------------------------

// One axis of the slab test. Selecting the near plane by the sign of inv_d (rather than taking
// min/max of the two plane distances) keeps a 0*inf NaN in lo or hi, where max/min drop it.
static inline void slab_axis(const float* origin, const float* inv_d, float box_min, float box_max,
                             vxk_f32x8* t_enter, vxk_f32x8* t_exit)
{
    vxk_f32x8 o = vxk_f32x8_load(origin), inv = vxk_f32x8_load(inv_d);
    vxk_mask8 negative = vxk_mask8_from_sign(inv);
    vxk_f32x8 lo_plane = vxk_f32x8_broadcast(box_min), hi_plane = vxk_f32x8_broadcast(box_max);
    vxk_f32x8 near_plane = vxk_f32x8_select(negative, hi_plane, lo_plane);
    vxk_f32x8 far_plane = vxk_f32x8_select(negative, lo_plane, hi_plane);
    vxk_f32x8 lo = vxk_f32x8_mul(vxk_f32x8_sub(near_plane, o), inv);
    vxk_f32x8 hi = vxk_f32x8_mul(vxk_f32x8_sub(far_plane, o), inv);
    *t_enter = vxk_f32x8_max(lo, *t_enter);
    *t_exit = vxk_f32x8_min(hi, *t_exit);
}

uint32_t vxk_ray8_aabb(const vxk_ray8* rays, const float box_min[3], const float box_max[3],
                       float t_enter[8])
{
    vxk_f32x8 enter = vxk_f32x8_load(rays->tmin), exit = vxk_f32x8_load(rays->tmax);
    slab_axis(rays->ox, rays->inv_dx, box_min[0], box_max[0], &enter, &exit);
    slab_axis(rays->oy, rays->inv_dy, box_min[1], box_max[1], &enter, &exit);
    slab_axis(rays->oz, rays->inv_dz, box_min[2], box_max[2], &enter, &exit);
    vxk_f32x8 inf = vxk_f32x8_broadcast(INFINITY);
    vxk_mask8 hit = vxk_mask8_and(vxk_f32x8_cmple(enter, exit), vxk_f32x8_cmplt(enter, inf));
    vxk_f32x8_store(t_enter, vxk_f32x8_select(hit, enter, inf));
    return vxk_mask8_movemask(hit);
}

static inline void slab_axis_scalar(float o, float inv, float box_min, float box_max,
                                    float* t_enter, float* t_exit)
{
    bool negative = (vxk_f32_bits(inv) >> 31) != 0;
    float near_plane = negative ? box_max : box_min;
    float far_plane = negative ? box_min : box_max;
    float lo = (near_plane - o) * inv;
    float hi = (far_plane - o) * inv;
    *t_enter = vxk_f32_max(lo, *t_enter);
    *t_exit = vxk_f32_min(hi, *t_exit);
}

VXK_SCALAR_TWIN uint32_t vxk_ray8_aabb_scalar(const vxk_ray8* rays, const float box_min[3],
                                              const float box_max[3], float t_enter[8])
{
    uint32_t mask = 0;
    for (int i = 0; i < 8; ++i) {
        float enter = rays->tmin[i], exit = rays->tmax[i];
        slab_axis_scalar(rays->ox[i], rays->inv_dx[i], box_min[0], box_max[0], &enter, &exit);
        slab_axis_scalar(rays->oy[i], rays->inv_dy[i], box_min[1], box_max[1], &enter, &exit);
        slab_axis_scalar(rays->oz[i], rays->inv_dz[i], box_min[2], box_max[2], &enter, &exit);
        bool hit = (enter <= exit) & (enter < INFINITY);
        t_enter[i] = hit ? enter : INFINITY;
        mask |= (uint32_t)hit << i;
    }
    return mask;
}

void vxk_rect_ray_set(vxk_rect_ray* ray, const float o[3], const float d[3], float tmin, float tmax)
{
    ray->flat = 0;
    for (int a = 0; a < 3; ++a) {
        ray->o[a] = o[a];
        ray->d[a] = d[a];
        ray->inv[a] = 1.0f / d[a];
        ray->flat |= (uint32_t)(fabsf(ray->inv[a]) == INFINITY) << a;
    }
    ray->tmin = tmin;
    ray->tmax = tmax;
}

// ---- ray vs 8 triangles / quads -------------------------------------------------------------

typedef struct vec3x8 {
    vxk_f32x8 x, y, z;
} vec3x8;

static inline vxk_f32x8 dot3x8(vec3x8 a, vec3x8 b)
{
    vxk_f32x8 xy = vxk_f32x8_add(vxk_f32x8_mul(a.x, b.x), vxk_f32x8_mul(a.y, b.y));
    return vxk_f32x8_add(xy, vxk_f32x8_mul(a.z, b.z));
}

static inline vec3x8 cross3x8(vec3x8 a, vec3x8 b)
{
    vec3x8 r;
    r.x = vxk_f32x8_sub(vxk_f32x8_mul(a.y, b.z), vxk_f32x8_mul(a.z, b.y));
    r.y = vxk_f32x8_sub(vxk_f32x8_mul(a.z, b.x), vxk_f32x8_mul(a.x, b.z));
    r.z = vxk_f32x8_sub(vxk_f32x8_mul(a.x, b.y), vxk_f32x8_mul(a.y, b.x));
    return r;
}

static inline vec3x8 load3x8(const float* x, const float* y, const float* z)
{
    vec3x8 r = {vxk_f32x8_load(x), vxk_f32x8_load(y), vxk_f32x8_load(z)};
    return r;
}

static inline vec3x8 broadcast3x8(const float v[3])
{
    vec3x8 r = {vxk_f32x8_broadcast(v[0]), vxk_f32x8_broadcast(v[1]), vxk_f32x8_broadcast(v[2])};
    return r;
}

// Moller-Trumbore over 8 lanes; `quad` picks the inside test and is a constant after inlining.
// Lanes outside `live` miss.
typedef struct mt8 {
    vxk_mask8 ok;
    vxk_f32x8 t, u, v;
} mt8;

static inline mt8 moller_trumbore8_core(const vxk_simd_ray* ray, vec3x8 v0, vec3x8 e1, vec3x8 e2,
                                        bool quad, vxk_mask8 live)
{
    vec3x8 o = broadcast3x8(ray->o), d = broadcast3x8(ray->d);
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f), one = vxk_f32x8_broadcast(1.0f);

    vec3x8 p = cross3x8(d, e2);
    vxk_f32x8 det = dot3x8(e1, p);
    vxk_f32x8 inv_det = vxk_f32x8_div(one, det);
    vec3x8 s = {vxk_f32x8_sub(o.x, v0.x), vxk_f32x8_sub(o.y, v0.y), vxk_f32x8_sub(o.z, v0.z)};
    mt8 r;
    r.u = vxk_f32x8_mul(dot3x8(s, p), inv_det);
    vec3x8 q = cross3x8(s, e1);
    r.v = vxk_f32x8_mul(dot3x8(d, q), inv_det);
    r.t = vxk_f32x8_mul(dot3x8(e2, q), inv_det);

    vxk_mask8 ok = vxk_mask8_and(live, vxk_f32x8_cmpneq(det, zero));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(r.u, zero));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(r.v, zero));
    if (quad) {
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(r.u, one));
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(r.v, one));
    } else {
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(vxk_f32x8_add(r.u, r.v), one));
    }
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(r.t, vxk_f32x8_broadcast(ray->tmin)));
    r.ok = vxk_mask8_and(ok, vxk_f32x8_cmple(r.t, vxk_f32x8_broadcast(ray->tmax)));
    return r;
}

static inline uint32_t store_hits(vxk_mask8 ok, vxk_f32x8 t, vxk_f32x8 u, vxk_f32x8 v,
                                  vxk_hit8* hit)
{
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f);
    vxk_f32x8_store(hit->t, vxk_f32x8_select(ok, t, vxk_f32x8_broadcast(INFINITY)));
    vxk_f32x8_store(hit->u, vxk_f32x8_select(ok, u, zero));
    vxk_f32x8_store(hit->v, vxk_f32x8_select(ok, v, zero));
    return vxk_mask8_movemask(ok);
}

// The rectangle test over 8 lanes (lo, hi: each lane's extent per axis) for the lanes in ok;
// *t gets t_enter (+0 for -0).
static inline vxk_mask8 rect8(const vxk_rect_ray* r, const vxk_f32x8 lo[3], const vxk_f32x8 hi[3],
                              vxk_mask8 ok, vxk_f32x8* t)
{
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f);
    vxk_f32x8 enter = vxk_f32x8_broadcast(-INFINITY), exit = vxk_f32x8_broadcast(INFINITY);
    for (int a = 0; a < 3; ++a) {
        vxk_f32x8 o = vxk_f32x8_broadcast(r->o[a]);
        vxk_f32x8 dlo = vxk_f32x8_sub(lo[a], o), dhi = vxk_f32x8_sub(hi[a], o);
        if ((r->flat >> a) & 1u) { // the ray keeps o[a]: within the extent, which is not flat
            ok = vxk_mask8_and(ok, vxk_f32x8_cmplt(lo[a], hi[a]));
            ok = vxk_mask8_and(ok, vxk_f32x8_cmple(dlo, zero));
            ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(dhi, zero));
            continue;
        }
        vxk_f32x8 inv = vxk_f32x8_broadcast(r->inv[a]);
        vxk_f32x8 t0 = vxk_f32x8_mul(dlo, inv), t1 = vxk_f32x8_mul(dhi, inv);
        enter = vxk_f32x8_max(enter, vxk_f32x8_min(t0, t1));
        exit = vxk_f32x8_min(exit, vxk_f32x8_max(t0, t1));
    }
    ok = vxk_mask8_and(ok, vxk_f32x8_cmple(enter, exit));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(enter, vxk_f32x8_broadcast(r->tmin)));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmple(enter, vxk_f32x8_broadcast(r->tmax)));
    *t = vxk_f32x8_add(enter, zero);
    return ok;
}

// u and v of rectangle hits at t: ((t d - (v0 - o)) . e) / (e . e), clamped to [0, 1].
static inline void rect8_uv(const vxk_rect_ray* r, vxk_f32x8 t, vec3x8 v0, vec3x8 e1, vec3x8 e2,
                            vxk_f32x8* u, vxk_f32x8* v)
{
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f), one = vxk_f32x8_broadcast(1.0f);
    vec3x8 o = broadcast3x8(r->o), d = broadcast3x8(r->d);
    vec3x8 pm = {vxk_f32x8_sub(vxk_f32x8_mul(t, d.x), vxk_f32x8_sub(v0.x, o.x)),
                 vxk_f32x8_sub(vxk_f32x8_mul(t, d.y), vxk_f32x8_sub(v0.y, o.y)),
                 vxk_f32x8_sub(vxk_f32x8_mul(t, d.z), vxk_f32x8_sub(v0.z, o.z))};
    *u = vxk_f32x8_div(dot3x8(pm, e1), dot3x8(e1, e1));
    *v = vxk_f32x8_div(dot3x8(pm, e2), dot3x8(e2, e2));
    *u = vxk_f32x8_min(vxk_f32x8_max(*u, zero), one);
    *v = vxk_f32x8_min(vxk_f32x8_max(*v, zero), one);
}

// Lanes whose e1 and e2 each have exactly one nonzero component, on different axes.
static inline vxk_mask8 rect_lanes8(vec3x8 e1, vec3x8 e2)
{
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f);
    vxk_mask8 a[3] = {vxk_f32x8_cmpneq(e1.x, zero), vxk_f32x8_cmpneq(e1.y, zero),
                      vxk_f32x8_cmpneq(e1.z, zero)};
    vxk_mask8 b[3] = {vxk_f32x8_cmpneq(e2.x, zero), vxk_f32x8_cmpneq(e2.y, zero),
                      vxk_f32x8_cmpneq(e2.z, zero)};
    vxk_mask8 any_a = vxk_mask8_or(vxk_mask8_or(a[0], a[1]), a[2]);
    vxk_mask8 any_b = vxk_mask8_or(vxk_mask8_or(b[0], b[1]), b[2]);
    // two nonzero components of one edge, or one axis shared by both edges
    vxk_mask8 two_a =
        vxk_mask8_or(vxk_mask8_or(vxk_mask8_and(a[0], a[1]), vxk_mask8_and(a[0], a[2])),
                     vxk_mask8_and(a[1], a[2]));
    vxk_mask8 two_b =
        vxk_mask8_or(vxk_mask8_or(vxk_mask8_and(b[0], b[1]), vxk_mask8_and(b[0], b[2])),
                     vxk_mask8_and(b[1], b[2]));
    vxk_mask8 shared =
        vxk_mask8_or(vxk_mask8_or(vxk_mask8_and(a[0], b[0]), vxk_mask8_and(a[1], b[1])),
                     vxk_mask8_and(a[2], b[2]));
    return vxk_mask8_andnot(vxk_mask8_and(any_a, any_b),
                            vxk_mask8_or(vxk_mask8_or(two_a, two_b), shared));
}

// Quads: rectangle lanes by the rectangle test, the others by Moller-Trumbore.
static inline uint32_t quad8(const vxk_simd_ray* ray, vec3x8 v0, vec3x8 e1, vec3x8 e2,
                             uint32_t lanes, vxk_hit8* hit)
{
    vxk_mask8 live = vxk_mask8_from_bits(lanes);
    vxk_mask8 rect = rect_lanes8(e1, e2);
    mt8 m = moller_trumbore8_core(ray, v0, e1, e2, true, vxk_mask8_andnot(live, rect));
    vxk_rect_ray rr;
    vxk_rect_ray_set(&rr, ray->o, ray->d, ray->tmin, ray->tmax);
    vec3x8 v2 = {vxk_f32x8_add(vxk_f32x8_add(v0.x, e1.x), e2.x),
                 vxk_f32x8_add(vxk_f32x8_add(v0.y, e1.y), e2.y),
                 vxk_f32x8_add(vxk_f32x8_add(v0.z, e1.z), e2.z)};
    vxk_f32x8 lo[3] = {vxk_f32x8_min(v0.x, v2.x), vxk_f32x8_min(v0.y, v2.y),
                       vxk_f32x8_min(v0.z, v2.z)};
    vxk_f32x8 hi[3] = {vxk_f32x8_max(v0.x, v2.x), vxk_f32x8_max(v0.y, v2.y),
                       vxk_f32x8_max(v0.z, v2.z)};
    vxk_f32x8 t;
    vxk_mask8 ok = rect8(&rr, lo, hi, vxk_mask8_and(live, rect), &t);
    vxk_f32x8 u = m.u, v = m.v;
    if (vxk_mask8_movemask(ok)) {
        vxk_f32x8 ru, rv;
        rect8_uv(&rr, t, v0, e1, e2, &ru, &rv);
        u = vxk_f32x8_select(rect, ru, u);
        v = vxk_f32x8_select(rect, rv, v);
    }
    t = vxk_f32x8_select(rect, t, m.t);
    return store_hits(vxk_mask8_or(ok, m.ok), t, u, v, hit);
}

uint32_t vxk_ray_tri8(const vxk_simd_ray* ray, const vxk_tri8* tris, vxk_hit8* hit)
{
    mt8 m = moller_trumbore8_core(
        ray, load3x8(tris->v0x, tris->v0y, tris->v0z), load3x8(tris->e1x, tris->e1y, tris->e1z),
        load3x8(tris->e2x, tris->e2y, tris->e2z), false, vxk_mask8_from_bits(0xFFu));
    return store_hits(m.ok, m.t, m.u, m.v, hit);
}

uint32_t vxk_ray_quad8(const vxk_simd_ray* ray, const vxk_quad8* quads, vxk_hit8* hit)
{
    return quad8(ray, load3x8(quads->v0x, quads->v0y, quads->v0z),
                 load3x8(quads->e1x, quads->e1y, quads->e1z),
                 load3x8(quads->e2x, quads->e2y, quads->e2z), 0xFFu, hit);
}

// The lanes holding a quantized leaf's count quads.
static inline uint32_t leaf_lanes(uint32_t count)
{
    return count >= 8 ? 0xFFu : (1u << count) - 1u;
}

// Row j of a quantized quad leaf, dequantized on axis j % 3.
static inline vxk_f32x8 qrow(const uint16_t* rows, uint32_t stride, uint32_t j,
                             const float origin[3], const float step[3])
{
    vxk_f32x8 q = vxk_f32x8_load_u16(rows + (size_t)j * stride);
    return vxk_f32x8_add(vxk_f32x8_broadcast(origin[j % 3]),
                         vxk_f32x8_mul(q, vxk_f32x8_broadcast(step[j % 3])));
}

// A quantized leaf's v0 and edges e1 = v1 - v0, e2 = v3 - v0.
static inline void qcorners(const uint16_t* rows, uint32_t stride, const float origin[3],
                            const float step[3], vec3x8* v0, vec3x8* e1, vec3x8* e2)
{
    vec3x8 v[3];
    for (uint32_t c = 0; c < 3; ++c)
        v[c] = (vec3x8){qrow(rows, stride, 3 * c, origin, step),
                        qrow(rows, stride, 3 * c + 1, origin, step),
                        qrow(rows, stride, 3 * c + 2, origin, step)};
    *v0 = v[0];
    *e1 = (vec3x8){vxk_f32x8_sub(v[1].x, v[0].x), vxk_f32x8_sub(v[1].y, v[0].y),
                   vxk_f32x8_sub(v[1].z, v[0].z)};
    *e2 = (vec3x8){vxk_f32x8_sub(v[2].x, v[0].x), vxk_f32x8_sub(v[2].y, v[0].y),
                   vxk_f32x8_sub(v[2].z, v[0].z)};
}

uint32_t vxk_ray_qquad8(const vxk_simd_ray* ray, const uint16_t* rows, uint32_t stride,
                        uint32_t count, const float origin[3], const float step[3], vxk_hit8* hit)
{
    vec3x8 v0, e1, e2;
    qcorners(rows, stride, origin, step, &v0, &e1, &e2);
    return quad8(ray, v0, e1, e2, leaf_lanes(count), hit);
}

// Axis a's smallest and largest stored coordinate of each lane (v0, v1, v3), dequantized.
static inline void qextent(const uint16_t* rows, uint32_t stride, uint32_t a, const float origin[3],
                           const float step[3], vxk_f32x8* lo, vxk_f32x8* hi)
{
    simde__m128i q0 = simde_mm_loadu_si128(rows + (size_t)a * stride);
    simde__m128i q1 = simde_mm_loadu_si128(rows + (size_t)(3 + a) * stride);
    simde__m128i q3 = simde_mm_loadu_si128(rows + (size_t)(6 + a) * stride);
    simde__m128i qlo = simde_mm_min_epu16(simde_mm_min_epu16(q0, q1), q3);
    simde__m128i qhi = simde_mm_max_epu16(simde_mm_max_epu16(q0, q1), q3);
    vxk_f32x8 o = vxk_f32x8_broadcast(origin[a]), s = vxk_f32x8_broadcast(step[a]);
    *lo = vxk_f32x8_add(o,
                        vxk_f32x8_mul(simde_mm256_cvtepi32_ps(simde_mm256_cvtepu16_epi32(qlo)), s));
    *hi = vxk_f32x8_add(o,
                        vxk_f32x8_mul(simde_mm256_cvtepi32_ps(simde_mm256_cvtepu16_epi32(qhi)), s));
}

uint32_t vxk_ray_qrect8(const vxk_rect_ray* ray, const uint16_t* rows, uint32_t stride,
                        uint32_t count, const float origin[3], const float step[3], vxk_hit8* hit)
{
    vxk_f32x8 lo[3], hi[3];
    for (uint32_t a = 0; a < 3; ++a)
        qextent(rows, stride, a, origin, step, &lo[a], &hi[a]);
    vxk_f32x8 t, zero = vxk_f32x8_broadcast(0.0f);
    vxk_mask8 ok = rect8(ray, lo, hi, vxk_mask8_from_bits(leaf_lanes(count)), &t);
    return store_hits(ok, t, zero, zero, hit);
}

// The twins: one lane at a time, the same operations in the same order. Non-short-circuit &
// keeps them free of data-dependent branches, like the vectors.
typedef struct hit1 {
    bool ok;
    float t, u, v;
} hit1;

static inline hit1 moller_trumbore1(const vxk_simd_ray* ray, const float v0[3], const float e1[3],
                                    const float e2[3], bool quad, bool live)
{
    const float ox = ray->o[0], oy = ray->o[1], oz = ray->o[2];
    const float dx = ray->d[0], dy = ray->d[1], dz = ray->d[2];
    float e1x = e1[0], e1y = e1[1], e1z = e1[2];
    float e2x = e2[0], e2y = e2[1], e2z = e2[2];
    float px = (dy * e2z) - (dz * e2y);
    float py = (dz * e2x) - (dx * e2z);
    float pz = (dx * e2y) - (dy * e2x);
    float det = ((e1x * px) + (e1y * py)) + (e1z * pz);
    float inv_det = 1.0f / det;
    float sx = ox - v0[0], sy = oy - v0[1], sz = oz - v0[2];
    hit1 h;
    h.u = (((sx * px) + (sy * py)) + (sz * pz)) * inv_det;
    float qx = (sy * e1z) - (sz * e1y);
    float qy = (sz * e1x) - (sx * e1z);
    float qz = (sx * e1y) - (sy * e1x);
    h.v = (((dx * qx) + (dy * qy)) + (dz * qz)) * inv_det;
    h.t = (((e2x * qx) + (e2y * qy)) + (e2z * qz)) * inv_det;
    bool ok = live & ((det < 0.0f) | (det > 0.0f));
    ok = ok & (h.u >= 0.0f) & (h.v >= 0.0f);
    if (quad)
        ok = ok & (h.u <= 1.0f) & (h.v <= 1.0f);
    else
        ok = ok & ((h.u + h.v) <= 1.0f);
    h.ok = ok & (h.t >= ray->tmin) & (h.t <= ray->tmax);
    return h;
}

static inline bool rect1(const vxk_rect_ray* r, const float lo[3], const float hi[3], bool ok,
                         float* t)
{
    float enter = -INFINITY, exit = INFINITY;
    for (int a = 0; a < 3; ++a) {
        float o = r->o[a];
        float dlo = lo[a] - o, dhi = hi[a] - o;
        if ((r->flat >> a) & 1u) {
            ok = ok & (lo[a] < hi[a]) & (dlo <= 0.0f) & (dhi >= 0.0f);
            continue;
        }
        float t0 = dlo * r->inv[a], t1 = dhi * r->inv[a];
        enter = vxk_f32_max(enter, vxk_f32_min(t0, t1));
        exit = vxk_f32_min(exit, vxk_f32_max(t0, t1));
    }
    ok = ok & (enter <= exit) & (enter >= r->tmin) & (enter <= r->tmax);
    *t = enter + 0.0f;
    return ok;
}

static inline void rect1_uv(const vxk_rect_ray* r, float t, const float v0[3], const float e1[3],
                            const float e2[3], float* u, float* v)
{
    float pm[3];
    for (int a = 0; a < 3; ++a)
        pm[a] = t * r->d[a] - (v0[a] - r->o[a]);
    float uu = (((pm[0] * e1[0]) + (pm[1] * e1[1])) + (pm[2] * e1[2])) /
               (((e1[0] * e1[0]) + (e1[1] * e1[1])) + (e1[2] * e1[2]));
    float vv = (((pm[0] * e2[0]) + (pm[1] * e2[1])) + (pm[2] * e2[2])) /
               (((e2[0] * e2[0]) + (e2[1] * e2[1])) + (e2[2] * e2[2]));
    *u = vxk_f32_min(vxk_f32_max(uu, 0.0f), 1.0f);
    *v = vxk_f32_min(vxk_f32_max(vv, 0.0f), 1.0f);
}

static inline bool rect_lane1(const float e1[3], const float e2[3])
{
    bool a[3], b[3];
    for (int k = 0; k < 3; ++k) {
        a[k] = (e1[k] < 0.0f) | (e1[k] > 0.0f);
        b[k] = (e2[k] < 0.0f) | (e2[k] > 0.0f);
    }
    bool two_a = (a[0] & a[1]) | (a[0] & a[2]) | (a[1] & a[2]);
    bool two_b = (b[0] & b[1]) | (b[0] & b[2]) | (b[1] & b[2]);
    bool shared = (a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2]);
    return (a[0] | a[1] | a[2]) & (b[0] | b[1] | b[2]) & !(two_a | two_b | shared);
}

bool vxk_quad_is_rect(const float e1[3], const float e2[3])
{
    return rect_lane1(e1, e2);
}

bool vxk_ray_rect1(const vxk_rect_ray* ray, const float lo[3], const float hi[3], float* t)
{
    return rect1(ray, lo, hi, true, t);
}

void vxk_ray_rect1_uv(const vxk_rect_ray* ray, float t, const float v0[3], const float e1[3],
                      const float e2[3], float* u, float* v)
{
    rect1_uv(ray, t, v0, e1, e2, u, v);
}

static inline hit1 quad1(const vxk_simd_ray* ray, const vxk_rect_ray* rr, const float v0[3],
                         const float e1[3], const float e2[3], bool live)
{
    if (!rect_lane1(e1, e2))
        return moller_trumbore1(ray, v0, e1, e2, true, live);
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        float v2 = (v0[a] + e1[a]) + e2[a];
        lo[a] = vxk_f32_min(v0[a], v2);
        hi[a] = vxk_f32_max(v0[a], v2);
    }
    hit1 h = {false, 0.0f, 0.0f, 0.0f};
    h.ok = rect1(rr, lo, hi, live, &h.t);
    if (h.ok)
        rect1_uv(rr, h.t, v0, e1, e2, &h.u, &h.v);
    return h;
}

static inline uint32_t store_hit1(const hit1 h[8], vxk_hit8* hit)
{
    uint32_t mask = 0;
    for (int i = 0; i < 8; ++i) {
        hit->t[i] = h[i].ok ? h[i].t : INFINITY;
        hit->u[i] = h[i].ok ? h[i].u : 0.0f;
        hit->v[i] = h[i].ok ? h[i].v : 0.0f;
        mask |= (uint32_t)h[i].ok << i;
    }
    return mask;
}

// Lane i of an SoA triangle/quad block: v0, e1, e2.
static inline void lane_of(const vxk_tri8* p, int i, float v0[3], float e1[3], float e2[3])
{
    v0[0] = p->v0x[i], v0[1] = p->v0y[i], v0[2] = p->v0z[i];
    e1[0] = p->e1x[i], e1[1] = p->e1y[i], e1[2] = p->e1z[i];
    e2[0] = p->e2x[i], e2[1] = p->e2y[i], e2[2] = p->e2z[i];
}

static inline uint32_t quad8_scalar(const vxk_simd_ray* ray, const vxk_tri8* quads, uint32_t lanes,
                                    vxk_hit8* hit)
{
    vxk_rect_ray rr;
    vxk_rect_ray_set(&rr, ray->o, ray->d, ray->tmin, ray->tmax);
    hit1 h[8];
    for (int i = 0; i < 8; ++i) {
        float v0[3], e1[3], e2[3];
        lane_of(quads, i, v0, e1, e2);
        h[i] = quad1(ray, &rr, v0, e1, e2, (lanes >> i) & 1u);
    }
    return store_hit1(h, hit);
}

VXK_SCALAR_TWIN uint32_t vxk_ray_tri8_scalar(const vxk_simd_ray* ray, const vxk_tri8* tris,
                                             vxk_hit8* hit)
{
    hit1 h[8];
    for (int i = 0; i < 8; ++i) {
        float v0[3], e1[3], e2[3];
        lane_of(tris, i, v0, e1, e2);
        h[i] = moller_trumbore1(ray, v0, e1, e2, false, true);
    }
    return store_hit1(h, hit);
}

VXK_SCALAR_TWIN uint32_t vxk_ray_quad8_scalar(const vxk_simd_ray* ray, const vxk_quad8* quads,
                                              vxk_hit8* hit)
{
    return quad8_scalar(ray, quads, 0xFFu, hit);
}

// Coordinate a of corner c (0: v0, 1: v1, 2: v3) of lane i of a quantized leaf, dequantized.
static inline float qcoord(const uint16_t* rows, uint32_t stride, int c, int a, int i,
                           const float origin[3], const float step[3])
{
    return origin[a] + (float)rows[(size_t)(3 * c + a) * stride + (size_t)i] * step[a];
}

VXK_SCALAR_TWIN uint32_t vxk_ray_qquad8_scalar(const vxk_simd_ray* ray, const uint16_t* rows,
                                               uint32_t stride, uint32_t count,
                                               const float origin[3], const float step[3],
                                               vxk_hit8* hit)
{
    vxk_tri8 quads;
    float* v0[3] = {quads.v0x, quads.v0y, quads.v0z};
    float* e1[3] = {quads.e1x, quads.e1y, quads.e1z};
    float* e2[3] = {quads.e2x, quads.e2y, quads.e2z};
    for (int i = 0; i < 8; ++i) {
        for (int a = 0; a < 3; ++a) {
            // a lane past count reads what the vector load reads (the columns after count)
            float p[3];
            for (int c = 0; c < 3; ++c)
                p[c] = qcoord(rows, stride, c, a, i, origin, step);
            v0[a][i] = p[0];
            e1[a][i] = p[1] - p[0];
            e2[a][i] = p[2] - p[0];
        }
    }
    return quad8_scalar(ray, &quads, leaf_lanes(count), hit);
}

VXK_SCALAR_TWIN uint32_t vxk_ray_qrect8_scalar(const vxk_rect_ray* ray, const uint16_t* rows,
                                               uint32_t stride, uint32_t count,
                                               const float origin[3], const float step[3],
                                               vxk_hit8* hit)
{
    hit1 h[8];
    for (int i = 0; i < 8; ++i) {
        h[i] = (hit1){false, 0.0f, 0.0f, 0.0f};
        if ((uint32_t)i >= count)
            continue;
        float lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            uint32_t q[3];
            for (int c = 0; c < 3; ++c)
                q[c] = rows[(size_t)(3 * c + a) * stride + (size_t)i];
            uint32_t qlo = q[0] < q[1] ? q[0] : q[1], qhi = q[0] > q[1] ? q[0] : q[1];
            qlo = q[2] < qlo ? q[2] : qlo;
            qhi = q[2] > qhi ? q[2] : qhi;
            lo[a] = origin[a] + (float)qlo * step[a];
            hi[a] = origin[a] + (float)qhi * step[a];
        }
        h[i].ok = rect1(ray, lo, hi, true, &h[i].t);
    }
    return store_hit1(h, hit);
}

// ---- closest hit ----------------------------------------------------------------------------

int vxk_hit8_closest(uint32_t mask, const vxk_hit8* hit)
{
    vxk_f32x8 t = vxk_f32x8_load(hit->t);
    vxk_mask8 live = vxk_mask8_and(vxk_mask8_from_bits(mask), vxk_f32x8_cmpord(t));
    if (vxk_mask8_movemask(live) == 0)
        return -1;
    vxk_f32x8 tl = vxk_f32x8_select(live, t, vxk_f32x8_broadcast(INFINITY));
    // Horizontal minimum: swap 128-bit halves, then pairs, then neighbours.
    vxk_f32x8 m = vxk_f32x8_min(tl, simde_mm256_permute2f128_ps(tl, tl, 1));
    m = vxk_f32x8_min(m, simde_mm256_permute_ps(m, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    m = vxk_f32x8_min(m, simde_mm256_permute_ps(m, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    uint32_t best = vxk_mask8_movemask(vxk_mask8_and(vxk_f32x8_cmpeq(tl, m), live));
    return (int)__builtin_ctz(best);
}

VXK_SCALAR_TWIN int vxk_hit8_closest_scalar(uint32_t mask, const vxk_hit8* hit)
{
    int best = -1;
    float best_t = 0.0f;
    for (int i = 0; i < 8; ++i) {
        float t = hit->t[i];
        if (!((mask >> i) & 1u) || t != t)
            continue;
        if (best < 0 || t < best_t) {
            best = i;
            best_t = t;
        }
    }
    return best;
}
