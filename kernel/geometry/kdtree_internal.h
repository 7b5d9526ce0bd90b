// kdtree_internal.h: what the float kD tree (kdtree.c) and the 16-bit quantized one (kdtree16.c)
// share: the primitive tests, the node view both traversals read through (the q16 flag picks the
// layout at compile time), the stackless AABB and front-to-back ray traversal of seed 000.
#ifndef VXK_KDTREE_INTERNAL_H
#define VXK_KDTREE_INTERNAL_H

#include <vxk/kdtree.h>
#include <vxk/kdtree16.h>

#include "core.h"
#include <vxk/simd4.h>
#include <vxk/simd_kernels.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define KD_AXIS_MASK 3u
#define KD_SHIFT 2u

// ---- primitive tests ----------------------------------------------------------------------------

// Forced inline: GCC's unit-growth limit left them as calls on kdtree16.c's ray paths.
static inline __attribute__((always_inline)) vxk_vec3 kd_v3_sub(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline __attribute__((always_inline)) vxk_vec3 kd_v3_cross(vxk_vec3 a, vxk_vec3 b)
{
    return (vxk_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline __attribute__((always_inline)) float kd_v3_dot(vxk_vec3 a, vxk_vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

// det = dir . (e1 x e2): false when it vanishes relative to |dir| |e1| |e2| (a degenerate
// primitive or a ray in its plane), where u, v and t are rounding noise. Checked last, for the
// few candidates that pass the cheap tests.
static inline __attribute__((always_inline)) bool kd_mt_solid(vxk_vec3 dir, vxk_vec3 e1,
                                                              vxk_vec3 e2, float det)
{
    double scale =
        (double)kd_v3_dot(dir, dir) * (double)kd_v3_dot(e1, e1) * (double)kd_v3_dot(e2, e2);
    return (double)det * (double)det > 1e-12 * scale;
}

// Moller-Trumbore on the edges e1 = p1 - p0, e2 = p2 - p0; quad: u and v each in [0, 1].
static inline __attribute__((always_inline)) bool
kd_intersect_mt(const vxk_kdtree_ray* ray, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 p2, bool quad,
                float tmax, float* t_out, float* u_out, float* v_out)
{
    vxk_vec3 e1 = kd_v3_sub(p1, p0), e2 = kd_v3_sub(p2, p0);
    vxk_vec3 p = kd_v3_cross(ray->dir, e2);
    float det = kd_v3_dot(e1, p);
    float inv = 1.0f / det;
    vxk_vec3 s = kd_v3_sub(ray->origin, p0);
    float u = kd_v3_dot(s, p) * inv;
    vxk_vec3 q = kd_v3_cross(s, e1);
    float v = kd_v3_dot(ray->dir, q) * inv;
    float t = kd_v3_dot(e2, q) * inv;
    // one combined test: each partial one is a coin flip for the branch predictor, while the
    // combined outcome (usually a miss) predicts well; NaNs fail every comparison
    int inside = (u >= 0.0f) & (u <= 1.0f) & (v >= 0.0f) & (quad ? v <= 1.0f : u + v <= 1.0f) &
                 (t >= 0.0f) & (t <= tmax);
    if (!inside)
        return false;
    if (!kd_mt_solid(ray->dir, e1, e2, det))
        return false;
    *t_out = t;
    *u_out = u;
    *v_out = v;
    return true;
}

// The primitive tests of one query, in its frame: the ray from the frame's origin as the
// rectangle kernels take it and as Moller-Trumbore takes it, and the shift of the tree's
// coordinates. (Moller-Trumbore on rectangles, used until 2026-11-25, was not watertight: u = 1 of
// one quad and u = 0 of its neighbour are different roundings, and a ray within an ulp of their
// shared edge could miss both.)
typedef struct kd_tests {
    vxk_rect_ray rect;
    vxk_kdtree_ray mt;
    double shift[3];
    bool shifted;     // a nonzero shift: corners go through kd_shift_corner
    bool one_by_one;  // quantized leaves: origin + shift is not exact in float
    bool uv;          // hits report u and v (not in a frame)
    float qorigin[3]; // quantized trees: the dequantization origin plus the shift
} kd_tests;

static inline __attribute__((always_inline)) vxk_vec3 kd_shift_corner(const kd_tests* tests,
                                                                      vxk_vec3 v)
{
    if (!tests->shifted)
        return v;
    return (vxk_vec3){(float)(tests->shift[0] + (double)v.x),
                      (float)(tests->shift[1] + (double)v.y),
                      (float)(tests->shift[2] + (double)v.z)};
}

// A quad (corners in the tests' frame): the rectangle test for an axis-aligned rectangle, with
// the kernels' extents (v0 and v2 = (v0 + e1) + e2), else Moller-Trumbore.
static inline bool kd_quad_test(const kd_tests* tests, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 p3,
                                float tmax, float* t, float* u, float* v)
{
    const float v0[3] = {p0.x, p0.y, p0.z};
    const float e1[3] = {p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
    const float e2[3] = {p3.x - p0.x, p3.y - p0.y, p3.z - p0.z};
    if (!vxk_quad_is_rect(e1, e2))
        return kd_intersect_mt(&tests->mt, p0, p1, p3, true, tmax, t, u, v);
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        float v2 = (v0[a] + e1[a]) + e2[a];
        lo[a] = vxk_f32_min(v0[a], v2);
        hi[a] = vxk_f32_max(v0[a], v2);
    }
    vxk_rect_ray r = tests->rect;
    r.tmax = tmax;
    if (!vxk_ray_rect1(&r, lo, hi, t))
        return false;
    vxk_ray_rect1_uv(&r, *t, v0, e1, e2, u, v);
    return true;
}

// Whether four corners (v0, v1, v2, v3) form an axis-aligned rectangle by the rule of the tests.
static inline bool kd_quad_rect(const vxk_vec3* v)
{
    const float e1[3] = {v[1].x - v[0].x, v[1].y - v[0].y, v[1].z - v[0].z};
    const float e2[3] = {v[3].x - v[0].x, v[3].y - v[0].y, v[3].z - v[0].z};
    return vxk_quad_is_rect(e1, e2);
}

// ---- traversal, shared by the float and the quantized tree --------------------------------------

typedef struct kd_view {
    const vxk_kdtree_node* nodes;     // float tree, or
    const vxk_kdtree16_node* nodes16; // quantized tree
    const vxk_vec3* vertices;
    const uint16_t* qvertices; // quantized triangles: welded vertices; quads: 3 per slot
    const uint32_t* indices;
    const uint16_t* qindices;
    const uint16_t* qids;         // quantized quads: primitive of each slot
    uint32_t id_bits, count_bias; // quantized triangle leaves: index width, count offset
    uint32_t corners;
    uint32_t depth;
    uint32_t primitive_count;
    float origin[3], step[3];
    vxk_aabb bounds;
} kd_view;

typedef struct kd_ray_entry {
    uint32_t node;
    float tmin, tmax;
} kd_ray_entry;

typedef struct kd_decoded {
    uint32_t axis;  // 3 = leaf
    uint32_t child; // branch: first child; leaf: count
    float s0, s1;   // branch splits
    uint32_t p[4];  // leaf primitives; leaf-ordered quantized quads: p[0] is the first slot, p[1]
                    // 1 when all its quads are axis-aligned rectangles
} kd_decoded;

// Quantized quads keep their geometry in leaf order (slots); everything else indexes primitives.
static inline bool kd_slotted(const kd_view* view, bool q16)
{
    return q16 && view->corners == 4;
}

// Primitive k of a decoded leaf and the slot its geometry is fetched from.
static inline __attribute__((always_inline)) uint32_t
kd_leaf_prim(const kd_view* view, bool q16, const kd_decoded* d, uint32_t k, uint32_t* slot)
{
    if (kd_slotted(view, q16)) {
        *slot = d->p[0] + k;
        return view->qids[*slot];
    }
    *slot = d->p[k];
    return d->p[k];
}

static inline __attribute__((always_inline)) kd_decoded kd_decode(const kd_view* view, bool q16,
                                                                  uint32_t index)
{
    kd_decoded d;
    if (q16) {
        vxk_kdtree16_node n = view->nodes16[index];
        d.axis = n.info & KD_AXIS_MASK;
        uint32_t payload = (uint32_t)n.info >> KD_SHIFT;
        if (d.axis == VXK_KD_LEAF) {
            d.s0 = d.s1 = 0.0f;
            if (view->corners == 4) { // a slot range, and whether its quads are all rectangles
                d.child = payload;
                d.p[0] = n.a;
                d.p[1] = n.b;
                d.p[2] = d.p[3] = 0;
            } else { // a 2-bit count, then packed primitive indices (see kdtree.h)
                uint64_t bits = (uint64_t)n.a | ((uint64_t)n.b << 16) | ((uint64_t)payload << 32);
                uint32_t w = view->id_bits, mask = (1u << w) - 1u;
                uint64_t ids = bits >> 2;
                d.child = (uint32_t)(bits & 3u) + view->count_bias;
                d.p[0] = (uint32_t)ids & mask;
                d.p[1] = (uint32_t)(ids >> w) & mask;
                d.p[2] = (uint32_t)(ids >> 2 * w) & mask;
                d.p[3] = (uint32_t)(ids >> 3 * w) & mask;
            }
        } else {
            d.child = 2 * payload + 1;
            d.s0 = view->origin[d.axis] + (float)n.a * view->step[d.axis];
            d.s1 = view->origin[d.axis] + (float)n.b * view->step[d.axis];
            d.p[0] = d.p[1] = d.p[2] = d.p[3] = 0;
        }
    } else {
        vxk_kdtree_node n = view->nodes[index];
        d.axis = n.info & KD_AXIS_MASK;
        d.child = n.info >> KD_SHIFT;
        d.s0 = n.splits[0];
        d.s1 = n.splits[1];
        d.p[0] = n.primitives[0];
        d.p[1] = n.primitives[1];
        d.p[2] = d.p[3] = 0;
    }
    return d;
}

// The fourth corner of a stored parallelogram (v0, v1, v3): v1 + (v3 - v0).
static inline vxk_vec3 kd_quad_corner2(vxk_vec3 v0, vxk_vec3 v1, vxk_vec3 v3)
{
    return (vxk_vec3){v1.x + (v3.x - v0.x), v1.y + (v3.y - v0.y), v1.z + (v3.z - v0.z)};
}

// Corner `corner` of primitive k of a decoded leaf. A kd_slotted leaf (first slot f, count w)
// stores its quads' coordinates as 9 rows of w uint16 at qvertices + 9 f (v0 x y z, v1 x y z, v3 x
// y z), so that one vector load takes a coordinate of the whole leaf.
static inline __attribute__((always_inline)) vxk_vec3
kd_fetch_vertex(const kd_view* view, bool q16, const kd_decoded* leaf, uint32_t k, uint32_t corner)
{
    if (kd_slotted(view, q16)) {
        const uint16_t* g = view->qvertices + 9 * (size_t)leaf->p[0] + k;
        size_t w = leaf->child;
        vxk_vec3 p[3];
        for (uint32_t c = 0; c < 3; ++c)
            p[c] = (vxk_vec3){view->origin[0] + (float)g[(3 * c) * w] * view->step[0],
                              view->origin[1] + (float)g[(3 * c + 1) * w] * view->step[1],
                              view->origin[2] + (float)g[(3 * c + 2) * w] * view->step[2]};
        if (corner == 2)
            return kd_quad_corner2(p[0], p[1], p[2]);
        return p[corner == 3 ? 2 : corner];
    }
    size_t slot = (size_t)leaf->p[k] * view->corners + corner;
    if (q16) {
        const uint16_t* q = view->qvertices + 3 * (size_t)view->qindices[slot];
        return (vxk_vec3){view->origin[0] + (float)q[0] * view->step[0],
                          view->origin[1] + (float)q[1] * view->step[1],
                          view->origin[2] + (float)q[2] * view->step[2]};
    }
    return view->vertices[view->indices[slot]];
}

static inline __attribute__((always_inline)) bool kd_prim_overlaps(const kd_view* view, bool q16,
                                                                   const kd_decoded* leaf,
                                                                   uint32_t k, const float* lo,
                                                                   const float* hi)
{
    vxk_vec3 v = kd_fetch_vertex(view, q16, leaf, k, 0);
    float pl[3] = {v.x, v.y, v.z}, ph[3] = {v.x, v.y, v.z};
    for (uint32_t c = 1; c < view->corners; ++c) {
        vxk_vec3 w = kd_fetch_vertex(view, q16, leaf, k, c);
        float wa[3] = {w.x, w.y, w.z};
        for (int a = 0; a < 3; ++a) {
            pl[a] = wa[a] < pl[a] ? wa[a] : pl[a];
            ph[a] = wa[a] > ph[a] ? wa[a] : ph[a];
        }
    }
    return pl[0] <= hi[0] && ph[0] >= lo[0] && pl[1] <= hi[1] && ph[1] >= lo[1] && pl[2] <= hi[2] &&
           ph[2] >= lo[2];
}

static inline __attribute__((always_inline)) uint32_t
kd_query_aabb(const kd_view* view, bool q16, uint32_t* out, uint32_t capacity, const vxk_aabb* box,
              void* scratch)
{
    if (!box || view->primitive_count == 0)
        return 0;
    float lo[3] = {box->min.x, box->min.y, box->min.z};
    float hi[3] = {box->max.x, box->max.y, box->max.z};
    // rejects NaN too
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2]))
        return 0;
    if (!(lo[0] <= view->bounds.max.x && hi[0] >= view->bounds.min.x &&
          lo[1] <= view->bounds.max.y && hi[1] >= view->bounds.min.y &&
          lo[2] <= view->bounds.max.z && hi[2] >= view->bounds.min.z))
        return 0;
    uint32_t local[VXK_KD_MAX_DEPTH + 1];
    uint32_t* stack = scratch ? (uint32_t*)scratch : local;
    uint32_t sp = 0, found = 0;
    stack[sp++] = 0;
    while (sp) {
        kd_decoded d = kd_decode(view, q16, stack[--sp]);
        if (d.axis == VXK_KD_LEAF) {
            for (uint32_t k = 0; k < d.child; ++k) {
                uint32_t slot, prim = kd_leaf_prim(view, q16, &d, k, &slot);
                if (kd_prim_overlaps(view, q16, &d, k, lo, hi)) {
                    if (found < capacity)
                        out[found] = prim;
                    ++found;
                }
            }
            continue;
        }
        stack[sp] = d.child + 1; // branch-free pushes, as in the ray traversal
        sp += d.s1 <= hi[d.axis];
        stack[sp] = d.child;
        sp += d.s0 >= lo[d.axis];
    }
    return found;
}

static inline __attribute__((always_inline)) bool
kd_test_prim(const kd_view* view, bool q16, const kd_tests* tests, const kd_decoded* leaf,
             uint32_t k, float tmax, float* t, float* u, float* v)
{
    vxk_vec3 p0 = kd_shift_corner(tests, kd_fetch_vertex(view, q16, leaf, k, 0));
    vxk_vec3 p1 = kd_shift_corner(tests, kd_fetch_vertex(view, q16, leaf, k, 1));
    if (view->corners == 4) {
        vxk_vec3 p3 = kd_shift_corner(tests, kd_fetch_vertex(view, q16, leaf, k, 3));
        return kd_quad_test(tests, p0, p1, p3, tmax, t, u, v);
    }
    vxk_vec3 p2 = kd_shift_corner(tests, kd_fetch_vertex(view, q16, leaf, k, 2));
    return kd_intersect_mt(&tests->mt, p0, p1, p2, false, tmax, t, u, v);
}

// Relative widening of every segment bound (seed 000: "slightly expand the segment on each
// branch"), scaled by the coordinates' magnitude over the direction.
#define KD_RAY_EPS 1.0e-4f

// A ray ready for traversal: reciprocals, per-axis widening, near sides, and its segment clipped
// to the root bounds. Both trees' traversals share it (and kd_split). An axis is flat when its
// component is zero or so small that its reciprocal overflows (it moves the ray by nothing a float
// can hold); its tests are on positions.
typedef struct kd_begin {
    float o[4], inv[4], eps[4]; // lane 3 unused
    float inv_raw[4];           // 1 / dir, infinite on a flat axis (inv has 0 there)
    uint32_t flat[4];           // all ones for a flat axis
    uint32_t near_side[4];
    float tmin, tmax;
} kd_begin;

// False when the ray cannot hit (invalid, or missing the root bounds). The three axes go through
// one 4-lane pass (one division for all three reciprocals); each lane does the scalar rules'
// operations in their order, and the clip reduces the axes in order 0, 1, 2, as a loop over them
// would.
static inline __attribute__((always_inline)) bool
kd_ray_begin(const kd_view* view, const vxk_kdtree_ray* ray, kd_begin* b)
{
    const vxk_f32x4 zero = vxk_f32x4_zero();
    vxk_f32x4 o = vxk_f32x4_set(ray->origin.x, ray->origin.y, ray->origin.z, 0.0f);
    vxk_f32x4 d = vxk_f32x4_set(ray->dir.x, ray->dir.y, ray->dir.z, 1.0f);
    // finite lanes: x - x is 0 (inf and NaN give NaN); also tmax finite and >= 0
    vxk_mask4 finite = vxk_mask4_and(vxk_f32x4_cmpeq(vxk_f32x4_sub(o, o), zero),
                                     vxk_f32x4_cmpeq(vxk_f32x4_sub(d, d), zero));
    vxk_mask4 dzero = vxk_f32x4_cmpeq(d, zero);
    if (vxk_mask4_movemask(finite) != 0xF || (vxk_mask4_movemask(dzero) & 7) == 7 ||
        !vxk_is_finite(ray->tmax) || !(ray->tmax >= 0.0f))
        return false;
    vxk_f32x4 bmin =
        vxk_f32x4_set(view->bounds.min.x, view->bounds.min.y, view->bounds.min.z, 0.0f);
    vxk_f32x4 bmax =
        vxk_f32x4_set(view->bounds.max.x, view->bounds.max.y, view->bounds.max.z, 0.0f);
    vxk_f32x4 inv = vxk_f32x4_div(vxk_f32x4_broadcast(1.0f), d);
    vxk_f32x4_store(b->inv_raw, inv);
    // flat: zero, or a reciprocal that overflowed
    vxk_mask4 flat =
        vxk_mask4_or(dzero, vxk_f32x4_cmpeq(vxk_f32x4_abs(inv), vxk_f32x4_broadcast(INFINITY)));
    inv = vxk_f32x4_andnot(inv, flat);
    vxk_f32x4 mag = vxk_f32x4_add(
        vxk_f32x4_add(vxk_f32x4_abs(o), vxk_f32x4_max(vxk_f32x4_abs(bmin), vxk_f32x4_abs(bmax))),
        vxk_f32x4_broadcast(1.0f));
    vxk_f32x4 eps_flat = vxk_f32x4_mul(vxk_f32x4_broadcast(KD_RAY_EPS), mag);
    // flat axes are widened alike: the primitive test's rounding may accept a primitive that
    // far outside its plane
    vxk_f32x4 eps =
        vxk_f32x4_or(vxk_f32x4_and(flat, eps_flat),
                     vxk_f32x4_andnot(vxk_f32x4_mul(eps_flat, vxk_f32x4_abs(inv)), flat));
    vxk_mask4 outside = vxk_mask4_or(vxk_f32x4_cmplt(o, vxk_f32x4_sub(bmin, eps)),
                                     vxk_f32x4_cmpgt(o, vxk_f32x4_add(bmax, eps)));
    if (vxk_mask4_movemask(vxk_mask4_and(flat, outside)) & 7)
        return false;
    vxk_f32x4 ta = vxk_f32x4_mul(vxk_f32x4_sub(bmin, o), inv);
    vxk_f32x4 tb = vxk_f32x4_mul(vxk_f32x4_sub(bmax, o), inv);
    float t0[4], t1[4];
    vxk_f32x4_store(t0, vxk_f32x4_sub(vxk_f32x4_min(ta, tb), eps));
    vxk_f32x4_store(t1, vxk_f32x4_add(vxk_f32x4_max(ta, tb), eps));
    vxk_f32x4_store(b->o, o);
    vxk_f32x4_store(b->inv, inv);
    vxk_f32x4_store(b->eps, eps);
    vxk_mask4_store(b->flat, flat);
    vxk_mask4_store_sign(b->near_side, vxk_f32x4_cmplt(d, zero));
    uint32_t flat_bits = vxk_mask4_movemask(flat);
    float tmin = 0.0f, tmax = ray->tmax;
    for (int a = 0; a < 3; ++a) {
        if ((flat_bits >> a) & 1u)
            continue;
        tmin = VXK_MAX(tmin, t0[a]);
        tmax = VXK_MIN(tmax, t1[a]);
    }
    b->tmin = tmin;
    b->tmax = tmax;
    return tmin <= tmax;
}

// The primitive tests of a query that kd_ray_begin accepted: the ray from the frame's origin
// (NULL: the ray's own) with the reciprocals kd_ray_begin computed (the same divisions as
// vxk_rect_ray_set), and the frame's shift.
static inline __attribute__((always_inline)) void
kd_tests_init(kd_tests* tests, const kd_view* view, const vxk_kdtree_ray* ray, const kd_begin* b,
              const vxk_kdtree_frame* frame)
{
    vxk_vec3 o = frame ? frame->origin : ray->origin;
    tests->mt = (vxk_kdtree_ray){o, ray->dir, ray->tmax};
    tests->uv = !frame;
    if (view->corners == 4) { // triangles take Moller-Trumbore alone
        const float d[3] = {ray->dir.x, ray->dir.y, ray->dir.z};
        tests->rect.o[0] = o.x;
        tests->rect.o[1] = o.y;
        tests->rect.o[2] = o.z;
        tests->rect.flat = 0;
        for (int a = 0; a < 3; ++a) {
            tests->rect.d[a] = d[a];
            tests->rect.inv[a] = b->inv_raw[a];
            tests->rect.flat |= (b->flat[a] & 1u) << a;
        }
        tests->rect.tmin = 0.0f;
        tests->rect.tmax = ray->tmax;
    }
    tests->shifted = tests->one_by_one = false;
    for (int a = 0; a < 3; ++a) {
        tests->shift[a] = 0.0;
        tests->qorigin[a] = view->origin[a];
    }
    if (!frame)
        return;
    for (int a = 0; a < 3; ++a) {
        double q = (double)view->origin[a] + frame->shift[a];
        tests->shift[a] = frame->shift[a];
        tests->qorigin[a] = (float)q;
        tests->shifted |= frame->shift[a] != 0.0;
        tests->one_by_one |= (double)tests->qorigin[a] != q;
    }
}

// The children of branch n the ray reaches from its segment [tmin, seg_max]: the near one (taken
// first; a flat axis takes the left first) over [tmin, near_max], the far one over
// [far_min, seg_max].
typedef struct kd_children {
    uint32_t near; // 0 left, 1 right
    bool reach_near, reach_far;
    float near_max, far_min;
} kd_children;

static inline __attribute__((always_inline)) kd_children
kd_split(const kd_begin* b, const kd_decoded* n, float tmin, float seg_max)
{
    uint32_t a = n->axis;
    kd_children c;
    if (b->flat[a]) {
        c.near = 0;
        c.reach_near = b->o[a] <= n->s0 + b->eps[a];
        c.reach_far = b->o[a] >= n->s1 - b->eps[a];
        c.near_max = seg_max;
        c.far_min = tmin;
        return c;
    }
    c.near = b->near_side[a];
    // The near plane by a mask on the bits, not a branch: the ray's sign on the node's axis is a
    // coin flip for the predictor.
    uint32_t b0, b1;
    memcpy(&b0, &n->s0, sizeof(b0));
    memcpy(&b1, &n->s1, sizeof(b1));
    uint32_t swap = (b0 ^ b1) & (0u - c.near);
    uint32_t bn = b0 ^ swap, bf = b1 ^ swap;
    float s_near, s_far;
    memcpy(&s_near, &bn, sizeof(s_near));
    memcpy(&s_far, &bf, sizeof(s_far));
    float t_near_end = (s_near - b->o[a]) * b->inv[a] + b->eps[a];
    float t_far_start = (s_far - b->o[a]) * b->inv[a] - b->eps[a];
    c.reach_near = t_near_end >= tmin;
    c.reach_far = t_far_start <= seg_max;
    c.near_max = VXK_MIN(t_near_end, seg_max);
    c.far_min = VXK_MAX(t_far_start, tmin);
    return c;
}

// Closest-hit order: nearer, then the lower primitive index on a tie (what a brute-force scan in
// index order keeps).
static inline bool kd_better(float t, uint32_t prim, const vxk_kdtree_hit* best)
{
    return t < best->t || (t == best->t && prim < best->primitive);
}

// A candidate a vector leaf test found (edges e1, e2): the degeneracy test, then the tie rule, as
// the scalar loop applies them. True when `any` and it was taken (the search stops).
static inline __attribute__((always_inline)) bool kd_take_candidate(const kd_tests* tests,
                                                                    vxk_vec3 e1, vxk_vec3 e2,
                                                                    const vxk_kdtree_hit* cand,
                                                                    bool any, vxk_kdtree_hit* best)
{
    vxk_vec3 dir = tests->mt.dir;
    if (!kd_mt_solid(dir, e1, e2, kd_v3_dot(e1, kd_v3_cross(dir, e2))))
        return false;
    if (any || kd_better(cand->t, cand->primitive, best))
        *best = *cand;
    return any;
}

// The vector leaf tests of a ray query, one per tree (kdtree.c: float leaves, kdtree16.c:
// quantized quads): leaf's primitives against the ray, bounded by best->t, the closest kept in
// *best by the tie rule (kd_better). -1 when the tree has no vector test for this leaf (kd_raycast
// then tests its primitives one by one), else 1 when `any` and a primitive was hit (the search
// stops), 0 otherwise.
static inline __attribute__((always_inline)) int kd_ray_leaf(const kd_view* view,
                                                             const kd_tests* tests,
                                                             const kd_decoded* leaf, bool any,
                                                             vxk_kdtree_hit* best);

// A ray query on either tree (any: the first hit found, else the closest): the segment clipped to
// the root bounds, then front to back, near child first with the far one on the stack, every
// segment widened by KD_RAY_EPS, leaves by the tree's kd_ray_leaf.
static inline __attribute__((always_inline)) bool
kd_raycast(const kd_view* view, bool q16, vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray,
           const vxk_kdtree_frame* frame, bool any, void* scratch)
{
    vxk_kdtree_hit best = {ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
    if (hit)
        *hit = best;
    if (!ray || view->primitive_count == 0)
        return false;
    kd_begin begin;
    if (!kd_ray_begin(view, ray, &begin))
        return false;
    kd_tests tests;
    kd_tests_init(&tests, view, ray, &begin, frame);
    int tested = 0;

    kd_ray_entry local[VXK_KD_MAX_DEPTH + 1];
    kd_ray_entry* stack = scratch ? (kd_ray_entry*)scratch : local;
    uint32_t sp = 0, node = 0;
    float tmin = begin.tmin, tmax = begin.tmax;
    for (;;) {
        kd_decoded n = kd_decode(view, q16, node);
        if (n.axis != VXK_KD_LEAF) {
            // descend into the near child straight away (no stack round trip on the critical
            // path); the far one waits on the stack
            kd_children c = kd_split(&begin, &n, tmin, VXK_MIN(tmax, best.t));
            uint32_t near = n.child + c.near, far = n.child + (c.near ^ 1u);
            if (__builtin_expect(c.reach_near, 1)) {
                stack[sp] = (kd_ray_entry){far, c.far_min, tmax};
                sp += c.reach_far;
                node = near;
                tmax = c.near_max;
                continue;
            }
            if (c.reach_far) {
                node = far;
                tmin = c.far_min;
                continue;
            }
        } else if ((tested = kd_ray_leaf(view, &tests, &n, any, &best)) >= 0) {
            if (tested)
                break;
        } else {
            for (uint32_t k = 0; k < n.child; ++k) {
                float t, u, v;
                if (!kd_test_prim(view, q16, &tests, &n, k, best.t, &t, &u, &v))
                    continue;
                uint32_t slot, prim = kd_leaf_prim(view, q16, &n, k, &slot);
                if (any || kd_better(t, prim, &best))
                    best = (vxk_kdtree_hit){t, u, v, prim};
                if (any)
                    break;
            }
            if (any && best.primitive != VXK_KD_NO_PRIMITIVE)
                break;
        }
        // a segment starting past the best hit cannot hold a nearer (or tying) one
        do {
            if (!sp)
                goto done;
            --sp;
        } while (stack[sp].tmin > best.t);
        node = stack[sp].node;
        tmin = stack[sp].tmin;
        tmax = stack[sp].tmax;
    }
done:
    if (best.primitive == VXK_KD_NO_PRIMITIVE)
        return false;
    if (!tests.uv) // framed queries report t alone
        best.u = best.v = 0.0f;
    if (hit)
        *hit = best;
    return true;
}

// A query visits a small tree's nodes and leaves in an order it cannot predict: request the start
// of each array it reads (up to 16 cache lines; a chunk's arrays are mostly smaller) at once
// rather than missing line after line. The float tree's nodes, indices and vertices are three
// allocations, so its misses would come as a chain of three; requested together they overlap with
// each other and with the ray's setup. (512 bytes measured 3-5 % slower on bench_kd's rays.)
#define KD_PREFETCH_BYTES 1024u

// Instantiates a traversal for a compile-time corner count: the view is a local whose corners
// field is set to a constant just before the (inlined) call, so each branch compiles to code
// specialised for triangles or quads.
#define KD_BY_CORNERS(view, call) \
    ((view).corners == 4 ? ((view).corners = 4, (call)) : ((view).corners = 3, (call)))

// A query without a tree: a miss (a closest-hit query writes the miss).
static inline bool kd_no_tree(vxk_kdtree_hit* hit, const vxk_kdtree_ray* ray)
{
    if (hit)
        *hit = (vxk_kdtree_hit){ray ? ray->tmax : 0.0f, 0.0f, 0.0f, VXK_KD_NO_PRIMITIVE};
    return false;
}

// ---- defined in kdtree.c, used by both trees ----------------------------------------------------

// The mesh checks of vxk_kdtree_build (its errors, in its order).
vxk_status vxk_kd_check_mesh(const vxk_mesh* mesh);

// Builds into nodes (capacity 2n - 1, at least 1); returns the node count and the depth. Leaves
// hold up to max_leaf primitives: with leaf_ranges a leaf stores (first position in the final
// order, unused) and the caller reads the primitives from the order array (scratch), otherwise
// the primitive indices themselves (max_leaf <= 2).
uint32_t vxk_kd_build_nodes(vxk_kdtree_node* nodes, const vxk_vec3* vertices,
                            const uint32_t* indices, uint32_t n, uint32_t corners, void* scratch,
                            uint32_t max_leaf, bool leaf_ranges, uint32_t* depth_out,
                            vxk_aabb* bounds_out);

// The invariants of vxk_kdtree_validate on either tree.
vxk_status vxk_kd_validate_view(const kd_view* view, bool q16, uint32_t node_count,
                                uint32_t stored_depth);

#endif
