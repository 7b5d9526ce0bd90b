// test_capsule.c: the capsule shape against references that share no code with the kernel:
// contact separations against a brute-force closest-point search in double on random poses (and
// overlaps undone by moving along the reported normal), rays against a bisection on the capsule's
// distance function, mass and inertia against a numerical integration, a capsule resting on its
// side on terrain and on a voxel body, rolling down an incline at g sin(theta) / (1 + I / (m r^2)),
// no tunnelling at 100 m/s, and bad shape defs refused.
#include "contact_capsule.h"
#include "ref_geometry.h"
#include "test.h"

#include <vxk/body.h>
#include <vxk/raycast.h>
#include <vxk/world.h>

#include <math.h>

// ---- references (double) -----------------------------------------------------------------------

// Distance from p to segment [a, b].
static double ref_point_segment(dvec p, dvec a, dvec b)
{
    dvec d = d_sub(b, a);
    double dd = d_dot(d, d), t = dd > 0.0 ? d_dot(d_sub(p, a), d) / dd : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return d_len(d_sub(p, d_add(a, d_scale(d, t))));
}

typedef double (*point_distance)(dvec p, const void* ctx);

// The minimum over segment [a, b] of a convex distance function: dense samples, then a ternary
// search around the best.
static double ref_segment_min(dvec a, dvec b, point_distance f, const void* ctx)
{
    const int n = 4000;
    double best = INFINITY;
    int at = 0;
    for (int i = 0; i <= n; ++i) {
        double v = f(d_add(a, d_scale(d_sub(b, a), (double)i / n)), ctx);
        if (v < best)
            best = v, at = i;
    }
    double lo = (at > 0 ? at - 1 : 0) / (double)n, hi = (at < n ? at + 1 : n) / (double)n;
    for (int it = 0; it < 100; ++it) {
        double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
        double f1 = f(d_add(a, d_scale(d_sub(b, a), m1)), ctx);
        double f2 = f(d_add(a, d_scale(d_sub(b, a), m2)), ctx);
        if (f1 < f2)
            hi = m2;
        else
            lo = m1;
    }
    double v = f(d_add(a, d_scale(d_sub(b, a), 0.5 * (lo + hi))), ctx);
    return v < best ? v : best;
}

// Distance from p to the box (0 inside).
static double box_distance_fn(dvec p, const void* ctx)
{
    return fmax(box_sdf((const dbox*)ctx, p), 0.0);
}

typedef struct ref_segment {
    dvec a, b;
} ref_segment;

static double segment_distance_fn(dvec p, const void* ctx)
{
    const ref_segment* s = (const ref_segment*)ctx;
    return ref_point_segment(p, s->a, s->b);
}

// ---- random poses ------------------------------------------------------------------------------

static vxk_quat random_quat(uint64_t* rng)
{
    vxk_quat q;
    float l;
    do {
        q = (vxk_quat){vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                       vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1)};
        l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    } while (l < 0.1f || l > 1.0f);
    return (vxk_quat){q.x / l, q.y / l, q.z / l, q.w / l};
}

static vxk_vec3 rotate(vxk_quat q, vxk_vec3 v)
{
    // v + 2 w (q.v x v) + 2 q.v x (q.v x v)
    vxk_vec3 u = {q.x, q.y, q.z};
    vxk_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z),
                  2 * (u.x * v.y - u.y * v.x)};
    return (vxk_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                      v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                      v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

static vxk_capsule random_capsule(uint64_t* rng, float spread)
{
    vxk_vec3 c = {vxk_test_randf(rng, -spread, spread), vxk_test_randf(rng, -spread, spread),
                  vxk_test_randf(rng, -spread, spread)};
    vxk_vec3 axis = rotate(random_quat(rng), (vxk_vec3){0, vxk_test_randf(rng, 0.05f, 1.0f), 0});
    float r = vxk_test_randf(rng, 0.05f, 0.6f);
    return (vxk_capsule){
        {c.x - axis.x, c.y - axis.y, c.z - axis.z}, {c.x + axis.x, c.y + axis.y, c.z + axis.z}, r};
}

static double min_separation(const vxk_manifold* m)
{
    double s = INFINITY;
    for (uint32_t i = 0; i < m->point_count; ++i)
        s = fmin(s, m->points[i].separation);
    return s;
}

// A manifold's normal is unit and its deepest point matches the reference separation (apart), or
// is negative (overlapping).
static int check_manifold(const vxk_manifold* m, double ref, float margin, const char* what, int k)
{
    if (ref > margin + 1e-4) {
        VXK_CHECK_MSG(m->point_count == 0, "%s %d: points at reference separation %g", what, k,
                      ref);
        return 0;
    }
    if (ref < margin - 1e-4)
        VXK_CHECK_MSG(m->point_count > 0, "%s %d: no point at reference separation %g", what, k,
                      ref);
    if (!m->point_count)
        return 0;
    VXK_CHECK_MSG(fabs(d_len(dv(m->normal)) - 1.0) < 1e-4, "%s %d: normal not unit", what, k);
    double got = min_separation(m);
    if (ref > 1e-4)
        VXK_CHECK_MSG(fabs(got - ref) < 2e-4, "%s %d: separation %g, reference %g", what, k, got,
                      ref);
    else
        VXK_CHECK_MSG(got < 2e-4, "%s %d: overlapping (reference %g) but separation %g", what, k,
                      ref, got);
    return 0;
}

static int test_capsule_sphere_random(void)
{
    uint64_t rng = vxk_test_seed(0xCA95);
    for (int k = 0; k < 2000; ++k) {
        vxk_capsule c = random_capsule(&rng, 0.2f);
        vxk_vec3 s = {vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2),
                      vxk_test_randf(&rng, -2, 2)};
        float rs = vxk_test_randf(&rng, 0.05f, 0.8f), margin = 0.05f;
        vxk_manifold m;
        vxk_collide_capsule_sphere(&m, &c, s, rs, margin);
        double ref = ref_point_segment(dv(s), dv(c.p0), dv(c.p1)) - c.radius - rs;
        if (check_manifold(&m, ref, margin, "capsule-sphere", k))
            return 1;
    }
    return 0;
}

static int test_capsules_random(void)
{
    uint64_t rng = vxk_test_seed(0xCA96);
    int parallel_pairs = 0;
    for (int k = 0; k < 1500; ++k) {
        vxk_capsule a = random_capsule(&rng, 0.6f), b = random_capsule(&rng, 0.6f);
        if (k % 5 == 0) { // parallel, side by side
            vxk_vec3 shift =
                rotate(random_quat(&rng), (vxk_vec3){vxk_test_randf(&rng, 0, 1.5f), 0, 0});
            b.p0 = (vxk_vec3){a.p0.x + shift.x, a.p0.y + shift.y, a.p0.z + shift.z};
            b.p1 = (vxk_vec3){a.p1.x + shift.x, a.p1.y + shift.y, a.p1.z + shift.z};
        }
        float margin = 0.05f;
        vxk_manifold m;
        vxk_collide_capsules(&m, &a, &b, margin);
        ref_segment sb = {dv(b.p0), dv(b.p1)};
        double ref =
            ref_segment_min(dv(a.p0), dv(a.p1), segment_distance_fn, &sb) - a.radius - b.radius;
        if (check_manifold(&m, ref, margin, "capsule-capsule", k))
            return 1;
        parallel_pairs += m.point_count == 2;
    }
    VXK_CHECK_MSG(parallel_pairs > 50, "only %d two-point manifolds", parallel_pairs);
    return 0;
}

static vxk_obb random_obb(uint64_t* rng)
{
    vxk_quat q = random_quat(rng);
    vxk_obb o;
    o.center = (vxk_vec3){vxk_test_randf(rng, -0.3f, 0.3f), vxk_test_randf(rng, -0.3f, 0.3f),
                          vxk_test_randf(rng, -0.3f, 0.3f)};
    o.axes.cx = rotate(q, (vxk_vec3){1, 0, 0});
    o.axes.cy = rotate(q, (vxk_vec3){0, 1, 0});
    o.axes.cz = rotate(q, (vxk_vec3){0, 0, 1});
    o.half = (vxk_vec3){vxk_test_randf(rng, 0.1f, 1.0f), vxk_test_randf(rng, 0.1f, 1.0f),
                        vxk_test_randf(rng, 0.1f, 1.0f)};
    return o;
}

static int test_box_capsule_random(void)
{
    uint64_t rng = vxk_test_seed(0xCA97);
    int overlapping = 0, apart = 0;
    for (int k = 0; k < 1500; ++k) {
        vxk_obb o = random_obb(&rng);
        vxk_capsule c = random_capsule(&rng, 1.6f);
        float margin = 0.05f;
        vxk_manifold m;
        vxk_collide_box_capsule(&m, &o, &c, margin);
        dbox rb = dbox_of(&o);
        double dist = ref_segment_min(dv(c.p0), dv(c.p1), box_distance_fn, &rb);
        double ref = dist - c.radius;
        if (dist > 1e-6) {
            apart++;
            if (check_manifold(&m, ref, margin, "box-capsule", k))
                return 1;
            continue;
        }
        // The segment meets the box: moving the capsule out along the normal by the depth
        // separates it.
        overlapping++;
        VXK_CHECK_MSG(m.point_count > 0, "box-capsule %d: overlapping without points", k);
        double depth = -min_separation(&m);
        VXK_CHECK_MSG(depth > c.radius - 1e-4, "box-capsule %d: depth %g below radius %g", k, depth,
                      (double)c.radius);
        dvec move = d_scale(dv(m.normal), depth + 1e-3);
        double after =
            ref_segment_min(d_add(dv(c.p0), move), d_add(dv(c.p1), move), box_distance_fn, &rb) -
            c.radius;
        VXK_CHECK_MSG(after > 0.0, "box-capsule %d: still overlapping by %g after the move", k,
                      -after);
    }
    VXK_CHECK(overlapping > 50 && apart > 500);
    return 0;
}

// A capsule lying flat over a box face gives two points, one at each end.
static int test_box_capsule_flat(void)
{
    vxk_obb o = {{0, 0, 0}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {2, 0.5f, 2}};
    vxk_capsule c = {{-0.7f, 0.8f, 0.1f}, {0.9f, 0.8f, 0.1f}, 0.3f};
    vxk_manifold m;
    VXK_CHECK_EQ_INT(vxk_collide_box_capsule(&m, &o, &c, 0.05f), 2);
    VXK_CHECK(fabsf(m.normal.y - 1.0f) < 1e-6f);
    for (int i = 0; i < 2; ++i) {
        VXK_CHECK(fabsf(m.points[i].separation - 0.0f) < 1e-5f);
        VXK_CHECK(fabsf(m.points[i].point.y - 0.5f) < 1e-6f);
    }
    VXK_CHECK(fabsf(fabsf(m.points[0].point.x - m.points[1].point.x) - 1.6f) < 1e-5f);
    return 0;
}

static int test_face_capsule_random(void)
{
    uint64_t rng = vxk_test_seed(0xCA98);
    for (int k = 0; k < 1500; ++k) {
        vxk_face f;
        memset(&f, 0, sizeof(f));
        f.axis = (uint8_t)(vxk_test_rand(&rng) % 3);
        f.positive = (uint8_t)(vxk_test_rand(&rng) & 1);
        f.size_u = vxk_test_randf(&rng, 0.25f, 2.0f);
        f.size_v = vxk_test_randf(&rng, 0.25f, 2.0f);
        f.min = (vxk_vec3){-0.5f, -0.5f, -0.5f};
        f.edges = 0; // all flat: the normal is the face's wherever the closest point lies
        f.material = 1;
        vxk_capsule c = random_capsule(&rng, 1.2f);
        float margin = 0.05f;
        vxk_manifold m[2];
        uint32_t n = vxk_collide_face_capsule(m, &f, &c, margin);
        // Reference: flat edges make the separation the height above the plane of the lowest
        // segment point over the rectangle, less the radius; points behind the plane give none.
        uint32_t u = f.axis == 0 ? 2u : 0u, v = f.axis == 1 ? 2u : 1u;
        double sign = f.positive ? 1.0 : -1.0, best = INFINITY;
        int over = 0;
        for (int i = 0; i <= 4000; ++i) {
            double t = i / 4000.0;
            dvec p = d_add(dv(c.p0), d_scale(d_sub(dv(c.p1), dv(c.p0)), t));
            double pc[3] = {p.x, p.y, p.z}, lo[3] = {f.min.x, f.min.y, f.min.z};
            double hu = lo[u] + f.size_u, hv = lo[v] + f.size_v;
            double height = sign * (pc[f.axis] - lo[f.axis]);
            if (pc[u] < lo[u] || pc[u] > hu || pc[v] < lo[v] || pc[v] > hv || height < 0.0)
                continue;
            over = 1;
            best = fmin(best, height - c.radius);
        }
        if (!over)
            continue; // the segment misses the rectangle: an edge contact, checked below
        double got = INFINITY;
        for (uint32_t j = 0; j < n; ++j) {
            VXK_CHECK(fabsf(vxk_v3_get(m[j].normal, f.axis) - (float)sign) < 1e-5f);
            got = fmin(got, min_separation(&m[j]));
        }
        if (best > margin - 1e-3) { // at or past the margin: a point, if any, is at the margin
            VXK_CHECK_MSG(n == 0 || got > margin - 2e-3, "face-capsule %d: point at %g", k, got);
            continue;
        }
        VXK_CHECK_MSG(n > 0, "face-capsule %d: no point, reference %g", k, best);
        VXK_CHECK_MSG(fabs(got - best) < 1e-3, "face-capsule %d: separation %g, reference %g", k,
                      got, best);
    }
    return 0;
}

// ---- the shape in a world ----------------------------------------------------------------------

static vxk_world* floor_world(float voxel, bool sleep)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.voxel_size = voxel;
    wd.enable_sleep = sleep;
    vxk_world* w = NULL;
    if (vxk_world_create(&wd, &w) != VXK_OK)
        return NULL;
    int32_t half = (int32_t)ceilf(6.0f / voxel), deep = (int32_t)ceilf(1.0f / voxel);
    if (vxk_world_fill_box(w, (vxk_int_box){{-half, -deep, -half}, {half - 1, -1, half - 1}},
                           VXK_MAT_STONE) != VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    return w;
}

static vxk_quat axis_angle(vxk_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return (vxk_quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

static int test_mass_closed_form(void)
{
    const float r = 0.3f, h = 0.55f;
    vxk_world* w = floor_world(0.25f, false);
    VXK_CHECK(w != NULL);
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_capsule_shape(h, r, VXK_MAT_WOOD);
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    vxk_world_destroy(w);
    // Reference: the midpoint rule over a grid of the capsule's box (density 1 per unit volume,
    // then scaled by the material's density through the kernel's mass / volume).
    const int n = 160;
    double ex = r, ey = h + r, dx = 2 * ex / n, dy = 2 * ey / n, dz = 2 * ex / n;
    double vol = 0, ixx = 0, iyy = 0, izz = 0;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
            for (int c = 0; c < n; ++c) {
                double x = -ex + (a + 0.5) * dx, y = -ey + (b + 0.5) * dy, z = -ex + (c + 0.5) * dz;
                double cy = y < -h ? -h : (y > h ? h : y);
                if (x * x + (y - cy) * (y - cy) + z * z > (double)r * r)
                    continue;
                double dv_ = dx * dy * dz;
                vol += dv_;
                ixx += (y * y + z * z) * dv_;
                iyy += (x * x + z * z) * dv_;
                izz += (x * x + y * y) * dv_;
            }
    const double pi = 3.14159265358979323846;
    double exact_vol = pi * r * r * 2 * h + 4.0 / 3.0 * pi * r * r * r;
    VXK_CHECK_MSG(fabs(vol / exact_vol - 1) < 2e-3, "grid volume %g, exact %g", vol, exact_vol);
    double rho = info.mass / exact_vol;
    VXK_CHECK_MSG(fabs(info.inertia[0][0] / (rho * ixx) - 1) < 5e-3, "Ixx %g, reference %g",
                  info.inertia[0][0], rho * ixx);
    VXK_CHECK_MSG(fabs(info.inertia[1][1] / (rho * iyy) - 1) < 5e-3, "Iyy %g, reference %g",
                  info.inertia[1][1], rho * iyy);
    VXK_CHECK_MSG(fabs(info.inertia[2][2] / (rho * izz) - 1) < 5e-3, "Izz %g, reference %g",
                  info.inertia[2][2], rho * izz);
    VXK_CHECK(fabs(info.inertia[0][1]) < 1e-9 && fabs(info.inertia[1][2]) < 1e-9);
    return 0;
}

// A capsule laid on its side settles with its axis level and its surface on the ground.
static int settle_on_side(vxk_world* w, float ground, const char* what)
{
    const float r = 0.2f, h = 0.5f;
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_capsule_shape(h, r, VXK_MAT_WOOD);
    bd.position = (vxk_vec3){0.13f, ground + r + 0.05f, -0.07f};
    bd.rotation = axis_angle((vxk_vec3){0, 0, 1}, 1.5707963f);
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    for (int s = 0; s < 180; ++s)
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    vxk_transform pose;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &pose), VXK_OK);
    vxk_vec3 p = pose.p;
    vxk_quat q = pose.q;
    vxk_vec3 axis = rotate(q, (vxk_vec3){0, 1, 0});
    VXK_CHECK_MSG(fabsf(p.y - (ground + r)) < 0.005f, "%s: centre %g above the ground, want %g",
                  what, (double)(p.y - ground), (double)r);
    VXK_CHECK_MSG(fabsf(axis.y) < 0.01f, "%s: axis tilted, y %g", what, (double)axis.y);
    vxk_vec3 v, av;
    VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
    VXK_CHECK_MSG(sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) < 0.01f, "%s: still moving", what);
    return 0;
}

static int test_rest_on_terrain(void)
{
    vxk_world* w = floor_world(0.25f, true);
    VXK_CHECK(w != NULL);
    int r = settle_on_side(w, 0.0f, "terrain");
    vxk_world_destroy(w);
    return r;
}

static int test_rest_on_voxel_body(void)
{
    vxk_world* w = floor_world(0.25f, true);
    VXK_CHECK(w != NULL);
    // A static voxel slab, 2 voxels thick, its top at y = 1.
    vxk_int3 size = {12, 2, 12};
    static uint8_t voxels[12 * 2 * 12];
    memset(voxels, VXK_MAT_STONE, sizeof(voxels));
    vxk_voxel_grid g = {size, voxels};
    vxk_body_def bd = vxk_default_body_def();
    bd.type = VXK_BODY_STATIC;
    bd.shape = vxk_voxel_shape(&g, 0.25f);
    bd.position = (vxk_vec3){0.05f, 0.75f, 0.02f};
    vxk_body_id slab;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &slab), VXK_OK);
    int r = settle_on_side(w, 1.0f, "voxel body");
    vxk_world_destroy(w);
    return r;
}

// A capsule rolling down a static box tilted by theta, about its own axis, without slipping:
// distance along the slope 1/2 a t^2 with a = g sin(theta) / (1 + I / (m r^2)).
static int test_rolling_incline(void)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.enable_sleep = false;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    const float theta = 0.25f, r = 0.25f, h = 0.4f;
    vxk_quat tilt = axis_angle((vxk_vec3){0, 0, 1}, theta); // slope falls towards -x
    vxk_body_def ramp = vxk_default_body_def();
    ramp.type = VXK_BODY_STATIC;
    ramp.shape = vxk_box_shape((vxk_vec3){20, 0.5f, 3}, VXK_MAT_STONE);
    ramp.rotation = tilt;
    ramp.friction = 1.0f;
    vxk_body_id rid;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &ramp, &rid), VXK_OK);
    vxk_vec3 up = rotate(tilt, (vxk_vec3){0, 1, 0}), down = rotate(tilt, (vxk_vec3){-1, 0, 0});
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_capsule_shape(h, r, VXK_MAT_WOOD);
    bd.friction = 1.0f;
    // Axis along z (across the slope), resting on the surface at x = 8 along the slope.
    bd.rotation = vxk_quat_mul(tilt, axis_angle((vxk_vec3){1, 0, 0}, 1.5707963f));
    vxk_vec3 start = rotate(tilt, (vxk_vec3){8, 0.5f + r, 0});
    bd.position = start;
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    // The axial moment: the body's inertia along its segment (body y).
    double I = info.inertia[1][1], m = info.mass;
    double a = 9.81 * sin(theta) / (1.0 + I / (m * r * r));
    const int steps = 60;
    for (int s = 0; s < steps; ++s)
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    vxk_transform pose;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &pose), VXK_OK);
    vxk_vec3 p = pose.p;
    vxk_world_destroy(w);
    dvec moved = d_sub(dv(p), dv(start));
    double along = d_dot(moved, dv(down)), off = d_dot(moved, dv(up));
    double want = 0.5 * a * 1.0 * 1.0;
    VXK_CHECK_MSG(fabs(along / want - 1.0) < 0.02, "rolled %g m, analytic %g m", along, want);
    VXK_CHECK_MSG(fabs(off) < 0.01, "left the surface by %g m", off);
    // Sliding alone would give g sin(theta) t^2 / 2: the rolling figure must be well below it.
    VXK_CHECK(along < 0.9 * 0.5 * 9.81 * sin(theta));
    return 0;
}

// Fired at 100 m/s into the ground and into a thin static wall, in several orientations: the
// capsule ends in front of both.
static int test_no_tunnelling(void)
{
    for (int k = 0; k < 6; ++k) {
        vxk_world* w = floor_world(0.25f, false);
        VXK_CHECK(w != NULL);
        vxk_body_def wall = vxk_default_body_def();
        wall.type = VXK_BODY_STATIC;
        wall.shape = vxk_box_shape((vxk_vec3){0.05f, 3, 3}, VXK_MAT_STONE);
        wall.position = (vxk_vec3){5, 3, 0};
        vxk_body_id wid;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &wall, &wid), VXK_OK);
        const float r = 0.1f, h = 0.3f;
        vxk_body_def down = vxk_default_body_def();
        down.shape = vxk_capsule_shape(h, r, VXK_MAT_METAL);
        down.position = (vxk_vec3){-2, 4, 0};
        down.rotation = axis_angle((vxk_vec3){0.6f, 0, 0.8f}, 0.5f * (float)k);
        down.linear_velocity = (vxk_vec3){0, -100, 0};
        vxk_body_def side = down;
        side.position = (vxk_vec3){2, 3, 0};
        side.linear_velocity = (vxk_vec3){100, 0, 0};
        side.gravity_scale = 0;
        vxk_body_id a, b;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &down, &a), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_create(w, &side, &b), VXK_OK);
        for (int s = 0; s < 30; ++s) {
            VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
            vxk_transform ta, tb;
            VXK_CHECK_EQ_INT(vxk_body_get_transform(w, a, &ta), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_body_get_transform(w, b, &tb), VXK_OK);
            vxk_vec3 pa = ta.p, pb = tb.p;
            VXK_CHECK_MSG(pa.y > 0.0f, "orientation %d step %d: centre %g below the ground", k, s,
                          (double)pa.y);
            VXK_CHECK_MSG(pb.x < 5.0f, "orientation %d step %d: centre %g behind the wall", k, s,
                          (double)pb.x);
        }
        vxk_world_destroy(w);
    }
    return 0;
}

// Rays from random origins against a capsule body: the hit distance against a bisection on the
// capsule's distance function (ray marched in double).
static int test_raycast(void)
{
    vxk_world_def wd = vxk_default_world_def();
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    uint64_t rng = vxk_test_seed(0xCA99);
    const float r = 0.35f, h = 0.6f;
    vxk_body_def bd = vxk_default_body_def();
    bd.type = VXK_BODY_STATIC;
    bd.shape = vxk_capsule_shape(h, r, VXK_MAT_WOOD);
    bd.position = (vxk_vec3){1.5f, 2.0f, -0.5f};
    bd.rotation = random_quat(&rng);
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    vxk_vec3 axis = rotate(bd.rotation, (vxk_vec3){0, h, 0});
    dvec s0 = d_sub(dv(bd.position), dv(axis)), s1 = d_add(dv(bd.position), dv(axis));
    int hits = 0;
    for (int k = 0; k < 400; ++k) {
        vxk_vec3 o = {bd.position.x + vxk_test_randf(&rng, -3, 3),
                      bd.position.y + vxk_test_randf(&rng, -3, 3),
                      bd.position.z + vxk_test_randf(&rng, -3, 3)};
        vxk_vec3 target = {bd.position.x + vxk_test_randf(&rng, -1, 1),
                           bd.position.y + vxk_test_randf(&rng, -1, 1),
                           bd.position.z + vxk_test_randf(&rng, -1, 1)};
        dvec d = d_sub(dv(target), dv(o));
        d = d_scale(d, 1.0 / d_len(d));
        vxk_ray_query q;
        memset(&q, 0, sizeof(q));
        q.ray.origin = o;
        q.ray.direction = (vxk_vec3){(float)d.x, (float)d.y, (float)d.z};
        q.ray.max_distance = 20.0f;
        q.filter = vxk_default_ray_filter();
        vxk_ray_result res;
        VXK_CHECK_EQ_INT(vxk_raycast_query(w, &res, &q), VXK_OK);
        // Reference: march until inside, then bisect.
        double t = 0.0, ref = INFINITY;
        dvec od = dv(o);
        if (ref_point_segment(od, s0, s1) <= r) {
            ref = 0.0;
        } else {
            for (; t < 20.0; t += 1e-3) {
                dvec p = d_add(od, d_scale(d, t));
                if (ref_point_segment(p, s0, s1) <= r) {
                    double lo = t - 1e-3, hi = t;
                    for (int it = 0; it < 60; ++it) {
                        double mid = 0.5 * (lo + hi);
                        if (ref_point_segment(d_add(od, d_scale(d, mid)), s0, s1) <= r)
                            hi = mid;
                        else
                            lo = mid;
                    }
                    ref = hi;
                    break;
                }
            }
        }
        if (ref == INFINITY) {
            VXK_CHECK_MSG(!VXK_ID_EQUAL(res.body, id), "ray %d: hit, reference misses", k);
            continue;
        }
        VXK_CHECK_MSG(VXK_ID_EQUAL(res.body, id), "ray %d: missed, reference at %g", k, ref);
        VXK_CHECK_MSG(fabs(res.distance - ref) < 1e-4, "ray %d: distance %g, reference %g", k,
                      (double)res.distance, ref);
        hits++;
    }
    VXK_CHECK(hits > 100);
    vxk_world_destroy(w);
    return 0;
}

// Rays of unlimited length that miss a capsule miss it: a miss left the capsule's test with an
// infinite distance, which max_distance INFINITY let through as a hit at infinity (point NaN),
// found by test_api_fuzz. Rays that hit report the same distance with or without the limit.
static int test_raycast_unlimited(void)
{
    vxk_world_def wd = vxk_default_world_def();
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    uint64_t rng = vxk_test_seed(0xCA9A);
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_capsule_shape(0.6f, 0.35f, VXK_MAT_WOOD);
    bd.position = (vxk_vec3){-17.5f, 113.3f, 0.35f};
    bd.rotation = random_quat(&rng);
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    int misses = 0, hits = 0;
    for (int k = 0; k < 400; ++k) {
        vxk_ray_query q;
        memset(&q, 0, sizeof(q));
        q.ray.origin = (vxk_vec3){vxk_test_randf(&rng, -3, 3), vxk_test_randf(&rng, -3, 3),
                                  vxk_test_randf(&rng, -3, 3)};
        // Towards the capsule's neighbourhood: some hit, most pass by.
        vxk_vec3 target = {bd.position.x + vxk_test_randf(&rng, -1.5f, 1.5f),
                           bd.position.y + vxk_test_randf(&rng, -1.5f, 1.5f),
                           bd.position.z + vxk_test_randf(&rng, -1.5f, 1.5f)};
        q.ray.direction = (vxk_vec3){target.x - q.ray.origin.x, target.y - q.ray.origin.y,
                                     target.z - q.ray.origin.z};
        q.ray.max_distance = INFINITY;
        q.filter = vxk_default_ray_filter();
        vxk_ray_result unlimited, limited;
        VXK_CHECK_EQ_INT(vxk_raycast_query(w, &unlimited, &q), VXK_OK);
        q.ray.max_distance = 1000.0f;
        VXK_CHECK_EQ_INT(vxk_raycast_query(w, &limited, &q), VXK_OK);
        VXK_CHECK_MSG(unlimited.target == limited.target, "ray %d: target %d, with a limit %d", k,
                      unlimited.target, limited.target);
        if (unlimited.target == VXK_RAY_TARGET_NONE) {
            misses++;
            continue;
        }
        hits++;
        VXK_CHECK(VXK_ID_EQUAL(unlimited.body, id));
        VXK_CHECK_MSG(isfinite(unlimited.distance) && unlimited.distance == limited.distance &&
                          isfinite(unlimited.point.x) && isfinite(unlimited.point.y) &&
                          isfinite(unlimited.point.z),
                      "ray %d: distance %g, with a limit %g", k, (double)unlimited.distance,
                      (double)limited.distance);
    }
    VXK_CHECK(misses > 100 && hits > 10);
    vxk_world_destroy(w);
    return 0;
}

static int test_bad_defs(void)
{
    vxk_world* w = floor_world(0.5f, true);
    VXK_CHECK(w != NULL);
    vxk_body_id id;
    vxk_body_def bd = vxk_default_body_def();
    bd.shape = vxk_capsule_shape(NAN, 0.2f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_NOT_FINITE);
    bd.shape = vxk_capsule_shape(INFINITY, 0.2f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_NOT_FINITE);
    bd.shape = vxk_capsule_shape(0.5f, NAN, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_NOT_FINITE);
    bd.shape = vxk_capsule_shape(0.0f, 0.2f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_OUT_OF_RANGE);
    bd.shape = vxk_capsule_shape(-1.0f, 0.2f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_OUT_OF_RANGE);
    bd.shape = vxk_capsule_shape(0.5f, 0.0f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_OUT_OF_RANGE);
    bd.shape = vxk_capsule_shape(0.5f, 0.2f, VXK_MAT_AIR);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_ERR_BAD_MATERIAL);
    VXK_CHECK_EQ_INT(vxk_world_body_count(w), 0);
    bd.shape = vxk_capsule_shape(0.5f, 0.2f, VXK_MAT_WOOD);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    VXK_CHECK_EQ_INT(info.shape, VXK_SHAPE_CAPSULE);
    vxk_world_destroy(w);
    return 0;
}

// The time-of-impact separation of capsule pieces (toi.h custom pieces) against spheres, boxes,
// capsules, and of a box and a sphere piece against a capsule obstacle, against the brute-force
// distances while apart.
static int test_toi_separation(void)
{
    uint64_t rng = vxk_test_seed(0xCA9A);
    int apart = 0;
    for (int k = 0; k < 600; ++k) {
        const float h = vxk_test_randf(&rng, 0.05f, 0.8f), r = vxk_test_randf(&rng, 0.05f, 0.5f);
        vxk_toi_piece piece = vxk_capsule_piece((vxk_vec3){0.1f, -0.2f, 0.05f}, h, r);
        vxk_transform pose = {
            {vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2)},
            random_quat(&rng)};
        vxk_vec3 c = rotate(pose.q, piece.center), axis = rotate(pose.q, (vxk_vec3){0, h, 0});
        dvec mid = d_add(dv(pose.p), dv(c));
        ref_segment seg = {d_sub(mid, dv(axis)), d_add(mid, dv(axis))};
        vxk_obb box = random_obb(&rng);
        dbox rb = dbox_of(&box);
        vxk_toi_obstacle obstacles[3];
        double refs[3];
        obstacles[0] = vxk_toi_box_obstacle(&box);
        refs[0] = ref_segment_min(seg.a, seg.b, box_distance_fn, &rb) - r;
        vxk_vec3 sc = {vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, 1), 0.3f};
        float sr = vxk_test_randf(&rng, 0.05f, 0.6f);
        obstacles[1] = vxk_toi_sphere_obstacle(sc, sr);
        refs[1] = ref_point_segment(dv(sc), seg.a, seg.b) - r - sr;
        // Another capsule as a static obstacle, and the swapped pair: a sphere piece against it.
        vxk_toi_piece other = vxk_capsule_piece((vxk_vec3){0, 0, 0}, 0.5f, 0.2f);
        vxk_transform at = {{0.4f, 0.1f, -0.3f}, random_quat(&rng)};
        vxk_aabb world, local;
        obstacles[2] = vxk_toi_piece_obstacle(&other, at, (vxk_vec3){0, 0, 0}, &world, &local);
        vxk_vec3 oaxis = rotate(at.q, (vxk_vec3){0, 0.5f, 0});
        ref_segment oseg = {d_sub(dv(at.p), dv(oaxis)), d_add(dv(at.p), dv(oaxis))};
        refs[2] = ref_segment_min(seg.a, seg.b, segment_distance_fn, &oseg) - r - 0.2;
        for (int j = 0; j < 3; ++j) {
            vxk_vec3 n;
            float got = vxk_toi_separation(&n, &piece, pose, &obstacles[j]);
            if (refs[j] <= 1e-3) {
                VXK_CHECK_MSG(got < 1e-3, "pair %d/%d: overlapping, separation %g", k, j,
                              (double)got);
                continue;
            }
            apart++;
            VXK_CHECK_MSG(fabs(got - refs[j]) < 2e-4, "pair %d/%d: separation %g, reference %g", k,
                          j, (double)got, refs[j]);
            VXK_CHECK(fabs(d_len(dv(n)) - 1.0) < 1e-4);
        }
        vxk_toi_piece ball = {{0, 0, 0}, {0, 0, 0}, sr, VXK_TOI_SPHERE, NULL};
        vxk_transform ball_pose = {sc, {0, 0, 0, 1}};
        vxk_vec3 n;
        float got = vxk_toi_separation(&n, &ball, ball_pose, &obstacles[2]);
        double ref = ref_point_segment(dv(sc), oseg.a, oseg.b) - sr - 0.2;
        if (ref > 1e-3) {
            VXK_CHECK_MSG(fabs(got - ref) < 2e-4, "sphere %d: separation %g, reference %g", k,
                          (double)got, ref);
            // The axis points from the capsule obstacle's nearest point towards the sphere.
            dvec d = d_sub(oseg.b, oseg.a);
            double t = d_dot(d_sub(dv(sc), oseg.a), d) / d_dot(d, d);
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            dvec towards = d_sub(dv(sc), d_add(oseg.a, d_scale(d, t)));
            VXK_CHECK(d_dot(dv(n), towards) > 0.999 * d_len(towards));
        }
    }
    VXK_CHECK(apart > 600);
    return 0;
}

int main(void)
{
    VXK_RUN(test_capsule_sphere_random);
    VXK_RUN(test_capsules_random);
    VXK_RUN(test_box_capsule_random);
    VXK_RUN(test_box_capsule_flat);
    VXK_RUN(test_face_capsule_random);
    VXK_RUN(test_toi_separation);
    VXK_RUN(test_mass_closed_form);
    VXK_RUN(test_rest_on_terrain);
    VXK_RUN(test_rest_on_voxel_body);
    VXK_RUN(test_rolling_incline);
    VXK_RUN(test_no_tunnelling);
    VXK_RUN(test_raycast);
    VXK_RUN(test_raycast_unlimited);
    VXK_RUN(test_bad_defs);
    return vxk_test_finish();
}
