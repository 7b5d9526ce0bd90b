// contact_geometry.c: contact manifolds for spheres, oriented boxes and terrain faces. Box-box
// follows the separating-axis test with reference-face clipping of Gottschalk's OBB tree paper
// and ODE's dBoxBox, with the face/edge preference tolerances of D. Gregorius, "The Separating
// Axis Test between Convex Polyhedra" (GDC 2013); interior edges follow Roblox's terrain
// narrowphase (zeux): an edge that is not CONVEX never tilts a contact normal.
//
// Tolerances: an edge axis is used when its separation exceeds 0.95 x the best face separation
// plus an absolute slop, a face of B over a face of A when it exceeds 0.98 x plus the slop; the
// slop is 0.002 x the smaller of the two shapes' largest half extents. Parallel edges (|Ai x Bj|
// below 1e-5) give no edge axis. Terrain faces are boxes with zero half extent along their
// normal; an axis other than the face normal may lean only on CONVEX edges of the rectangle.
// Past a flat or concave edge a sphere's contact point continues in the face's plane. An edge
// axis whose lines meet past an edge's end (a vertex touches, not the edge) falls back to the
// best face axis. Side planes of a reference face sit 1e-4 x its half extent outside it. In
// manifold reduction, separations within 1e-3 x the points' extent of the
// least tie for deepest, so a face resting flat keeps its first point under tiny motions.
//
// Feature ids: byte 0 = A's feature, byte 1 = B's (type << 4 | index; type 0 face, 1 edge,
// 2 vertex; box numbering of the header, a terrain face numbered as its zero-thickness box on
// the world axes), byte 2 = A's and B's face indices of a clipped face pair (3 bits each), bits
// 24-30 the contact kind, bit 31 set when B held the reference face. A clipped point is named by
// (reference face, incident vertex), (reference side edge, incident edge) or (reference corner,
// incident face).
#include "contact_geometry.h"

#include <float.h>

enum {
    KIND_SPHERES = 1,
    KIND_BOX_SPHERE = 2,
    KIND_BOX_FACE = 3,
    KIND_BOX_EDGE = 4,
    KIND_FACE_SPHERE = 5,
    KIND_FACE_BOX_FACE = 6,
    KIND_FACE_BOX_EDGE = 7,
};

#define FEATURE_FACE(i) ((uint32_t)(i))
#define FEATURE_EDGE(i) (0x10u | (uint32_t)(i))
#define FEATURE_VERTEX(i) (0x20u | (uint32_t)(i))

static const float k_rel_edge_tolerance = 0.95f;
static const float k_rel_face_tolerance = 0.98f;
static const float k_abs_tolerance_scale = 0.002f;
static const float k_parallel_edge = 1e-5f;
static const float k_lean = 1e-6f;
static const float k_depth_tie = 1e-3f;
static const float k_clip_slop = 1e-4f;

static inline float min_f(float a, float b)
{
    return a < b ? a : b;
}
static inline float max_f(float a, float b)
{
    return a > b ? a : b;
}
static inline float clamp_f(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
static inline float max_half(vxk_vec3 h)
{
    return max_f(h.x, max_f(h.y, h.z));
}
static inline uint32_t make_id(uint32_t feature_a, uint32_t feature_b, uint32_t faces,
                               uint32_t kind, uint32_t flip)
{
    return feature_a | feature_b << 8 | faces << 16 | kind << 24 | flip << 31;
}

// Edge of a box along `along` whose other two coordinates are the bits of `vertex_bits`.
static inline uint32_t box_edge(uint32_t along, uint32_t vertex_bits)
{
    uint32_t o1 = along == 0 ? 1u : 0u;
    uint32_t o2 = along == 2 ? 1u : 2u;
    return 4u * along + ((vertex_bits >> o1) & 1u) + 2u * ((vertex_bits >> o2) & 1u);
}

// ---- spheres ---------------------------------------------------------------------------------

uint32_t vxk_collide_spheres(vxk_manifold* out, vxk_vec3 ca, float ra, vxk_vec3 cb, float rb,
                             float margin)
{
    out->point_count = 0;
    vxk_vec3 d = vxk_v3_sub(cb, ca);
    float dist2 = vxk_v3_dot(d, d);
    float reach = ra + rb + margin;
    if (!(dist2 <= reach * reach))
        return 0;
    float dist = sqrtf(dist2);
    vxk_vec3 n = dist > 1e-12f ? vxk_v3_scale(d, 1.0f / dist) : vxk_v3(0.0f, 1.0f, 0.0f);
    if (!(vxk_v3_dot(n, n) > 0.5f)) // underflowed 1 / dist
        n = vxk_v3(0.0f, 1.0f, 0.0f);
    out->normal = n;
    out->points[0].point = vxk_v3_mul_add(ca, ra, n);
    out->points[0].separation = dist - ra - rb;
    out->points[0].feature = make_id(0, 0, 0, KIND_SPHERES, 0);
    out->point_count = 1;
    return 1;
}

uint32_t vxk_collide_box_sphere(vxk_manifold* out, const vxk_obb* a, vxk_vec3 cb, float rb,
                                float margin)
{
    out->point_count = 0;
    vxk_vec3 local = vxk_mat3_tmul_v(&a->axes, vxk_v3_sub(cb, a->center));
    float c[3] = {local.x, local.y, local.z};
    float h[3] = {a->half.x, a->half.y, a->half.z};
    float q[3];
    uint32_t clamped = 0, bits = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        q[i] = clamp_f(c[i], -h[i], h[i]);
        clamped |= (q[i] != c[i]) << i;
        bits |= (c[i] > 0.0f) << i;
    }
    vxk_vec3 n_local, p_local;
    float separation;
    uint32_t feature;
    if (clamped) {
        vxk_vec3 d = {c[0] - q[0], c[1] - q[1], c[2] - q[2]};
        float dist = vxk_v3_length(d);
        if (!(dist - rb <= margin))
            return 0;
        uint32_t count = (clamped & 1u) + ((clamped >> 1) & 1u) + ((clamped >> 2) & 1u);
        uint32_t lowest = clamped & 1u ? 0u : (clamped & 2u ? 1u : 2u);
        if (dist > 1e-12f) {
            n_local = vxk_v3_scale(d, 1.0f / dist);
        } else { // on the surface: the first clamped axis
            n_local = vxk_v3(0, 0, 0);
            vxk_v3_set(&n_local, lowest, c[lowest] > 0.0f ? 1.0f : -1.0f);
        }
        p_local = vxk_v3(q[0], q[1], q[2]);
        separation = dist - rb;
        if (count == 1) {
            feature = FEATURE_FACE(2u * lowest + ((bits >> lowest) & 1u));
        } else if (count == 2) {
            uint32_t free_axis = (~clamped) & 7u;
            uint32_t along = free_axis == 1u ? 0u : (free_axis == 2u ? 1u : 2u);
            feature = FEATURE_EDGE(box_edge(along, bits));
        } else {
            feature = FEATURE_VERTEX(bits);
        }
    } else {
        // Inside: the nearest face (ties to the lower axis).
        uint32_t best = 0;
        float best_depth = h[0] - fabsf(c[0]);
        for (uint32_t i = 1; i < 3; ++i) {
            float depth = h[i] - fabsf(c[i]);
            if (depth < best_depth) {
                best_depth = depth;
                best = i;
            }
        }
        float s = c[best] >= 0.0f ? 1.0f : -1.0f;
        n_local = vxk_v3(0, 0, 0);
        vxk_v3_set(&n_local, best, s);
        p_local = local;
        vxk_v3_set(&p_local, best, s * h[best]);
        separation = -best_depth - rb;
        if (!(separation <= margin))
            return 0;
        feature = FEATURE_FACE(2u * best + (s > 0.0f));
    }
    out->normal = vxk_mat3_mul_v(&a->axes, n_local);
    out->points[0].point = vxk_v3_add(a->center, vxk_mat3_mul_v(&a->axes, p_local));
    out->points[0].separation = separation;
    out->points[0].feature = make_id(feature, 0, 0, KIND_BOX_SPHERE, 0);
    out->point_count = 1;
    return 1;
}

// ---- boxes: separating axes ------------------------------------------------------------------

typedef struct box_frame {
    vxk_vec3 center;
    vxk_vec3 axis[3];
    float half[3];
} box_frame;

static inline box_frame box_frame_of(const vxk_obb* b)
{
    return (box_frame){
        b->center, {b->axes.cx, b->axes.cy, b->axes.cz}, {b->half.x, b->half.y, b->half.z}};
}

// Separations along the 15 axes (A faces 0..2, B faces 3..5, edges 6 + 3 i + j), -FLT_MAX for a
// parallel edge pair; edge axes are unit and unoriented.
typedef struct sat_axes {
    float separation[15];
    vxk_vec3 edge_axis[9];
    float r[3][3];   // Ai . Bj
    vxk_vec3 d;      // cb - ca
    float a_sign[3]; // the side of A's face axis i that faces B
} sat_axes;

// The 6 face axes; returns whether they all separate by at most margin (the edge axes are
// only computed then).
static bool sat_faces(sat_axes* s, float ar[3][3], const box_frame* a, const box_frame* b,
                      float margin)
{
    s->d = vxk_v3_sub(b->center, a->center);
    for (uint32_t i = 0; i < 3; ++i)
        for (uint32_t j = 0; j < 3; ++j) {
            s->r[i][j] = vxk_v3_dot(a->axis[i], b->axis[j]);
            ar[i][j] = fabsf(s->r[i][j]);
        }
    bool within = true;
    for (uint32_t i = 0; i < 3; ++i) {
        float rb = b->half[0] * ar[i][0] + b->half[1] * ar[i][1] + b->half[2] * ar[i][2];
        float di = vxk_v3_dot(s->d, a->axis[i]);
        s->separation[i] = fabsf(di) - a->half[i] - rb;
        s->a_sign[i] = di >= 0.0f ? 1.0f : -1.0f;
        within &= s->separation[i] <= margin; // NaN input separates too
    }
    for (uint32_t j = 0; j < 3; ++j) {
        float ra = a->half[0] * ar[0][j] + a->half[1] * ar[1][j] + a->half[2] * ar[2][j];
        s->separation[3 + j] = fabsf(vxk_v3_dot(s->d, b->axis[j])) - b->half[j] - ra;
        within &= s->separation[3 + j] <= margin;
    }
    return within;
}

// The 9 edge axes (after sat_faces); returns whether they all separate by at most margin.
static bool sat_edges(sat_axes* s, float ar[3][3], const box_frame* a, const box_frame* b,
                      float margin)
{
    bool within = true;
    for (uint32_t i = 0; i < 3; ++i) {
        uint32_t i1 = i == 0 ? 1u : 0u, i2 = i == 2 ? 1u : 2u;
        for (uint32_t j = 0; j < 3; ++j) {
            uint32_t j1 = j == 0 ? 1u : 0u, j2 = j == 2 ? 1u : 2u;
            vxk_vec3 axis = vxk_v3_cross(a->axis[i], b->axis[j]);
            float len2 = vxk_v3_dot(axis, axis);
            bool valid = len2 > k_parallel_edge * k_parallel_edge;
            float inv = valid ? 1.0f / sqrtf(len2) : 0.0f;
            float ra = a->half[i1] * ar[i2][j] + a->half[i2] * ar[i1][j];
            float rb = b->half[j1] * ar[i][j2] + b->half[j2] * ar[i][j1];
            uint32_t e = 3 * i + j;
            s->edge_axis[e] = vxk_v3_scale(axis, inv);
            float separation = (fabsf(vxk_v3_dot(s->d, axis)) - ra - rb) * inv;
            s->separation[6 + e] = valid ? separation : -FLT_MAX;
            within &= s->separation[6 + e] <= margin;
        }
    }
    return within;
}

// The axis that makes the contact among the allowed ones (bit k = axis k): the best face of A,
// unless a face of B or an edge pair separates clearly more. -1 when none is allowed.
static int sat_choose(const float separation[15], uint32_t allowed, float abs_tolerance)
{
    int best_a = -1, best_b = -1, best_e = -1;
    float sep_a = -FLT_MAX, sep_b = -FLT_MAX, sep_e = -FLT_MAX;
    for (int k = 0; k < 15; ++k) {
        if (!((allowed >> k) & 1u))
            continue;
        float s = separation[k];
        if (k < 3) {
            if (best_a < 0 || s > sep_a)
                best_a = k, sep_a = s;
        } else if (k < 6) {
            if (best_b < 0 || s > sep_b)
                best_b = k, sep_b = s;
        } else if (s > -FLT_MAX && (best_e < 0 || s > sep_e)) {
            best_e = k, sep_e = s;
        }
    }
    if (best_a < 0 && best_b < 0)
        return best_e;
    // The tolerances are relative to the separation's size, so that they favour faces for
    // separated shapes too (k x face would favour the edge when face > 0: a box hovering within
    // the margin over a face would take an edge axis equal to the face normal and one point).
    float face = max_f(sep_a, sep_b);
    if (best_e >= 0 && sep_e > face + (1.0f - k_rel_edge_tolerance) * fabsf(face) + abs_tolerance)
        return best_e;
    if (best_a < 0 || (best_b >= 0 && sep_b > sep_a + (1.0f - k_rel_face_tolerance) * fabsf(sep_a) +
                                                  abs_tolerance))
        return best_b;
    return best_a;
}

// ---- boxes: reference-face clipping ----------------------------------------------------------

typedef struct clip_vertex {
    vxk_vec3 p;
    uint8_t ref_feature, inc_feature; // feature codes on the reference and the incident box
    uint8_t out_on_ref;               // the edge to the next vertex: 1 on a reference side plane
    uint8_t out_code;                 // side plane index, or incident box edge index
} clip_vertex;

#define CLIP_CAPACITY 16

// Sutherland-Hodgman of a polygon against one plane (inside: dot(normal, p) <= offset).
static uint32_t clip_polygon(clip_vertex* out, const clip_vertex* in, uint32_t n, vxk_vec3 normal,
                             float offset, uint32_t side, const uint8_t side_edge[4],
                             const uint8_t corner[4][4], uint8_t inc_face)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const clip_vertex* cur = &in[i];
        const clip_vertex* next = &in[i + 1 == n ? 0 : i + 1];
        float dc = vxk_v3_dot(normal, cur->p) - offset;
        float dn = vxk_v3_dot(normal, next->p) - offset;
        bool cur_in = dc <= 0.0f, next_in = dn <= 0.0f;
        if (cur_in && count < CLIP_CAPACITY)
            out[count++] = *cur;
        if (cur_in != next_in && count < CLIP_CAPACITY) {
            float t = dc / (dc - dn);
            clip_vertex v;
            v.p = vxk_v3_mul_add(cur->p, t, vxk_v3_sub(next->p, cur->p));
            if (cur->out_on_ref) {
                v.ref_feature = (uint8_t)FEATURE_VERTEX(corner[side][cur->out_code]);
                v.inc_feature = (uint8_t)FEATURE_FACE(inc_face);
            } else {
                v.ref_feature = (uint8_t)FEATURE_EDGE(side_edge[side]);
                v.inc_feature = (uint8_t)FEATURE_EDGE(cur->out_code);
            }
            v.out_on_ref = cur_in ? 1u : cur->out_on_ref;
            v.out_code = cur_in ? (uint8_t)side : cur->out_code;
            out[count++] = v;
        }
    }
    return count;
}

// Contact points of reference box `ref` face axis k (normal n from ref towards inc) with the
// incident face of box `inc`, written to out->points as A-B points (ref_is_b: B is the
// reference, the output normal is -n). Returns the count, reduced to 4.
static uint32_t face_contact(vxk_manifold* out, const box_frame* ref, uint32_t k, vxk_vec3 n,
                             const box_frame* inc, bool ref_is_b, float margin, uint32_t kind)
{
    uint32_t k1 = k == 0 ? 1u : 0u, k2 = k == 2 ? 1u : 2u;
    uint32_t ref_positive = vxk_v3_dot(n, ref->axis[k]) > 0.0f;
    uint32_t ref_face = 2u * k + ref_positive;
    // Incident face: the face of inc whose outward normal is most opposed to n.
    float dots[3] = {vxk_v3_dot(n, inc->axis[0]), vxk_v3_dot(n, inc->axis[1]),
                     vxk_v3_dot(n, inc->axis[2])};
    uint32_t m = 0;
    for (uint32_t i = 1; i < 3; ++i)
        if (fabsf(dots[i]) > fabsf(dots[m]))
            m = i;
    uint32_t inc_positive = !(dots[m] > 0.0f);
    uint32_t inc_face = 2u * m + inc_positive;
    uint32_t m1 = m == 0 ? 1u : 0u, m2 = m == 2 ? 1u : 2u;
    vxk_vec3 face_center =
        vxk_v3_mul_add(inc->center, inc_positive ? inc->half[m] : -inc->half[m], inc->axis[m]);
    vxk_vec3 e1 = vxk_v3_scale(inc->axis[m1], inc->half[m1]);
    vxk_vec3 e2 = vxk_v3_scale(inc->axis[m2], inc->half[m2]);
    static const float walk1[4] = {-1.0f, 1.0f, 1.0f, -1.0f};
    static const float walk2[4] = {-1.0f, -1.0f, 1.0f, 1.0f};
    clip_vertex buffer_a[CLIP_CAPACITY], buffer_b[CLIP_CAPACITY];
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t bits = inc_positive << m | (uint32_t)(walk1[i] > 0.0f) << m1 |
                        (uint32_t)(walk2[i] > 0.0f) << m2;
        uint32_t along = (i & 1u) ? m2 : m1; // the walk changes m1 on steps 0, 2 and m2 on 1, 3
        clip_vertex* v = &buffer_a[i];
        v->p = vxk_v3_add(face_center,
                          vxk_v3_add(vxk_v3_scale(e1, walk1[i]), vxk_v3_scale(e2, walk2[i])));
        v->ref_feature = (uint8_t)FEATURE_FACE(ref_face);
        v->inc_feature = (uint8_t)FEATURE_VERTEX(bits);
        v->out_on_ref = 0;
        v->out_code = (uint8_t)box_edge(along, bits);
    }
    // Side planes of the reference face: (k1, -), (k1, +), (k2, -), (k2, +).
    uint8_t side_edge[4], corner[4][4];
    uint32_t side_axis[4] = {k1, k1, k2, k2};
    for (uint32_t s = 0; s < 4; ++s) {
        uint32_t other = s < 2 ? k2 : k1;
        uint32_t bits = ref_positive << k | (s & 1u) << side_axis[s];
        side_edge[s] = (uint8_t)box_edge(other, bits);
        for (uint32_t t = 0; t < 4; ++t)
            corner[s][t] = (uint8_t)(bits | (t & 1u) << side_axis[t]);
    }
    clip_vertex* src = buffer_a;
    clip_vertex* dst = buffer_b;
    uint32_t count = 4;
    for (uint32_t s = 0; s < 4 && count > 0; ++s) {
        uint32_t axis = side_axis[s];
        float sign = (s & 1u) ? 1.0f : -1.0f;
        vxk_vec3 normal = vxk_v3_scale(ref->axis[axis], sign);
        // A little slop keeps an incident vertex on a side plane (equal boxes stacked flush,
        // a box flush with a face's edge) one vertex under rounding, so its id holds.
        float offset = vxk_v3_dot(normal, ref->center) + ref->half[axis] * (1.0f + k_clip_slop);
        count =
            clip_polygon(dst, src, count, normal, offset, s, side_edge, corner, (uint8_t)inc_face);
        clip_vertex* swap = src;
        src = dst;
        dst = swap;
    }
    // Degenerate faces (a zero extent: terrain faces, flat boxes) leave coincident vertices.
    float scale2 = 1e-12f * (ref->half[0] * ref->half[0] + ref->half[1] * ref->half[1] +
                             ref->half[2] * ref->half[2] + inc->half[m1] * inc->half[m1] +
                             inc->half[m2] * inc->half[m2]);
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const clip_vertex* prev = distinct ? &src[distinct - 1] : &src[count - 1];
        vxk_vec3 d = vxk_v3_sub(src[i].p, prev->p);
        if (count > 1 && vxk_v3_dot(d, d) <= scale2 && (distinct > 0 || i + 1 < count))
            continue;
        src[distinct++] = src[i];
    }
    count = distinct;
    float plane = vxk_v3_dot(n, ref->center) + ref->half[k];
    vxk_vec3 normal_out = ref_is_b ? vxk_v3_neg(n) : n;
    uint32_t faces = ref_is_b ? (inc_face | ref_face << 3) : (ref_face | inc_face << 3);
    vxk_manifold_point candidates[CLIP_CAPACITY];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; ++i) {
        float separation = vxk_v3_dot(n, src[i].p) - plane;
        if (!(separation <= margin))
            continue;
        vxk_manifold_point* c = &candidates[kept++];
        c->separation = separation;
        if (ref_is_b) {
            c->point = src[i].p;
            c->feature = make_id(src[i].inc_feature, src[i].ref_feature, faces, kind, 1);
        } else {
            c->point = vxk_v3_mul_add(src[i].p, -separation, n);
            c->feature = make_id(src[i].ref_feature, src[i].inc_feature, faces, kind, 0);
        }
    }
    kept = vxk_manifold_reduce(candidates, kept, normal_out);
    out->normal = normal_out;
    for (uint32_t i = 0; i < kept; ++i)
        out->points[i] = candidates[i];
    out->point_count = kept;
    return kept;
}

// Closest points of the supporting edges of A (axis i) and B (axis j) for the unit axis n from
// A to B.
static uint32_t edge_contact(vxk_manifold* out, const box_frame* a, uint32_t i, const box_frame* b,
                             uint32_t j, vxk_vec3 n, float margin, uint32_t kind)
{
    uint32_t bits_a = 0, bits_b = 0;
    vxk_vec3 pa = a->center, pb = b->center;
    for (uint32_t k = 0; k < 3; ++k) {
        if (k != i) {
            uint32_t positive = vxk_v3_dot(n, a->axis[k]) >= 0.0f;
            bits_a |= positive << k;
            pa = vxk_v3_mul_add(pa, positive ? a->half[k] : -a->half[k], a->axis[k]);
        }
        if (k != j) {
            uint32_t positive = vxk_v3_dot(n, b->axis[k]) < 0.0f;
            bits_b |= positive << k;
            pb = vxk_v3_mul_add(pb, positive ? b->half[k] : -b->half[k], b->axis[k]);
        }
    }
    // Lines pa + s da, pb + t db (|da| = |db| = 1), s and t clamped to the edges.
    vxk_vec3 da = a->axis[i], db = b->axis[j];
    vxk_vec3 r = vxk_v3_sub(pa, pb);
    float bdot = vxk_v3_dot(da, db);
    float c = vxk_v3_dot(da, r), f = vxk_v3_dot(db, r);
    float denom = 1.0f - bdot * bdot;
    float s = denom > 1e-12f ? (bdot * f - c) / denom : 0.0f;
    float t = bdot * s + f;
    // Closest points of the lines past an edge's end: the edges are not the touching features
    // (a vertex is), so the caller falls back to a face axis.
    float slack_a = 1e-5f * a->half[i] + 1e-7f, slack_b = 1e-5f * b->half[j] + 1e-7f;
    if (!(fabsf(s) <= a->half[i] + slack_a && fabsf(t) <= b->half[j] + slack_b))
        return UINT32_MAX;
    s = clamp_f(s, -a->half[i], a->half[i]);
    t = clamp_f(t, -b->half[j], b->half[j]);
    vxk_vec3 ca = vxk_v3_mul_add(pa, s, da);
    vxk_vec3 cb = vxk_v3_mul_add(pb, t, db);
    float separation = vxk_v3_dot(vxk_v3_sub(cb, ca), n);
    out->normal = n;
    if (!(separation <= margin))
        return out->point_count = 0;
    out->points[0].point = ca;
    out->points[0].separation = separation;
    out->points[0].feature =
        make_id(FEATURE_EDGE(box_edge(i, bits_a)), FEATURE_EDGE(box_edge(j, bits_b)), 0, kind, 0);
    return out->point_count = 1;
}

// Contact for the chosen axis (sat_choose) of boxes a and b.
static uint32_t box_contact(vxk_manifold* out, const box_frame* a, const box_frame* b,
                            const sat_axes* s, int axis, uint32_t allowed, float abs_tolerance,
                            float margin, uint32_t face_kind, uint32_t edge_kind)
{
    if (axis < 3) {
        vxk_vec3 n = vxk_v3_scale(a->axis[axis], s->a_sign[axis]);
        return face_contact(out, a, (uint32_t)axis, n, b, false, margin, face_kind);
    }
    if (axis < 6) {
        uint32_t j = (uint32_t)axis - 3;
        vxk_vec3 n = b->axis[j]; // from B towards A
        if (vxk_v3_dot(s->d, n) > 0.0f)
            n = vxk_v3_neg(n);
        return face_contact(out, b, j, n, a, true, margin, face_kind);
    }
    uint32_t e = (uint32_t)axis - 6;
    vxk_vec3 n = s->edge_axis[e];
    if (vxk_v3_dot(s->d, n) < 0.0f)
        n = vxk_v3_neg(n);
    uint32_t count = edge_contact(out, a, e / 3, b, e % 3, n, margin, edge_kind);
    if (count != UINT32_MAX)
        return count;
    int face_axis = sat_choose(s->separation, allowed & 0x3fu, abs_tolerance);
    return box_contact(out, a, b, s, face_axis, allowed, abs_tolerance, margin, face_kind,
                       edge_kind);
}

uint32_t vxk_collide_boxes(vxk_manifold* out, const vxk_obb* a, const vxk_obb* b, float margin)
{
    out->point_count = 0;
    box_frame fa = box_frame_of(a), fb = box_frame_of(b);
    sat_axes s;
    float ar[3][3];
    if (!sat_faces(&s, ar, &fa, &fb, margin) || !sat_edges(&s, ar, &fa, &fb, margin))
        return 0;
    float tolerance = k_abs_tolerance_scale * min_f(max_half(a->half), max_half(b->half));
    int axis = sat_choose(s.separation, 0x7fffu, tolerance);
    return box_contact(out, &fa, &fb, &s, axis, 0x7fffu, tolerance, margin, KIND_BOX_FACE,
                       KIND_BOX_EDGE);
}

// ---- terrain faces ---------------------------------------------------------------------------

static inline uint32_t face_axis_u(uint32_t axis)
{
    return axis == 0 ? 2u : 0u;
}
static inline uint32_t face_axis_v(uint32_t axis)
{
    return axis == 1 ? 2u : 1u;
}
static inline uint32_t face_edge_class(const vxk_face* f, uint32_t slot)
{
    return (f->edges >> (2u * slot)) & 3u;
}

void vxk_face_from_quad(vxk_face* out, vxk_quad q, vxk_int3 chunk, float voxel_size)
{
    uint32_t axis = vxk_quad_axis(q);
    bool positive = vxk_quad_positive(q);
    int64_t p[3] = {8 * (int64_t)chunk.x + q.x, 8 * (int64_t)chunk.y + q.y,
                    8 * (int64_t)chunk.z + q.z};
    p[axis] += positive ? 1 : 0;
    out->min = vxk_v3((float)((double)p[0] * voxel_size), (float)((double)p[1] * voxel_size),
                      (float)((double)p[2] * voxel_size));
    out->size_u = (float)((double)q.width * voxel_size);
    out->size_v = (float)((double)q.height * voxel_size);
    out->axis = (uint8_t)axis;
    out->positive = positive ? 1u : 0u;
    out->edges = q.edges;
    out->material = q.material;
}

uint32_t vxk_collide_face_sphere(vxk_manifold* out, const vxk_face* a, vxk_vec3 cb, float rb,
                                 float margin)
{
    out->point_count = 0;
    uint32_t axis = a->axis, au = face_axis_u(axis), av = face_axis_v(axis);
    float sign = a->positive ? 1.0f : -1.0f;
    float height = sign * (vxk_v3_get(cb, axis) - vxk_v3_get(a->min, axis));
    if (!(height >= 0.0f))
        return 0;
    float cu = vxk_v3_get(cb, au) - vxk_v3_get(a->min, au);
    float cv = vxk_v3_get(cb, av) - vxk_v3_get(a->min, av);
    float qu = clamp_f(cu, 0.0f, a->size_u), qv = clamp_f(cv, 0.0f, a->size_v);
    float du = cu - qu, dv = cv - qv;
    if (!(sqrtf(du * du + dv * dv + height * height) - rb <= margin))
        return 0;
    // Clamp only towards convex edges: past a flat or concave edge the surface continues in the
    // face's plane as far as this contact is concerned.
    uint32_t slot_u = cu < 0.0f ? VXK_EDGE_MINUS_U : VXK_EDGE_PLUS_U;
    uint32_t slot_v = cv < 0.0f ? VXK_EDGE_MINUS_V : VXK_EDGE_PLUS_V;
    bool tilt_u = du != 0.0f && face_edge_class(a, slot_u) == VXK_EDGE_CONVEX;
    bool tilt_v = dv != 0.0f && face_edge_class(a, slot_v) == VXK_EDGE_CONVEX;
    float pu = tilt_u ? qu : cu, pv = tilt_v ? qv : cv;
    float tu = cu - pu, tv = cv - pv;
    float dist = sqrtf(tu * tu + tv * tv + height * height);
    vxk_vec3 n = vxk_v3(0, 0, 0);
    vxk_v3_set(&n, axis, sign);
    float separation = height - rb;
    if ((tilt_u || tilt_v) && dist > 1e-12f) {
        float inv = 1.0f / dist;
        vxk_v3_set(&n, au, tu * inv);
        vxk_v3_set(&n, av, tv * inv);
        vxk_v3_set(&n, axis, sign * height * inv);
        separation = dist - rb;
    }
    vxk_vec3 p = a->min;
    vxk_v3_set(&p, au, vxk_v3_get(a->min, au) + pu);
    vxk_v3_set(&p, av, vxk_v3_get(a->min, av) + pv);
    uint32_t region = (du < 0.0f) | (du > 0.0f) << 1 | (dv < 0.0f) << 2 | (dv > 0.0f) << 3;
    uint32_t type = (du != 0.0f) + (dv != 0.0f);
    out->normal = n;
    out->points[0].point = p;
    out->points[0].separation = separation;
    out->points[0].feature = make_id(type << 4 | region, 0, 0, KIND_FACE_SPHERE, 0);
    out->point_count = 1;
    return 1;
}

// Whether the rectangle may push along L (from the face towards the box): L must not point into
// the face, and every edge it leans on must be convex.
static bool face_axis_allowed(const vxk_face* f, vxk_vec3 l)
{
    uint32_t axis = f->axis;
    float sign = f->positive ? 1.0f : -1.0f;
    float ln = sign * vxk_v3_get(l, axis);
    float lu = vxk_v3_get(l, face_axis_u(axis)), lv = vxk_v3_get(l, face_axis_v(axis));
    if (ln < -k_lean)
        return false;
    if (fabsf(lu) > k_lean &&
        face_edge_class(f, lu > 0.0f ? VXK_EDGE_PLUS_U : VXK_EDGE_MINUS_U) != VXK_EDGE_CONVEX)
        return false;
    if (fabsf(lv) > k_lean &&
        face_edge_class(f, lv > 0.0f ? VXK_EDGE_PLUS_V : VXK_EDGE_MINUS_V) != VXK_EDGE_CONVEX)
        return false;
    return true;
}

uint32_t vxk_collide_face_box(vxk_manifold* out, const vxk_face* a, const vxk_obb* b, float margin)
{
    out->point_count = 0;
    uint32_t axis = a->axis, au = face_axis_u(axis), av = face_axis_v(axis);
    float sign = a->positive ? 1.0f : -1.0f;
    // The face as a box of zero thickness, axes the world's.
    box_frame fa;
    fa.center = a->min;
    vxk_v3_set(&fa.center, au, vxk_v3_get(a->min, au) + 0.5f * a->size_u);
    vxk_v3_set(&fa.center, av, vxk_v3_get(a->min, av) + 0.5f * a->size_v);
    fa.axis[0] = vxk_v3(1, 0, 0);
    fa.axis[1] = vxk_v3(0, 1, 0);
    fa.axis[2] = vxk_v3(0, 0, 1);
    fa.half[axis] = 0.0f;
    fa.half[au] = 0.5f * a->size_u;
    fa.half[av] = 0.5f * a->size_v;
    box_frame fb = box_frame_of(b);
    if (!(sign * vxk_v3_get(vxk_v3_sub(b->center, fa.center), axis) >= 0.0f))
        return 0;
    sat_axes s;
    float ar[3][3];
    if (!sat_faces(&s, ar, &fa, &fb, margin) || !sat_edges(&s, ar, &fa, &fb, margin))
        return 0;
    s.a_sign[axis] = sign; // the face's own side, whatever the centre's rounding says
    uint32_t allowed = 1u << axis;
    for (uint32_t k = 0; k < 15; ++k) {
        if (k == axis || (k >= 6 && s.separation[k] == -FLT_MAX))
            continue;
        vxk_vec3 l = k < 3 ? fa.axis[k] : (k < 6 ? fb.axis[k - 3] : s.edge_axis[k - 6]);
        if (vxk_v3_dot(s.d, l) < 0.0f)
            l = vxk_v3_neg(l);
        allowed |= (uint32_t)face_axis_allowed(a, l) << k;
    }
    float tolerance =
        k_abs_tolerance_scale * min_f(max_f(fa.half[au], fa.half[av]), max_half(b->half));
    int chosen = sat_choose(s.separation, allowed, tolerance);
    return box_contact(out, &fa, &fb, &s, chosen, allowed, tolerance, margin, KIND_FACE_BOX_FACE,
                       KIND_FACE_BOX_EDGE);
}

// ---- manifolds -------------------------------------------------------------------------------

static inline float plane_cross(vxk_vec3 a, vxk_vec3 b, vxk_vec3 normal)
{
    return vxk_v3_dot(vxk_v3_cross(a, b), normal);
}

uint32_t vxk_manifold_reduce(vxk_manifold_point* points, uint32_t n, vxk_vec3 normal)
{
    if (n <= VXK_MANIFOLD_POINTS)
        return n;
    // Deepest: the first point within a small tolerance of the least separation, so that a
    // face resting flat (equal depths up to rounding) keeps its first point under tiny motions.
    float least = points[0].separation, extent2 = 0.0f;
    for (uint32_t i = 1; i < n; ++i) {
        least = min_f(least, points[i].separation);
        vxk_vec3 d = vxk_v3_sub(points[i].point, points[0].point);
        float h = vxk_v3_dot(d, normal);
        extent2 = max_f(extent2, vxk_v3_dot(d, d) - h * h);
    }
    float tie = least + k_depth_tie * sqrtf(extent2);
    uint32_t i0 = 0;
    while (i0 + 1 < n && !(points[i0].separation <= tie))
        ++i0;
    vxk_vec3 p0 = points[i0].point;
    uint32_t i1 = i0 == 0 ? 1u : 0u;
    float best = -1.0f;
    for (uint32_t i = 0; i < n; ++i) {
        if (i == i0)
            continue;
        vxk_vec3 d = vxk_v3_sub(points[i].point, p0);
        float h = vxk_v3_dot(d, normal);
        float dist2 = vxk_v3_dot(d, d) - h * h;
        if (dist2 > best)
            best = dist2, i1 = i;
    }
    vxk_vec3 e1 = vxk_v3_sub(points[i1].point, p0);
    uint32_t i2 = 0;
    best = -1.0f;
    float triangle = 0.0f;
    for (uint32_t i = 0; i < n; ++i) {
        if (i == i0 || i == i1)
            continue;
        float area = plane_cross(e1, vxk_v3_sub(points[i].point, p0), normal);
        if (fabsf(area) > best)
            best = fabsf(area), i2 = i, triangle = area;
    }
    vxk_vec3 p1 = points[i1].point, p2 = points[i2].point;
    uint32_t i3 = 0;
    best = -1.0f;
    for (uint32_t i = 0; i < n; ++i) {
        if (i == i0 || i == i1 || i == i2)
            continue;
        // Twice the area of the convex hull of p0, p1, p2, p: the largest of the triangles and
        // of the three quadrilaterals (diagonal cross products).
        vxk_vec3 p = points[i].point;
        float hull = fabsf(triangle);
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p1, p0), vxk_v3_sub(p, p0), normal)));
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p2, p0), vxk_v3_sub(p, p0), normal)));
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p2, p1), vxk_v3_sub(p, p1), normal)));
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p2, p0), vxk_v3_sub(p, p1), normal)));
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p, p0), vxk_v3_sub(p2, p1), normal)));
        hull = max_f(hull, fabsf(plane_cross(vxk_v3_sub(p1, p0), vxk_v3_sub(p, p2), normal)));
        if (hull > best)
            best = hull, i3 = i;
    }
    vxk_manifold_point kept[4] = {points[i0], points[i1], points[i2], points[i3]};
    for (uint32_t i = 0; i < 4; ++i)
        points[i] = kept[i];
    return VXK_MANIFOLD_POINTS;
}

void vxk_manifold_flip(vxk_manifold* m)
{
    vxk_vec3 n = m->normal;
    for (uint32_t i = 0; i < m->point_count; ++i)
        m->points[i].point = vxk_v3_mul_add(m->points[i].point, m->points[i].separation, n);
    m->normal = vxk_v3_neg(n);
}
