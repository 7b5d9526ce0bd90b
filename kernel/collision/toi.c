// toi.c: time of impact by conservative advancement (B. Mirtich, "Impulse-based Dynamic
// Simulation of Rigid Body Systems", 1996, ch. 3), on closed-form separations instead of GJK; the
// guard for touching starts and surfaces slid along follows Box3D's bullet and mesh sweeps
// (solver.c b3SolveContinuous, shape.c b3MeshTimeOfImpactFcn).
//
// Box pairs: the separation is the largest support gap over the 15 separating axes and the two
// nearest-vertex directions. Every such gap is a lower bound of the distance (the support planes
// of a convex shape along an axis enclose it), and for disjoint boxes one of them is the distance:
// the closest pair is a face or interior edge-edge pair (a separating axis) or involves a vertex,
// whose nearest point on the other box then gives the direction. Edge crosses shorter than 1e-6
// (near-parallel edges) are skipped: the face axes cover them.
#include "toi.h"

#include <float.h>
#include <string.h>

// Edge crosses with a smaller squared length are skipped.
#define CROSS_MIN_SQ 1e-12f
// The rotation rate bound is rounded up by this factor (float rounding of the half-angle).
#define SPIN_ROUND_UP 1.0001f

void vxk_sweep_init(vxk_sweep* out, vxk_vec3 p0, vxk_quat q0, vxk_vec3 p1, vxk_quat q1)
{
    if (q0.x * q1.x + q0.y * q1.y + q0.z * q1.z + q0.w * q1.w < 0.0f)
        q1 = (vxk_quat){-q1.x, -q1.y, -q1.z, -q1.w};
    out->p0 = p0;
    out->delta = vxk_v3_sub(p1, p0);
    out->q0 = q0;
    out->q1 = q1;
    // d = q1 q0^-1 = (axis sin(a / 2), cos(a / 2)) with a the rotation angle, cos(a / 2) >= 0.
    vxk_quat d = vxk_quat_mul(q1, vxk_quat_conj(q0));
    float s = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
    float len = sqrtf(s * s + d.w * d.w);
    float sin_half = len > 0.0f ? s / len : 0.0f;
    float cos_half = len > 0.0f ? fmaxf(d.w / len, 0.0f) : 1.0f;
    out->spin_axis = s > 1e-6f ? vxk_v3_scale(vxk_v3(d.x, d.y, d.z), 1.0f / s) : vxk_v3(0, 0, 0);
    // nlerp turns at 2 sin(a/2) / D(t), D(t) = |(1 - t) + t d|^2 >= (1 + cos(a/2)) / 2, so at most
    // 4 sin(a/2) / (1 + cos(a/2)) = 4 tan(a/4) radians per unit t.
    out->spin_rate = 4.0f * sin_half / (1.0f + cos_half) * SPIN_ROUND_UP;
    out->spin_chord = 2.0f * sin_half * SPIN_ROUND_UP;
}

vxk_transform vxk_sweep_pose(const vxk_sweep* sweep, float t)
{
    float u = 1.0f - t;
    const vxk_quat* a = &sweep->q0;
    const vxk_quat* b = &sweep->q1;
    vxk_quat q = {u * a->x + t * b->x, u * a->y + t * b->y, u * a->z + t * b->z,
                  u * a->w + t * b->w};
    return (vxk_transform){vxk_v3_mul_add(sweep->p0, t, sweep->delta), vxk_quat_normalize(q)};
}

vxk_toi_obstacle vxk_toi_sphere_obstacle(vxk_vec3 center, float radius)
{
    vxk_toi_obstacle o;
    memset(&o, 0, sizeof(o));
    o.box.center = center;
    o.box.axes = (vxk_mat3){{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    o.radius = radius;
    o.shape = VXK_TOI_SPHERE;
    return o;
}

vxk_toi_obstacle vxk_toi_box_obstacle(const vxk_obb* box)
{
    vxk_toi_obstacle o;
    memset(&o, 0, sizeof(o));
    o.box = *box;
    o.shape = VXK_TOI_BOX;
    return o;
}

vxk_toi_obstacle vxk_toi_face_obstacle(const vxk_face* face, vxk_vec3 origin)
{
    vxk_toi_obstacle o;
    memset(&o, 0, sizeof(o));
    uint32_t axis = face->axis;
    uint32_t u = axis == 0 ? 2u : 0u, v = axis == 1 ? 2u : 1u; // contact_geometry.h's frame
    vxk_vec3 half = vxk_v3(0, 0, 0);
    vxk_v3_set(&half, u, 0.5f * face->size_u);
    vxk_v3_set(&half, v, 0.5f * face->size_v);
    o.box.center = vxk_v3_add(vxk_v3_sub(face->min, origin), half);
    o.box.axes = (vxk_mat3){{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    o.box.half = half;
    o.shape = VXK_TOI_BOX;
    o.one_sided = 1;
    float sign = face->positive ? 1.0f : -1.0f;
    vxk_v3_set(&o.normal, axis, sign);
    o.plane = sign * vxk_v3_get(o.box.center, axis);
    return o;
}

vxk_toi_obstacle vxk_toi_piece_obstacle(const vxk_toi_piece* piece, vxk_transform pose,
                                        vxk_vec3 origin, vxk_aabb* world, vxk_aabb* local)
{
    vxk_mat3 rot = vxk_mat3_from_quat(pose.q);
    vxk_vec3 c = vxk_v3_add(pose.p, vxk_mat3_mul_v(&rot, piece->center));
    vxk_vec3 e = vxk_v3(piece->radius, piece->radius, piece->radius);
    if (piece->shape == VXK_TOI_CUSTOM) {
        e = piece->custom->extent(piece, &rot);
    } else if (piece->shape != VXK_TOI_SPHERE) {
        vxk_mat3 abs_rot = {vxk_v3_abs(rot.cx), vxk_v3_abs(rot.cy), vxk_v3_abs(rot.cz)};
        e = vxk_mat3_mul_v(&abs_rot, piece->half);
    }
    vxk_vec3 shifted = vxk_v3_sub(c, origin);
    *world = (vxk_aabb){vxk_v3_sub(c, e), vxk_v3_add(c, e)};
    *local = (vxk_aabb){vxk_v3_sub(shifted, e), vxk_v3_add(shifted, e)};
    if (piece->shape == VXK_TOI_SPHERE)
        return vxk_toi_sphere_obstacle(shifted, piece->radius);
    vxk_obb box = {shifted, rot, piece->half};
    vxk_toi_obstacle o = vxk_toi_box_obstacle(&box);
    if (piece->shape == VXK_TOI_CUSTOM) {
        // The piece about its own centre, at the pose (shifted, rot).
        o.shape = VXK_TOI_CUSTOM;
        o.piece = *piece;
        o.piece.center = vxk_v3(0, 0, 0);
        o.pose = (vxk_transform){shifted, pose.q};
    }
    return o;
}

// ---- separation ------------------------------------------------------------------------------

// Half the box's extent along unit n.
static float box_radius(const vxk_obb* b, vxk_vec3 n)
{
    return fabsf(vxk_v3_dot(n, b->axes.cx)) * b->half.x +
           fabsf(vxk_v3_dot(n, b->axes.cy)) * b->half.y +
           fabsf(vxk_v3_dot(n, b->axes.cz)) * b->half.z;
}

// Signed distance from the box to point p and the unit direction from the box to p (inside: minus
// the depth below the nearest face, and that face's normal).
static float point_box(vxk_vec3* n, vxk_vec3 p, const vxk_obb* b)
{
    vxk_vec3 l = vxk_mat3_tmul_v(&b->axes, vxk_v3_sub(p, b->center));
    vxk_vec3 q = vxk_v3_max(vxk_v3_neg(b->half), vxk_v3_min(b->half, l));
    vxk_vec3 e = vxk_v3_sub(l, q);
    float d2 = vxk_v3_dot(e, e);
    if (d2 > 1e-24f) {
        float d = sqrtf(d2);
        *n = vxk_mat3_mul_v(&b->axes, vxk_v3_scale(e, 1.0f / d));
        return d;
    }
    uint32_t best = 0;
    float depth = FLT_MAX;
    for (uint32_t i = 0; i < 3; ++i) {
        float di = vxk_v3_get(b->half, i) - fabsf(vxk_v3_get(l, i));
        if (di < depth)
            depth = di, best = i;
    }
    vxk_vec3 axis = vxk_mat3_col(&b->axes, best);
    *n = vxk_v3_get(l, best) < 0.0f ? vxk_v3_neg(axis) : axis;
    return -depth;
}

// The gap between the supports of m (beyond) and s along unit n (from s towards m); d = m - s.
static float support_gap(vxk_vec3 n, vxk_vec3 d, const vxk_obb* m, const vxk_obb* s)
{
    return vxk_v3_dot(n, d) - box_radius(m, n) - box_radius(s, n);
}

// Keeps the larger gap of axis a (any length >= sqrt(CROSS_MIN_SQ), either sign) and its direction.
static void try_axis(float* best, vxk_vec3* best_n, vxk_vec3 a, vxk_vec3 d, const vxk_obb* m,
                     const vxk_obb* s)
{
    float l2 = vxk_v3_dot(a, a);
    if (l2 < CROSS_MIN_SQ)
        return;
    vxk_vec3 n = vxk_v3_scale(a, 1.0f / sqrtf(l2));
    if (vxk_v3_dot(n, d) < 0.0f)
        n = vxk_v3_neg(n);
    float g = support_gap(n, d, m, s);
    if (g > *best) {
        *best = g;
        *best_n = n;
    }
}

// The direction from the other box to the vertex of `from` nearest to it; false when a vertex is
// inside (the boxes overlap).
static bool nearest_vertex_axis(vxk_vec3* n, const vxk_obb* from, const vxk_obb* other)
{
    float best = FLT_MAX;
    for (uint32_t k = 0; k < 8; ++k) {
        vxk_vec3 v = from->center;
        v = vxk_v3_mul_add(v, (k & 1u) ? from->half.x : -from->half.x, from->axes.cx);
        v = vxk_v3_mul_add(v, (k & 2u) ? from->half.y : -from->half.y, from->axes.cy);
        v = vxk_v3_mul_add(v, (k & 4u) ? from->half.z : -from->half.z, from->axes.cz);
        vxk_vec3 nk;
        float dk = point_box(&nk, v, other);
        if (dk <= 0.0f)
            return false;
        if (dk < best) {
            best = dk;
            *n = nk;
        }
    }
    return true;
}

static float separation_boxes(vxk_vec3* normal, const vxk_obb* m, const vxk_obb* s)
{
    vxk_vec3 d = vxk_v3_sub(m->center, s->center);
    float best = -FLT_MAX;
    vxk_vec3 best_n = vxk_v3(0, 1, 0);
    for (uint32_t i = 0; i < 3; ++i) {
        try_axis(&best, &best_n, vxk_mat3_col(&m->axes, i), d, m, s);
        try_axis(&best, &best_n, vxk_mat3_col(&s->axes, i), d, m, s);
    }
    for (uint32_t i = 0; i < 3; ++i)
        for (uint32_t j = 0; j < 3; ++j)
            try_axis(&best, &best_n,
                     vxk_v3_cross(vxk_mat3_col(&m->axes, i), vxk_mat3_col(&s->axes, j)), d, m, s);
    if (best > 0.0f) {
        // Disjoint: the nearest-vertex directions complete the closest-feature cases.
        vxk_vec3 n;
        if (nearest_vertex_axis(&n, m, s)) {
            float g = support_gap(n, d, m, s);
            if (g > best)
                best = g, best_n = n;
        }
        if (nearest_vertex_axis(&n, s, m)) {
            n = vxk_v3_neg(n);
            float g = support_gap(n, d, m, s);
            if (g > best)
                best = g, best_n = n;
        }
    }
    *normal = best_n;
    return best;
}

float vxk_toi_separation(vxk_vec3* normal, const vxk_toi_piece* piece, vxk_transform pose,
                         const vxk_toi_obstacle* obstacle)
{
    if (piece->shape == VXK_TOI_CUSTOM)
        return piece->custom->separation(normal, piece, pose, obstacle);
    vxk_mat3 r = vxk_mat3_from_quat(pose.q);
    vxk_vec3 c = vxk_v3_add(pose.p, vxk_mat3_mul_v(&r, piece->center));
    if (obstacle->shape == VXK_TOI_CUSTOM) {
        // The custom obstacle as the piece, this piece as the obstacle: the same separation, the
        // axis reversed.
        vxk_toi_obstacle swapped;
        if (piece->shape == VXK_TOI_SPHERE) {
            swapped = vxk_toi_sphere_obstacle(c, piece->radius);
        } else {
            vxk_obb box = {c, r, piece->half};
            swapped = vxk_toi_box_obstacle(&box);
        }
        const vxk_toi_piece* other = &obstacle->piece;
        vxk_vec3 n;
        float d = other->custom->separation(&n, other, obstacle->pose, &swapped);
        *normal = vxk_v3_neg(n);
        return d;
    }
    if (piece->shape == VXK_TOI_SPHERE) {
        if (obstacle->shape == VXK_TOI_SPHERE) {
            vxk_vec3 d = vxk_v3_sub(c, obstacle->box.center);
            float l = vxk_v3_length(d);
            *normal = l > 1e-12f ? vxk_v3_scale(d, 1.0f / l) : vxk_v3(0, 1, 0);
            return l - piece->radius - obstacle->radius;
        }
        return point_box(normal, c, &obstacle->box) - piece->radius;
    }
    vxk_obb m = {c, r, piece->half};
    if (obstacle->shape == VXK_TOI_SPHERE) {
        vxk_vec3 n;
        float d = point_box(&n, obstacle->box.center, &m);
        *normal = vxk_v3_neg(n);
        return d - obstacle->radius;
    }
    return separation_boxes(normal, &m, &obstacle->box);
}

// ---- advancement -----------------------------------------------------------------------------

// The largest distance of a point of the piece from the body's centre (what rotation moves).
static float piece_reach(const vxk_toi_piece* piece)
{
    if (piece->shape == VXK_TOI_CUSTOM)
        return piece->custom->reach(piece);
    float c = vxk_v3_length(piece->center);
    return piece->shape == VXK_TOI_SPHERE ? c : c + vxk_v3_length(piece->half);
}

// How fast the piece may close a gap along unit n (from the obstacle to the piece), per unit t.
static float closing_bound(const vxk_sweep* sweep, vxk_vec3 n, float reach)
{
    float closing = -vxk_v3_dot(n, sweep->delta);
    if (sweep->spin_rate > 0.0f && reach > 0.0f) {
        // Rotation about the axis moves a point along n at most |n x axis| r times the rate (any
        // direction when the axis is too short to be known).
        bool known = vxk_v3_dot(sweep->spin_axis, sweep->spin_axis) > 0.0f;
        float lever =
            known ? vxk_v3_length(vxk_v3_cross(n, sweep->spin_axis)) * SPIN_ROUND_UP : 1.0f;
        closing += sweep->spin_rate * fminf(lever, 1.0f) * reach;
    }
    return closing;
}

void vxk_toi(vxk_toi_output* out, const vxk_sweep* sweep, const vxk_toi_piece* piece,
             const vxk_toi_obstacle* obstacle, float target, float tolerance, float t_max)
{
    float reach = piece_reach(piece);
    float t = 0.0f;
    out->core = 0;
    for (uint32_t it = 1; it <= VXK_TOI_MAX_ITERATIONS; ++it) {
        vxk_vec3 n;
        float s = vxk_toi_separation(&n, piece, vxk_sweep_pose(sweep, t), obstacle);
        out->iterations = it;
        out->separation = s;
        out->normal = n;
        if (!(s > target + tolerance)) { // NaN counts as a hit: never skip what cannot be judged
            out->t = t;
            out->state = VXK_TOI_HIT;
            return;
        }
        float closing = closing_bound(sweep, n, reach);
        if (!(closing > 0.0f)) {
            out->t = t_max;
            out->state = VXK_TOI_SEPARATED;
            return;
        }
        t += (s - target) / closing;
        if (!(t < t_max)) {
            out->t = t_max;
            out->state = VXK_TOI_SEPARATED;
            return;
        }
    }
    out->t = t;
    out->state = VXK_TOI_STALLED;
}

float vxk_toi_core_radius(const vxk_toi_piece* piece)
{
    if (piece->shape == VXK_TOI_CUSTOM)
        return piece->custom->core_radius(piece);
    if (piece->shape == VXK_TOI_SPHERE)
        return 0.5f * piece->radius;
    return 0.5f * fminf(piece->half.x, fminf(piece->half.y, piece->half.z));
}

// The piece's centre at t = 0 and 1.
static void piece_ends(const vxk_sweep* sweep, const vxk_toi_piece* piece, vxk_vec3* c0,
                       vxk_vec3* c1)
{
    vxk_mat3 r0 = vxk_mat3_from_quat(sweep->q0), r1 = vxk_mat3_from_quat(sweep->q1);
    *c0 = vxk_v3_add(sweep->p0, vxk_mat3_mul_v(&r0, piece->center));
    *c1 = vxk_v3_add(vxk_v3_add(sweep->p0, sweep->delta), vxk_mat3_mul_v(&r1, piece->center));
}

void vxk_toi_guarded(vxk_toi_output* out, const vxk_sweep* sweep, const vxk_toi_piece* piece,
                     const vxk_toi_obstacle* obstacle, float target, float tolerance, float t_max)
{
    float core = vxk_toi_core_radius(piece);
    if (obstacle->one_sided) {
        vxk_vec3 c0, c1;
        piece_ends(sweep, piece, &c0, &c1);
        float o0 = vxk_v3_dot(obstacle->normal, c0) - obstacle->plane;
        float o1 = vxk_v3_dot(obstacle->normal, c1) - obstacle->plane;
        // How far rotation may carry the centre off the segment between its ends.
        float wander = sweep->spin_chord * vxk_v3_length(piece->center);
        if (o0 < 0.0f || (o0 - o1 < core && fminf(o0, o1) - wander > core)) {
            out->t = t_max;
            out->separation = FLT_MAX;
            out->normal = obstacle->normal;
            out->iterations = 0;
            out->state = VXK_TOI_SEPARATED;
            out->core = 0;
            return;
        }
    }
    vxk_toi(out, sweep, piece, obstacle, target, tolerance, t_max);
    if (out->state == VXK_TOI_SEPARATED || out->t > 0.0f)
        return;
    // Touching at the start: the core sphere, shrunk to half the centre's clearance when that is
    // less, so that it starts clear by at least half the clearance and the centre can close at
    // most half its gap per step: it never crosses.
    uint32_t iterations = out->iterations;
    vxk_toi_piece c = {piece->center, vxk_v3(0, 0, 0), 0.0f, VXK_TOI_SPHERE, NULL};
    vxk_vec3 n;
    float clearance = vxk_toi_separation(&n, &c, vxk_sweep_pose(sweep, 0.0f), obstacle);
    out->core = 1;
    if (!(clearance > 0.0f)) {
        out->t = t_max;
        out->state = VXK_TOI_SEPARATED;
        return;
    }
    c.radius = fminf(core, 0.5f * clearance);
    float room = 0.25f * (clearance - c.radius);
    vxk_toi(out, sweep, &c, obstacle, fminf(target, room), fminf(tolerance, room), t_max);
    out->iterations += iterations;
    out->core = 1;
    if (out->state != VXK_TOI_SEPARATED && !(out->t > 0.0f)) {
        out->t = t_max;
        out->state = VXK_TOI_SEPARATED;
    }
}

bool vxk_toi_may_reach(const vxk_sweep* sweep, const vxk_toi_piece* piece, vxk_vec3 lo, vxk_vec3 hi,
                       float reach)
{
    vxk_mat3 r0 = vxk_mat3_from_quat(sweep->q0);
    vxk_vec3 c0 = vxk_v3_add(sweep->p0, vxk_mat3_mul_v(&r0, piece->center));
    float radius = piece->shape == VXK_TOI_CUSTOM   ? piece->custom->bound_radius(piece)
                   : piece->shape == VXK_TOI_SPHERE ? piece->radius
                                                    : vxk_v3_length(piece->half);
    float grow = radius + sweep->spin_chord * vxk_v3_length(piece->center) + reach;
    // Slab test of the segment c0 + t delta, t in [0, 1], against the grown box.
    float t0 = 0.0f, t1 = 1.0f;
    for (uint32_t i = 0; i < 3; ++i) {
        float o = vxk_v3_get(c0, i), d = vxk_v3_get(sweep->delta, i);
        float a = vxk_v3_get(lo, i) - grow, b = vxk_v3_get(hi, i) + grow;
        if (d == 0.0f) {
            if (o < a || o > b)
                return false;
            continue;
        }
        float inv = 1.0f / d;
        float ta = (a - o) * inv, tb = (b - o) * inv;
        if (ta > tb) {
            float x = ta;
            ta = tb;
            tb = x;
        }
        t0 = fmaxf(t0, ta);
        t1 = fminf(t1, tb);
        if (t0 > t1)
            return false;
    }
    return true;
}
