// test_contact_geometry.c: contact manifolds (contact_geometry.h) against references written
// here in double precision and sharing no code with the kernel: exact signed distances of boxes,
// spheres and rectangles, box corners enumerated and projected on the 15 separating axes and on
// 2,000 sampled directions, points sampled inside shapes for overlap, a hull-area reducer over
// all candidates (and every 4-subset for the quadrilateral). Analytic cases (spheres, a box
// resting on a box, a sphere and a box at a convex edge), seeded random inputs in thousands,
// flipping, feature-id stability under small motions (resting, overhanging, flush stacks, crossed
// edges), seams of coplanar faces with flat edges inside a chunk and across chunks at 200
// positions for each of the 6 normals, and degenerate inputs that must not produce NaN.
#include "test.h"

#include "contact_geometry.h"
#include "ref_geometry.h"

#include <float.h>
#include <math.h>

// ---- double-precision references -------------------------------------------------------------

static void box_corners(dvec out[8], const dbox* b)
{
    for (int v = 0; v < 8; ++v) {
        dvec p = b->c;
        for (int i = 0; i < 3; ++i)
            p = d_add(p, d_scale(b->ax[i], (v >> i & 1) ? b->h[i] : -b->h[i]));
        out[v] = p;
    }
}

// min over B of x.l minus max over A of x.l: positive = a gap along l.
static double gap_along(const dvec* ca, int na, const dvec* cb, int nb, dvec l)
{
    double max_a = -DBL_MAX, min_b = DBL_MAX;
    for (int i = 0; i < na; ++i)
        max_a = fmax(max_a, d_dot(ca[i], l));
    for (int i = 0; i < nb; ++i)
        min_b = fmin(min_b, d_dot(cb[i], l));
    return min_b - max_a;
}

// Unit directions on the sphere (Fibonacci lattice).
#define DIRECTION_COUNT 2000
static dvec g_directions[DIRECTION_COUNT];
static void init_directions(void)
{
    const double golden = 2.399963229728653;
    for (int i = 0; i < DIRECTION_COUNT; ++i) {
        double y = 1.0 - 2.0 * (i + 0.5) / DIRECTION_COUNT;
        double r = sqrt(1.0 - y * y);
        g_directions[i] = (dvec){r * cos(golden * i), y, r * sin(golden * i)};
    }
}

// The candidate axes of two convex polyhedra with edge directions ea[na], eb[nb] and face
// normals: the largest gap over them (exact separation test for boxes) and the smallest overlap
// over them and the sampled directions (the penetration depth, for overlapping shapes).
typedef struct gap_summary {
    double max_gap;     // > 0: separated
    double min_overlap; // over the axes and the sampled directions
} gap_summary;

static gap_summary summarize(const dvec* ca, int na, const dvec* cb, int nb, const dvec* axes_a,
                             int naa, const dvec* axes_b, int nab)
{
    gap_summary s = {-DBL_MAX, DBL_MAX};
    dvec axes[32];
    int n = 0;
    for (int i = 0; i < naa; ++i)
        axes[n++] = axes_a[i];
    for (int j = 0; j < nab; ++j)
        axes[n++] = axes_b[j];
    for (int i = 0; i < naa; ++i)
        for (int j = 0; j < nab; ++j) {
            dvec c = d_cross(axes_a[i], axes_b[j]);
            double l = d_len(c);
            if (l > 1e-9)
                axes[n++] = d_scale(c, 1.0 / l);
        }
    for (int k = 0; k < n; ++k) {
        double g1 = gap_along(ca, na, cb, nb, axes[k]);
        double g2 = gap_along(ca, na, cb, nb, d_scale(axes[k], -1.0));
        double g = fmax(g1, g2);
        s.max_gap = fmax(s.max_gap, g);
        s.min_overlap = fmin(s.min_overlap, fmin(-g1, -g2) < 0 ? DBL_MAX : fmin(-g1, -g2));
    }
    for (int k = 0; k < DIRECTION_COUNT; ++k)
        s.min_overlap = fmin(s.min_overlap, -gap_along(ca, na, cb, nb, g_directions[k]));
    return s;
}

// ---- inputs ----------------------------------------------------------------------------------

static vxk_quat random_quat(uint64_t* rng)
{
    for (;;) {
        vxk_quat q = {vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                      vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1)};
        float l2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (l2 > 0.01f && l2 <= 1.0f)
            return vxk_quat_normalize(q);
    }
}

static vxk_obb make_box(vxk_vec3 center, vxk_quat q, vxk_vec3 half)
{
    return (vxk_obb){center, vxk_mat3_from_quat(q), half};
}

static vxk_obb random_box(uint64_t* rng, float spread)
{
    vxk_vec3 c = {vxk_test_randf(rng, -spread, spread), vxk_test_randf(rng, -spread, spread),
                  vxk_test_randf(rng, -spread, spread)};
    vxk_vec3 h = {vxk_test_randf(rng, 0.1f, 1.0f), vxk_test_randf(rng, 0.1f, 1.0f),
                  vxk_test_randf(rng, 0.1f, 1.0f)};
    return make_box(c, random_quat(rng), h);
}

static bool finite3(vxk_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static int check_manifold_sane(const vxk_manifold* m)
{
    VXK_CHECK_MSG(m->point_count <= VXK_MANIFOLD_POINTS, "count %u", m->point_count);
    if (m->point_count == 0)
        return 0;
    VXK_CHECK_MSG(finite3(m->normal), "normal %g %g %g", m->normal.x, m->normal.y, m->normal.z);
    double l = d_len(dv(m->normal));
    VXK_CHECK_MSG(fabs(l - 1.0) < 1e-5, "normal length %.9g", l);
    for (uint32_t i = 0; i < m->point_count; ++i) {
        VXK_CHECK(finite3(m->points[i].point));
        VXK_CHECK(isfinite(m->points[i].separation));
    }
    return 0;
}

// ---- spheres ---------------------------------------------------------------------------------

static int test_spheres(void)
{
    uint64_t rng = vxk_test_seed(101);
    int reported = 0;
    for (int it = 0; it < 5000; ++it) {
        vxk_vec3 ca = {vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2),
                       vxk_test_randf(&rng, -2, 2)};
        vxk_vec3 cb = {vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2),
                       vxk_test_randf(&rng, -2, 2)};
        float ra = vxk_test_randf(&rng, 0.05f, 1.5f), rb = vxk_test_randf(&rng, 0.05f, 1.5f);
        float margin = vxk_test_randf(&rng, 0.0f, 0.2f);
        vxk_manifold m;
        uint32_t n = vxk_collide_spheres(&m, ca, ra, cb, rb, margin);
        VXK_CHECK_EQ_U64(n, m.point_count);
        double dist = d_len(d_sub(dv(cb), dv(ca)));
        double sep = dist - ra - rb;
        if (fabs(sep - margin) < 1e-5)
            continue;
        VXK_CHECK_MSG(n == (sep <= margin ? 1u : 0u), "n %u sep %g margin %g", n, sep, margin);
        if (!n)
            continue;
        ++reported;
        if (check_manifold_sane(&m))
            return 1;
        VXK_CHECK_MSG(fabs(m.points[0].separation - sep) < 1e-5, "sep %g vs %g",
                      m.points[0].separation, sep);
        dvec p = dv(m.points[0].point);
        VXK_CHECK(fabs(d_len(d_sub(p, dv(ca))) - ra) < 1e-5);
        dvec q = d_add(p, d_scale(dv(m.normal), m.points[0].separation));
        VXK_CHECK(fabs(d_len(d_sub(q, dv(cb))) - rb) < 1e-5);
        dvec dir = d_scale(d_sub(dv(cb), dv(ca)), 1.0 / dist);
        VXK_CHECK(d_dot(dir, dv(m.normal)) > 1.0 - 1e-5);
    }
    VXK_CHECK_MSG(reported > 500, "%d", reported);
    // Coincident centres: +y, no NaN.
    vxk_manifold m;
    VXK_CHECK_EQ_U64(vxk_collide_spheres(&m, vxk_v3(1, 2, 3), 0.5f, vxk_v3(1, 2, 3), 0.25f, 0), 1);
    VXK_CHECK(m.normal.x == 0 && m.normal.y == 1 && m.normal.z == 0);
    VXK_CHECK(m.points[0].separation == -0.75f);
    VXK_CHECK_EQ_U64(vxk_collide_spheres(&m, vxk_v3(0, 0, 0), 0, vxk_v3(0, 1e-30f, 0), 0, 0), 1);
    if (check_manifold_sane(&m))
        return 1;
    // Sphere on the plane made by a huge sphere: separation = overlap.
    VXK_CHECK_EQ_U64(
        vxk_collide_spheres(&m, vxk_v3(0, -1000, 0), 1000, vxk_v3(0, 0.49f, 0), 0.5f, 0), 1);
    VXK_CHECK(fabs(m.points[0].separation + 0.01) < 1e-4 && m.normal.y > 0.99999f);
    return 0;
}

// ---- box and sphere --------------------------------------------------------------------------

static int test_box_sphere(void)
{
    uint64_t rng = vxk_test_seed(202);
    int inside = 0, outside = 0;
    for (int it = 0; it < 20000; ++it) {
        vxk_obb a = random_box(&rng, 0.5f);
        vxk_vec3 cb = {vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 2),
                       vxk_test_randf(&rng, -2, 2)};
        float rb = vxk_test_randf(&rng, 0.0f, 0.8f);
        float margin = vxk_test_randf(&rng, 0.0f, 0.1f);
        dbox da = dbox_of(&a);
        double sdf = box_sdf(&da, dv(cb));
        double sep = sdf - rb;
        vxk_manifold m;
        uint32_t n = vxk_collide_box_sphere(&m, &a, cb, rb, margin);
        if (fabs(sep - margin) < 1e-5)
            continue;
        VXK_CHECK_MSG(n == (sep <= margin ? 1u : 0u), "n %u sep %g", n, sep);
        if (!n)
            continue;
        sdf < 0 ? ++inside : ++outside;
        if (check_manifold_sane(&m))
            return 1;
        VXK_CHECK_MSG(fabs(m.points[0].separation - sep) < 2e-5, "sep %g vs %g",
                      m.points[0].separation, sep);
        dvec p = dv(m.points[0].point);
        VXK_CHECK_MSG(fabs(box_sdf(&da, p)) < 2e-5, "point off A by %g", box_sdf(&da, p));
        dvec q = d_add(p, d_scale(dv(m.normal), m.points[0].separation));
        VXK_CHECK_MSG(fabs(d_len(d_sub(q, dv(cb))) - rb) < 2e-5, "q off B by %g",
                      d_len(d_sub(q, dv(cb))) - rb);
    }
    fprintf(stderr, "   %d inside, %d outside\n", inside, outside);
    VXK_CHECK(inside > 100 && outside > 1000);
    // Centre at the box centre of a cube: the first face, no NaN.
    vxk_obb a = make_box(vxk_v3(0, 0, 0), vxk_quat_identity(), vxk_v3(1, 1, 1));
    vxk_manifold m;
    VXK_CHECK_EQ_U64(vxk_collide_box_sphere(&m, &a, vxk_v3(0, 0, 0), 0.5f, 0), 1);
    if (check_manifold_sane(&m))
        return 1;
    VXK_CHECK(m.points[0].separation == -1.5f);
    // Zero-size box, zero radius, centre on the box.
    vxk_obb z = make_box(vxk_v3(1, 1, 1), vxk_quat_identity(), vxk_v3(0, 0, 0));
    VXK_CHECK_EQ_U64(vxk_collide_box_sphere(&m, &z, vxk_v3(1, 1, 1), 0, 0), 1);
    return check_manifold_sane(&m);
}

// ---- boxes -----------------------------------------------------------------------------------

// Every point on A's surface and point + separation * normal on B's (tolerance tol), and no
// point deeper than the shapes' overlap along the normal.
static int check_box_points(const vxk_manifold* m, const dbox* a, const dbox* b, double tol)
{
    if (check_manifold_sane(m))
        return 1;
    dvec ca[8], cb[8];
    box_corners(ca, a);
    box_corners(cb, b);
    dvec n = dv(m->normal);
    double gap = gap_along(ca, 8, cb, 8, n);
    for (uint32_t i = 0; i < m->point_count; ++i) {
        dvec p = dv(m->points[i].point);
        double s = m->points[i].separation;
        VXK_CHECK_MSG(fabs(box_sdf(a, p)) < tol, "point %u off A by %g", i, box_sdf(a, p));
        dvec q = d_add(p, d_scale(n, s));
        VXK_CHECK_MSG(fabs(box_sdf(b, q)) < tol, "point %u + sep n off B by %g (sep %g)", i,
                      box_sdf(b, q), s);
        VXK_CHECK_MSG(s >= gap - tol, "point %u separation %g below the gap %g", i, s, gap);
        for (uint32_t j = 0; j < i; ++j)
            VXK_CHECK_MSG(m->points[i].feature != m->points[j].feature, "points %u, %u share id %x",
                          i, j, m->points[i].feature);
    }
    return 0;
}

static bool sampled_overlap(uint64_t* rng, const dbox* a, const dbox* b)
{
    for (int k = 0; k < 400; ++k) {
        dvec p = b->c;
        for (int i = 0; i < 3; ++i)
            p = d_add(p, d_scale(b->ax[i], b->h[i] * vxk_test_randf(rng, -1, 1)));
        if (box_sdf(a, p) < 0)
            return true;
    }
    return false;
}

static int test_boxes_random(void)
{
    init_directions();
    uint64_t rng = vxk_test_seed(303);
    int overlapping = 0, separated = 0, speculative = 0, deepest_found = 0, edges = 0;
    int count = VXK_TEST_SLOW ? 2000 : 6000;
    for (int it = 0; it < count; ++it) {
        vxk_obb a = random_box(&rng, 0.0f);
        vxk_obb b = random_box(&rng, 1.2f);
        float margin = vxk_test_randf(&rng, 0.0f, 0.1f);
        dbox da = dbox_of(&a), db = dbox_of(&b);
        dvec ca[8], cb[8];
        box_corners(ca, &da);
        box_corners(cb, &db);
        gap_summary g = summarize(ca, 8, cb, 8, da.ax, 3, db.ax, 3);
        vxk_manifold m;
        uint32_t n = vxk_collide_boxes(&m, &a, &b, margin);
        VXK_CHECK_EQ_U64(n, m.point_count);
        if (g.max_gap > margin + 1e-5) {
            VXK_CHECK_MSG(n == 0, "gap %g > margin %g but %u points", g.max_gap, margin, n);
            ++separated;
            continue;
        }
        if (check_box_points(&m, &da, &db, 2e-4))
            return 1;
        if (g.max_gap > 0 && n > 0)
            ++speculative;
        if (m.point_count == 1 && (m.points[0].feature >> 24 & 0x7f) == 4)
            ++edges;
        if (g.max_gap < -1e-4 && sampled_overlap(&rng, &da, &db)) {
            ++overlapping;
            VXK_CHECK_MSG(n > 0, "overlapping boxes give no point");
            // The normal is nearly the direction of least penetration: face and edge tolerances
            // allow 5% + 2% and a small absolute slop.
            double overlap_n = -gap_along(ca, 8, cb, 8, dv(m.normal));
            VXK_CHECK_MSG(overlap_n <= g.min_overlap / 0.93 + 0.01,
                          "overlap %g along the normal, %g least", overlap_n, g.min_overlap);
            double deepest = DBL_MAX;
            for (uint32_t i = 0; i < n; ++i)
                deepest = fmin(deepest, m.points[i].separation);
            if (deepest <= -overlap_n + 1e-4)
                ++deepest_found;
        }
    }
    fprintf(stderr,
            "   %d overlapping (deepest point reported in %d), %d separated, %d speculative, "
            "%d edge-edge\n",
            overlapping, deepest_found, separated, speculative, edges);
    VXK_CHECK(overlapping > count / 10 && separated > count / 10 && speculative > count / 100);
    VXK_CHECK(edges > count / 100);
    // The deepest point survives clipping in the large majority of configurations.
    VXK_CHECK_MSG(deepest_found >= overlapping * 8 / 10, "%d of %d", deepest_found, overlapping);
    return 0;
}

// A box resting face-down on another, both rotated by a random rotation: 4 points at the upper
// box's bottom corners, separation = -overlap, normal = the lower box's up axis.
static int test_boxes_resting(void)
{
    uint64_t rng = vxk_test_seed(404);
    for (int it = 0; it < 2000; ++it) {
        vxk_quat world = random_quat(&rng);
        vxk_vec3 ha = {vxk_test_randf(&rng, 1.0f, 2.0f), vxk_test_randf(&rng, 0.2f, 1.0f),
                       vxk_test_randf(&rng, 1.0f, 2.0f)};
        vxk_vec3 hb = {vxk_test_randf(&rng, 0.1f, 0.4f), vxk_test_randf(&rng, 0.1f, 0.5f),
                       vxk_test_randf(&rng, 0.1f, 0.4f)};
        float overlap = vxk_test_randf(&rng, 0.0f, 0.05f);
        float yaw = vxk_test_randf(&rng, -3.14159f, 3.14159f);
        // Local frame of A: B on top, inside the face's footprint.
        vxk_vec3 offset = {vxk_test_randf(&rng, -0.4f, 0.4f) * ha.x, ha.y + hb.y - overlap,
                           vxk_test_randf(&rng, -0.4f, 0.4f) * ha.z};
        vxk_vec3 pos_a = {vxk_test_randf(&rng, -5, 5), vxk_test_randf(&rng, -5, 5),
                          vxk_test_randf(&rng, -5, 5)};
        vxk_quat qb = vxk_quat_mul(world, vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), yaw));
        vxk_obb a = make_box(pos_a, world, ha);
        vxk_obb b = make_box(vxk_v3_add(pos_a, vxk_quat_rotate(world, offset)), qb, hb);
        dvec up = dv(vxk_quat_rotate(world, vxk_v3(0, 1, 0)));
        dbox db = dbox_of(&b);
        for (int order = 0; order < 2; ++order) {
            vxk_manifold m;
            uint32_t n = order == 0 ? vxk_collide_boxes(&m, &a, &b, 0.0f)
                                    : vxk_collide_boxes(&m, &b, &a, 0.0f);
            VXK_CHECK_MSG(n == 4, "it %d order %d: %u points", it, order, n);
            double sign = order == 0 ? 1.0 : -1.0;
            VXK_CHECK(d_dot(dv(m.normal), up) * sign > 1.0 - 1e-5);
            // Expected points: B's bottom corners, on A's top face (order 0) or on B (order 1).
            for (uint32_t i = 0; i < 4; ++i) {
                double s = m.points[i].separation;
                VXK_CHECK_MSG(fabs(s + overlap) < 2e-5, "separation %g, overlap %g", s, overlap);
                dvec corner_b = order == 0 ? d_add(dv(m.points[i].point), d_scale(dv(m.normal), s))
                                           : dv(m.points[i].point);
                // A bottom corner of B: local y = -hb.y and |x|, |z| at the half extents.
                dvec local = d_sub(corner_b, db.c);
                VXK_CHECK(fabs(d_dot(local, db.ax[1]) + hb.y) < 2e-5);
                VXK_CHECK(fabs(fabs(d_dot(local, db.ax[0])) - hb.x) <
                          2e-5 + 1e-4 * hb.x); // clip slop
                VXK_CHECK(fabs(fabs(d_dot(local, db.ax[2])) - hb.z) < 2e-5 + 1e-4 * hb.z);
                for (uint32_t j = 0; j < i; ++j)
                    VXK_CHECK(d_len(d_sub(dv(m.points[i].point), dv(m.points[j].point))) > 0.1);
            }
        }
    }
    return 0;
}

static int check_same(const vxk_manifold* x, const vxk_manifold* y, double tol)
{
    VXK_CHECK_EQ_U64(x->point_count, y->point_count);
    VXK_CHECK(d_len(d_sub(dv(x->normal), dv(y->normal))) <= tol);
    for (uint32_t i = 0; i < x->point_count; ++i) {
        VXK_CHECK(d_len(d_sub(dv(x->points[i].point), dv(y->points[i].point))) <= tol);
        VXK_CHECK(fabs(x->points[i].separation - y->points[i].separation) <= tol);
        VXK_CHECK_EQ_U64(x->points[i].feature, y->points[i].feature);
    }
    return 0;
}

// Flipping: B-A points on B's surface, landing on A's; twice is the identity; collide(b, a)
// agrees with collide(a, b) on whether there is contact and on the depth along the normal.
static int test_flip(void)
{
    uint64_t rng = vxk_test_seed(505);
    int both = 0;
    for (int it = 0; it < 3000; ++it) {
        vxk_obb a = random_box(&rng, 0.0f);
        vxk_obb b = random_box(&rng, 1.0f);
        float margin = 0.05f;
        vxk_manifold ab, ba, f;
        uint32_t nab = vxk_collide_boxes(&ab, &a, &b, margin);
        uint32_t nba = vxk_collide_boxes(&ba, &b, &a, margin);
        dbox da = dbox_of(&a), db = dbox_of(&b);
        dvec ca[8], cb[8];
        box_corners(ca, &da);
        box_corners(cb, &db);
        f = ab;
        vxk_manifold_flip(&f);
        if (nab) {
            VXK_CHECK(f.normal.x == -ab.normal.x && f.normal.y == -ab.normal.y);
            if (check_box_points(&f, &db, &da, 2e-4))
                return 1;
            vxk_manifold g = f;
            vxk_manifold_flip(&g);
            if (check_same(&g, &ab, 1e-5))
                return 1;
        }
        // Contact agrees unless the pair sits at the margin.
        gap_summary s = summarize(ca, 8, cb, 8, da.ax, 3, db.ax, 3);
        if (fabs(s.max_gap - margin) > 1e-4)
            VXK_CHECK_MSG((nab > 0) == (nba > 0), "%u vs %u", nab, nba);
        if (nab && nba && s.max_gap < -1e-3) {
            ++both;
            double o1 = -gap_along(ca, 8, cb, 8, dv(ab.normal));
            double o2 = -gap_along(ca, 8, cb, 8, d_scale(dv(ba.normal), -1.0));
            VXK_CHECK_MSG(fabs(o1 - o2) <= 0.08 * fmax(o1, o2) + 0.01, "depth %g vs %g", o1, o2);
        }
    }
    VXK_CHECK(both > 300);
    return 0;
}

static int id_sets_equal(const vxk_manifold* x, const vxk_manifold* y)
{
    if (x->point_count != y->point_count)
        return 0;
    for (uint32_t i = 0; i < x->point_count; ++i) {
        bool found = false;
        for (uint32_t j = 0; j < y->point_count; ++j)
            found |= x->points[i].feature == y->points[j].feature;
        if (!found)
            return 0;
    }
    return 1;
}

static uint32_t ids_shared(const vxk_manifold* x, const vxk_manifold* y)
{
    uint32_t shared = 0;
    for (uint32_t i = 0; i < x->point_count; ++i)
        for (uint32_t j = 0; j < y->point_count; ++j)
            shared += x->points[i].feature == y->points[j].feature;
    return shared;
}

static vxk_obb perturb(uint64_t* rng, const vxk_obb* b, float amount)
{
    vxk_obb p = *b;
    p.center = vxk_v3_add(p.center, vxk_v3(vxk_test_randf(rng, -amount, amount),
                                           vxk_test_randf(rng, -amount, amount),
                                           vxk_test_randf(rng, -amount, amount)));
    vxk_quat dq = vxk_quat_from_axis_angle(
        vxk_v3(vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1)),
        amount);
    vxk_mat3 r = vxk_mat3_from_quat(dq);
    p.axes = vxk_mat3_mul(&r, &b->axes);
    return p;
}

// Feature ids stay while the same features touch: resting boxes (face contacts) and crossed
// edges, moved by 1e-4.
static int test_feature_stability(void)
{
    uint64_t rng = vxk_test_seed(606);
    int overhang_changed = 0, overhang_runs = 0;
    for (int it = 0; it < 1000; ++it) {
        vxk_quat world = random_quat(&rng);
        float yaw = vxk_test_randf(&rng, 0.1f, 1.4f);
        vxk_obb a = make_box(vxk_v3(0, 0, 0), world, vxk_v3(2, 0.5f, 2));
        vxk_vec3 offset = {vxk_test_randf(&rng, -1, 1), 0.5f + 0.3f - 0.01f,
                           vxk_test_randf(&rng, -1, 1)};
        vxk_obb b = make_box(vxk_quat_rotate(world, offset),
                             vxk_quat_mul(world, vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), yaw)),
                             vxk_v3(0.3f, 0.3f, 0.4f));
        vxk_manifold m0, m1;
        VXK_CHECK_EQ_U64(vxk_collide_boxes(&m0, &a, &b, 0.02f), 4);
        for (int k = 0; k < 8; ++k) {
            vxk_obb bp = perturb(&rng, &b, 1e-4f);
            vxk_collide_boxes(&m1, &a, &bp, 0.02f);
            VXK_CHECK_MSG(id_sets_equal(&m0, &m1), "resting ids changed (it %d)", it);
            vxk_collide_boxes(&m1, &bp, &a, 0.02f);
            vxk_manifold m2;
            vxk_collide_boxes(&m2, &b, &a, 0.02f);
            VXK_CHECK_MSG(id_sets_equal(&m2, &m1), "resting ids changed, swapped (it %d)", it);
        }
        // Crossed edges: A's top edge along z under B's bottom edge along x.
        vxk_obb e1 = make_box(vxk_v3(0, 0, 0), vxk_quat_from_axis_angle(vxk_v3(0, 0, 1), 0.785398f),
                              vxk_v3(0.5f, 0.5f, 1.0f));
        float reach = 0.5f * 1.41421356f;
        vxk_obb e2 = make_box(vxk_v3(vxk_test_randf(&rng, -0.2f, 0.2f), 2 * reach - 0.01f,
                                     vxk_test_randf(&rng, -0.2f, 0.2f)),
                              vxk_quat_from_axis_angle(vxk_v3(1, 0, 0), 0.785398f),
                              vxk_v3(1.0f, 0.5f, 0.5f));
        VXK_CHECK_EQ_U64(vxk_collide_boxes(&m0, &e1, &e2, 0.0f), 1);
        VXK_CHECK_EQ_U64(m0.points[0].feature >> 24 & 0x7f, 4);
        VXK_CHECK(fabs(m0.points[0].separation + 0.01) < 1e-4 && m0.normal.y > 0.9999f);
        for (int k = 0; k < 8; ++k) {
            vxk_obb ep = perturb(&rng, &e2, 1e-4f);
            VXK_CHECK_EQ_U64(vxk_collide_boxes(&m1, &e1, &ep, 0.0f), 1);
            VXK_CHECK_EQ_U64(m1.points[0].feature, m0.points[0].feature);
        }
        // A box partly over the edge of the other: clipped points (edge-edge ids) stay, unless
        // a corner sits within 2e-3 of A's side plane (a feature change nearby).
        vxk_quat qc = vxk_quat_mul(world, vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), yaw));
        vxk_vec3 over = {2.0f + vxk_test_randf(&rng, -0.2f, 0.2f), offset.y, offset.z};
        vxk_obb c = make_box(vxk_quat_rotate(world, over), qc, vxk_v3(0.3f, 0.3f, 0.4f));
        dbox dc = dbox_of(&c);
        dvec corners[8];
        box_corners(corners, &dc);
        dvec ax = dv(a.axes.cx);
        bool near_plane = false;
        for (int k = 0; k < 8; ++k)
            near_plane |= fabs(fabs(d_dot(corners[k], ax)) - 2.0) < 2e-3;
        if (near_plane)
            continue;
        VXK_CHECK(vxk_collide_boxes(&m0, &a, &c, 0.02f) >= 3);
        for (int k = 0; k < 8; ++k) {
            vxk_obb cp = perturb(&rng, &c, 1e-4f);
            vxk_collide_boxes(&m1, &a, &cp, 0.02f);
            // Reduction of 5 or 6 clipped points may swap one near-tied point.
            VXK_CHECK_MSG(ids_shared(&m0, &m1) >= 3, "overhang ids changed (it %d)", it);
            overhang_changed += !id_sets_equal(&m0, &m1);
            ++overhang_runs;
        }
    }
    fprintf(stderr, "   overhang: %d of %d perturbed manifolds swapped a point\n", overhang_changed,
            overhang_runs);
    VXK_CHECK(overhang_changed * 100 <= overhang_runs && overhang_runs > 1000);
    return 0;
}

static int test_boxes_degenerate(void)
{
    vxk_manifold m;
    vxk_obb a = make_box(vxk_v3(0, 0, 0), vxk_quat_identity(), vxk_v3(1, 1, 1));
    VXK_CHECK(vxk_collide_boxes(&m, &a, &a, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    VXK_CHECK(m.points[0].separation == -2.0f);
    vxk_obb zero = make_box(vxk_v3(0, 0, 0), vxk_quat_identity(), vxk_v3(0, 0, 0));
    VXK_CHECK(vxk_collide_boxes(&m, &zero, &zero, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    VXK_CHECK(vxk_collide_boxes(&m, &a, &zero, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    VXK_CHECK(vxk_collide_boxes(&m, &zero, &a, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    // Flat boxes, exactly parallel edges, a quarter turn.
    vxk_obb flat =
        make_box(vxk_v3(0.3f, 1.0f, 0), vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), 1.5707964f),
                 vxk_v3(2, 0, 0.5f));
    VXK_CHECK(vxk_collide_boxes(&m, &a, &flat, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    VXK_CHECK(vxk_collide_boxes(&m, &flat, &flat, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    uint64_t rng = vxk_test_seed(707);
    for (int it = 0; it < 2000; ++it) {
        vxk_obb x = random_box(&rng, 0.5f), y = random_box(&rng, 0.5f);
        if (it & 1)
            vxk_v3_set(&x.half, (uint32_t)(it >> 1) % 3, 0.0f);
        if (it & 2)
            y.axes = x.axes;
        if (it & 4)
            y.center = x.center;
        vxk_collide_boxes(&m, &x, &y, 0.1f);
        if (check_manifold_sane(&m))
            return 1;
    }
    return 0;
}

// ---- manifold reduction ----------------------------------------------------------------------

// Twice the area of the convex hull of 4 points in the plane (gift wrapping, then shoelace).
static double hull_area2(const double px[4], const double py[4])
{
    int start = 0;
    for (int i = 1; i < 4; ++i)
        if (px[i] < px[start] || (px[i] == px[start] && py[i] < py[start]))
            start = i;
    int hull[5], h = 0, cur = start;
    do {
        hull[h++] = cur;
        int next = cur == 0 ? 1 : 0;
        for (int i = 0; i < 4; ++i) {
            double cr =
                (px[next] - px[cur]) * (py[i] - py[cur]) - (py[next] - py[cur]) * (px[i] - px[cur]);
            if (cr < 0)
                next = i;
        }
        cur = next;
    } while (cur != start && h < 5);
    double area = 0;
    for (int i = 0; i < h; ++i) {
        int j = (i + 1) % h;
        area += px[hull[i]] * py[hull[j]] - px[hull[j]] * py[hull[i]];
    }
    return fabs(area);
}

static int test_reduce(void)
{
    uint64_t rng = vxk_test_seed(808);
    double min_ratio = 1.0;
    for (int it = 0; it < 5000; ++it) {
        uint32_t n = 5 + (uint32_t)(vxk_test_rand(&rng) % 12);
        vxk_quat q = random_quat(&rng);
        vxk_vec3 normal = vxk_quat_rotate(q, vxk_v3(0, 0, 1));
        vxk_vec3 tu = vxk_quat_rotate(q, vxk_v3(1, 0, 0)), tv = vxk_quat_rotate(q, vxk_v3(0, 1, 0));
        vxk_manifold_point pts[16], orig[16];
        double px[16], py[16];
        for (uint32_t i = 0; i < n; ++i) {
            px[i] = vxk_test_randf(&rng, -1, 1);
            py[i] = vxk_test_randf(&rng, -1, 1);
            float h = vxk_test_randf(&rng, -0.2f, 0.2f); // off-plane part, ignored by areas
            pts[i].point = vxk_v3_add(
                vxk_v3_add(vxk_v3_scale(tu, (float)px[i]), vxk_v3_scale(tv, (float)py[i])),
                vxk_v3_scale(normal, h));
            pts[i].separation = (it & 3) == 0 ? -0.1f : vxk_test_randf(&rng, -1, 0);
            pts[i].feature = i;
            orig[i] = pts[i];
        }
        uint32_t kept = vxk_manifold_reduce(pts, n, normal);
        VXK_CHECK_EQ_U64(kept, 4);
        // Reference, step by step from the picks so far (near ties may go either way): the
        // deepest (lowest index), the farthest in the plane, the largest triangle, the largest
        // hull of four, each over all candidates.
        int r[4];
        for (int k = 0; k < 4; ++k)
            r[k] = (int)pts[k].feature;
        // Deepest: the first within 1e-3 x the points' extent (from point 0) of the least.
        double least = DBL_MAX, extent = 0;
        for (uint32_t i = 0; i < n; ++i) {
            least = fmin(least, orig[i].separation);
            extent = fmax(extent, hypot(px[i] - px[0], py[i] - py[0]));
        }
        double tie = least + 1e-3 * extent;
        VXK_CHECK(orig[r[0]].separation <= tie + 1e-6);
        for (int i = 0; i < r[0]; ++i)
            VXK_CHECK(orig[i].separation > tie - 1e-6);
        double best[3] = {-1, -1, -1}, got[3] = {-1, -1, -1};
        for (uint32_t i = 0; i < n; ++i) {
            double x0 = px[r[0]], y0 = py[r[0]];
            double crit[3] = {-1, -1, -1};
            if ((int)i != r[0])
                crit[0] = (px[i] - x0) * (px[i] - x0) + (py[i] - y0) * (py[i] - y0);
            if ((int)i != r[0] && (int)i != r[1])
                crit[1] = fabs((px[r[1]] - x0) * (py[i] - y0) - (py[r[1]] - y0) * (px[i] - x0));
            if ((int)i != r[0] && (int)i != r[1] && (int)i != r[2]) {
                double x4[4] = {x0, px[r[1]], px[r[2]], px[i]};
                double y4[4] = {y0, py[r[1]], py[r[2]], py[i]};
                crit[2] = hull_area2(x4, y4);
            }
            for (int k = 0; k < 3; ++k) {
                best[k] = fmax(best[k], crit[k]);
                if ((int)i == r[k + 1])
                    got[k] = crit[k];
            }
        }
        for (int k = 0; k < 3; ++k)
            VXK_CHECK_MSG(got[k] >= best[k] - 1e-5, "it %d pick %d: %g, best %g", it, k + 1, got[k],
                          best[k]);
        VXK_CHECK(pts[0].point.x == orig[r[0]].point.x);
        VXK_CHECK(r[1] != r[0] && r[2] != r[0] && r[2] != r[1] && r[3] != r[0] && r[3] != r[1] &&
                  r[3] != r[2]);
        // Against every 4-subset holding the first two points: the greedy pick keeps at least
        // half the largest hull (a triangle on the base p0 p1 is at least half of any hull with
        // that base on one side, and the hull grows with the fourth point).
        double best_pair = 0;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = i + 1; j < n; ++j) {
                if ((int)i == r[0] || (int)i == r[1] || (int)j == r[0] || (int)j == r[1])
                    continue;
                double x4[4] = {px[r[0]], px[r[1]], px[i], px[j]};
                double y4[4] = {py[r[0]], py[r[1]], py[i], py[j]};
                best_pair = fmax(best_pair, hull_area2(x4, y4));
            }
        min_ratio = fmin(min_ratio, got[2] / best_pair);
    }
    fprintf(stderr, "   greedy quad / best quad given p0, p1: at least %.3f\n", min_ratio);
    VXK_CHECK(min_ratio >= 0.5);
    // Ties go to the lower index; 4 or fewer points are left alone.
    vxk_manifold_point same[6];
    for (uint32_t i = 0; i < 6; ++i)
        same[i] = (vxk_manifold_point){{1, 2, 3}, -0.5f, i};
    VXK_CHECK_EQ_U64(vxk_manifold_reduce(same, 6, vxk_v3(0, 1, 0)), 4);
    for (uint32_t i = 0; i < 4; ++i)
        VXK_CHECK_EQ_U64(same[i].feature, i);
    vxk_manifold_point three[3] = {{{0, 0, 0}, 0, 7}, {{1, 0, 0}, -1, 8}, {{2, 0, 0}, 0, 9}};
    VXK_CHECK_EQ_U64(vxk_manifold_reduce(three, 3, vxk_v3(0, 1, 0)), 3);
    VXK_CHECK(three[0].feature == 7 && three[1].feature == 8 && three[2].feature == 9);
    return 0;
}

// ---- terrain faces ---------------------------------------------------------------------------

static vxk_quad make_quad(uint32_t x, uint32_t y, uint32_t z, uint32_t w, uint32_t h, uint32_t axis,
                          uint32_t positive, uint32_t edges)
{
    return (vxk_quad){(uint8_t)x, (uint8_t)y,    (uint8_t)z,
                      (uint8_t)w, (uint8_t)h,    (uint8_t)(axis | positive << 2),
                      3,          (uint8_t)edges};
}

static uint32_t edges_of(uint32_t mu, uint32_t pu, uint32_t mv, uint32_t pv)
{
    return mu | pu << 2 | mv << 4 | pv << 6;
}

// Equal boxes stacked flush (corners on the reference face's side planes, up to rounding), and a
// voxel-sized box flush on a one-voxel face: ids hold under motions of 1e-6.
static int test_feature_stability_flush(void)
{
    uint64_t rng = vxk_test_seed(616);
    int runs = 0;
    for (int it = 0; it < 2000; ++it) {
        vxk_quat q = vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), vxk_test_randf(&rng, -3, 3));
        vxk_vec3 c = {vxk_test_randf(&rng, -5, 5), vxk_test_randf(&rng, -5, 5),
                      vxk_test_randf(&rng, -5, 5)};
        vxk_obb a = make_box(c, q, vxk_v3(0.5f, 0.5f, 0.5f));
        vxk_obb b = a;
        b.center = vxk_v3_add(c, vxk_quat_rotate(q, vxk_v3(0, 0.99f, 0)));
        vxk_face f;
        vxk_face_from_quad(&f, make_quad(3, 2, 5, 1, 1, 1, 1, 0), (vxk_int3){it % 7, -1, 2}, 0.5f);
        vxk_obb on_face = make_box(vxk_v3(f.min.x + 0.25f, f.min.y + 0.245f, f.min.z + 0.25f),
                                   vxk_quat_identity(), vxk_v3(0.25f, 0.25f, 0.25f));
        vxk_manifold m0, m1, f0, f1;
        VXK_CHECK_EQ_U64(vxk_collide_boxes(&m0, &a, &b, 0.02f), 4);
        VXK_CHECK_EQ_U64(vxk_collide_face_box(&f0, &f, &on_face, 0.02f), 4);
        for (int k = 0; k < 4; ++k) {
            vxk_vec3 jitter = {vxk_test_randf(&rng, -1e-6f, 1e-6f), 0,
                               vxk_test_randf(&rng, -1e-6f, 1e-6f)};
            vxk_obb bp = b, fp = on_face;
            bp.center = vxk_v3_add(bp.center, jitter);
            fp.center = vxk_v3_add(fp.center, jitter);
            vxk_collide_boxes(&m1, &a, &bp, 0.02f);
            VXK_CHECK_MSG(id_sets_equal(&m0, &m1), "flush stack ids changed (it %d)", it);
            vxk_collide_face_box(&f1, &f, &fp, 0.02f);
            VXK_CHECK_MSG(id_sets_equal(&f0, &f1), "flush face ids changed (it %d)", it);
            ++runs;
        }
    }
    VXK_CHECK(runs == 8000);
    return 0;
}

static int test_face_from_quad(void)
{
    uint64_t rng = vxk_test_seed(909);
    for (int it = 0; it < 2000; ++it) {
        vxk_quad q =
            make_quad((uint32_t)(vxk_test_rand(&rng) % 8), (uint32_t)(vxk_test_rand(&rng) % 8),
                      (uint32_t)(vxk_test_rand(&rng) % 8), 1 + (uint32_t)(vxk_test_rand(&rng) % 8),
                      1 + (uint32_t)(vxk_test_rand(&rng) % 8), (uint32_t)(vxk_test_rand(&rng) % 3),
                      (uint32_t)(vxk_test_rand(&rng) & 1), (uint32_t)(vxk_test_rand(&rng) & 0xff));
        vxk_int3 chunk = {(int32_t)(vxk_test_rand(&rng) % 200) - 100,
                          (int32_t)(vxk_test_rand(&rng) % 20) - 10,
                          (int32_t)(vxk_test_rand(&rng) % 200) - 100};
        float s = (it & 1) ? 0.25f : 1.0f;
        vxk_face f;
        vxk_face_from_quad(&f, q, chunk, s);
        vxk_vec3 corners[4];
        vxk_vec3 origin = {8.0f * chunk.x * s, 8.0f * chunk.y * s, 8.0f * chunk.z * s};
        vxk_quad_corners(corners, q, origin, s);
        vxk_vec3 lo = corners[0], hi = corners[0];
        for (int k = 1; k < 4; ++k) {
            lo = vxk_v3_min(lo, corners[k]);
            hi = vxk_v3_max(hi, corners[k]);
        }
        VXK_CHECK(d_len(d_sub(dv(f.min), dv(lo))) < 1e-4);
        uint32_t axis = q.normal & 3u, au = axis == 0 ? 2 : 0, av = axis == 1 ? 2 : 1;
        VXK_CHECK(fabs(vxk_v3_get(lo, au) + f.size_u - vxk_v3_get(hi, au)) < 1e-4);
        VXK_CHECK(fabs(vxk_v3_get(lo, av) + f.size_v - vxk_v3_get(hi, av)) < 1e-4);
        VXK_CHECK(f.axis == axis && f.positive == (q.normal >> 2) && f.edges == q.edges &&
                  f.material == 3);
    }
    return 0;
}

typedef struct frame3 {
    uint32_t axis, au, av;
    double sign;
} frame3;

static frame3 frame_of(const vxk_face* f)
{
    return (frame3){f->axis, f->axis == 0 ? 2u : 0u, f->axis == 1 ? 2u : 1u,
                    f->positive ? 1.0 : -1.0};
}
static double comp(dvec v, uint32_t i)
{
    return i == 0 ? v.x : i == 1 ? v.y : v.z;
}
static dvec compose(const frame3* fr, double n, double u, double v)
{
    double c[3];
    c[fr->axis] = n;
    c[fr->au] = u;
    c[fr->av] = v;
    return (dvec){c[0], c[1], c[2]};
}
static dvec face_normal(const vxk_face* f)
{
    frame3 fr = frame_of(f);
    return compose(&fr, fr.sign, 0, 0);
}

// Exact distance from p to the face's rectangle.
static double rect_distance(const vxk_face* f, dvec p)
{
    frame3 fr = frame_of(f);
    dvec m = dv(f->min);
    double u = comp(p, fr.au) - comp(m, fr.au), v = comp(p, fr.av) - comp(m, fr.av);
    double du = u < 0 ? -u : (u > f->size_u ? u - f->size_u : 0);
    double dvv = v < 0 ? -v : (v > f->size_v ? v - f->size_v : 0);
    double h = comp(p, fr.axis) - comp(m, fr.axis);
    return sqrt(du * du + dvv * dvv + h * h);
}

static vxk_face random_face(uint64_t* rng, uint32_t edges)
{
    vxk_face f;
    f.min =
        vxk_v3(vxk_test_randf(rng, -2, 2), vxk_test_randf(rng, -2, 2), vxk_test_randf(rng, -2, 2));
    f.size_u = vxk_test_randf(rng, 0.25f, 3.0f);
    f.size_v = vxk_test_randf(rng, 0.25f, 3.0f);
    f.axis = (uint8_t)(vxk_test_rand(rng) % 3);
    f.positive = (uint8_t)(vxk_test_rand(rng) & 1);
    f.edges = (uint8_t)edges;
    f.material = 1;
    return f;
}

static vxk_vec3 point_near_face(uint64_t* rng, const vxk_face* f, float out_of_plane)
{
    frame3 fr = frame_of(f);
    dvec p = compose(&fr, fr.sign * vxk_test_randf(rng, -0.1f, out_of_plane),
                     vxk_test_randf(rng, -1.0f, f->size_u + 1.0f),
                     vxk_test_randf(rng, -1.0f, f->size_v + 1.0f));
    p = d_add(p, dv(f->min));
    return vxk_v3((float)p.x, (float)p.y, (float)p.z);
}

static int test_face_sphere_random(void)
{
    uint64_t rng = vxk_test_seed(1010);
    int counted[2] = {0, 0};
    for (int it = 0; it < 20000; ++it) {
        bool convex = it & 1;
        uint32_t cls =
            convex ? VXK_EDGE_CONVEX : ((it >> 1) & 1 ? VXK_EDGE_CONCAVE : VXK_EDGE_FLAT);
        vxk_face f = random_face(&rng, edges_of(cls, cls, cls, cls));
        vxk_vec3 c = point_near_face(&rng, &f, 1.5f);
        float r = vxk_test_randf(&rng, 0.05f, 1.0f), margin = vxk_test_randf(&rng, 0, 0.1f);
        frame3 fr = frame_of(&f);
        double h = fr.sign * (comp(dv(c), fr.axis) - f.min.x * (fr.axis == 0) -
                              f.min.y * (fr.axis == 1) - f.min.z * (fr.axis == 2));
        double dist = rect_distance(&f, dv(c));
        vxk_manifold m;
        uint32_t n = vxk_collide_face_sphere(&m, &f, c, r, margin);
        if (fabs(dist - r - margin) < 1e-5 || fabs(h) < 1e-6)
            continue;
        VXK_CHECK_MSG(n == (h > 0 && dist - r <= margin ? 1u : 0u), "n %u h %g dist %g", n, h,
                      dist);
        if (!n)
            continue;
        ++counted[convex];
        if (check_manifold_sane(&m))
            return 1;
        dvec p = dv(m.points[0].point);
        double s = m.points[0].separation;
        dvec q = d_add(p, d_scale(dv(m.normal), s));
        VXK_CHECK_MSG(fabs(d_len(d_sub(q, dv(c))) - r) < 2e-5, "q off the sphere by %g",
                      d_len(d_sub(q, dv(c))) - r);
        if (convex) { // a free rectangle: exact distance, point on it
            VXK_CHECK_MSG(fabs(s - (dist - r)) < 2e-5, "sep %g vs %g", s, dist - r);
            VXK_CHECK(rect_distance(&f, p) < 2e-5);
        } else { // an endless floor
            VXK_CHECK(d_dot(dv(m.normal), face_normal(&f)) == 1.0);
            VXK_CHECK_MSG(fabs(s - (h - r)) < 2e-5, "sep %g vs %g", s, h - r);
        }
    }
    VXK_CHECK(counted[0] > 1000 && counted[1] > 1000);
    return 0;
}

// A sphere past a convex edge tilts; past a flat or concave edge it does not; at a corner with
// one convex edge it tilts towards that edge only.
static int test_face_sphere_convex_edge(void)
{
    vxk_quad q = make_quad(0, 3, 0, 4, 2, 1, 1,
                           edges_of(VXK_EDGE_FLAT, VXK_EDGE_CONVEX, VXK_EDGE_FLAT, VXK_EDGE_FLAT));
    vxk_face f;
    vxk_face_from_quad(&f, q, (vxk_int3){0, 0, 0}, 1.0f); // y = 4 plane, x 0..4, z 0..2
    vxk_manifold m;
    for (int k = 0; k < 200; ++k) {
        float dx = -0.3f + 0.0034f * k;
        vxk_vec3 c = {4.0f + dx, 4.3f, 1.0f};
        VXK_CHECK_EQ_U64(vxk_collide_face_sphere(&m, &f, c, 0.5f, 0.0f), 1);
        if (dx <= 0) {
            VXK_CHECK(m.normal.y == 1.0f && fabs(m.points[0].separation + 0.2) < 1e-5);
        } else {
            double len = sqrt((double)dx * dx + 0.09);
            VXK_CHECK(fabs(m.normal.x - dx / len) < 1e-5 && fabs(m.normal.y - 0.3 / len) < 1e-5);
            VXK_CHECK(fabs(m.points[0].separation - (len - 0.5)) < 1e-5);
            VXK_CHECK(fabs(m.points[0].point.x - 4.0f) < 1e-6);
        }
    }
    // Corner +u (convex) / +v (flat): tilts in x only.
    VXK_CHECK_EQ_U64(vxk_collide_face_sphere(&m, &f, vxk_v3(4.2f, 4.3f, 2.25f), 0.5f, 0.0f), 1);
    VXK_CHECK(m.normal.z == 0.0f && m.normal.x > 0.5f);
    // Flat and concave: no tilt.
    f.edges = (uint8_t)edges_of(VXK_EDGE_FLAT, VXK_EDGE_CONCAVE, VXK_EDGE_FLAT, VXK_EDGE_FLAT);
    VXK_CHECK_EQ_U64(vxk_collide_face_sphere(&m, &f, vxk_v3(4.2f, 4.3f, 1.0f), 0.5f, 0.0f), 1);
    VXK_CHECK(m.normal.y == 1.0f);
    // Behind the plane: nothing. Centre on the plane at the edge: no NaN.
    VXK_CHECK_EQ_U64(vxk_collide_face_sphere(&m, &f, vxk_v3(2, 3.9f, 1), 0.5f, 0.0f), 0);
    f.edges = 0x55;
    VXK_CHECK_EQ_U64(vxk_collide_face_sphere(&m, &f, vxk_v3(4, 4, 2), 0.5f, 0.0f), 1);
    return check_manifold_sane(&m);
}

// A row of coplanar faces along u with flat seams, inside chunk 0 and across into chunk 1, for
// each of the 6 normals: faces of widths 3, 2, 3 (ending at x = 8) then 2 and 4 in the next chunk.
static uint32_t seam_row(vxk_face faces[8], uint32_t axis, uint32_t positive, float voxel)
{
    static const uint32_t starts[5] = {0, 3, 5, 0, 2};
    static const uint32_t widths[5] = {3, 2, 3, 2, 4};
    for (uint32_t i = 0; i < 5; ++i) {
        uint32_t edges = edges_of(VXK_EDGE_FLAT, VXK_EDGE_FLAT, VXK_EDGE_CONVEX, VXK_EDGE_CONVEX);
        if (i == 0)
            edges = edges_of(VXK_EDGE_CONVEX, VXK_EDGE_FLAT, VXK_EDGE_CONVEX, VXK_EDGE_CONVEX);
        if (i == 4)
            edges = edges_of(VXK_EDGE_FLAT, VXK_EDGE_CONVEX, VXK_EDGE_CONVEX, VXK_EDGE_CONVEX);
        uint32_t c[3] = {2, 2, 2};
        c[axis == 0 ? 2 : 0] = starts[i];
        vxk_quad q = make_quad(c[0], c[1], c[2], widths[i], 4, axis, positive, edges);
        vxk_int3 chunk = {0, 0, 0};
        if (i >= 3) {
            if (axis == 0)
                chunk.z = 1;
            else
                chunk.x = 1;
        }
        vxk_face_from_quad(&faces[i], q, chunk, voxel);
    }
    return 5;
}

static int test_flat_seams(void)
{
    uint64_t rng = vxk_test_seed(1111);
    const float voxel = 0.5f;
    for (uint32_t axis = 0; axis < 3; ++axis)
        for (uint32_t positive = 0; positive < 2; ++positive) {
            vxk_face faces[8];
            uint32_t nf = seam_row(faces, axis, positive, voxel);
            frame3 fr = frame_of(&faces[0]);
            dvec normal = face_normal(&faces[0]);
            double plane = comp(dv(faces[0].min), axis);
            double u0 = comp(dv(faces[0].min), fr.au), v0 = comp(dv(faces[0].min), fr.av);
            // Row spans u0 .. u0 + 14 voxels; stay a radius away from the row's convex ends.
            for (int k = 0; k < 200; ++k) {
                double u = u0 + 0.6 + (14 * voxel - 1.2) * (k + 0.5) / 200.0;
                double v = v0 + vxk_test_randf(&rng, 0.6f, 1.4f);
                // Sphere rolling (radius 0.4, 0.02 deep).
                dvec c = compose(&fr, plane + fr.sign * 0.38, u, v);
                vxk_vec3 cf = {(float)c.x, (float)c.y, (float)c.z};
                int touching = 0;
                for (uint32_t i = 0; i < nf; ++i) {
                    vxk_manifold m;
                    if (!vxk_collide_face_sphere(&m, &faces[i], cf, 0.4f, 0.01f))
                        continue;
                    ++touching;
                    VXK_CHECK_MSG(d_len(d_sub(dv(m.normal), normal)) < 1e-4,
                                  "axis %u sign %u k %d face %u: sphere normal %g %g %g", axis,
                                  positive, k, i, m.normal.x, m.normal.y, m.normal.z);
                    VXK_CHECK(fabs(m.points[0].separation + 0.02) < 1e-4);
                }
                VXK_CHECK(touching >= 1);
                // Box sliding (0.02 deep), yawed about the normal and slightly tilted, or tumbled.
                vxk_vec3 nf3 = {(float)normal.x, (float)normal.y, (float)normal.z};
                vxk_quat yaw = vxk_quat_from_axis_angle(nf3, vxk_test_randf(&rng, -3.1f, 3.1f));
                float tilt = (k & 1) ? vxk_test_randf(&rng, -0.02f, 0.02f) : 0.0f;
                vxk_vec3 tilt_axis = {0, 0, 0};
                vxk_v3_set(&tilt_axis, fr.au, 1.0f);
                vxk_quat qb = vxk_quat_mul(vxk_quat_from_axis_angle(tilt_axis, tilt), yaw);
                bool tumbled = (k & 3) == 3; // every fourth: any orientation, corner or edge down
                if (tumbled)
                    qb = random_quat(&rng);
                vxk_vec3 half = {0.3f, 0.3f, 0.3f};
                vxk_v3_set(&half, axis, 0.2f); // the box's half height along the face normal
                vxk_obb box = make_box(vxk_v3(0, 0, 0), qb, half);
                dbox db = dbox_of(&box);
                double reach = 0;
                for (int i = 0; i < 3; ++i)
                    reach += db.h[i] * fabs(d_dot(db.ax[i], normal));
                dvec bc = compose(&fr, plane + fr.sign * (reach - 0.02), u, v);
                box.center = vxk_v3((float)bc.x, (float)bc.y, (float)bc.z);
                touching = 0;
                for (uint32_t i = 0; i < nf; ++i) {
                    vxk_manifold m;
                    uint32_t n = vxk_collide_face_box(&m, &faces[i], &box, 0.01f);
                    if (!n)
                        continue;
                    touching += (int)n;
                    VXK_CHECK_MSG(d_len(d_sub(dv(m.normal), normal)) < 1e-4,
                                  "axis %u sign %u k %d face %u: box normal %g %g %g", axis,
                                  positive, k, i, m.normal.x, m.normal.y, m.normal.z);
                    for (uint32_t j = 0; j < n; ++j) {
                        VXK_CHECK(m.points[j].separation >= -0.02 - 1e-4);
                        VXK_CHECK(rect_distance(&faces[i], dv(m.points[j].point)) < 3e-4);
                    }
                }
                VXK_CHECK(touching >= (tumbled ? 1 : 3));
            }
        }
    return 0;
}

static double max_half_of(const dbox* b)
{
    return fmax(b->h[0], fmax(b->h[1], b->h[2]));
}

static int test_face_box_random(void)
{
    uint64_t rng = vxk_test_seed(1212);
    int counted[2] = {0, 0};
    for (int it = 0; it < 6000; ++it) {
        bool convex = it & 1;
        uint32_t cls = convex ? VXK_EDGE_CONVEX : VXK_EDGE_FLAT;
        vxk_face f = random_face(&rng, edges_of(cls, cls, cls, cls));
        vxk_obb b = random_box(&rng, 0.0f);
        b.center = point_near_face(&rng, &f, 1.2f);
        float margin = vxk_test_randf(&rng, 0, 0.1f);
        frame3 fr = frame_of(&f);
        dvec face_min = dv(f.min);
        // The rectangle as 4 corners, axes u, v and the normal.
        dvec rc[4];
        for (int k = 0; k < 4; ++k)
            rc[k] =
                d_add(face_min, compose(&fr, 0, (k & 1) ? f.size_u : 0, (k & 2) ? f.size_v : 0));
        dvec rax[3] = {compose(&fr, 1, 0, 0), compose(&fr, 0, 1, 0), compose(&fr, 0, 0, 1)};
        dbox db = dbox_of(&b);
        dvec cb[8];
        box_corners(cb, &db);
        gap_summary g = summarize(rc, 4, cb, 8, rax, 3, db.ax, 3);
        double h = fr.sign * (comp(db.c, fr.axis) - comp(face_min, fr.axis));
        vxk_manifold m;
        uint32_t n = vxk_collide_face_box(&m, &f, &b, margin);
        if (h < 0) {
            VXK_CHECK_EQ_U64(n, 0);
            continue;
        }
        if (g.max_gap > margin + 1e-5) {
            VXK_CHECK_MSG(n == 0, "gap %g, %u points", g.max_gap, n);
            continue;
        }
        if (check_manifold_sane(&m))
            return 1;
        dvec normal = dv(m.normal);
        VXK_CHECK(n == 0 || d_dot(normal, face_normal(&f)) > -1e-5); // never into the face
        double gap_n = gap_along(rc, 4, cb, 8, normal);
        for (uint32_t i = 0; i < n; ++i) {
            dvec p = dv(m.points[i].point);
            double s = m.points[i].separation;
            // Clipping keeps points up to 1e-4 x the half extent past a side plane.
            double slop = 1e-4 * fmax(fmax(f.size_u, f.size_v), 2 * max_half_of(&db)) + 2e-5;
            VXK_CHECK_MSG(rect_distance(&f, p) < slop, "point off the face by %g",
                          rect_distance(&f, p));
            dvec q = d_add(p, d_scale(normal, s));
            VXK_CHECK_MSG(fabs(box_sdf(&db, q)) < 2e-4, "q off the box by %g", box_sdf(&db, q));
            if (convex)
                VXK_CHECK_MSG(s >= gap_n - 2e-4, "sep %g below gap %g", s, gap_n);
        }
        if (n)
            ++counted[convex];
        if (!convex && n) {
            VXK_CHECK(d_dot(normal, face_normal(&f)) == 1.0);
            // Along the face normal no point is deeper than the box's lowest corner.
            double lowest = DBL_MAX;
            for (int k = 0; k < 8; ++k)
                lowest = fmin(lowest, fr.sign * (comp(cb[k], fr.axis) - comp(face_min, fr.axis)));
            for (uint32_t i = 0; i < n; ++i)
                VXK_CHECK(m.points[i].separation >= lowest - 2e-4);
        }
    }
    VXK_CHECK(counted[0] > 500 && counted[1] > 500);
    // Face-box feature ids are stable for a box resting on a face.
    vxk_face f;
    vxk_face_from_quad(&f, make_quad(0, 0, 0, 8, 8, 1, 1, 0), (vxk_int3){0, 0, 0}, 1.0f);
    for (int it = 0; it < 500; ++it) {
        vxk_quat q = vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), vxk_test_randf(&rng, 0, 6.28f));
        vxk_obb b = make_box(vxk_v3(vxk_test_randf(&rng, 1, 7), 1.49f, vxk_test_randf(&rng, 1, 7)),
                             q, vxk_v3(0.5f, 0.5f, 0.5f));
        vxk_manifold m0, m1;
        VXK_CHECK_EQ_U64(vxk_collide_face_box(&m0, &f, &b, 0.02f), 4);
        for (int k = 0; k < 8; ++k) {
            vxk_obb bp = perturb(&rng, &b, 1e-4f);
            vxk_collide_face_box(&m1, &f, &bp, 0.02f);
            VXK_CHECK(id_sets_equal(&m0, &m1));
        }
    }
    return 0;
}

// A box rotated 45 degrees about z pressing its face against the face's +u edge from the side:
// a convex edge gives the box face's normal (two points along the edge), a flat one the floor's.
static int test_face_box_convex_edge(void)
{
    vxk_face f;
    vxk_face_from_quad(&f, make_quad(0, 7, 0, 4, 2, 1, 1, edges_of(0, VXK_EDGE_CONVEX, 0, 0)),
                       (vxk_int3){0, -1, 0}, 1.0f); // y = 0, x 0..4, z 0..2
    vxk_obb b =
        make_box(vxk_v3(4.3f, 0.4f, 1.0f), vxk_quat_from_axis_angle(vxk_v3(0, 0, 1), 0.78539816f),
                 vxk_v3(0.5f, 0.5f, 0.5f));
    double inside = 0.5 - 0.7 / sqrt(2.0); // the edge's depth in the box
    vxk_manifold m;
    VXK_CHECK_EQ_U64(vxk_collide_face_box(&m, &f, &b, 0.0f), 2);
    VXK_CHECK_MSG(fabs(m.normal.x - 0.70710678) < 1e-5 && fabs(m.normal.y - 0.70710678) < 1e-5,
                  "normal %g %g %g", m.normal.x, m.normal.y, m.normal.z);
    for (uint32_t i = 0; i < 2; ++i) {
        VXK_CHECK(fabs(m.points[i].separation + inside) < 1e-5);
        VXK_CHECK(fabs(m.points[i].point.x - 4.0f) < 1e-5 && fabs(m.points[i].point.y) < 1e-5);
        VXK_CHECK(fabs(fabs(m.points[i].point.z - 1.0f) - 0.5f) < 1e-4); // clip slop
    }
    f.edges = (uint8_t)edges_of(0, VXK_EDGE_FLAT, 0, 0);
    uint32_t n = vxk_collide_face_box(&m, &f, &b, 0.0f);
    VXK_CHECK(n == 0 || (m.normal.y == 1.0f && m.normal.x == 0.0f));
    b.center.x = 3.9f; // now over the rectangle: the floor either way
    VXK_CHECK(vxk_collide_face_box(&m, &f, &b, 0.0f) > 0);
    VXK_CHECK(m.normal.y == 1.0f);
    return 0;
}

static int test_face_degenerate(void)
{
    vxk_face f;
    vxk_face_from_quad(&f, make_quad(0, 0, 0, 1, 1, 1, 1, 0x55), (vxk_int3){0, 0, 0}, 1.0f);
    vxk_manifold m;
    vxk_obb zero = make_box(vxk_v3(0.5f, 1.0f, 0.5f), vxk_quat_identity(), vxk_v3(0, 0, 0));
    VXK_CHECK(vxk_collide_face_box(&m, &f, &zero, 0) > 0);
    if (check_manifold_sane(&m))
        return 1;
    vxk_obb on_edge =
        make_box(vxk_v3(1.0f, 1.0f, 0.5f), vxk_quat_identity(), vxk_v3(0.5f, 0.5f, 0.5f));
    vxk_collide_face_box(&m, &f, &on_edge, 0);
    if (check_manifold_sane(&m))
        return 1;
    f.size_u = 0.0f;
    f.size_v = 0.0f;
    vxk_collide_face_box(&m, &f, &on_edge, 0.1f);
    if (check_manifold_sane(&m))
        return 1;
    vxk_collide_face_sphere(&m, &f, vxk_v3(0, 1, 0), 0, 0);
    return check_manifold_sane(&m);
}

int main(void)
{
    VXK_RUN(test_spheres);
    VXK_RUN(test_box_sphere);
    VXK_RUN(test_boxes_random);
    VXK_RUN(test_boxes_resting);
    VXK_RUN(test_flip);
    VXK_RUN(test_feature_stability);
    VXK_RUN(test_feature_stability_flush);
    VXK_RUN(test_boxes_degenerate);
    VXK_RUN(test_reduce);
    VXK_RUN(test_face_from_quad);
    VXK_RUN(test_face_sphere_random);
    VXK_RUN(test_face_sphere_convex_edge);
    VXK_RUN(test_flat_seams);
    VXK_RUN(test_face_box_random);
    VXK_RUN(test_face_box_convex_edge);
    VXK_RUN(test_face_degenerate);
    return vxk_test_finish();
}
