// ray.c: ray kernels with scalar twins: 8 rays against one box (slab test with sign-selected
// near planes, Williams et al. 2005) and one ray against 8 triangles or quads (Moller-Trumbore
// 1997), the primitives of the loose kD tree queries of seed 000 (Roblox terrain physics).
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

// Shared by triangles and quads; `quad` picks the inside test and is a constant after inlining.
// Lanes outside `lanes` miss.
static inline uint32_t moller_trumbore8(const vxk_simd_ray* ray, vec3x8 v0, vec3x8 e1, vec3x8 e2,
                                        vxk_hit8* hit, bool quad, uint32_t lanes)
{
    vec3x8 o = broadcast3x8(ray->o), d = broadcast3x8(ray->d);
    vxk_f32x8 zero = vxk_f32x8_broadcast(0.0f), one = vxk_f32x8_broadcast(1.0f);

    vec3x8 p = cross3x8(d, e2);
    vxk_f32x8 det = dot3x8(e1, p);
    vxk_f32x8 inv_det = vxk_f32x8_div(one, det);
    vec3x8 s = {vxk_f32x8_sub(o.x, v0.x), vxk_f32x8_sub(o.y, v0.y), vxk_f32x8_sub(o.z, v0.z)};
    vxk_f32x8 u = vxk_f32x8_mul(dot3x8(s, p), inv_det);
    vec3x8 q = cross3x8(s, e1);
    vxk_f32x8 v = vxk_f32x8_mul(dot3x8(d, q), inv_det);
    vxk_f32x8 t = vxk_f32x8_mul(dot3x8(e2, q), inv_det);

    vxk_mask8 ok = vxk_mask8_and(vxk_mask8_from_bits(lanes), vxk_f32x8_cmpneq(det, zero));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(u, zero));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(v, zero));
    if (quad) {
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(u, one));
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(v, one));
    } else {
        ok = vxk_mask8_and(ok, vxk_f32x8_cmple(vxk_f32x8_add(u, v), one));
    }
    ok = vxk_mask8_and(ok, vxk_f32x8_cmpge(t, vxk_f32x8_broadcast(ray->tmin)));
    ok = vxk_mask8_and(ok, vxk_f32x8_cmple(t, vxk_f32x8_broadcast(ray->tmax)));

    vxk_f32x8_store(hit->t, vxk_f32x8_select(ok, t, vxk_f32x8_broadcast(INFINITY)));
    vxk_f32x8_store(hit->u, vxk_f32x8_select(ok, u, zero));
    vxk_f32x8_store(hit->v, vxk_f32x8_select(ok, v, zero));
    return vxk_mask8_movemask(ok);
}

static inline uint32_t moller_trumbore8_soa(const vxk_simd_ray* ray, const vxk_tri8* tris,
                                            vxk_hit8* hit, bool quad)
{
    return moller_trumbore8(ray, load3x8(tris->v0x, tris->v0y, tris->v0z),
                            load3x8(tris->e1x, tris->e1y, tris->e1z),
                            load3x8(tris->e2x, tris->e2y, tris->e2z), hit, quad, 0xFFu);
}

uint32_t vxk_ray_tri8(const vxk_simd_ray* ray, const vxk_tri8* tris, vxk_hit8* hit)
{
    return moller_trumbore8_soa(ray, tris, hit, false);
}

uint32_t vxk_ray_quad8(const vxk_simd_ray* ray, const vxk_quad8* quads, vxk_hit8* hit)
{
    return moller_trumbore8_soa(ray, quads, hit, true);
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

uint32_t vxk_ray_qquad8(const vxk_simd_ray* ray, const uint16_t* rows, uint32_t stride,
                        uint32_t count, const float origin[3], const float step[3], vxk_hit8* hit)
{
    vec3x8 v[3];
    for (uint32_t c = 0; c < 3; ++c)
        v[c] = (vec3x8){qrow(rows, stride, 3 * c, origin, step),
                        qrow(rows, stride, 3 * c + 1, origin, step),
                        qrow(rows, stride, 3 * c + 2, origin, step)};
    vec3x8 e1 = {vxk_f32x8_sub(v[1].x, v[0].x), vxk_f32x8_sub(v[1].y, v[0].y),
                 vxk_f32x8_sub(v[1].z, v[0].z)};
    vec3x8 e2 = {vxk_f32x8_sub(v[2].x, v[0].x), vxk_f32x8_sub(v[2].y, v[0].y),
                 vxk_f32x8_sub(v[2].z, v[0].z)};
    return moller_trumbore8(ray, v[0], e1, e2, hit, true, leaf_lanes(count));
}

// The twin: one lane at a time, the same operations in the same order.
static inline uint32_t moller_trumbore8_scalar(const vxk_simd_ray* ray, const vxk_tri8* tris,
                                               vxk_hit8* hit, bool quad, uint32_t lanes)
{
    const float ox = ray->o[0], oy = ray->o[1], oz = ray->o[2];
    const float dx = ray->d[0], dy = ray->d[1], dz = ray->d[2];
    uint32_t mask = 0;
    for (int i = 0; i < 8; ++i) {
        float e1x = tris->e1x[i], e1y = tris->e1y[i], e1z = tris->e1z[i];
        float e2x = tris->e2x[i], e2y = tris->e2y[i], e2z = tris->e2z[i];
        float px = (dy * e2z) - (dz * e2y);
        float py = (dz * e2x) - (dx * e2z);
        float pz = (dx * e2y) - (dy * e2x);
        float det = ((e1x * px) + (e1y * py)) + (e1z * pz);
        float inv_det = 1.0f / det;
        float sx = ox - tris->v0x[i], sy = oy - tris->v0y[i], sz = oz - tris->v0z[i];
        float u = (((sx * px) + (sy * py)) + (sz * pz)) * inv_det;
        float qx = (sy * e1z) - (sz * e1y);
        float qy = (sz * e1x) - (sx * e1z);
        float qz = (sx * e1y) - (sy * e1x);
        float v = (((dx * qx) + (dy * qy)) + (dz * qz)) * inv_det;
        float t = (((e2x * qx) + (e2y * qy)) + (e2z * qz)) * inv_det;
        // Non-short-circuit & keeps the twin free of data-dependent branches, like the vector.
        bool ok = ((lanes >> i) & 1u) & ((det < 0.0f) | (det > 0.0f));
        ok = ok & (u >= 0.0f) & (v >= 0.0f);
        if (quad)
            ok = ok & (u <= 1.0f) & (v <= 1.0f);
        else
            ok = ok & ((u + v) <= 1.0f);
        ok = ok & (t >= ray->tmin) & (t <= ray->tmax);
        hit->t[i] = ok ? t : INFINITY;
        hit->u[i] = ok ? u : 0.0f;
        hit->v[i] = ok ? v : 0.0f;
        mask |= (uint32_t)ok << i;
    }
    return mask;
}

VXK_SCALAR_TWIN uint32_t vxk_ray_tri8_scalar(const vxk_simd_ray* ray, const vxk_tri8* tris,
                                             vxk_hit8* hit)
{
    return moller_trumbore8_scalar(ray, tris, hit, false, 0xFFu);
}

VXK_SCALAR_TWIN uint32_t vxk_ray_quad8_scalar(const vxk_simd_ray* ray, const vxk_quad8* quads,
                                              vxk_hit8* hit)
{
    return moller_trumbore8_scalar(ray, quads, hit, true, 0xFFu);
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
                p[c] = origin[a] + (float)rows[(size_t)(3 * c + a) * stride + i] * step[a];
            v0[a][i] = p[0];
            e1[a][i] = p[1] - p[0];
            e2[a][i] = p[2] - p[0];
        }
    }
    return moller_trumbore8_scalar(ray, &quads, hit, true, leaf_lanes(count));
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
