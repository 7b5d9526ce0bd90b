// test_continuous.c: continuous collision of bullets and fast bodies.
//
// The time-of-impact routines (collision/toi.h) against a brute-force reference written here in
// double that shares no code with toi.c: the motion (lerp and nlerp) sampled at steps shorter
// than a quarter of the moving piece's smallest extent with an overlap test (closest points for
// spheres, 15 separating axes for boxes), and an exact distance (vertices against boxes and every
// pair of edges). On thousands of seeded sweeps (spheres, boxes, compounds and offset spheres
// against faces, spheres and boxes; thin walls, grazing passes, touching starts, rotations up to
// pi): a sweep's time is never later than the first sampled overlap, the distance stays at least
// the target up to it, at a hit it is within target + tolerance, and a sweep reported clear
// never comes within the target. The separation equals the reference distance; the motion bound
// holds for every point. The guard (core spheres, one-sided faces) never lets a piece's centre
// cross a face it starts in front of or enter an obstacle it starts outside (sunk-in starts
// included), and lets pieces slide along the surfaces they touch.
//
// The stage (dynamics/continuous.h) on worlds built through the public API: a step forced through
// 1-voxel walls at chunk seams is brought back to the analytic time of impact (a bullet beyond the
// int32 voxel range beside them); 1 cm spheres, boxes and voxel bodies shot at 100 and 500 m/s at
// 60 Hz (voxels of 1 m and 0.1 m) never have a piece's centre (the centre, or that of each box of
// a voxel body's compound) inside a 1-voxel terrain wall nor leave through its far side, at chunk
// seams, at grazing edges and along a wall's face, and likewise for static bodies (plates, a voxel
// plate, a sphere); the same shots without is_bullet likewise (a body that moves more than half
// its size in a step is swept too); one world hash for the inline world and 1, 2, 3 and 8
// workers; out of memory changes nothing.
//
// VXK_CONT_DEBUG=1 prints each stalled sweep and each shot that enters or passes a wall.
#include "continuous.h"
#include "narrow_cache.h"
#include "toi.h"

#include "harness.h"
#include "test.h"

#include <vxk/body.h>
#include <vxk/jobs.h>
#include <vxk/vxk.h>

#include <float.h>
#include <math.h>
#include <string.h>

// The integration hook: 1 once vxk_world_step runs the stage itself (after the solve, in
// dynamics/contacts.c); 0 while it does not: the tests then call the stage after each step with
// the poses they recorded before it.
#ifndef VXK_CONTINUOUS_IN_STEP
#define VXK_CONTINUOUS_IN_STEP 1
#endif

#define TARGET 0.005f
#define TOLERANCE 0.00125f
// Float rounding of toi.c against the double reference (coordinates up to about 20 m).
#define EPS 1e-4

// ---- the reference (double, no toi.c) -----------------------------------------------------------

typedef struct r3 {
    double x, y, z;
} r3;

static r3 r3_of(vxk_vec3 v)
{
    return (r3){v.x, v.y, v.z};
}
static r3 r_add(r3 a, r3 b)
{
    return (r3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static r3 r_sub(r3 a, r3 b)
{
    return (r3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static r3 r_scale(r3 a, double s)
{
    return (r3){a.x * s, a.y * s, a.z * s};
}
static double r_dot(r3 a, r3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static r3 r_cross(r3 a, r3 b)
{
    return (r3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double r_len(r3 a)
{
    return sqrt(r_dot(a, a));
}
static double r_get(r3 a, int i)
{
    return i == 0 ? a.x : i == 1 ? a.y : a.z;
}
static double r_clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

// A sphere (c, radius) or a box (c, axes, half).
typedef struct rshape {
    int sphere;
    r3 c;
    r3 axis[3];
    double half[3];
    double radius;
} rshape;

// The columns of the rotation of quaternion q (x, y, z, w), normalized first.
static void r_rotation(const double q_in[4], r3 col[3])
{
    double n = sqrt(q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] + q_in[3] * q_in[3]);
    double x = q_in[0] / n, y = q_in[1] / n, z = q_in[2] / n, w = q_in[3] / n;
    col[0] = (r3){1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)};
    col[1] = (r3){2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)};
    col[2] = (r3){2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
}

static r3 r_apply(const r3 col[3], r3 v)
{
    return r_add(r_add(r_scale(col[0], v.x), r_scale(col[1], v.y)), r_scale(col[2], v.z));
}

// The motion of a sweep: centre p0 + t d, rotation nlerp(q0, q1) on q0's hemisphere.
typedef struct rmotion {
    r3 p0, d;
    double q0[4], q1[4];
} rmotion;

static rmotion r_motion(vxk_vec3 p0, vxk_quat q0, vxk_vec3 p1, vxk_quat q1)
{
    rmotion m;
    m.p0 = r3_of(p0);
    m.d = r_sub(r3_of(p1), m.p0);
    double a[4] = {q0.x, q0.y, q0.z, q0.w}, b[4] = {q1.x, q1.y, q1.z, q1.w};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    for (int i = 0; i < 4; ++i) {
        m.q0[i] = a[i];
        m.q1[i] = dot < 0 ? -b[i] : b[i];
    }
    return m;
}

static void r_pose(const rmotion* m, double t, r3* p, r3 col[3])
{
    *p = r_add(m->p0, r_scale(m->d, t));
    double q[4];
    for (int i = 0; i < 4; ++i)
        q[i] = (1 - t) * m->q0[i] + t * m->q1[i];
    r_rotation(q, col);
}

static rshape r_piece_at(const vxk_toi_piece* piece, const rmotion* m, double t)
{
    r3 p, col[3];
    r_pose(m, t, &p, col);
    rshape s;
    memset(&s, 0, sizeof(s));
    s.sphere = piece->shape == VXK_TOI_SPHERE;
    s.c = r_add(p, r_apply(col, r3_of(piece->center)));
    for (int i = 0; i < 3; ++i)
        s.axis[i] = col[i];
    s.half[0] = piece->half.x;
    s.half[1] = piece->half.y;
    s.half[2] = piece->half.z;
    s.radius = piece->radius;
    return s;
}

static rshape r_box(vxk_vec3 c, const r3 axes[3], vxk_vec3 half)
{
    rshape s;
    memset(&s, 0, sizeof(s));
    s.c = r3_of(c);
    for (int i = 0; i < 3; ++i)
        s.axis[i] = axes[i];
    s.half[0] = half.x;
    s.half[1] = half.y;
    s.half[2] = half.z;
    return s;
}

static rshape r_sphere(vxk_vec3 c, double radius)
{
    rshape s;
    memset(&s, 0, sizeof(s));
    s.sphere = 1;
    s.c = r3_of(c);
    s.radius = radius;
    return s;
}

// A terrain face as a box of zero thickness (u, v of mesher.h: X -> u Z, v Y; Y -> u X, v Z;
// Z -> u X, v Y).
static rshape r_face(const vxk_face* f)
{
    rshape s;
    memset(&s, 0, sizeof(s));
    int u = f->axis == 0 ? 2 : 0, v = f->axis == 1 ? 2 : 1;
    double c[3] = {f->min.x, f->min.y, f->min.z};
    c[u] += 0.5 * f->size_u;
    c[v] += 0.5 * f->size_v;
    s.half[u] = 0.5 * f->size_u;
    s.half[v] = 0.5 * f->size_v;
    s.c = (r3){c[0], c[1], c[2]};
    s.axis[0] = (r3){1, 0, 0};
    s.axis[1] = (r3){0, 1, 0};
    s.axis[2] = (r3){0, 0, 1};
    return s;
}

// Distance from a box to a point (0 inside).
static double r_point_box(r3 p, const rshape* b)
{
    r3 d = r_sub(p, b->c);
    double s = 0;
    for (int i = 0; i < 3; ++i) {
        double l = r_dot(d, b->axis[i]);
        double e = l - r_clamp(l, -b->half[i], b->half[i]);
        s += e * e;
    }
    return sqrt(s);
}

static double r_extent(const rshape* b, r3 n)
{
    return fabs(r_dot(n, b->axis[0])) * b->half[0] + fabs(r_dot(n, b->axis[1])) * b->half[1] +
           fabs(r_dot(n, b->axis[2])) * b->half[2];
}

// Whether some axis of the 15 separates the boxes strictly.
static bool r_boxes_apart(const rshape* a, const rshape* b)
{
    r3 d = r_sub(b->c, a->c);
    r3 axes[15];
    int n = 0;
    for (int i = 0; i < 3; ++i) {
        axes[n++] = a->axis[i];
        axes[n++] = b->axis[i];
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            axes[n++] = r_cross(a->axis[i], b->axis[j]);
    for (int k = 0; k < n; ++k) {
        double l = r_len(axes[k]);
        if (l < 1e-9)
            continue;
        r3 u = r_scale(axes[k], 1 / l);
        if (fabs(r_dot(d, u)) > r_extent(a, u) + r_extent(b, u))
            return true;
    }
    return false;
}

static bool r_overlap(const rshape* a, const rshape* b)
{
    if (a->sphere && b->sphere)
        return r_len(r_sub(a->c, b->c)) <= a->radius + b->radius;
    if (a->sphere)
        return r_point_box(a->c, b) <= a->radius;
    if (b->sphere)
        return r_point_box(b->c, a) <= b->radius;
    return !r_boxes_apart(a, b);
}

// Closest distance of segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision
// Detection 5.1.9).
static double r_segments(r3 p1, r3 q1, r3 p2, r3 q2)
{
    r3 d1 = r_sub(q1, p1), d2 = r_sub(q2, p2), r = r_sub(p1, p2);
    double a = r_dot(d1, d1), e = r_dot(d2, d2), f = r_dot(d2, r), s, t;
    if (a <= 1e-30 && e <= 1e-30)
        return r_len(r);
    if (a <= 1e-30) {
        s = 0;
        t = r_clamp(f / e, 0, 1);
    } else {
        double c = r_dot(d1, r);
        if (e <= 1e-30) {
            t = 0;
            s = r_clamp(-c / a, 0, 1);
        } else {
            double b = r_dot(d1, d2), denom = a * e - b * b;
            s = denom > 0 ? r_clamp((b * f - c * e) / denom, 0, 1) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = r_clamp(-c / a, 0, 1);
            } else if (t > 1) {
                t = 1;
                s = r_clamp((b - c) / a, 0, 1);
            }
        }
    }
    return r_len(r_sub(r_add(p1, r_scale(d1, s)), r_add(p2, r_scale(d2, t))));
}

static r3 r_vertex(const rshape* b, int k)
{
    r3 v = b->c;
    for (int i = 0; i < 3; ++i)
        v = r_add(v, r_scale(b->axis[i], (k >> i & 1) ? b->half[i] : -b->half[i]));
    return v;
}

// Edge e of 12: along axis e / 4, from vertex with that axis' bit clear to the one with it set.
static void r_edge(const rshape* b, int e, r3* p, r3* q)
{
    int axis = e / 4, o = e % 4;
    int other1 = (axis + 1) % 3, other2 = (axis + 2) % 3;
    int k = ((o & 1) << other1) | ((o >> 1 & 1) << other2);
    *p = r_vertex(b, k);
    *q = r_vertex(b, k | 1 << axis);
}

// Exact distance (0 when the shapes overlap): for boxes, the least of every vertex against the
// other box and every pair of edges.
static double r_distance(const rshape* a, const rshape* b)
{
    if (r_overlap(a, b))
        return 0;
    if (a->sphere && b->sphere)
        return r_len(r_sub(a->c, b->c)) - a->radius - b->radius;
    if (a->sphere)
        return r_point_box(a->c, b) - a->radius;
    if (b->sphere)
        return r_point_box(b->c, a) - b->radius;
    double best = DBL_MAX;
    for (int k = 0; k < 8; ++k) {
        best = fmin(best, r_point_box(r_vertex(a, k), b));
        best = fmin(best, r_point_box(r_vertex(b, k), a));
    }
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            r3 p1, q1, p2, q2;
            r_edge(a, i, &p1, &q1);
            r_edge(b, j, &p2, &q2);
            best = fmin(best, r_segments(p1, q1, p2, q2));
        }
    return best;
}

// ---- random sweeps ------------------------------------------------------------------------------

enum { OB_FACE, OB_SPHERE, OB_BOX };
enum { MV_SPHERE, MV_BOX, MV_COMPOUND, MV_OFFSET_SPHERE, MV_KINDS };

typedef struct scenario {
    int moving;
    vxk_toi_piece pieces[4];
    uint32_t piece_count;
    int obstacle;
    vxk_face face;
    vxk_obb box;
    r3 box_axes[3];
    vxk_vec3 sphere_c;
    float sphere_r;
    vxk_vec3 p0, p1;
    vxk_quat q0, q1;
} scenario;

static float randf(uint64_t* rng, float lo, float hi)
{
    return vxk_test_randf(rng, lo, hi);
}

// Log-uniform in [lo, hi].
static float rand_log(uint64_t* rng, float lo, float hi)
{
    return lo * powf(hi / lo, randf(rng, 0, 1));
}

static vxk_vec3 rand_unit(uint64_t* rng)
{
    for (;;) {
        vxk_vec3 v = {randf(rng, -1, 1), randf(rng, -1, 1), randf(rng, -1, 1)};
        float l = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
        if (l > 0.1f && l <= 1.0f)
            return (vxk_vec3){v.x / l, v.y / l, v.z / l};
    }
}

static vxk_quat axis_angle(vxk_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (vxk_quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

static vxk_quat qmul(vxk_quat a, vxk_quat b)
{
    return (vxk_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static vxk_quat rand_rotation(uint64_t* rng)
{
    return axis_angle(rand_unit(rng), randf(rng, 0, 6.2831853f));
}

static rshape obstacle_shape(const scenario* s)
{
    if (s->obstacle == OB_FACE)
        return r_face(&s->face);
    if (s->obstacle == OB_SPHERE)
        return r_sphere(s->sphere_c, s->sphere_r);
    return r_box(s->box.center, s->box_axes, s->box.half);
}

static vxk_toi_obstacle obstacle_of(const scenario* s)
{
    if (s->obstacle == OB_FACE)
        return vxk_toi_face_obstacle(&s->face, (vxk_vec3){0, 0, 0});
    if (s->obstacle == OB_SPHERE)
        return vxk_toi_sphere_obstacle(s->sphere_c, s->sphere_r);
    return vxk_toi_box_obstacle(&s->box);
}

static double obstacle_radius(const scenario* s)
{
    if (s->obstacle == OB_FACE)
        return 0.5 * sqrt((double)s->face.size_u * s->face.size_u +
                          (double)s->face.size_v * s->face.size_v);
    if (s->obstacle == OB_SPHERE)
        return s->sphere_r;
    return sqrt((double)s->box.half.x * s->box.half.x + (double)s->box.half.y * s->box.half.y +
                (double)s->box.half.z * s->box.half.z);
}

static double piece_bound(const vxk_toi_piece* p)
{
    double c = r_len(r3_of(p->center));
    return p->shape == VXK_TOI_SPHERE ? c + p->radius : c + r_len(r3_of(p->half));
}

static double piece_min_extent(const vxk_toi_piece* p)
{
    if (p->shape == VXK_TOI_SPHERE)
        return p->radius;
    return fmin(p->half.x, fmin(p->half.y, p->half.z));
}

static double body_bound(const scenario* s)
{
    double b = 0;
    for (uint32_t i = 0; i < s->piece_count; ++i)
        b = fmax(b, piece_bound(&s->pieces[i]));
    return b;
}

// The least reference distance of the body's pieces to the obstacle at t.
static double body_distance(const scenario* s, const rmotion* m, double t)
{
    rshape ob = obstacle_shape(s);
    double best = DBL_MAX;
    for (uint32_t i = 0; i < s->piece_count; ++i) {
        rshape p = r_piece_at(&s->pieces[i], m, t);
        best = fmin(best, r_distance(&p, &ob));
    }
    return best;
}

static r3 obstacle_center(const scenario* s)
{
    return obstacle_shape(s).c;
}

// An obstacle of the given kind (-1: any); thin: a box of 1 cm thickness.
static void make_obstacle(scenario* s, uint64_t* rng, int kind, bool thin)
{
    s->obstacle = kind >= 0 ? kind : (int)(vxk_test_rand(rng) % 3);
    if (s->obstacle == OB_FACE) {
        memset(&s->face, 0, sizeof(s->face));
        s->face.axis = (uint8_t)(vxk_test_rand(rng) % 3);
        s->face.positive = (uint8_t)(vxk_test_rand(rng) % 2);
        s->face.size_u = rand_log(rng, 0.1f, 3.0f);
        s->face.size_v = rand_log(rng, 0.1f, 3.0f);
        s->face.min = (vxk_vec3){randf(rng, -2, 0), randf(rng, -2, 0), randf(rng, -2, 0)};
    } else if (s->obstacle == OB_SPHERE) {
        s->sphere_c = (vxk_vec3){randf(rng, -1, 1), randf(rng, -1, 1), randf(rng, -1, 1)};
        s->sphere_r = rand_log(rng, 0.02f, 1.0f);
    } else {
        vxk_quat q = rand_rotation(rng);
        s->box.axes = (vxk_mat3){{1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y + q.w * q.z),
                                  2 * (q.x * q.z - q.w * q.y)},
                                 {2 * (q.x * q.y - q.w * q.z), 1 - 2 * (q.x * q.x + q.z * q.z),
                                  2 * (q.y * q.z + q.w * q.x)},
                                 {2 * (q.x * q.z + q.w * q.y), 2 * (q.y * q.z - q.w * q.x),
                                  1 - 2 * (q.x * q.x + q.y * q.y)}};
        // The reference uses the float axes the routine sees.
        s->box_axes[0] = r3_of(s->box.axes.cx);
        s->box_axes[1] = r3_of(s->box.axes.cy);
        s->box_axes[2] = r3_of(s->box.axes.cz);
        s->box.center = (vxk_vec3){randf(rng, -1, 1), randf(rng, -1, 1), randf(rng, -1, 1)};
        s->box.half = (vxk_vec3){rand_log(rng, 0.02f, 1.0f), rand_log(rng, 0.02f, 1.0f),
                                 rand_log(rng, 0.02f, 1.0f)};
        if (thin || vxk_test_rand(rng) % 3 == 0)
            s->box.half.x = 0.005f;
    }
}

static void make_moving(scenario* s, uint64_t* rng, int kind)
{
    s->moving = kind;
    memset(s->pieces, 0, sizeof(s->pieces));
    s->piece_count = 1;
    if (kind == MV_SPHERE) {
        s->pieces[0].shape = VXK_TOI_SPHERE;
        s->pieces[0].radius = rand_log(rng, 0.005f, 0.5f);
    } else if (kind == MV_OFFSET_SPHERE) {
        s->pieces[0].shape = VXK_TOI_SPHERE;
        s->pieces[0].radius = rand_log(rng, 0.01f, 0.2f);
        s->pieces[0].center =
            (vxk_vec3){randf(rng, -0.5f, 0.5f), randf(rng, -0.5f, 0.5f), randf(rng, -0.5f, 0.5f)};
    } else if (kind == MV_BOX) {
        s->pieces[0].shape = VXK_TOI_BOX;
        s->pieces[0].half = (vxk_vec3){rand_log(rng, 0.01f, 0.5f), rand_log(rng, 0.01f, 0.5f),
                                       rand_log(rng, 0.01f, 0.5f)};
    } else {
        s->piece_count = 2 + (uint32_t)(vxk_test_rand(rng) % 3);
        for (uint32_t i = 0; i < s->piece_count; ++i) {
            s->pieces[i].shape = VXK_TOI_BOX;
            s->pieces[i].center = (vxk_vec3){randf(rng, -0.6f, 0.6f), randf(rng, -0.6f, 0.6f),
                                             randf(rng, -0.6f, 0.6f)};
            s->pieces[i].half = (vxk_vec3){rand_log(rng, 0.02f, 0.3f), rand_log(rng, 0.02f, 0.3f),
                                           rand_log(rng, 0.02f, 0.3f)};
        }
    }
}

// The body's distance to the obstacle with its centre at p (rotation q0).
static double body_clearance(const scenario* s, vxk_vec3 p)
{
    rmotion m = r_motion(p, s->q0, p, s->q0);
    return body_distance(s, &m, 0);
}

// The first piece's centre's distance to the obstacle with the body's centre at p.
static double centre_clearance(const scenario* s, vxk_vec3 p)
{
    rmotion m = r_motion(p, s->q0, p, s->q0);
    rshape ob = obstacle_shape(s);
    r3 x = r_piece_at(&s->pieces[0], &m, 0).c;
    return ob.sphere ? r_len(r_sub(x, ob.c)) - ob.radius : r_point_box(x, &ob);
}

// The point c + u d, d in [0, far], where `measure` comes down to `want` (bisection from far,
// taking the side just beyond).
static vxk_vec3 start_at(const scenario* s, vxk_vec3 c, vxk_vec3 u, double far, double want,
                         double (*measure)(const scenario*, vxk_vec3))
{
    double lo = 0, hi = far;
    for (int it = 0; it < 60; ++it) {
        double mid = 0.5 * (lo + hi);
        vxk_vec3 p = {(float)(c.x + u.x * mid), (float)(c.y + u.y * mid), (float)(c.z + u.z * mid)};
        if (measure(s, p) > want)
            hi = mid;
        else
            lo = mid;
    }
    return (vxk_vec3){(float)(c.x + u.x * hi), (float)(c.y + u.y * hi), (float)(c.z + u.z * hi)};
}

// A sweep: mode 0 through the obstacle, 1 grazing a point of its boundary, 2 random, 3 starting
// within the target (or slightly overlapping), 4 a tiny sphere crossing a thin wall far and fast,
// 5 sunk in (the first piece's centre up to its core radius from the obstacle) and going deeper.
static void make_scenario(scenario* s, uint64_t* rng, int kind)
{
    int mode = (int)(vxk_test_rand(rng) % 6);
    if (mode == 4) {
        make_obstacle(s, rng, vxk_test_rand(rng) % 2 ? OB_FACE : OB_BOX, true);
        make_moving(s, rng, MV_SPHERE);
        s->pieces[0].radius = 0.005f;
    } else {
        make_obstacle(s, rng, -1, false);
        make_moving(s, rng, kind);
    }
    double ro = obstacle_radius(s), rm = body_bound(s);
    r3 oc = obstacle_center(s);
    vxk_vec3 u = rand_unit(rng);
    float reach = (float)(ro + rm);
    vxk_vec3 c = {(float)oc.x, (float)oc.y, (float)oc.z};
    float far = mode == 4 ? randf(rng, 1, 10) : randf(rng, 0.05f, 3.0f);
    s->p0 =
        (vxk_vec3){c.x + u.x * (reach + far), c.y + u.y * (reach + far), c.z + u.z * (reach + far)};
    s->q0 = rand_rotation(rng);
    int spin = (int)(vxk_test_rand(rng) % 3);
    float angle = spin == 0 ? 0.0f : spin == 1 ? randf(rng, 0, 0.5f) : randf(rng, 0, 3.1f);
    if (mode == 4)
        angle = 0.0f;
    s->q1 = qmul(axis_angle(rand_unit(rng), angle), s->q0);
    if (mode == 0 || mode == 4) {
        vxk_vec3 w = rand_unit(rng);
        float jitter = mode == 4 ? 0.0f : (float)rm * 0.5f;
        float beyond = mode == 4 ? randf(rng, 0.5f, 10) : randf(rng, 0.1f, 3.0f);
        s->p1 = (vxk_vec3){c.x - u.x * (reach + beyond) + w.x * jitter,
                           c.y - u.y * (reach + beyond) + w.y * jitter,
                           c.z - u.z * (reach + beyond) + w.z * jitter};
    } else if (mode == 1) {
        // Aim the body's boundary at a boundary point of the obstacle: a vertex, edge or face point
        // of its box (sphere: a surface point), offset sideways by the body's reach +- a bit.
        rshape ob = obstacle_shape(s);
        r3 x = ob.c;
        if (ob.sphere) {
            vxk_vec3 v = rand_unit(rng);
            x = r_add(x, r_scale(r3_of(v), ob.radius));
        } else {
            for (int i = 0; i < 3; ++i) {
                double pick = (double)(vxk_test_rand(rng) % 3) - 1.0;
                if (vxk_test_rand(rng) % 4 == 0)
                    pick = randf(rng, -1, 1);
                x = r_add(x, r_scale(ob.axis[i], pick * ob.half[i]));
            }
        }
        vxk_vec3 side = rand_unit(rng);
        double off = piece_min_extent(&s->pieces[0]) * randf(rng, 0.5f, 1.5f);
        x = r_add(x, r_scale(r3_of(side), off));
        r3 p0 = r3_of(s->p0);
        r3 p1 = r_add(p0, r_scale(r_sub(x, p0), randf(rng, 1.2f, 3.0f)));
        s->p1 = (vxk_vec3){(float)p1.x, (float)p1.y, (float)p1.z};
    } else if (mode == 2) {
        vxk_vec3 w = rand_unit(rng);
        float l = randf(rng, 0, 5);
        s->p1 = (vxk_vec3){s->p0.x + w.x * l, s->p0.y + w.y * l, s->p0.z + w.z * l};
    } else if (mode == 5) {
        // The first piece's centre at a clearance in (0, core radius], going in.
        if (s->obstacle == OB_FACE &&
            (u.x * (s->face.axis == 0) + u.y * (s->face.axis == 1) + u.z * (s->face.axis == 2)) *
                    (s->face.positive ? 1.0f : -1.0f) <
                0.0f)
            u = (vxk_vec3){-u.x, -u.y, -u.z}; // start on the face's front
        double want = randf(rng, 0.0002f, 1.0f) * 0.5 * piece_min_extent(&s->pieces[0]);
        s->p0 = start_at(s, c, u, reach + far, want, centre_clearance);
        vxk_vec3 w = rand_unit(rng);
        float l = randf(rng, 0, 3);
        s->p1 = (vxk_vec3){s->p0.x - u.x * l + w.x * 0.3f * l, s->p0.y - u.y * l + w.y * 0.3f * l,
                           s->p0.z - u.z * l + w.z * 0.3f * l};
    } else {
        // A start at a distance in [0, TARGET + TOLERANCE], or overlapping by up to 2 mm.
        double want = randf(rng, -0.002f, TARGET + TOLERANCE);
        s->p0 = start_at(s, c, u, reach + far, fmax(want, 0), body_clearance);
        if (want < 0) // push in a little further
            s->p0 = (vxk_vec3){s->p0.x + u.x * (float)want, s->p0.y + u.y * (float)want,
                               s->p0.z + u.z * (float)want};
        vxk_vec3 w = rand_unit(rng);
        float l = randf(rng, 0, 3);
        s->p1 = (vxk_vec3){s->p0.x + w.x * l, s->p0.y + w.y * l, s->p0.z + w.z * l};
    }
}

// Samples of a sweep: enough that the piece moves less than a quarter of its smallest extent
// between two.
static uint32_t sample_count(const scenario* s, const vxk_toi_piece* p)
{
    rmotion m = r_motion(s->p0, s->q0, s->p1, s->q1);
    double c = fabs(m.q0[0] * m.q1[0] + m.q0[1] * m.q1[1] + m.q0[2] * m.q1[2] + m.q0[3] * m.q1[3]);
    double angle = 2 * acos(fmin(1.0, c));
    double motion = r_len(m.d) + 2.0 * angle * piece_bound(p);
    double n = ceil(motion / (0.25 * piece_min_extent(p)));
    return (uint32_t)fmin(fmax(n, 64), 200000);
}

typedef struct toi_tally {
    uint32_t sweeps, hits, starts, clear, stalls, max_iterations;
    uint64_t iterations;
    double hit_lo, hit_hi; // least and largest distance at a hit (t > 0)
} toi_tally;

// One piece's sweep against the reference.
static int check_piece(const scenario* s, const vxk_toi_piece* piece, toi_tally* tally,
                       uint32_t index)
{
    vxk_sweep sweep;
    vxk_sweep_init(&sweep, s->p0, s->q0, s->p1, s->q1);
    vxk_toi_obstacle ob = obstacle_of(s);
    vxk_toi_output out;
    vxk_toi(&out, &sweep, piece, &ob, TARGET, TOLERANCE, 1.0f);
    rmotion m = r_motion(s->p0, s->q0, s->p1, s->q1);
    rshape obs = obstacle_shape(s);
    uint32_t n = sample_count(s, piece);
    double first = -1;
    for (uint32_t k = 0; k <= n && first < 0; ++k) {
        double t = (double)k / n;
        rshape p = r_piece_at(piece, &m, t);
        if (r_overlap(&p, &obs))
            first = t;
    }
    tally->sweeps++;
    tally->iterations += out.iterations;
    if (out.iterations > tally->max_iterations)
        tally->max_iterations = out.iterations;
    double d_out = 0;
    {
        rshape p = r_piece_at(piece, &m, out.t);
        d_out = r_distance(&p, &obs);
    }
    // The distance stays at least the target over [0, t] (all of the sweep when clear).
    double until = out.state == VXK_TOI_SEPARATED ? 1.0 : out.t;
    double d0;
    {
        rshape p = r_piece_at(piece, &m, 0);
        d0 = r_distance(&p, &obs);
    }
    if (out.state != VXK_TOI_SEPARATED && out.t == 0.0f) {
        tally->starts++;
        VXK_CHECK_MSG(d0 <= TARGET + TOLERANCE + EPS,
                      "sweep %u: hit at 0 but the start is %.6f apart", index, d0);
        return 0;
    }
    VXK_CHECK_MSG(d0 >= TARGET - EPS, "sweep %u: starts %.6f apart (state %d, t %.6f)", index, d0,
                  out.state, out.t);
    for (int k = 0; k <= 24; ++k) {
        double t = until * k / 24.0;
        rshape p = r_piece_at(piece, &m, t);
        double d = r_distance(&p, &obs);
        VXK_CHECK_MSG(d >= TARGET - EPS,
                      "sweep %u (moving %d, obstacle %d): distance %.6f at t %.5f before its "
                      "reported time %.5f (state %d)",
                      index, s->moving, s->obstacle, d, t, until, out.state);
    }
    if (out.state == VXK_TOI_SEPARATED) {
        tally->clear++;
        VXK_CHECK_MSG(first < 0,
                      "sweep %u (moving %d, obstacle %d): clear, but overlaps at sample t %.5f",
                      index, s->moving, s->obstacle, first);
        return 0;
    }
    VXK_CHECK_MSG(first < 0 || out.t <= first,
                  "sweep %u (moving %d, obstacle %d): time %.6f after the first overlap %.6f",
                  index, s->moving, s->obstacle, out.t, first);
    if (out.state == VXK_TOI_STALLED) {
        tally->stalls++;
        if (getenv("VXK_CONT_DEBUG")) {
            rshape p = r_piece_at(piece, &m, out.t);
            fprintf(stderr,
                    "stall %u: moving %d obstacle %d t %.6f sep %.6f ref %.6f delta %.3f spin "
                    "rate %.3f reach %.3f\n",
                    index, s->moving, s->obstacle, out.t, out.separation, r_distance(&p, &obs),
                    r_len(m.d), sweep.spin_rate, piece_bound(piece));
        }
        return 0;
    }
    tally->hits++;
    tally->hit_lo = fmin(tally->hit_lo, d_out);
    tally->hit_hi = fmax(tally->hit_hi, d_out);
    VXK_CHECK_MSG(d_out <= TARGET + TOLERANCE + EPS,
                  "sweep %u (moving %d, obstacle %d): hit at %.6f still %.6f apart", index,
                  s->moving, s->obstacle, out.t, d_out);
    VXK_CHECK_MSG(fabs(d_out - out.separation) <= EPS, "sweep %u: separation %.6f, reference %.6f",
                  index, out.separation, d_out);
    return 0;
}

// Thousands of sweeps of every moving kind against every obstacle kind.
static int test_toi_brute_force(void)
{
    uint64_t rng = vxk_test_seed(0x7013);
    uint32_t count = VXK_TEST_SLOW ? 1500 : 6000;
    toi_tally tally;
    memset(&tally, 0, sizeof(tally));
    tally.hit_lo = DBL_MAX;
    uint32_t by_kind[MV_KINDS][3] = {{0}};
    for (uint32_t i = 0; i < count; ++i) {
        scenario s;
        make_scenario(&s, &rng, (int)(i % MV_KINDS));
        by_kind[s.moving][s.obstacle]++;
        for (uint32_t p = 0; p < s.piece_count; ++p)
            if (check_piece(&s, &s.pieces[p], &tally, i))
                return 1;
    }
    for (int k = 0; k < MV_KINDS; ++k)
        for (int o = 0; o < 3; ++o)
            VXK_CHECK_MSG(by_kind[k][o] > 20, "moving %d obstacle %d: %u sweeps", k, o,
                          by_kind[k][o]);
    printf("toi: %u piece sweeps: %u hits, %u touching at the start, %u clear, %u stalled; "
           "iterations mean %.2f, max %u; distance at the hits %.6f .. %.6f (target %.4f, "
           "tolerance %.5f)\n",
           tally.sweeps, tally.hits, tally.starts, tally.clear, tally.stalls,
           (double)tally.iterations / tally.sweeps, tally.max_iterations, tally.hit_lo,
           tally.hit_hi, (double)TARGET, (double)TOLERANCE);
    fflush(stdout);
    VXK_CHECK(tally.hits > count / 4 && tally.clear > count / 10 && tally.starts > count / 50);
    // Stalls are safe (early) but should stay rare.
    VXK_CHECK_MSG(tally.stalls * 200 <= tally.sweeps, "%u stalls in %u sweeps", tally.stalls,
                  tally.sweeps);
    return 0;
}

// The separation equals the reference distance for disjoint shapes, and is negative exactly when
// they overlap.
static int test_separation_exact(void)
{
    uint64_t rng = vxk_test_seed(0x5E9A);
    uint32_t disjoint = 0, overlapping = 0;
    for (uint32_t i = 0; i < (VXK_TEST_SLOW ? 3000u : 20000u); ++i) {
        scenario s;
        make_obstacle(&s, &rng, -1, false);
        make_moving(&s, &rng, (int)(i % MV_KINDS));
        const vxk_toi_piece* piece = &s.pieces[vxk_test_rand(&rng) % s.piece_count];
        r3 oc = obstacle_center(&s);
        vxk_vec3 u = rand_unit(&rng);
        float d = randf(&rng, 0, (float)(obstacle_radius(&s) + body_bound(&s)) * 1.2f);
        vxk_transform pose = {{(float)oc.x + u.x * d, (float)oc.y + u.y * d, (float)oc.z + u.z * d},
                              rand_rotation(&rng)};
        vxk_toi_obstacle ob = obstacle_of(&s);
        vxk_vec3 n;
        float sep = vxk_toi_separation(&n, piece, pose, &ob);
        rmotion m = r_motion(pose.p, pose.q, pose.p, pose.q);
        rshape p = r_piece_at(piece, &m, 0);
        rshape obs = obstacle_shape(&s);
        double ref = r_distance(&p, &obs);
        double nl = sqrt((double)n.x * n.x + (double)n.y * n.y + (double)n.z * n.z);
        VXK_CHECK_MSG(fabs(nl - 1) < 1e-4, "normal length %.6f", nl);
        if (ref > 1e-5) {
            disjoint++;
            VXK_CHECK_MSG(fabs(sep - ref) <= EPS,
                          "case %u (moving %d, obstacle %d): separation %.7f, reference %.7f", i,
                          s.moving, s.obstacle, sep, ref);
        } else if (r_overlap(&p, &obs)) {
            overlapping++;
            VXK_CHECK_MSG(sep <= 1e-5f, "case %u: overlapping but separation %.7f", i, sep);
        }
    }
    VXK_CHECK(disjoint > 500 && overlapping > 500);
    return 0;
}

// The motion bound: no point of a piece moves faster along any direction than vxk_toi assumes
// (finite differences of reference points against |n . delta| + rate |n x axis| r).
static int test_sweep_motion(void)
{
    uint64_t rng = vxk_test_seed(0x5ED1);
    for (uint32_t i = 0; i < (VXK_TEST_SLOW ? 200u : 2000u); ++i) {
        vxk_quat q0 = rand_rotation(&rng);
        float angle = randf(&rng, 0, 3.14f);
        vxk_quat q1 = qmul(axis_angle(rand_unit(&rng), angle), q0);
        if (i % 2)
            q1 = (vxk_quat){-q1.x, -q1.y, -q1.z, -q1.w}; // the other hemisphere
        vxk_vec3 p0 = {randf(&rng, -2, 2), randf(&rng, -2, 2), randf(&rng, -2, 2)};
        vxk_vec3 p1 = {randf(&rng, -2, 2), randf(&rng, -2, 2), randf(&rng, -2, 2)};
        vxk_sweep sweep;
        vxk_sweep_init(&sweep, p0, q0, p1, q1);
        rmotion m = r_motion(p0, q0, p1, q1);
        vxk_vec3 local = rand_unit(&rng);
        vxk_vec3 n = rand_unit(&rng);
        r3 ax = r3_of(sweep.spin_axis);
        double lever = r_len(r_cross(r3_of(n), ax));
        if (r_dot(ax, ax) == 0)
            lever = 1;
        double bound = fabs(r_dot(r3_of(n), m.d)) + sweep.spin_rate * lever * 1.0;
        double prev = 0;
        for (int k = 0; k <= 400; ++k) {
            double t = k / 400.0;
            r3 p, col[3];
            r_pose(&m, t, &p, col);
            double x = r_dot(r3_of(n), r_add(p, r_apply(col, r3_of(local))));
            if (k > 0)
                VXK_CHECK_MSG(fabs(x - prev) * 400.0 <= bound * (1 + 1e-3) + 1e-4,
                              "case %u angle %.3f: speed %.5f > bound %.5f at t %.4f", i, angle,
                              fabs(x - prev) * 400.0, bound, t);
            prev = x;
        }
        // The pose at t equals the reference's.
        float t = randf(&rng, 0, 1);
        vxk_transform pose = vxk_sweep_pose(&sweep, t);
        r3 rp, col[3], fcol[3];
        r_pose(&m, t, &rp, col);
        double fq[4] = {pose.q.x, pose.q.y, pose.q.z, pose.q.w};
        r_rotation(fq, fcol);
        VXK_CHECK(r_len(r_sub(rp, r3_of(pose.p))) < 1e-5);
        for (int c = 0; c < 3; ++c)
            VXK_CHECK(r_len(r_sub(col[c], fcol[c])) < 1e-5);
    }
    return 0;
}

// ---- the guard ----------------------------------------------------------------------------------

// The first sample at which the piece's centre has crossed the face from its front to its back
// inside the rectangle, or entered the sphere or box; -1 when never.
static double centre_crossing(const scenario* s, const vxk_toi_piece* piece, uint32_t n)
{
    rmotion m = r_motion(s->p0, s->q0, s->p1, s->q1);
    rshape ob = obstacle_shape(s);
    r3 prev = r_piece_at(piece, &m, 0).c;
    for (uint32_t k = 1; k <= n; ++k) {
        double t = (double)k / n;
        r3 c = r_piece_at(piece, &m, t).c;
        if (s->obstacle == OB_FACE) {
            int a = s->face.axis;
            double sign = s->face.positive ? 1 : -1, plane = r_get(r3_of(s->face.min), a);
            double o0 = sign * (r_get(prev, a) - plane), o1 = sign * (r_get(c, a) - plane);
            if (o0 >= 0 && o1 < 0) {
                r3 x = r_add(prev, r_scale(r_sub(c, prev), o0 / (o0 - o1)));
                x = r_sub(x, ob.c);
                bool inside = true;
                for (int i = 0; i < 3; ++i)
                    if (i != a && fabs(r_get(x, i)) > ob.half[i])
                        inside = false;
                if (inside)
                    return t;
            }
        } else if (ob.sphere ? r_len(r_sub(c, ob.c)) < ob.radius : r_point_box(c, &ob) == 0) {
            return t;
        }
        prev = c;
    }
    return -1;
}

// Random sweeps: whenever a piece's centre starts in front of a face (or outside an obstacle), the
// guarded time comes before the centre crosses the face (or enters). On two-sided obstacles a hit
// of the whole piece after the start is kept as is.
static int test_guard_brute_force(void)
{
    uint64_t rng = vxk_test_seed(0x6A2D);
    uint32_t crossings = 0, skipped = 0, cores = 0, count = VXK_TEST_SLOW ? 1500 : 6000;
    for (uint32_t i = 0; i < count; ++i) {
        scenario s;
        make_scenario(&s, &rng, (int)(i % MV_KINDS));
        vxk_sweep sweep;
        vxk_sweep_init(&sweep, s.p0, s.q0, s.p1, s.q1);
        vxk_toi_obstacle ob = obstacle_of(&s);
        rmotion m = r_motion(s.p0, s.q0, s.p1, s.q1);
        rshape obs = obstacle_shape(&s);
        for (uint32_t p = 0; p < s.piece_count; ++p) {
            const vxk_toi_piece* piece = &s.pieces[p];
            vxk_toi_output g, plain;
            vxk_toi_guarded(&g, &sweep, piece, &ob, TARGET, TOLERANCE, 1.0f);
            vxk_toi(&plain, &sweep, piece, &ob, TARGET, TOLERANCE, 1.0f);
            cores += g.core && g.state != VXK_TOI_SEPARATED;
            skipped += g.iterations == 0;
            if (s.obstacle != OB_FACE && plain.state != VXK_TOI_SEPARATED && plain.t > 0.0f)
                VXK_CHECK_MSG(g.t == plain.t && g.state == plain.state && !g.core,
                              "sweep %u: guarded %.6f (state %d), plain %.6f (state %d)", i, g.t,
                              g.state, plain.t, plain.state);
            // Every centre that starts outside (in front of a face) is promised.
            r3 c0 = r_piece_at(piece, &m, 0).c;
            double clear =
                obs.sphere ? r_len(r_sub(c0, obs.c)) - obs.radius : r_point_box(c0, &obs);
            if (clear <= EPS)
                continue;
            if (s.obstacle == OB_FACE) {
                double sign = s.face.positive ? 1 : -1;
                if (sign * (r_get(c0, s.face.axis) - r_get(r3_of(s.face.min), s.face.axis)) <= 0)
                    continue; // starts behind: one-sided faces let it go
            }
            double cross = centre_crossing(&s, piece, sample_count(&s, piece));
            if (cross < 0)
                continue;
            crossings++;
            VXK_CHECK_MSG(g.state != VXK_TOI_SEPARATED && g.t <= cross,
                          "sweep %u (moving %d, obstacle %d): the centre crosses at %.6f, guarded "
                          "time %.6f (state %d, core %d)",
                          i, s.moving, s.obstacle, cross, g.t, g.state, g.core);
        }
    }
    printf("guard: %u centre crossings caught, %u core hits, %u face sweeps skipped\n", crossings,
           cores, skipped);
    fflush(stdout);
    VXK_CHECK(crossings > count / 10 && cores > 10 && skipped > 10);
    return 0;
}

// A body resting on a floor slides across the seam between two coplanar faces without a hit;
// pushed into a wall while resting, it stops at the wall with the floor still under it.
static int test_guard_slide(void)
{
    const vxk_face floor_a = {{0, 0, -1}, 2, 1, 1, 1, 0, 0}; // y = 0, x in [0, 1], z in [-1, 1]
    const vxk_face floor_b = {{1, 0, -1}, 2, 1, 1, 1, 0, 0}; // x in [1, 2]
    const vxk_face wall = {{1.5f, 0, -1}, 2, 2, 0, 0, 0, 0}; // x = 1.5 facing -x
    vxk_toi_obstacle a = vxk_toi_face_obstacle(&floor_a, (vxk_vec3){0, 0, 0});
    vxk_toi_obstacle b = vxk_toi_face_obstacle(&floor_b, (vxk_vec3){0, 0, 0});
    vxk_toi_obstacle w = vxk_toi_face_obstacle(&wall, (vxk_vec3){0, 0, 0});
    const vxk_quat id = {0, 0, 0, 1};
    for (int kind = 0; kind < 2; ++kind) {
        vxk_toi_piece piece;
        memset(&piece, 0, sizeof(piece));
        piece.shape = kind ? VXK_TOI_BOX : VXK_TOI_SPHERE;
        piece.radius = 0.1f;
        piece.half = (vxk_vec3){0.1f, 0.1f, 0.1f};
        for (int i = 0; i <= 20; ++i) {
            float rest = 0.1f + TARGET * (float)i / 20.0f - 0.001f; // touching, within the slop
            vxk_sweep sweep;
            vxk_sweep_init(&sweep, (vxk_vec3){0.6f, rest, 0}, id, (vxk_vec3){1.3f, rest, 0}, id);
            vxk_toi_output o;
            vxk_toi_guarded(&o, &sweep, &piece, &a, TARGET, TOLERANCE, 1.0f);
            VXK_CHECK_MSG(o.state == VXK_TOI_SEPARATED, "kind %d rest %.4f: floor A hit at %.4f",
                          kind, rest, o.t);
            vxk_toi_guarded(&o, &sweep, &piece, &b, TARGET, TOLERANCE, 1.0f);
            VXK_CHECK_MSG(o.state == VXK_TOI_SEPARATED, "kind %d rest %.4f: seam hit at %.4f", kind,
                          rest, o.t);
            // Into the wall at x = 1.5: stops with its side at [target, target + tolerance].
            vxk_sweep_init(&sweep, (vxk_vec3){0.6f, rest, 0}, id, (vxk_vec3){2.6f, rest, 0}, id);
            vxk_toi_guarded(&o, &sweep, &piece, &w, TARGET, TOLERANCE, 1.0f);
            float x = 0.6f + 2.0f * o.t + 0.1f;
            VXK_CHECK_MSG(o.state == VXK_TOI_HIT && !o.core && x <= 1.5f - TARGET + 1e-5f &&
                              x >= 1.5f - TARGET - TOLERANCE - 1e-5f,
                          "kind %d: wall hit at %.5f (side at %.5f, state %d)", kind, o.t, x,
                          o.state);
        }
    }
    return 0;
}

// ---- worlds -------------------------------------------------------------------------------------

static vxk_world* make_world(float voxel_size, vxk_vec3 gravity, vxk_jobs* jobs)
{
    vxk_world_def def = vxk_default_world_def();
    def.voxel_size = voxel_size;
    def.gravity = gravity;
    def.jobs = jobs;
    vxk_world* w = NULL;
    return vxk_world_create(&def, &w) == VXK_OK ? w : NULL;
}

// Poses of every body by index (the stage's start poses).
static vxk_transform* record_poses(const vxk_world* w)
{
    const vxk_dynamics* dyn = vxk_dynamics_get(w);
    vxk_transform* poses = (vxk_transform*)calloc(dyn->ids.count + 1u, sizeof(vxk_transform));
    for (uint32_t i = 0; i < dyn->ids.count; ++i)
        poses[i] = dyn->bodies[i].pose;
    return poses;
}

// One step with the stage: vxk_world_step alone once it runs the stage, else the step and then the
// stage from the poses recorded before it.
static vxk_status step_with_stage(vxk_world* w, float dt, vxk_continuous_stats* stats)
{
    if (stats)
        memset(stats, 0, sizeof(*stats));
#if VXK_CONTINUOUS_IN_STEP
    return vxk_world_step(w, dt);
#else
    vxk_transform* start = record_poses(w);
    vxk_status st = vxk_world_step(w, dt);
    if (st == VXK_OK)
        st = vxk_dynamics_continuous(vxk_dynamics_get(w), start, &w->step_arena, dt, stats);
    free(start);
    return st;
#endif
}

// The shapes shot: a 1 cm sphere, a 1 cm cube, and a 1 cm voxel body of 7 voxels (a 2^3 grid
// without one corner: a compound of 3 boxes).
enum { SHOT_SPHERE, SHOT_BOX, SHOT_VOXELS, SHOT_KINDS };
static const char* const k_shot_names[SHOT_KINDS] = {"sphere", "box", "voxel body"};

static vxk_body_id add_shot(vxk_world* w, int kind, bool bullet, vxk_vec3 p, vxk_vec3 v,
                            uint64_t* rng)
{
    static uint8_t voxels[8] = {VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE,
                                VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, 0};
    vxk_voxel_grid grid = {{2, 2, 2}, voxels};
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.linear_velocity = v;
    d.is_bullet = bullet;
    if (kind == SHOT_SPHERE) {
        d.shape = vxk_sphere_shape(0.005f, VXK_MAT_STONE);
    } else {
        d.rotation = rand_rotation(rng);
        d.angular_velocity =
            (vxk_vec3){randf(rng, -30, 30), randf(rng, -30, 30), randf(rng, -30, 30)};
        d.shape = kind == SHOT_BOX
                      ? vxk_box_shape((vxk_vec3){0.005f, 0.005f, 0.005f}, VXK_MAT_STONE)
                      : vxk_voxel_shape(&grid, 0.005f);
    }
    vxk_body_id id = {0, 0};
    vxk_status st = vxk_body_create(w, &d, &id);
    if (st != VXK_OK)
        fprintf(stderr, "vxk_body_create: %s\n", vxk_status_string(st));
    return id;
}

// A wall: solid voxels [lo, hi] (inclusive), in metres [lo * s, (hi + 1) * s).
typedef struct wall_box {
    vxk_vec3 lo, hi;
} wall_box;

// The largest value over t in [0, 1] of a concave function (golden-section search).
static double concave_max(double (*f)(const void*, double), const void* ctx)
{
    double lo = 0, hi = 1;
    const double g = 0.6180339887498949;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(ctx, x1), f2 = f(ctx, x2);
    for (int it = 0; it < 80; ++it) {
        if (f1 < f2) {
            lo = x1;
            x1 = x2, f1 = f2;
            x2 = lo + g * (hi - lo), f2 = f(ctx, x2);
        } else {
            hi = x2;
            x2 = x1, f2 = f1;
            x1 = hi - g * (hi - lo), f1 = f(ctx, x1);
        }
    }
    return fmax(fmax(f(ctx, 0), f(ctx, 1)), fmax(f1, f2));
}

typedef struct depth_ctx {
    r3 a, b, lo, hi, c;
    double radius;
} depth_ctx;

// Depth of the point a + t (b - a) inside the box (negative outside): the least distance to a
// face, a minimum of linear functions of t, so concave.
static double box_depth_at(const void* vctx, double t)
{
    const depth_ctx* d = (const depth_ctx*)vctx;
    r3 p = r_add(d->a, r_scale(r_sub(d->b, d->a), t));
    double depth = DBL_MAX;
    for (int i = 0; i < 3; ++i)
        depth = fmin(depth, fmin(r_get(p, i) - r_get(d->lo, i), r_get(d->hi, i) - r_get(p, i)));
    return depth;
}

// Depth inside a sphere: radius minus a convex distance, so concave.
static double sphere_depth_at(const void* vctx, double t)
{
    const depth_ctx* d = (const depth_ctx*)vctx;
    r3 p = r_add(d->a, r_scale(r_sub(d->b, d->a), t));
    return d->radius - r_len(r_sub(p, d->c));
}

// How far the segment [a, b] reaches into the box: the largest depth of its points, 0 when it
// stays outside.
static double segment_depth(vxk_vec3 a, vxk_vec3 b, const wall_box* w)
{
    depth_ctx d = {r3_of(a), r3_of(b), r3_of(w->lo), r3_of(w->hi), {0, 0, 0}, 0};
    return fmax(0, concave_max(box_depth_at, &d));
}

// A piece's centre deeper than the linear slop inside a wall counts as entering it (the solver
// lets a surface sink up to the slop, 5 mm: the whole radius of a 1 cm sphere). A bullet's piece
// centres never go inside at all (the guard keeps them in front of every face), up to float
// rounding.
#define ENTERED_DEPTH 0.005
#define BULLET_DEPTH 1e-4

typedef struct shot_tally {
    uint32_t shots, entered, passed, hits;
    double deepest; // the deepest a centre went into a wall (m)
} shot_tally;

// The centre's path over a step against the wall: entered when it goes deeper than ENTERED_DEPTH
// into the solid, passed when it leaves through the wall's far side (in the shot's direction).
static void judge(shot_tally* t, vxk_vec3 before, vxk_vec3 after, const wall_box* w, int axis,
                  int dir)
{
    double d = segment_depth(before, after, w);
    t->deepest = fmax(t->deepest, d);
    if (d > ENTERED_DEPTH)
        t->entered++;
    // Passing: the segment leaves through the far side within the wall's span.
    double far = dir > 0 ? r_get(r3_of(w->hi), axis) : r_get(r3_of(w->lo), axis);
    double xa = r_get(r3_of(before), axis), xb = r_get(r3_of(after), axis);
    if (dir > 0 ? !(xa <= far && xb > far) : !(xa >= far && xb < far))
        return;
    r3 x =
        r_add(r3_of(before), r_scale(r_sub(r3_of(after), r3_of(before)), (far - xa) / (xb - xa)));
    for (int i = 0; i < 3; ++i)
        if (i != axis &&
            (r_get(x, i) < r_get(r3_of(w->lo), i) || r_get(x, i) > r_get(r3_of(w->hi), i)))
            return;
    t->passed++;
}

// ---- terrain walls ------------------------------------------------------------------------------

// Walls 1 voxel thick in x, 24 voxels tall (y -8..15) and wide (z in the wall's band), each in its
// own band of z so that shots at one never meet another. Walls 0-5 take shots along +x: x = 0, 8,
// -8 and 16 put the front face on a chunk seam, 7 the back face, 3 neither; walls 6-7 (x = 24 and
// 32) take shots along their face.
#define WALLS 8
#define WALL_Y0 (-8)
#define WALL_Y1 15
#define BAND 40
static const int32_t k_wall_x[WALLS] = {0, 8, -8, 16, 7, 3, 24, 32};

static wall_box terrain_wall(int i, float vs)
{
    int32_t z0 = BAND * i, z1 = BAND * i + 23;
    return (wall_box){
        {(float)k_wall_x[i] * vs, (float)WALL_Y0 * vs, (float)z0 * vs},
        {(float)(k_wall_x[i] + 1) * vs, (float)(WALL_Y1 + 1) * vs, (float)(z1 + 1) * vs}};
}

static vxk_status build_walls(vxk_world* w)
{
    vxk_status st = VXK_OK;
    for (int i = 0; i < WALLS && st == VXK_OK; ++i)
        st = vxk_world_fill_box(
            w,
            (vxk_int_box){{k_wall_x[i], WALL_Y0, BAND * i}, {k_wall_x[i], WALL_Y1, BAND * i + 23}},
            VXK_MAT_STONE);
    return st;
}

typedef struct shot {
    vxk_body_id id;
    int wall, axis, dir; // the wall it is judged against, and its main direction
    bool entered, passed;
} shot;

#define MAX_SHOTS 512

typedef struct shot_scene {
    vxk_world* world;
    float vs;
    shot shots[MAX_SHOTS];
    uint32_t count;
} shot_scene;

// Distinct lattice cells of 5 cm in the wall's (y, z) span for the shots at one wall.
static bool take_cell(uint32_t* used, uint32_t* used_count, uint32_t cell)
{
    for (uint32_t i = 0; i < *used_count; ++i)
        if (used[i] == cell)
            return false;
    used[(*used_count)++] = cell;
    return true;
}

// Shots at every wall: along +x at random points of the face, at its top edge and at its side
// edges (centres within 6 mm of the edge line, either side), from 2 cm to 20 m away, some tilted
// by up to 5 degrees; at walls 6 and 7 along +-z in front of the face (touching it, or closing in
// at 0.5 to 5 degrees). kind < 0 mixes the kinds.
static int shoot_walls(shot_scene* sc, int kind, bool bullet, float speed, uint64_t* rng,
                       int per_wall)
{
    const float vs = sc->vs, r = 0.005f;
    for (int i = 0; i < WALLS; ++i) {
        wall_box wb = terrain_wall(i, vs);
        uint32_t used[64], used_count = 0;
        int ny = (int)((wb.hi.y - wb.lo.y) / 0.05f), nz = (int)((wb.hi.z - wb.lo.z) / 0.05f);
        for (int s = 0; s < per_wall && sc->count < MAX_SHOTS; ++s) {
            int k = kind >= 0 ? kind : (int)(vxk_test_rand(rng) % SHOT_KINDS);
            vxk_vec3 p, v;
            shot* sh = &sc->shots[sc->count];
            sh->wall = i;
            if (i < 6) {
                int where = s % 5; // 0-2 face, 3 top edge, 4 side edge
                uint32_t cell;
                int cy, cz;
                do {
                    cy = (int)(vxk_test_rand(rng) % (uint32_t)(ny - 2)) + 1;
                    cz = (int)(vxk_test_rand(rng) % (uint32_t)(nz - 2)) + 1;
                    cell = where == 3   ? (uint32_t)cz
                           : where == 4 ? 1000u + (uint32_t)cy
                                        : 2000u + (uint32_t)(cy * nz + cz);
                } while (!take_cell(used, &used_count, cell));
                p.y = wb.lo.y + 0.05f * (float)cy + randf(rng, -0.01f, 0.01f);
                p.z = wb.lo.z + 0.05f * (float)cz + randf(rng, -0.01f, 0.01f);
                if (where == 3)
                    p.y = wb.hi.y + randf(rng, -0.006f, 0.006f);
                if (where == 4)
                    p.z = (s % 2 ? wb.lo.z : wb.hi.z) + randf(rng, -0.006f, 0.006f);
                p.x = wb.lo.x - r - rand_log(rng, 0.02f, 20.0f);
                float tilt = s % 3 == 0 ? randf(rng, -0.087f, 0.087f) : 0.0f;
                float tilt2 = s % 3 == 0 ? randf(rng, -0.087f, 0.087f) : 0.0f;
                v = (vxk_vec3){speed * cosf(tilt) * cosf(tilt2), speed * sinf(tilt),
                               speed * cosf(tilt) * sinf(tilt2)};
                if (where >= 3) // grazing shots fly straight at the edge line
                    v = (vxk_vec3){speed, 0, 0};
                sh->axis = 0;
                sh->dir = 1;
            } else {
                uint32_t cell;
                int cy;
                do {
                    cy = (int)(vxk_test_rand(rng) % (uint32_t)(ny - 2)) + 1;
                    cell = (uint32_t)cy;
                } while (!take_cell(used, &used_count, cell));
                p.y = wb.lo.y + 0.05f * (float)cy;
                float angle = s % 3 == 0 ? 0.0f : randf(rng, 0.0087f, 0.087f);
                float gap = s % 3 == 0 ? randf(rng, -0.002f, 0.002f) : randf(rng, 0.0f, 0.05f);
                p.x = wb.lo.x - r - gap;
                int dir = s % 2 ? 1 : -1;
                p.z = dir > 0 ? wb.lo.z - 0.3f : wb.hi.z + 0.3f;
                v = (vxk_vec3){speed * sinf(angle), 0, (float)dir * speed * cosf(angle)};
                sh->axis = 0;
                sh->dir = 1;
            }
            sh->id = add_shot(sc->world, k, bullet, p, v, rng);
            VXK_CHECK(sh->id.index != 0 || sh->id.generation != 0);
            sh->entered = sh->passed = false;
            sc->count++;
        }
    }
    return 0;
}

static vxk_vec3 centre_of(const vxk_world* w, vxk_body_id id)
{
    vxk_transform t = {{NAN, NAN, NAN}, {0, 0, 0, 1}};
    vxk_body_get_transform(w, id, &t);
    return t.p;
}

static vxk_transform pose_of(const vxk_world* w, vxk_body_id id)
{
    vxk_transform t = {{NAN, NAN, NAN}, {0, 0, 0, 1}};
    vxk_body_get_transform(w, id, &t);
    return t;
}

// The points of a shot that are judged, in its body frame: the centre of each box of a voxel
// body's compound (the pieces the sweeps guard), else the centre.
#define PROBES 8
static uint32_t shot_probes(const vxk_world* w, vxk_body_id id, vxk_vec3* out)
{
    const vxk_body* b = &vxk_dynamics_get(w)->bodies[id.index];
    if (!b->voxels) {
        out[0] = (vxk_vec3){0, 0, 0};
        return 1;
    }
    uint32_t n = b->voxels->box_count < PROBES ? b->voxels->box_count : PROBES;
    for (uint32_t i = 0; i < n; ++i)
        out[i] = b->voxels->box_center[i];
    return n;
}

// A body-frame point at a pose (double rotation, rounded once).
static vxk_vec3 probe_at(vxk_transform t, vxk_vec3 local)
{
    double q[4] = {t.q.x, t.q.y, t.q.z, t.q.w};
    r3 col[3];
    r_rotation(q, col);
    r3 p = r_add(r3_of(t.p), r_apply(col, r3_of(local)));
    return (vxk_vec3){(float)p.x, (float)p.y, (float)p.z};
}

// Steps the scene `steps` times at 60 Hz (the stage after each when `stage`), judging every
// shot's centre path against its wall each step.
static int run_shots(shot_scene* sc, int steps, bool stage, shot_tally* tally, uint64_t* hashes)
{
    vxk_transform before[MAX_SHOTS];
    for (int s = 0; s < steps; ++s) {
        for (uint32_t i = 0; i < sc->count; ++i)
            before[i] = pose_of(sc->world, sc->shots[i].id);
        vxk_continuous_stats stats;
        memset(&stats, 0, sizeof(stats));
        vxk_status st = stage ? step_with_stage(sc->world, 1.0f / 60.0f, &stats)
                              : vxk_world_step(sc->world, 1.0f / 60.0f);
        VXK_CHECK_EQ_INT(st, VXK_OK);
        tally->hits += stats.hits;
        if (hashes)
            hashes[s] = vxk_world_hash(sc->world);
        for (uint32_t i = 0; i < sc->count; ++i) {
            shot* sh = &sc->shots[i];
            wall_box wb = terrain_wall(sh->wall, sc->vs);
            vxk_vec3 probes[PROBES];
            uint32_t n = shot_probes(sc->world, sh->id, probes);
            vxk_transform after = pose_of(sc->world, sh->id);
            for (uint32_t k = 0; k < n; ++k) {
                shot_tally one;
                memset(&one, 0, sizeof(one));
                vxk_vec3 a = probe_at(before[i], probes[k]), b = probe_at(after, probes[k]);
                judge(&one, a, b, &wb, sh->axis, sh->dir);
                if (getenv("VXK_CONT_DEBUG") && (one.entered || one.passed))
                    fprintf(stderr,
                            "shot %u probe %u wall %d step %d: (%.5f %.5f %.5f) -> (%.5f %.5f "
                            "%.5f) depth %.5f\n",
                            i, k, sh->wall, s, (double)a.x, (double)a.y, (double)a.z, (double)b.x,
                            (double)b.y, (double)b.z, one.deepest);
                tally->deepest = fmax(tally->deepest, one.deepest);
                sh->entered |= one.entered > 0;
                sh->passed |= one.passed > 0;
            }
        }
    }
    for (uint32_t i = 0; i < sc->count; ++i) {
        tally->shots++;
        tally->entered += sc->shots[i].entered;
        tally->passed += sc->shots[i].passed;
    }
    return 0;
}

// Bullets never enter or pass a 1-voxel terrain wall; the same shots without is_bullet are
// measured and printed. Voxels of 1 m and 0.1 m (a shot crosses up to 10 chunks a step), 100 and
// 500 m/s, spheres, boxes and voxel bodies.
static int test_terrain_walls(void)
{
    const float sizes[2] = {1.0f, 0.1f}, speeds[2] = {100.0f, 500.0f};
    uint32_t total_hits = 0;
    for (int vi = 0; vi < 2; ++vi)
        for (int kind = 0; kind < SHOT_KINDS; ++kind)
            for (int si = 0; si < 2; ++si)
                for (int bullet = 1; bullet >= 0; --bullet) {
                    uint64_t rng = vxk_test_seed(0xB011 + (uint64_t)(vi * 100 + kind * 10 + si));
                    shot_scene* sc = (shot_scene*)calloc(1, sizeof(shot_scene));
                    sc->vs = sizes[vi];
                    sc->world = make_world(sc->vs, (vxk_vec3){0, 0, 0}, NULL);
                    VXK_CHECK(sc->world != NULL);
                    VXK_CHECK_EQ_INT(build_walls(sc->world), VXK_OK);
                    // Voxel bodies 5 to a wall (one of each kind of shot): a pair of fast
                    // voxel bodies costs their voxel contacts a region the size of their reach.
                    int per_wall = kind == SHOT_VOXELS ? 5 : VXK_TEST_SLOW ? 10 : 30;
                    if (shoot_walls(sc, kind, bullet != 0, speeds[si], &rng, per_wall))
                        return 1;
                    shot_tally tally;
                    memset(&tally, 0, sizeof(tally));
                    if (run_shots(sc, 10, bullet != 0, &tally, NULL))
                        return 1;
                    printf("walls: voxel %.1f m, %s at %.0f m/s, %s: %u shots, %u entered a wall "
                           "(a piece centre > 5 mm deep), %u passed; deepest %.2e m",
                           (double)sc->vs, k_shot_names[kind], (double)speeds[si],
                           bullet ? "bullets" : "not bullets", tally.shots, tally.entered,
                           tally.passed, tally.deepest);
                    if (bullet && !VXK_CONTINUOUS_IN_STEP)
                        printf("; %u times of impact", tally.hits);
                    printf("\n");
                    fflush(stdout);
                    // Both kinds: bullets are always swept, other bodies when they move more
                    // than half their size in a step (every shot here).
                    if (bullet)
                        total_hits += tally.hits;
                    VXK_CHECK_MSG(
                        tally.deepest <= BULLET_DEPTH && tally.passed == 0,
                        "voxel %.1f, %s at %.0f m/s, %s: a piece centre %.2e m deep, %u passed",
                        (double)sc->vs, k_shot_names[kind], (double)speeds[si],
                        bullet ? "bullets" : "not bullets", tally.deepest, tally.passed);
                    vxk_world_destroy(sc->world);
                    free(sc);
                }
#if !VXK_CONTINUOUS_IN_STEP
    VXK_CHECK(total_hits > 0); // the stage did act (counted only when the test calls it)
#endif
    return 0;
}

// The same bullet scene (mixed kinds at 500 m/s, 0.1 m voxels) inline and on 1, 2, 3 and 8
// workers: one world hash at every step.
static int test_determinism(void)
{
    const uint32_t workers[] = {0, 1, 2, 3, 8, 0};
    enum { STEPS = 8 };
    uint64_t first[STEPS], hashes[STEPS];
    for (size_t r = 0; r < sizeof(workers) / sizeof(workers[0]); ++r) {
        vxk_jobs* jobs = NULL;
        if (workers[r]) {
            vxk_jobs_def jd = vxk_default_jobs_def();
            jd.worker_count = workers[r];
            VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
        }
        uint64_t rng = vxk_test_seed(0xD37E);
        shot_scene* sc = (shot_scene*)calloc(1, sizeof(shot_scene));
        sc->vs = 0.1f;
        sc->world = make_world(sc->vs, (vxk_vec3){0, -9.81f, 0}, jobs);
        VXK_CHECK(sc->world != NULL);
        VXK_CHECK_EQ_INT(build_walls(sc->world), VXK_OK);
        if (shoot_walls(sc, -1, true, 500.0f, &rng, VXK_TEST_SLOW ? 8 : 24))
            return 1;
        shot_tally tally;
        memset(&tally, 0, sizeof(tally));
        if (run_shots(sc, STEPS, true, &tally, r == 0 ? first : hashes))
            return 1;
        VXK_CHECK(tally.deepest <= BULLET_DEPTH && tally.passed == 0);
#if !VXK_CONTINUOUS_IN_STEP
        VXK_CHECK(tally.hits > 0);
#endif
        vxk_world_destroy(sc->world);
        free(sc);
        if (jobs)
            vxk_jobs_destroy(jobs);
        if (r == 0)
            continue;
        for (int s = 0; s < STEPS; ++s)
            VXK_CHECK_MSG(hashes[s] == first[s],
                          "%u workers: hash %016llx at step %d, inline %016llx", workers[r],
                          (unsigned long long)hashes[s], s + 1, (unsigned long long)first[s]);
    }
    return 0;
}

// ---- the stage on forced steps ------------------------------------------------------------------

// Bodies (no rotation) placed in front of a wall are moved by hand to a pose behind it, as a solve
// that let them through would: the stage brings each back to where its leading side is within
// [target, target + tolerance] of the wall's face, at every wall (chunk seams included) and for
// both voxel sizes; bodies stopping short stay where they are; velocities are kept.
static int test_forced_steps(void)
{
    const float sizes[3] = {1.0f, 0.1f, 0.25f};
    uint32_t moved = 0, kept = 0;
    for (int vi = 0; vi < 3; ++vi) {
        const float vs = sizes[vi];
        vxk_world* w = make_world(vs, (vxk_vec3){0, 0, 0}, NULL);
        VXK_CHECK(w != NULL);
        VXK_CHECK_EQ_INT(build_walls(w), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK); // derived data (masks) up to date
        uint64_t rng = vxk_test_seed(0xF0CE + (uint64_t)vi);
        enum { PER_WALL = 24 };
        vxk_body_id ids[WALLS * PER_WALL];
        vxk_vec3 ends[WALLS * PER_WALL];
        float wall_at[WALLS * PER_WALL];
        bool through[WALLS * PER_WALL];
        uint32_t n = 0;
        for (int i = 0; i < WALLS; ++i) {
            wall_box wb = terrain_wall(i, vs);
            for (int s = 0; s < PER_WALL; ++s, ++n) {
                int kind = s % SHOT_KINDS;
                vxk_body_def d = vxk_default_body_def();
                static uint8_t voxels[8] = {
                    VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE,
                    VXK_MAT_STONE, VXK_MAT_STONE, VXK_MAT_STONE, 0};
                vxk_voxel_grid grid = {{2, 2, 2}, voxels};
                d.shape = kind == SHOT_SPHERE ? vxk_sphere_shape(0.005f, VXK_MAT_STONE)
                          : kind == SHOT_BOX
                              ? vxk_box_shape((vxk_vec3){0.005f, 0.005f, 0.005f}, VXK_MAT_STONE)
                              : vxk_voxel_shape(&grid, 0.005f);
                d.is_bullet = true;
                d.linear_velocity = (vxk_vec3){500, 0, 0};
                d.position = (vxk_vec3){wb.lo.x - rand_log(&rng, 0.03f, 5.0f),
                                        randf(&rng, wb.lo.y + 0.02f, wb.hi.y - 0.02f),
                                        randf(&rng, wb.lo.z + 0.02f, wb.hi.z - 0.02f)};
                VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &ids[n]), VXK_OK);
                through[n] = s % 6 != 5;
                wall_at[n] = wb.lo.x;
                ends[n] = d.position;
                ends[n].x = through[n] ? wb.hi.x + rand_log(&rng, 0.001f, 8.0f)
                                       : d.position.x + 0.5f * (wb.lo.x - 0.02f - d.position.x);
            }
        }
        // A bullet beyond the int32 voxel range (no terrain there) does not keep the others from
        // theirs. (Bodies are made inside the position range; this one got out by moving.)
        vxk_body_def far_def = vxk_default_body_def();
        far_def.is_bullet = true;
        far_def.position = (vxk_vec3){2e9f * vs, 0, 0};
        vxk_body_id far;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &far_def, &far), VXK_OK);
        vxk_dynamics* dyn = vxk_dynamics_get(w);
        dyn->bodies[far.index].pose.p.x = 3e9f * vs;
        dyn->bodies[far.index].aabb = vxk_body_compute_aabb(&dyn->bodies[far.index]);
        vxk_transform* start = record_poses(w);
        dyn->bodies[far.index].pose.p.x += 1e9f * vs;
        const float far_end = dyn->bodies[far.index].pose.p.x;
        for (uint32_t k = 0; k < n; ++k) {
            dyn->bodies[ids[k].index].pose.p = ends[k];
            dyn->bodies[ids[k].index].aabb = vxk_body_compute_aabb(&dyn->bodies[ids[k].index]);
        }
        vxk_arena arena;
        vxk_arena_init(&arena);
        vxk_continuous_stats stats;
        VXK_CHECK_EQ_INT(vxk_dynamics_continuous(dyn, start, &arena, 1.0f / 60.0f, &stats), VXK_OK);
        vxk_arena_destroy(&arena);
        uint32_t expect_hits = 0;
        for (uint32_t k = 0; k < n; ++k) {
            vxk_aabb box;
            VXK_CHECK_EQ_INT(vxk_body_get_aabb(w, ids[k], &box), VXK_OK);
            vxk_vec3 p = centre_of(w, ids[k]), v;
            vxk_vec3 av;
            VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, ids[k], &v, &av), VXK_OK);
            VXK_CHECK(v.x == 500.0f && v.y == 0.0f && v.z == 0.0f);
            VXK_CHECK(p.y == start[ids[k].index].p.y && p.z == start[ids[k].index].p.z);
            if (!through[k]) {
                VXK_CHECK_MSG(p.x == ends[k].x, "voxel %.2f body %u: moved from %.5f to %.5f",
                              (double)vs, k, (double)ends[k].x, (double)p.x);
                kept++;
                continue;
            }
            expect_hits++;
            moved++;
            float gap = wall_at[k] - box.max.x;
            VXK_CHECK_MSG(gap >= TARGET - 2e-5f && gap <= TARGET + TOLERANCE + 2e-5f,
                          "voxel %.2f, wall at %.3f, body %u (%s): leading side %.6f before it",
                          (double)vs, (double)wall_at[k], k,
                          k_shot_names[k % PER_WALL % SHOT_KINDS], (double)gap);
        }
        VXK_CHECK_EQ_U64(stats.hits, expect_hits);
        VXK_CHECK_EQ_U64(stats.bullets, n + 1);
        VXK_CHECK(centre_of(w, far).x == far_end);
        free(start);
        vxk_world_destroy(w);
    }
    VXK_CHECK(moved > 300 && kept > 50);
    return 0;
}

// ---- static bodies ------------------------------------------------------------------------------

// A static obstacle for the shots: a plate (a box 1 cm thick, upright or turned 30 degrees about
// y), a voxel plate (1 x 8 x 8 voxels of 1 cm) or a sphere of 5 cm.
typedef struct static_target {
    vxk_body_id id;
    vxk_obb box; // world (a sphere: centre, half = radius)
    bool sphere;
} static_target;

// Judges a centre's path over a step against a static target, in the target's frame: a box as a
// wall shot along its x axis; a sphere by depth alone.
static void judge_target(shot_tally* t, const static_target* target, vxk_vec3 a, vxk_vec3 b)
{
    if (target->sphere) {
        depth_ctx d = {r3_of(a),          r3_of(b), {0, 0, 0}, {0, 0, 0}, r3_of(target->box.center),
                       target->box.half.x};
        double depth = fmax(0, concave_max(sphere_depth_at, &d));
        t->deepest = fmax(t->deepest, depth);
        t->entered += depth > ENTERED_DEPTH;
        return;
    }
    r3 axes[3] = {r3_of(target->box.axes.cx), r3_of(target->box.axes.cy),
                  r3_of(target->box.axes.cz)};
    vxk_vec3 la, lb;
    r3 da = r_sub(r3_of(a), r3_of(target->box.center)),
       db = r_sub(r3_of(b), r3_of(target->box.center));
    la =
        (vxk_vec3){(float)r_dot(da, axes[0]), (float)r_dot(da, axes[1]), (float)r_dot(da, axes[2])};
    lb =
        (vxk_vec3){(float)r_dot(db, axes[0]), (float)r_dot(db, axes[1]), (float)r_dot(db, axes[2])};
    wall_box wb = {{-target->box.half.x, -target->box.half.y, -target->box.half.z},
                   {target->box.half.x, target->box.half.y, target->box.half.z}};
    judge(t, la, lb, &wb, 0, 1);
}

// Bullets shot at static bodies (boxes made with the body API) never enter or pass them; the
// non-bullet figures are printed.
static int test_static_walls(void)
{
    const float speeds[2] = {100.0f, 500.0f};
    for (int si = 0; si < 2; ++si)
        for (int bullet = 1; bullet >= 0; --bullet) {
            uint64_t rng = vxk_test_seed(0x57A7 + (uint64_t)si);
            vxk_world* w = make_world(1.0f, (vxk_vec3){0, 0, 0}, NULL);
            VXK_CHECK(w != NULL);
            static_target targets[4];
            static uint8_t plate[64];
            for (int i = 0; i < 64; ++i)
                plate[i] = VXK_MAT_STONE;
            vxk_voxel_grid grid = {{1, 8, 8}, plate};
            for (int i = 0; i < 4; ++i) {
                vxk_body_def d = vxk_default_body_def();
                d.type = VXK_BODY_STATIC;
                d.position = (vxk_vec3){0, 0, 4.0f * (float)i};
                static_target* t = &targets[i];
                t->sphere = i == 3;
                if (i == 1)
                    d.rotation = axis_angle((vxk_vec3){0, 1, 0}, 0.5236f);
                if (i == 2)
                    d.shape = vxk_voxel_shape(&grid, 0.01f);
                else if (i == 3)
                    d.shape = vxk_sphere_shape(0.05f, VXK_MAT_STONE);
                else
                    d.shape = vxk_box_shape((vxk_vec3){0.005f, 0.5f, 0.5f}, VXK_MAT_STONE);
                VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &t->id), VXK_OK);
                vxk_transform tr;
                VXK_CHECK_EQ_INT(vxk_body_get_transform(w, t->id, &tr), VXK_OK);
                double qd[4] = {tr.q.x, tr.q.y, tr.q.z, tr.q.w};
                r3 col[3];
                r_rotation(qd, col);
                t->box.center = tr.p;
                t->box.axes = (vxk_mat3){{(float)col[0].x, (float)col[0].y, (float)col[0].z},
                                         {(float)col[1].x, (float)col[1].y, (float)col[1].z},
                                         {(float)col[2].x, (float)col[2].y, (float)col[2].z}};
                t->box.half = i == 2   ? (vxk_vec3){0.005f, 0.04f, 0.04f}
                              : i == 3 ? (vxk_vec3){0.05f, 0.05f, 0.05f}
                                       : (vxk_vec3){0.005f, 0.5f, 0.5f};
            }
            enum { SHOTS = 96 };
            vxk_body_id ids[SHOTS];
            int at[SHOTS];
            bool entered[SHOTS] = {false}, passed[SHOTS] = {false};
            for (int s = 0; s < SHOTS; ++s) {
                at[s] = s % 4;
                const static_target* t = &targets[at[s]];
                // Aim along the target's x axis at a point of its face, edge or rim; the sphere
                // along x at offsets up to its radius.
                float span_y = t->box.half.y, span_z = t->box.half.z;
                float oy = s % 3 == 0 ? span_y + randf(&rng, -0.006f, 0.006f)
                                      : randf(&rng, -span_y, span_y) * 0.95f;
                float oz = randf(&rng, -span_z, span_z) * 0.95f;
                vxk_vec3 ax = t->box.axes.cx, ay = t->box.axes.cy, az = t->box.axes.cz;
                float back = t->box.half.x + 0.005f + rand_log(&rng, 0.02f, 15.0f);
                vxk_vec3 p = {t->box.center.x - ax.x * back + ay.x * oy + az.x * oz,
                              t->box.center.y - ax.y * back + ay.y * oy + az.y * oz,
                              t->box.center.z - ax.z * back + ay.z * oy + az.z * oz};
                vxk_vec3 v = {ax.x * speeds[si], ax.y * speeds[si], ax.z * speeds[si]};
                ids[s] = add_shot(w, s / 4 % SHOT_KINDS, bullet != 0, p, v, &rng);
            }
            shot_tally tally;
            memset(&tally, 0, sizeof(tally));
            vxk_transform before[SHOTS];
            for (int step = 0; step < 10; ++step) {
                for (int k = 0; k < SHOTS; ++k)
                    before[k] = pose_of(w, ids[k]);
                VXK_CHECK_EQ_INT(bullet ? step_with_stage(w, 1.0f / 60.0f, NULL)
                                        : vxk_world_step(w, 1.0f / 60.0f),
                                 VXK_OK);
                for (int k = 0; k < SHOTS; ++k) {
                    vxk_vec3 probes[PROBES];
                    uint32_t n = shot_probes(w, ids[k], probes);
                    vxk_transform after = pose_of(w, ids[k]);
                    for (uint32_t j = 0; j < n; ++j) {
                        shot_tally one;
                        memset(&one, 0, sizeof(one));
                        judge_target(&one, &targets[at[k]], probe_at(before[k], probes[j]),
                                     probe_at(after, probes[j]));
                        tally.deepest = fmax(tally.deepest, one.deepest);
                        entered[k] |= one.entered > 0;
                        passed[k] |= one.passed > 0;
                    }
                }
            }
            uint32_t ne = 0, np = 0;
            for (int k = 0; k < SHOTS; ++k)
                ne += entered[k], np += passed[k];
            printf(
                "static bodies at %.0f m/s, %s: %d shots, %u entered (a piece centre > 5 mm deep), "
                "%u passed; deepest %.2e m\n",
                (double)speeds[si], bullet ? "bullets" : "not bullets", SHOTS, ne, np,
                tally.deepest);
            fflush(stdout);
            VXK_CHECK_MSG(tally.deepest <= BULLET_DEPTH && np == 0,
                          "%.0f m/s, %s: a piece centre %.2e m deep, %u passed", (double)speeds[si],
                          bullet ? "bullets" : "not bullets", tally.deepest, np);
            vxk_world_destroy(w);
        }
    return 0;
}

// ---- out of memory ------------------------------------------------------------------------------

static int test_oom(void)
{
    vxk_world* w = make_world(0.1f, (vxk_vec3){0, 0, 0}, NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(build_walls(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    uint64_t rng = vxk_test_seed(0x00A1);
    enum { N = 12 };
    vxk_body_id ids[N];
    vxk_vec3 ends[N];
    for (int k = 0; k < N; ++k) {
        wall_box wb = terrain_wall(k % 6, 0.1f);
        vxk_vec3 p = {wb.lo.x - 1.0f, randf(&rng, wb.lo.y + 0.1f, wb.hi.y - 0.1f),
                      randf(&rng, wb.lo.z + 0.1f, wb.hi.z - 0.1f)};
        ids[k] = add_shot(w, k % SHOT_KINDS, true, p, (vxk_vec3){500, 0, 0}, &rng);
        ends[k] = (vxk_vec3){wb.hi.x + 2.0f, p.y, p.z};
    }
    vxk_dynamics* dyn = vxk_dynamics_get(w);
    vxk_transform* start = record_poses(w);
    vxk_arena arena;
    uint32_t failures = 0;
    vxk_oom_tests_begin();
    OOM_SWEEP(
        {
            for (int k = 0; k < N; ++k) {
                vxk_body* b = &dyn->bodies[ids[k].index];
                b->pose = start[ids[k].index];
                b->pose.p = ends[k];
                b->aabb = vxk_body_compute_aabb(b);
            }
            vxk_narrow_cache_clear(vxk_narrow_cache_get(w));
            vxk_arena_init(&arena);
        },
        vxk_dynamics_continuous(dyn, start, &arena, 1.0f / 60.0f, NULL),
        {
            VXK_CHECK(st == VXK_OK || st == VXK_ERR_OUT_OF_MEMORY);
            failures += st != VXK_OK;
            for (int k = 0; k < N; ++k) {
                vxk_vec3 p = centre_of(w, ids[k]);
                if (st == VXK_OK)
                    VXK_CHECK(p.x < ends[k].x - 2.0f);
                else
                    VXK_CHECK(p.x == ends[k].x);
            }
        },
        vxk_arena_destroy(&arena));
    vxk_oom_tests_end();
    VXK_CHECK(failures > 0);
    free(start);
    vxk_world_destroy(w);
    return 0;
}

int main(void)
{
    VXK_RUN(test_sweep_motion);
    VXK_RUN(test_separation_exact);
    VXK_RUN(test_toi_brute_force);
    VXK_RUN(test_guard_brute_force);
    VXK_RUN(test_guard_slide);
    VXK_RUN(test_forced_steps);
    VXK_RUN(test_terrain_walls);
    VXK_RUN(test_static_walls);
    VXK_RUN(test_determinism);
    VXK_RUN_SWEEP(test_oom);
    return vxk_test_finish();
}
