// contact_capsule.c: the capsule's contact geometry and time-of-impact separation
// (contact_capsule.h). Segment closest points after Ericson, "Real-Time Collision Detection"
// (2005), 5.1.9; segment against box by the exact piecewise-quadratic minimum.
#include "contact_capsule.h"

#include <float.h>
#include <string.h>

// Segments whose directions' sine is below this are parallel (about 2.9 degrees).
#define PARALLEL_SIN 0.05f
// Clipped ranges shorter than this (in segment parameter) give one point, not two.
#define SAME_POINT_T 1e-4f
// An edge axis of the overlap test wins over a face axis only when it penetrates clearly less.
#define EDGE_RELATIVE 0.95f
#define EDGE_ABSOLUTE 1e-4f

static float clamp01(float x)
{
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

float vxk_segment_closest(vxk_vec3 a0, vxk_vec3 a1, vxk_vec3 p)
{
    vxk_vec3 d = vxk_v3_sub(a1, a0);
    float dd = vxk_v3_dot(d, d);
    if (!(dd > 0.0f))
        return 0.0f;
    return clamp01(vxk_v3_dot(vxk_v3_sub(p, a0), d) / dd);
}

void vxk_segments_closest(float* s, float* t, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 q0, vxk_vec3 q1)
{
    vxk_vec3 d1 = vxk_v3_sub(p1, p0), d2 = vxk_v3_sub(q1, q0), r = vxk_v3_sub(p0, q0);
    float a = vxk_v3_dot(d1, d1), e = vxk_v3_dot(d2, d2), f = vxk_v3_dot(d2, r);
    const float eps = 1e-12f;
    if (a <= eps && e <= eps) {
        *s = *t = 0.0f;
        return;
    }
    if (a <= eps) {
        *s = 0.0f;
        *t = clamp01(f / e);
        return;
    }
    float c = vxk_v3_dot(d1, r);
    if (e <= eps) {
        *t = 0.0f;
        *s = clamp01(-c / a);
        return;
    }
    float b = vxk_v3_dot(d1, d2);
    float denom = a * e - b * b;
    float sv = denom > 1e-7f * a * e ? clamp01((b * f - c * e) / denom) : 0.0f;
    float tv = (b * sv + f) / e;
    if (tv < 0.0f) {
        tv = 0.0f;
        sv = clamp01(-c / a);
    } else if (tv > 1.0f) {
        tv = 1.0f;
        sv = clamp01((b - c) / a);
    }
    *s = sv;
    *t = tv;
}

static vxk_vec3 segment_at(vxk_vec3 p0, vxk_vec3 d, float t)
{
    return vxk_v3_mul_add(p0, t, d);
}

static vxk_vec3 clamp_box(vxk_vec3 p, vxk_vec3 lo, vxk_vec3 hi)
{
    return vxk_v3_max(lo, vxk_v3_min(hi, p));
}

static float box_distance_sq(vxk_vec3 p, vxk_vec3 lo, vxk_vec3 hi)
{
    vxk_vec3 e = vxk_v3_sub(p, clamp_box(p, lo, hi));
    return vxk_v3_dot(e, e);
}

float vxk_segment_box_closest(vxk_vec3* closest, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 lo, vxk_vec3 hi)
{
    vxk_vec3 d = vxk_v3_sub(p1, p0);
    // The pieces: [0, 1] cut where p(t) crosses a slab plane.
    float cuts[8] = {0.0f, 1.0f};
    uint32_t n = 2;
    for (uint32_t i = 0; i < 3; ++i) {
        float di = vxk_v3_get(d, i), oi = vxk_v3_get(p0, i);
        if (di == 0.0f)
            continue;
        float bounds[2] = {vxk_v3_get(lo, i), vxk_v3_get(hi, i)};
        for (uint32_t k = 0; k < 2; ++k) {
            float t = (bounds[k] - oi) / di;
            if (t > 0.0f && t < 1.0f)
                cuts[n++] = t;
        }
    }
    for (uint32_t i = 1; i < n; ++i) {
        float x = cuts[i];
        uint32_t j = i;
        for (; j > 0 && cuts[j - 1] > x; --j)
            cuts[j] = cuts[j - 1];
        cuts[j] = x;
    }
    float best_t = 0.0f, best_f = FLT_MAX;
    for (uint32_t k = 0; k + 1 < n; ++k) {
        float ta = cuts[k], tb = cuts[k + 1];
        // The clamp pattern of the piece is that of its middle: below, inside or above per axis.
        vxk_vec3 mid = segment_at(p0, d, 0.5f * (ta + tb));
        float qa = 0.0f, qb = 0.0f; // f(t) = qa t^2 + qb t + const on the piece
        for (uint32_t i = 0; i < 3; ++i) {
            float x = vxk_v3_get(mid, i), l = vxk_v3_get(lo, i), h = vxk_v3_get(hi, i);
            float bound = x < l ? l : (x > h ? h : x);
            if (bound == x)
                continue;
            float di = vxk_v3_get(d, i), oi = vxk_v3_get(p0, i) - bound;
            qa += di * di;
            qb += 2.0f * di * oi;
        }
        float t = ta;
        if (qa > 0.0f) {
            t = -qb / (2.0f * qa);
            t = t < ta ? ta : (t > tb ? tb : t);
        }
        float f = box_distance_sq(segment_at(p0, d, t), lo, hi);
        if (f < best_f) {
            best_f = f;
            best_t = t;
        }
    }
    *closest = clamp_box(segment_at(p0, d, best_t), lo, hi);
    return best_t;
}

static void add_point(vxk_manifold* out, vxk_vec3 point, float separation, uint32_t feature)
{
    vxk_manifold_point* p = &out->points[out->point_count++];
    p->point = point;
    p->separation = separation;
    p->feature = feature;
}

uint32_t vxk_collide_capsule_sphere(vxk_manifold* out, const vxk_capsule* a, vxk_vec3 cb, float rb,
                                    float margin)
{
    float t = vxk_segment_closest(a->p0, a->p1, cb);
    vxk_vec3 c = segment_at(a->p0, vxk_v3_sub(a->p1, a->p0), t);
    return vxk_collide_spheres(out, c, a->radius, cb, rb, margin);
}

// A unit vector perpendicular to d (any, when d is zero).
static vxk_vec3 perpendicular(vxk_vec3 d)
{
    vxk_vec3 axis = fabsf(d.x) < 0.57735f ? vxk_v3(1, 0, 0) : vxk_v3(0, 1, 0);
    vxk_vec3 p = vxk_v3_cross(d, axis);
    float l = vxk_v3_length(p);
    return l > 0.0f ? vxk_v3_scale(p, 1.0f / l) : vxk_v3(0, 1, 0);
}

uint32_t vxk_collide_capsules(vxk_manifold* out, const vxk_capsule* a, const vxk_capsule* b,
                              float margin)
{
    out->point_count = 0;
    vxk_vec3 da = vxk_v3_sub(a->p1, a->p0), db = vxk_v3_sub(b->p1, b->p0);
    float s, t;
    vxk_segments_closest(&s, &t, a->p0, a->p1, b->p0, b->p1);
    vxk_vec3 pa = segment_at(a->p0, da, s), pb = segment_at(b->p0, db, t);
    vxk_vec3 gap = vxk_v3_sub(pb, pa);
    float dist = vxk_v3_length(gap);
    float reach = a->radius + b->radius;
    if (dist - reach > margin)
        return 0;
    out->normal = dist > 1e-6f ? vxk_v3_scale(gap, 1.0f / dist) : perpendicular(da);
    float la2 = vxk_v3_dot(da, da), lb2 = vxk_v3_dot(db, db);
    vxk_vec3 cross = vxk_v3_cross(da, db);
    if (la2 > 1e-12f && lb2 > 1e-12f &&
        vxk_v3_dot(cross, cross) < PARALLEL_SIN * PARALLEL_SIN * la2 * lb2) {
        // Parallel: the overlap of B along A's axis, its two ends.
        float u0 = vxk_v3_dot(vxk_v3_sub(b->p0, a->p0), da) / la2;
        float u1 = vxk_v3_dot(vxk_v3_sub(b->p1, a->p0), da) / la2;
        float lo = fmaxf(0.0f, fminf(u0, u1)), hi = fminf(1.0f, fmaxf(u0, u1));
        if (hi - lo > SAME_POINT_T) {
            const float ends[2] = {lo, hi};
            for (uint32_t k = 0; k < 2; ++k) {
                vxk_vec3 ak = segment_at(a->p0, da, ends[k]);
                vxk_vec3 bk = segment_at(b->p0, db, vxk_segment_closest(b->p0, b->p1, ak));
                float sep = vxk_v3_dot(vxk_v3_sub(bk, ak), out->normal) - reach;
                if (sep <= margin)
                    add_point(out, vxk_v3_mul_add(ak, a->radius, out->normal), sep, 1u + k);
            }
            if (out->point_count)
                return out->point_count;
        }
    }
    add_point(out, vxk_v3_mul_add(pa, a->radius, out->normal), dist - reach, 0u);
    return out->point_count;
}

// The separating-axis test of a segment of radius r overlapping the box [-h, h] (box frame):
// the axis of least penetration (unit, from the box towards the segment) and its depth; *edge the
// box axis whose cross with the segment it is, or -1 for a face axis.
static float overlap_axis(vxk_vec3* axis, int* edge, vxk_vec3 p0, vxk_vec3 p1, vxk_vec3 h, float r)
{
    float best = FLT_MAX;
    *edge = -1;
    for (uint32_t i = 0; i < 3; ++i) {
        float a = vxk_v3_get(p0, i), b = vxk_v3_get(p1, i), hi = vxk_v3_get(h, i);
        float up = hi + r - fminf(a, b);   // pushed towards +i
        float down = fmaxf(a, b) + hi + r; // pushed towards -i
        float depth = fminf(up, down);
        if (depth < best) {
            best = depth;
            *axis = vxk_v3(0, 0, 0);
            vxk_v3_set(axis, i, up <= down ? 1.0f : -1.0f);
        }
    }
    vxk_vec3 d = vxk_v3_sub(p1, p0);
    float dd = vxk_v3_dot(d, d);
    float face = best;
    for (uint32_t i = 0; i < 3; ++i) {
        vxk_vec3 e = vxk_v3(0, 0, 0);
        vxk_v3_set(&e, i, 1.0f);
        vxk_vec3 c = vxk_v3_cross(d, e);
        float cc = vxk_v3_dot(c, c);
        if (!(cc > 1e-6f * dd))
            continue;
        c = vxk_v3_scale(c, 1.0f / sqrtf(cc));
        float s = vxk_v3_dot(p0, c);
        if (s < 0.0f) {
            c = vxk_v3_neg(c);
            s = -s;
        }
        float radius = fabsf(c.x) * h.x + fabsf(c.y) * h.y + fabsf(c.z) * h.z;
        float depth = radius + r - s;
        if (depth < EDGE_RELATIVE * face - EDGE_ABSOLUTE && depth < best) {
            best = depth;
            *axis = c;
            *edge = (int)i;
        }
    }
    return best;
}

// Narrows [*t0, *t1] to the parameters where o + t d lies in [lo, hi] (empty: *t0 > *t1).
static void clip_slab(float* t0, float* t1, float o, float d, float lo, float hi)
{
    if (d == 0.0f) {
        if (o < lo || o > hi)
            *t0 = 2.0f, *t1 = -1.0f;
        return;
    }
    float ta = (lo - o) / d, tb = (hi - o) / d;
    if (ta > tb) {
        float x = ta;
        ta = tb;
        tb = x;
    }
    *t0 = fmaxf(*t0, ta);
    *t1 = fminf(*t1, tb);
}

// The box's face of axis `i`, sign `sign` (box frame): the segment clipped to its rectangle gives
// up to 2 points (on the face, in world through the box's frame) of separation along the face
// normal minus r. False when the clip is empty.
static bool face_points(vxk_manifold* out, const vxk_obb* box, vxk_vec3 p0, vxk_vec3 p1, uint32_t i,
                        float sign, float r, float margin)
{
    vxk_vec3 d = vxk_v3_sub(p1, p0);
    float t0 = 0.0f, t1 = 1.0f;
    for (uint32_t j = 0; j < 3; ++j) {
        if (j == i)
            continue;
        float h = vxk_v3_get(box->half, j);
        clip_slab(&t0, &t1, vxk_v3_get(p0, j), vxk_v3_get(d, j), -h, h);
    }
    if (t0 > t1)
        return false;
    float hi = vxk_v3_get(box->half, i);
    uint32_t face = 2u * i + (sign > 0.0f);
    const float ends[2] = {t0, t1};
    uint32_t count = t1 - t0 > SAME_POINT_T ? 2u : 1u;
    for (uint32_t k = 0; k < count; ++k) {
        vxk_vec3 c = segment_at(p0, d, ends[k]);
        float sep = sign * vxk_v3_get(c, i) - hi - r;
        if (sep > margin)
            continue;
        vxk_v3_set(&c, i, sign * hi);
        add_point(out, vxk_v3_add(box->center, vxk_mat3_mul_v(&box->axes, c)), sep, face * 2u + k);
    }
    return true;
}

uint32_t vxk_collide_box_capsule(vxk_manifold* out, const vxk_obb* a, const vxk_capsule* b,
                                 float margin)
{
    out->point_count = 0;
    const float r = b->radius;
    vxk_vec3 p0 = vxk_mat3_tmul_v(&a->axes, vxk_v3_sub(b->p0, a->center));
    vxk_vec3 p1 = vxk_mat3_tmul_v(&a->axes, vxk_v3_sub(b->p1, a->center));
    vxk_vec3 h = a->half, q;
    float t = vxk_segment_box_closest(&q, p0, p1, vxk_v3_neg(h), h);
    vxk_vec3 p = segment_at(p0, vxk_v3_sub(p1, p0), t);
    vxk_vec3 e = vxk_v3_sub(p, q);
    float d2 = vxk_v3_dot(e, e);
    if (d2 > 1e-14f) {
        float dist = sqrtf(d2);
        if (dist - r > margin)
            return 0;
        // The nearest box point inside one face (one axis outside its slab): that face's points.
        int outside = -1, outside_count = 0;
        for (uint32_t i = 0; i < 3; ++i)
            if (vxk_v3_get(e, i) != 0.0f) {
                outside = (int)i;
                outside_count++;
            }
        if (outside_count == 1) {
            uint32_t i = (uint32_t)outside;
            float sign = vxk_v3_get(e, i) > 0.0f ? 1.0f : -1.0f;
            out->normal = vxk_v3_scale(vxk_mat3_col(&a->axes, i), sign);
            if (face_points(out, a, p0, p1, i, sign, r, margin) && out->point_count)
                return out->point_count;
        }
        out->point_count = 0;
        out->normal = vxk_mat3_mul_v(&a->axes, vxk_v3_scale(e, 1.0f / dist));
        add_point(out, vxk_v3_add(a->center, vxk_mat3_mul_v(&a->axes, q)), dist - r, 64u);
        return out->point_count;
    }
    // The segment meets the box.
    vxk_vec3 axis;
    int edge;
    float depth = overlap_axis(&axis, &edge, p0, p1, h, r);
    out->normal = vxk_mat3_mul_v(&a->axes, axis);
    if (edge < 0) {
        uint32_t i = fabsf(axis.x) > 0.5f ? 0u : (fabsf(axis.y) > 0.5f ? 1u : 2u);
        float sign = vxk_v3_get(axis, i);
        if (!face_points(out, a, p0, p1, i, sign, r, margin))
            out->point_count = 0;
        // The segment's deepest end when the rectangle's clip left it out (it crosses a side
        // face): on the face's plane, clamped to the rectangle, at the full depth.
        float deepest = out->point_count ? -FLT_MAX : FLT_MAX;
        for (uint32_t k = 0; k < out->point_count; ++k)
            deepest = fmaxf(deepest, -out->points[k].separation);
        if (!out->point_count || depth > deepest + 1e-5f) {
            vxk_vec3 deep = vxk_v3_dot(p0, axis) < vxk_v3_dot(p1, axis) ? p0 : p1;
            vxk_vec3 on = clamp_box(deep, vxk_v3_neg(h), h);
            vxk_v3_set(&on, i, sign * vxk_v3_get(h, i));
            add_point(out, vxk_v3_add(a->center, vxk_mat3_mul_v(&a->axes, on)), -depth, 65u);
        }
        return out->point_count;
    }
    // Edge axis: the box edge along `edge` on the axis's side, against the segment.
    vxk_vec3 corner;
    for (uint32_t j = 0; j < 3; ++j)
        vxk_v3_set(&corner, j, vxk_v3_get(axis, j) >= 0.0f ? vxk_v3_get(h, j) : -vxk_v3_get(h, j));
    vxk_vec3 e0 = corner, e1 = corner;
    vxk_v3_set(&e0, (uint32_t)edge, -vxk_v3_get(h, (uint32_t)edge));
    vxk_v3_set(&e1, (uint32_t)edge, vxk_v3_get(h, (uint32_t)edge));
    float s, u;
    vxk_segments_closest(&s, &u, p0, p1, e0, e1);
    vxk_vec3 ps = segment_at(p0, vxk_v3_sub(p1, p0), s);
    vxk_vec3 pe = segment_at(e0, vxk_v3_sub(e1, e0), u);
    float sep = vxk_v3_dot(vxk_v3_sub(ps, pe), axis) - r;
    add_point(out, vxk_v3_add(a->center, vxk_mat3_mul_v(&a->axes, pe)), sep, 66u + (uint32_t)edge);
    return out->point_count;
}

uint32_t vxk_collide_face_capsule(vxk_manifold out[2], const vxk_face* a, const vxk_capsule* b,
                                  float margin)
{
    out[0].point_count = out[1].point_count = 0;
    const uint32_t axis = a->axis;
    const uint32_t u = axis == 0 ? 2u : 0u, v = axis == 1 ? 2u : 1u; // contact_geometry.h
    vxk_vec3 lo = a->min, hi = a->min;
    vxk_v3_set(&hi, u, vxk_v3_get(lo, u) + a->size_u);
    vxk_v3_set(&hi, v, vxk_v3_get(lo, v) + a->size_v);
    const float sign = a->positive ? 1.0f : -1.0f, plane = vxk_v3_get(a->min, axis);
    vxk_vec3 d = vxk_v3_sub(b->p1, b->p0);
    // The segment within the rectangle's u and v ranges and in front of the plane.
    float t0 = 0.0f, t1 = 1.0f;
    const uint32_t along[2] = {u, v};
    for (uint32_t k = 0; k < 2; ++k) {
        uint32_t j = along[k];
        clip_slab(&t0, &t1, vxk_v3_get(b->p0, j), vxk_v3_get(d, j), vxk_v3_get(lo, j),
                  vxk_v3_get(hi, j));
    }
    float h0 = sign * (vxk_v3_get(b->p0, axis) - plane), dh = sign * vxk_v3_get(d, axis);
    if (dh > 0.0f)
        t0 = fmaxf(t0, -h0 / dh);
    else if (dh < 0.0f)
        t1 = fminf(t1, -h0 / dh);
    else if (h0 < 0.0f)
        t0 = 2.0f;
    if (t0 <= t1) {
        // Cap centres over the rectangle and in front of the plane: the face normal, the height
        // less the radius (as vxk_collide_face_sphere there, without the rounding that could put
        // a centre on the plane behind it).
        vxk_manifold* m = &out[0];
        m->normal = vxk_v3(0, 0, 0);
        vxk_v3_set(&m->normal, axis, sign);
        const float ends[2] = {t0, t1};
        uint32_t n = t1 - t0 > SAME_POINT_T ? 2u : 1u;
        for (uint32_t k = 0; k < n; ++k) {
            vxk_vec3 c = segment_at(b->p0, d, ends[k]);
            float height = fmaxf(0.0f, sign * (vxk_v3_get(c, axis) - plane));
            float sep = height - b->radius;
            if (sep > margin)
                continue;
            vxk_v3_set(&c, axis, plane);
            add_point(m, c, sep, 0x100u + k);
        }
        return m->point_count ? 1u : 0u;
    }
    vxk_vec3 q;
    float t = vxk_segment_box_closest(&q, b->p0, b->p1, lo, hi);
    vxk_collide_face_sphere(&out[0], a, segment_at(b->p0, d, t), b->radius, margin);
    return out[0].point_count ? 1u : 0u;
}

// ---- time of impact ----------------------------------------------------------------------------

vxk_toi_piece vxk_capsule_piece(vxk_vec3 center, float half_height, float radius)
{
    vxk_toi_piece p;
    memset(&p, 0, sizeof(p));
    p.center = center;
    p.half = vxk_v3(0.0f, half_height, 0.0f);
    p.radius = radius;
    p.shape = VXK_TOI_CUSTOM;
    p.custom = &vxk_capsule_toi;
    return p;
}

static void piece_segment(vxk_vec3* s0, vxk_vec3* s1, const vxk_toi_piece* piece,
                          vxk_transform pose)
{
    vxk_mat3 r = vxk_mat3_from_quat(pose.q);
    vxk_vec3 c = vxk_v3_add(pose.p, vxk_mat3_mul_v(&r, piece->center));
    vxk_vec3 axis = vxk_v3_scale(r.cy, piece->half.y);
    *s0 = vxk_v3_sub(c, axis);
    *s1 = vxk_v3_add(c, axis);
}

static float capsule_separation(vxk_vec3* normal, const vxk_toi_piece* piece, vxk_transform pose,
                                const vxk_toi_obstacle* obstacle)
{
    vxk_vec3 s0, s1;
    piece_segment(&s0, &s1, piece, pose);
    const float r = piece->radius;
    if (obstacle->shape == VXK_TOI_SPHERE || obstacle->shape == VXK_TOI_CUSTOM) {
        vxk_vec3 p, q;
        float other;
        if (obstacle->shape == VXK_TOI_SPHERE) {
            q = obstacle->box.center;
            p = segment_at(s0, vxk_v3_sub(s1, s0), vxk_segment_closest(s0, s1, q));
            other = obstacle->radius;
        } else {
            vxk_vec3 o0, o1;
            piece_segment(&o0, &o1, &obstacle->piece, obstacle->pose);
            float s, t;
            vxk_segments_closest(&s, &t, s0, s1, o0, o1);
            p = segment_at(s0, vxk_v3_sub(s1, s0), s);
            q = segment_at(o0, vxk_v3_sub(o1, o0), t);
            other = obstacle->piece.radius;
        }
        vxk_vec3 gap = vxk_v3_sub(p, q);
        float l = vxk_v3_length(gap);
        *normal = l > 1e-12f ? vxk_v3_scale(gap, 1.0f / l) : vxk_v3(0, 1, 0);
        return l - r - other;
    }
    const vxk_obb* box = &obstacle->box;
    vxk_vec3 p0 = vxk_mat3_tmul_v(&box->axes, vxk_v3_sub(s0, box->center));
    vxk_vec3 p1 = vxk_mat3_tmul_v(&box->axes, vxk_v3_sub(s1, box->center));
    vxk_vec3 q;
    float t = vxk_segment_box_closest(&q, p0, p1, vxk_v3_neg(box->half), box->half);
    vxk_vec3 e = vxk_v3_sub(segment_at(p0, vxk_v3_sub(p1, p0), t), q);
    float d2 = vxk_v3_dot(e, e);
    if (d2 > 1e-24f) {
        float d = sqrtf(d2);
        *normal = vxk_mat3_mul_v(&box->axes, vxk_v3_scale(e, 1.0f / d));
        return d - r;
    }
    vxk_vec3 axis;
    int edge;
    float depth = overlap_axis(&axis, &edge, p0, p1, box->half, r);
    *normal = vxk_mat3_mul_v(&box->axes, axis);
    return -depth;
}

static float capsule_reach(const vxk_toi_piece* piece)
{
    return vxk_v3_length(piece->center) + piece->half.y;
}

static float capsule_core(const vxk_toi_piece* piece)
{
    return 0.5f * piece->radius;
}

static float capsule_bound(const vxk_toi_piece* piece)
{
    return piece->half.y + piece->radius;
}

static vxk_vec3 capsule_extent(const vxk_toi_piece* piece, const vxk_mat3* rot)
{
    float r = piece->radius;
    return vxk_v3_add(vxk_v3_scale(vxk_v3_abs(rot->cy), piece->half.y), vxk_v3(r, r, r));
}

const vxk_toi_custom vxk_capsule_toi = {capsule_separation, capsule_reach, capsule_core,
                                        capsule_bound, capsule_extent};
