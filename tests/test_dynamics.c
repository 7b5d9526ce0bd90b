// test_dynamics.c: the soft-step solver of vxk/body.h against known answers. Free fall equals
// the header's closed form (a float recurrence in the header's order); a throw follows the
// parabola within the integrator's O(h) error; a sphere dropped from 50 m rests on the terrain and
// never sinks past the slop; a box on a slope (gravity rotated, terrain flat) stays below the
// friction angle and slides with g (sin a - mu cos a) above it; bounces reach e^2 H; a tower and
// a pyramid stand; a closed frictionless box of elastic spheres never gains energy; 1,000 mixed
// bodies give one hash for every worker count; contact events, contact data and normals across
// 200 terrain seams. All worlds run inline except the worker-count test.
#include "scenes.h"
#include "test.h"

#include <vxk/body.h>
#include <vxk/jobs.h>
#include <vxk/vxk.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)
#define MAT_SLICK 20 // frictionless, perfectly elastic

// ---- helpers ------------------------------------------------------------------------------------

static vxk_material_table g_table;

// The default table with stone's (and dirt's) friction and restitution set, and MAT_SLICK.
static const vxk_material_table* materials(float friction, float restitution)
{
    vxk_default_material_table(&g_table);
    g_table.materials[VXK_MAT_STONE].friction = friction;
    g_table.materials[VXK_MAT_STONE].restitution = restitution;
    g_table.materials[VXK_MAT_DIRT].friction = friction;
    g_table.materials[VXK_MAT_DIRT].restitution = restitution;
    vxk_material* m = &g_table.materials[MAT_SLICK];
    m->kind = VXK_MATERIAL_SOLID;
    m->defined = 1;
    m->density = 1000.0f;
    m->friction = 0.0f;
    m->restitution = 1.0f;
    strcpy(m->name, "slick");
    return &g_table;
}

static vxk_world* world_with(vxk_vec3 gravity, const vxk_material_table* table, vxk_jobs* jobs)
{
    vxk_world_def def = vxk_default_world_def();
    def.gravity = gravity;
    def.materials = table;
    def.jobs = jobs;
    vxk_world* w = NULL;
    return vxk_world_create(&def, &w) == VXK_OK ? w : NULL;
}

static const vxk_vec3 k_gravity = {0.0f, -9.81f, 0.0f};

// Stone with its top surface at y = 0 over voxels x0..x1, z0..z1.
static vxk_status flat_floor(vxk_world* w, int32_t x0, int32_t x1, int32_t z0, int32_t z1)
{
    return vxk_world_fill_box(w, (vxk_int_box){{x0, -8, z0}, {x1, -1, z1}}, VXK_MAT_STONE);
}

static vxk_body_id add_body(vxk_world* w, const vxk_body_def* def)
{
    vxk_body_id id = {0, 0};
    vxk_status st = vxk_body_create(w, def, &id);
    if (st != VXK_OK)
        fprintf(stderr, "vxk_body_create: %s\n", vxk_status_string(st));
    return id;
}

static vxk_body_id add_sphere(vxk_world* w, vxk_vec3 p, float radius)
{
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.shape = vxk_sphere_shape(radius, VXK_MAT_STONE);
    return add_body(w, &d);
}

static vxk_body_id add_box(vxk_world* w, vxk_vec3 p, vxk_vec3 half)
{
    vxk_body_def d = vxk_default_body_def();
    d.position = p;
    d.shape = vxk_box_shape(half, VXK_MAT_WOOD);
    return add_body(w, &d);
}

static vxk_vec3 position(const vxk_world* w, vxk_body_id id)
{
    vxk_transform t = {{NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}};
    vxk_body_get_transform(w, id, &t);
    return t.p;
}

static vxk_vec3 velocity(const vxk_world* w, vxk_body_id id)
{
    vxk_vec3 v = {NAN, NAN, NAN}, av;
    vxk_body_get_velocity(w, id, &v, &av);
    return v;
}

static bool is_vertical(vxk_vec3 n, double tolerance)
{
    return fabs(n.x) <= tolerance && fabs(n.z) <= tolerance && fabs(n.y - 1.0) <= tolerance;
}

// Contacts of the last step into a reused buffer.
static vxk_contact_data* g_contacts;
static uint32_t g_contact_capacity;

static uint32_t read_contacts(const vxk_world* w)
{
    uint32_t n = vxk_world_get_contacts(w, NULL, 0);
    if (n > g_contact_capacity) {
        free(g_contacts);
        g_contact_capacity = n * 2;
        g_contacts = malloc(g_contact_capacity * sizeof(vxk_contact_data));
    }
    return n ? vxk_world_get_contacts(w, g_contacts, n) : 0;
}

// ---- free fall and throws
// -------------------------------------------------------------------------

// x after k substeps from rest: the header's closed form and the float recurrence in its order
// (v += h * (scale * g); v *= 1 / (1 + h * damping); x += h * v).
static int free_fall_case(uint32_t substeps, float gravity_scale, float damping, vxk_vec3 gravity)
{
    vxk_world_def def = vxk_default_world_def();
    def.gravity = gravity;
    def.substeps = substeps;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    vxk_body_def d = vxk_default_body_def();
    const vxk_vec3 p0 = {0.25f, 100.0f, -0.75f};
    d.position = p0;
    d.gravity_scale = gravity_scale;
    d.linear_damping = damping;
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    const float h = STEP_DT / (float)substeps;
    float rv[3] = {0, 0, 0}, rx[3] = {p0.x, p0.y, p0.z};
    const float g[3] = {gravity.x, gravity.y, gravity.z};
    int exact = 0, steps = 120;
    for (int step = 1; step <= steps; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        for (uint32_t s = 0; s < substeps; ++s)
            for (int a = 0; a < 3; ++a) {
                rv[a] = rv[a] + h * (gravity_scale * g[a]);
                rv[a] = rv[a] * (1.0f / (1.0f + h * damping));
                rx[a] = rx[a] + h * rv[a];
            }
        vxk_vec3 p = position(w, id), v = velocity(w, id);
        double k = (double)step * substeps;
        bool all_exact = true;
        for (int a = 0; a < 3; ++a) {
            double got_x = (&p.x)[a], got_v = (&v.x)[a], x0 = (&p0.x)[a];
            double fall = fabs(rx[a] - x0);
            VXK_CHECK_MSG(fabs(got_x - rx[a]) <= 1e-5 * fall + 1e-6 * fabs(x0),
                          "substeps %u scale %g damping %g step %d axis %d: x %.9g, recurrence "
                          "%.9g",
                          substeps, (double)gravity_scale, (double)damping, step, a, got_x,
                          (double)rx[a]);
            VXK_CHECK_MSG(fabs(got_v - rv[a]) <= 1e-5 * fabs(rv[a]) + 1e-7,
                          "substeps %u step %d axis %d: v %.9g, recurrence %.9g", substeps, step, a,
                          got_v, (double)rv[a]);
            all_exact &= got_x == rx[a] && got_v == rv[a];
            if (damping == 0.0f) { // the closed form
                double hh = (double)h, ga = (double)gravity_scale * g[a];
                double want_x = x0 + hh * hh * ga * k * (k + 1) / 2, want_v = k * hh * ga;
                VXK_CHECK_MSG(fabs(got_x - want_x) <= 1e-5 * fabs(want_x - x0) + 1e-6 * fabs(x0),
                              "step %d axis %d: x %.9g, closed form %.9g", step, a, got_x, want_x);
                VXK_CHECK_MSG(fabs(got_v - want_v) <= 1e-5 * fabs(want_v) + 1e-7,
                              "step %d axis %d: v %.9g, closed form %.9g", step, a, got_v, want_v);
            }
        }
        exact += all_exact;
    }
    fprintf(stderr,
            "   substeps %u scale %g damping %g: %d of %d steps bit-exact with the "
            "recurrence\n",
            substeps, (double)gravity_scale, (double)damping, exact, steps);
    vxk_world_destroy(w);
    return 0;
}

static int test_free_fall(void)
{
    if (free_fall_case(4, 1.0f, 0.0f, k_gravity) || free_fall_case(1, 1.0f, 0.0f, k_gravity) ||
        free_fall_case(8, 1.0f, 0.0f, k_gravity) || free_fall_case(4, 2.5f, 0.0f, k_gravity) ||
        free_fall_case(4, 1.0f, 0.0f, (vxk_vec3){3.0f, -7.0f, 1.5f}) ||
        free_fall_case(4, 1.0f, 0.5f, k_gravity) || free_fall_case(3, -0.5f, 2.0f, k_gravity))
        return 1;
    // Gravity scale 0: the body stays.
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){1, 2, 3};
    d.gravity_scale = 0.0f;
    vxk_body_id id = add_body(w, &d);
    for (int i = 0; i < 30; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_vec3 p = position(w, id);
    VXK_CHECK(p.x == 1.0f && p.y == 2.0f && p.z == 3.0f);
    vxk_world_destroy(w);
    return 0;
}

// Spheres and boxes thrown without terrain: semi-implicit Euler gives x0 + v0 t + g t^2 / 2 + g h t
// / 2, an O(h) error against the parabola.
static int test_parabola(void)
{
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    uint64_t rng = vxk_test_seed(0x7A8);
    for (int throw_ = 0; throw_ < 5; ++throw_) {
        vxk_body_def d = vxk_default_body_def();
        d.position =
            (vxk_vec3){vxk_test_randf(&rng, -10, 10), 200.0f, vxk_test_randf(&rng, -10, 10)};
        d.linear_velocity = (vxk_vec3){vxk_test_randf(&rng, -8, 8), vxk_test_randf(&rng, 0, 15),
                                       vxk_test_randf(&rng, -8, 8)};
        d.angular_velocity = (vxk_vec3){vxk_test_randf(&rng, -3, 3), 1.0f, 0.0f};
        if (throw_ % 2)
            d.shape = vxk_box_shape((vxk_vec3){0.3f, 0.2f, 0.5f}, VXK_MAT_WOOD);
        vxk_body_id id = add_body(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        double h = (double)STEP_DT / 4;
        for (int step = 1; step <= 90; ++step) {
            VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
            double t = step * (double)STEP_DT;
            vxk_vec3 p = position(w, id);
            double px = d.position.x + d.linear_velocity.x * t;
            double pz = d.position.z + d.linear_velocity.z * t;
            double parabola = d.position.y + d.linear_velocity.y * t - 0.5 * 9.81 * t * t;
            double bound = 0.5 * 9.81 * h * t; // |g| h t / 2, the method's error
            VXK_CHECK_MSG(fabs(p.x - px) <= 1e-4 && fabs(p.z - pz) <= 1e-4,
                          "throw %d step %d: x %.7g z %.7g, want %.7g %.7g", throw_, step,
                          (double)p.x, (double)p.z, px, pz);
            VXK_CHECK_MSG(fabs(p.y - parabola) <= 1.02 * bound + 2e-4,
                          "throw %d step %d: y %.7g, parabola %.7g, error over O(h) bound %.3g",
                          throw_, step, (double)p.y, parabola, bound);
            VXK_CHECK_MSG(fabs(p.y - (parabola - bound)) <= 2e-4,
                          "throw %d step %d: y %.7g, semi-implicit Euler %.7g", throw_, step,
                          (double)p.y, parabola - bound);
        }
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    }
    vxk_world_destroy(w);
    return 0;
}

// Kinematic bodies move by their velocity (gravity ignored); static ones never move.
static int test_kinematic_static(void)
{
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    vxk_body_def d = vxk_default_body_def();
    d.type = VXK_BODY_KINEMATIC;
    d.position = (vxk_vec3){0, 5, 0};
    d.linear_velocity = (vxk_vec3){1.0f, 0.5f, -2.0f};
    d.angular_velocity = (vxk_vec3){0.0f, 1.0f, 0.0f};
    d.shape = vxk_box_shape((vxk_vec3){1, 0.25f, 1}, VXK_MAT_STONE);
    vxk_body_id k = add_body(w, &d);
    d.type = VXK_BODY_STATIC;
    d.linear_velocity = (vxk_vec3){0, 0, 0};
    d.angular_velocity = (vxk_vec3){0, 0, 0};
    d.position = (vxk_vec3){10, 5, 0};
    vxk_body_id s = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(k) && !VXK_ID_IS_NULL(s));
    for (int i = 0; i < 60; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_vec3 p = position(w, k);
    VXK_CHECK_MSG(fabs(p.x - 1.0) <= 1e-4 && fabs(p.y - 5.5) <= 1e-4 && fabs(p.z + 2.0) <= 1e-4,
                  "kinematic at (%.7g, %.7g, %.7g) after 1 s", (double)p.x, (double)p.y,
                  (double)p.z);
    vxk_transform t;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, k, &t), VXK_OK);
    double angle = 2.0 * atan2(t.q.y, t.q.w);
    VXK_CHECK_MSG(fabs(angle - 1.0) <= 1e-3, "kinematic turned %.7g rad in 1 s at 1 rad/s", angle);
    vxk_vec3 v = velocity(w, k);
    VXK_CHECK(v.x == 1.0f && v.y == 0.5f && v.z == -2.0f);
    p = position(w, s);
    VXK_CHECK(p.x == 10.0f && p.y == 5.0f && p.z == 0.0f);
    vxk_world_destroy(w);
    return 0;
}

// ---- terrain contact
// ------------------------------------------------------------------------------

// A sphere dropped from 50 m at 60 Hz: never below the surface by more than the slop (and a small
// tolerance), at rest on it at the end.
static int test_drop_onto_terrain(void)
{
    vxk_world_def def = vxk_default_world_def();
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&def, &w), VXK_OK);
    VXK_CHECK_EQ_INT(flat_floor(w, -32, 31, -32, 31), VXK_OK);
    const float r = 0.5f, tolerance = 0.01f;
    const vxk_vec3 drops[3] = {{4.0f, 50.5f, 4.0f}, {0.0f, 50.5f, 0.0f}, {-7.3f, 50.5f, 2.9f}};
    for (int i = 0; i < 3; ++i) {
        vxk_body_id id = add_sphere(w, drops[i], r);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        float lowest = FLT_MAX;
        for (int step = 0; step < 600; ++step) {
            VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
            vxk_vec3 p = position(w, id);
            lowest = fminf(lowest, p.y - r);
            VXK_CHECK_MSG(p.y - r >= -(def.linear_slop + tolerance),
                          "drop %d step %d: sphere bottom at %.6g (below the surface by more "
                          "than slop %g + %g)",
                          i, step, (double)(p.y - r), (double)def.linear_slop, (double)tolerance);
        }
        vxk_vec3 p = position(w, id), v = velocity(w, id);
        fprintf(stderr, "   drop %d: lowest bottom %.6g, rest at %.6g\n", i, (double)lowest,
                (double)(p.y - r));
        VXK_CHECK_MSG(fabs(p.y - r) <= def.linear_slop + tolerance,
                      "drop %d: rests with its bottom at %.6g", i, (double)(p.y - r));
        VXK_CHECK_MSG(sqrt(v.x * v.x + v.y * v.y + v.z * v.z) <= 0.02,
                      "drop %d: final velocity (%.4g, %.4g, %.4g)", i, (double)v.x, (double)v.y,
                      (double)v.z);
        VXK_CHECK(fabs(p.x - drops[i].x) <= 0.01 && fabs(p.z - drops[i].z) <= 0.01);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    }
    vxk_world_destroy(w);
    return 0;
}

// A unit box on a slope of angle a (gravity g (sin a, -cos a, 0) over flat terrain): with the
// mixed friction mu it stays when tan a < mu and slides with g (sin a - mu cos a) when above.
static int slope_case(float tan_a, float body_friction, float material_friction, bool slides)
{
    const double mu = sqrt((double)body_friction * material_friction), g = 9.81;
    const double a = atan(tan_a);
    vxk_world* w = world_with((vxk_vec3){(float)(g * sin(a)), (float)(-g * cos(a)), 0.0f},
                              materials(material_friction, 0.0f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -64, 127, -8, 7), VXK_OK);
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){0.0f, 0.5f, 0.0f};
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
    d.friction = body_friction;
    d.restitution = 0.0f;
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    for (int i = 0; i < 30; ++i) // settle 0.5 s
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    uint32_t n = read_contacts(w);
    VXK_CHECK(n >= 1);
    for (uint32_t i = 0; i < n; ++i)
        VXK_CHECK_MSG(fabs(g_contacts[i].friction - mu) <= 1e-5, "contact friction %.7g, want %.7g",
                      (double)g_contacts[i].friction, mu);
    vxk_vec3 p1 = position(w, id), v1 = velocity(w, id);
    const int measured = 90; // 1.5 s
    for (int i = 0; i < measured; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_vec3 p2 = position(w, id), v2 = velocity(w, id);
    double t = measured * (double)STEP_DT;
    if (slides) {
        double want = g * (sin(a) - mu * cos(a));
        double got = (v2.x - v1.x) / t;
        fprintf(stderr, "   tan a %.3g mu %.3g: acceleration %.5g, want %.5g\n", (double)tan_a, mu,
                got, want);
        VXK_CHECK_MSG(fabs(got - want) <= 0.02 * want,
                      "tan a %.3g mu %.3g: slides at %.5g m/s^2, want %.5g (2%%)", (double)tan_a,
                      mu, got, want);
    } else {
        fprintf(stderr, "   tan a %.3g mu %.3g: moved %.3g m in %.3g s\n", (double)tan_a, mu,
                (double)(p2.x - p1.x), t);
        VXK_CHECK_MSG(fabs(p2.x - p1.x) <= 0.01 && fabs(v2.x) <= 0.01,
                      "tan a %.3g mu %.3g: moved %.4g m (v %.4g) where it should stay",
                      (double)tan_a, mu, (double)(p2.x - p1.x), (double)v2.x);
    }
    VXK_CHECK_MSG(fabs(p2.y - 0.5) <= 0.02 && fabs(p2.z) <= 0.01,
                  "the box left the slope: (%.4g, %.4g, %.4g)", (double)p2.x, (double)p2.y,
                  (double)p2.z);
    vxk_world_destroy(w);
    return 0;
}

static int test_slope(void)
{
    // mu 0.5 from sqrt(0.5 * 0.5) and from sqrt(0.8 * 0.3125).
    if (slope_case(0.44f, 0.5f, 0.5f, false) || slope_case(0.3f, 0.8f, 0.3125f, false) ||
        slope_case(0.56f, 0.5f, 0.5f, true) || slope_case(0.6f, 0.8f, 0.3125f, true) ||
        slope_case(0.8f, 0.5f, 0.5f, true))
        return 1;
    return 0;
}

// A sphere dropped from H (its bottom) with max(e_body, e_terrain) = e: the first bounce's apex
// is e^2 H.
static int bounce_case(float e, float height)
{
    vxk_world* w = world_with(k_gravity, materials(0.5f, e * 0.5f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    const float r = 0.5f;
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){4.0f, height + r, 4.0f};
    d.restitution = e;
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    int phase = 0; // 0 falling, 1 rising after the first bounce, 2 done
    double apex = 0.0;
    for (int step = 0; step < 900 && phase < 2; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        vxk_vec3 p = position(w, id), v = velocity(w, id);
        if (phase == 0 && v.y > 0.0f)
            phase = 1;
        if (phase == 1) {
            apex = fmax(apex, (double)p.y - r);
            if (v.y < 0.0f)
                phase = 2;
        }
    }
    VXK_CHECK_MSG(phase == 2, "e %g: no bounce seen", (double)e);
    double want = (double)e * e * height;
    fprintf(stderr, "   e %g H %g: apex %.5g, want %.5g\n", (double)e, (double)height, apex, want);
    VXK_CHECK_MSG(fabs(apex - want) <= 0.05 * want, "e %g H %g: apex %.5g, want %.5g (5%%)",
                  (double)e, (double)height, apex, want);
    vxk_world_destroy(w);
    return 0;
}

static int test_restitution(void)
{
    if (bounce_case(0.5f, 10.0f) || bounce_case(0.8f, 10.0f) || bounce_case(0.3f, 20.0f))
        return 1;
    // e = 0: no bounce at all.
    vxk_world* w = world_with(k_gravity, materials(0.5f, 0.0f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){4.0f, 10.5f, 4.0f};
    d.restitution = 0.0f;
    vxk_body_id id = add_body(w, &d);
    bool landed = false;
    for (int step = 0; step < 300; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        vxk_vec3 p = position(w, id);
        landed |= p.y < 0.6f;
        if (landed)
            VXK_CHECK_MSG(p.y <= 0.52f, "e = 0: the sphere rose to %.5g after landing",
                          (double)p.y);
    }
    VXK_CHECK(landed);
    vxk_world_destroy(w);
    return 0;
}

// ---- stacks
// -------------------------------------------------------------------------------------------

// A column of n unit boxes stacked face to face (no gap) stepped 600 times (10 s): the largest
// horizontal drift of any box, and the top box's height.
static int run_column(int n, double* drift_out, vxk_vec3* top_out, double* top_start)
{
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    enum { MAX = 32 };
    VXK_CHECK(n <= MAX);
    vxk_body_id ids[MAX];
    vxk_vec3 start[MAX];
    for (int i = 0; i < n; ++i) {
        start[i] = (vxk_vec3){2.5f, 0.5f + (float)i, 3.5f};
        ids[i] = add_box(w, start[i], (vxk_vec3){0.5f, 0.5f, 0.5f});
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
    }
    double drift = 0.0;
    for (int step = 0; step < 600; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        for (int i = 0; i < n; ++i) {
            vxk_vec3 p = position(w, ids[i]);
            double dx = p.x - start[i].x, dz = p.z - start[i].z, d = sqrt(dx * dx + dz * dz);
            drift = d > drift ? d : drift;
        }
    }
    *top_out = position(w, ids[n - 1]);
    *top_start = start[n - 1].y;
    *drift_out = drift;
    vxk_world_destroy(w);
    return 0;
}

// The tower: 10 boxes stand 10 s with a drift under 1 % of a box.
static int test_tower(void)
{
    double drift, top_start;
    vxk_vec3 top;
    if (run_column(10, &drift, &top, &top_start))
        return 1;
    fprintf(stderr, "   tower: drift %.3g, top at %.5g (started %.5g)\n", drift, (double)top.y,
            top_start);
    VXK_CHECK_MSG(drift < 0.01, "horizontal drift %.4g", drift);
    VXK_CHECK_MSG(top.y > top_start - 0.1f, "tower top sank to %.5g", (double)top.y);
    return 0;
}

// A column of 30: the soft contacts' compliance makes a column that tall buckle when the
// normals and lever arms follow every small rotation; recycled manifolds keep them, and the
// column stands 10 s with its top within 5 % of a box of where it started.
static int test_tall_column(void)
{
    double drift, top_start;
    vxk_vec3 top;
    if (run_column(30, &drift, &top, &top_start))
        return 1;
    fprintf(stderr, "   column of 30: drift %.3g, top at %.5g (started %.5g)\n", drift,
            (double)top.y, top_start);
    VXK_CHECK_MSG(drift < 0.05, "horizontal drift %.4g", drift);
    VXK_CHECK_MSG(top.y > top_start - 0.5f, "column top sank to %.5g", (double)top.y);
    return 0;
}

// Contact recycling against colliding every pair every step: a tower, a row of resting boxes
// and spheres, stepped in lockstep in two worlds (recycling on, off). Every body stays within
// 2 mm of its twin, the two see the same number of contacts each step, and with recycling on
// the kept manifolds keep every resting body at rest (speed under 1 cm/s at the end).
static int test_contact_recycling(void)
{
    vxk_world* w[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        vxk_world_def def = vxk_default_world_def();
        def.contact_recycling = k == 0;
        VXK_CHECK_EQ_INT(vxk_world_create(&def, &w[k]), VXK_OK);
        VXK_CHECK_EQ_INT(flat_floor(w[k], -16, 15, -16, 15), VXK_OK);
    }
    enum { N = 16 };
    vxk_body_id ids[2][N];
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < N; ++i) {
            vxk_vec3 p = i < 6 ? (vxk_vec3){2.5f, 0.5f + (float)i * 1.001f, 3.5f}
                               : (vxk_vec3){-6.0f + 1.5f * (float)(i - 6), 0.55f, -4.0f};
            ids[k][i] =
                i < 11 ? add_box(w[k], p, (vxk_vec3){0.5f, 0.5f, 0.5f}) : add_sphere(w[k], p, 0.5f);
            VXK_CHECK(!VXK_ID_IS_NULL(ids[k][i]));
        }
    double worst = 0.0;
    for (int step = 0; step < 300; ++step) {
        for (int k = 0; k < 2; ++k)
            VXK_CHECK_EQ_INT(vxk_world_step(w[k], STEP_DT), VXK_OK);
        VXK_CHECK_EQ_U64(vxk_world_get_contacts(w[0], NULL, 0),
                         vxk_world_get_contacts(w[1], NULL, 0));
        for (int i = 0; i < N; ++i) {
            vxk_vec3 a = position(w[0], ids[0][i]), b = position(w[1], ids[1][i]);
            double d = sqrt((double)(a.x - b.x) * (a.x - b.x) + (double)(a.y - b.y) * (a.y - b.y) +
                            (double)(a.z - b.z) * (a.z - b.z));
            worst = d > worst ? d : worst;
        }
    }
    fprintf(stderr,
            "   contact recycling: largest distance to the twin that collides every step %.3g m\n",
            worst);
    VXK_CHECK_MSG(worst < 2e-3, "a body drifted %.4g m from its twin", worst);
    for (int i = 0; i < N; ++i) {
        vxk_vec3 v, av;
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w[0], ids[0][i], &v, &av), VXK_OK);
        VXK_CHECK_MSG(sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) < 0.01f, "body %d moves at rest", i);
    }
    vxk_world_destroy(w[0]);
    vxk_world_destroy(w[1]);
    return 0;
}

// A pyramid of unit boxes, 20 at its base (210 boxes), stands 10 s (600 steps; Release: about
// 1 s). Debug builds (no NDEBUG) step it 180 times and sanitizer builds (VXK_TEST_SLOW) 120 times,
// a few seconds each (600 Debug steps take about 18 s).
static int test_pyramid(void)
{
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -24, 23, -8, 7), VXK_OK);
    enum { BASE = 20, COUNT = BASE * (BASE + 1) / 2 };
    vxk_body_id ids[COUNT];
    vxk_vec3 start[COUNT];
    int n = 0;
    for (int row = 0; row < BASE; ++row)
        for (int j = 0; j < BASE - row; ++j) {
            start[n] =
                (vxk_vec3){(float)j - 0.5f * (float)(BASE - row - 1), 0.5f + (float)row, 0.5f};
            ids[n] = add_box(w, start[n], (vxk_vec3){0.5f, 0.5f, 0.5f});
            VXK_CHECK(!VXK_ID_IS_NULL(ids[n]));
            ++n;
        }
#if VXK_TEST_SLOW
    const int steps = 120;
#elif !defined(NDEBUG)
    const int steps = 180;
#else
    const int steps = 600;
#endif
    double worst = 0.0;
    for (int step = 1; step <= steps; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        if (step % 20 != 0 && step != steps)
            continue;
        for (int i = 0; i < n; ++i) {
            vxk_vec3 p = position(w, ids[i]);
            double dx = p.x - start[i].x, dz = p.z - start[i].z, d = sqrt(dx * dx + dz * dz);
            worst = fmax(worst, d);
            VXK_CHECK_MSG(d <= 0.25, "step %d: box %d moved %.4g horizontally", step, i, d);
        }
        vxk_vec3 top = position(w, ids[n - 1]);
        VXK_CHECK_MSG(start[n - 1].y - top.y < 1.0f, "step %d: top sank %.4g", step,
                      (double)(start[n - 1].y - top.y));
    }
    vxk_vec3 top = position(w, ids[n - 1]);
    fprintf(stderr, "   pyramid (%d steps): worst horizontal move %.4g, top sank %.4g\n", steps,
            worst, (double)(start[n - 1].y - top.y));
    vxk_world_destroy(w);
    return 0;
}

// ---- energy
// -------------------------------------------------------------------------------------------

static double kinetic_energy(const vxk_world* w, const vxk_body_id* ids, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
        vxk_body_info info;
        vxk_vec3 v, av;
        vxk_body_get_info(w, ids[i], &info);
        vxk_body_get_velocity(w, ids[i], &v, &av);
        e += 0.5 * info.mass * ((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
        // Spheres: I is isotropic in every frame.
        e += 0.5 * info.inertia[0][0] *
             ((double)av.x * av.x + (double)av.y * av.y + (double)av.z * av.z);
    }
    return e;
}

// Elastic spheres (restitution 1, friction 0) in a closed frictionless box of terrain, no gravity:
// the kinetic energy never grows.
static int test_energy(void)
{
    vxk_world* w = world_with((vxk_vec3){0, 0, 0}, materials(0.5f, 0.0f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, (vxk_int_box){{-2, -2, -2}, {17, 17, 17}}, MAT_SLICK),
                     VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, (vxk_int_box){{0, 0, 0}, {15, 15, 15}}, VXK_MAT_AIR),
                     VXK_OK);
    uint64_t rng = vxk_test_seed(0xE4E);
    enum { N = 27 };
    vxk_body_id ids[N];
    for (int i = 0; i < N; ++i) {
        vxk_body_def d = vxk_default_body_def();
        d.position = (vxk_vec3){3.0f + 5.0f * (float)(i % 3), 3.0f + 5.0f * (float)(i / 3 % 3),
                                3.0f + 5.0f * (float)(i / 9)};
        float speed = vxk_test_randf(&rng, 2.0f, 6.0f);
        double th = vxk_test_randf(&rng, 0.0f, 6.2831853f), z = vxk_test_randf(&rng, -1.0f, 1.0f);
        double s = sqrt(1.0 - z * z);
        d.linear_velocity = (vxk_vec3){(float)(speed * s * cos(th)), (float)(speed * s * sin(th)),
                                       (float)(speed * z)};
        d.friction = 0.0f;
        d.restitution = 1.0f;
        d.shape = vxk_sphere_shape(vxk_test_randf(&rng, 0.4f, 0.8f), VXK_MAT_STONE);
        ids[i] = add_body(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
    }
    const double e0 = kinetic_energy(w, ids, N), noise = 1e-6 * e0;
    double previous = e0, peak = e0;
    int steps = 600;
    for (int step = 1; step <= steps; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        double e = kinetic_energy(w, ids, N);
        peak = fmax(peak, e);
        VXK_CHECK_MSG(e <= previous * (1.0 + 1e-4) + noise,
                      "step %d: kinetic energy grew from %.9g to %.9g (x %.7g)", step, previous, e,
                      e / previous);
        VXK_CHECK_MSG(e <= e0 * (1.0 + 1e-4) + noise,
                      "step %d: kinetic energy %.9g over the initial %.9g (x %.7g)", step, e, e0,
                      e / e0);
        previous = e;
    }
    fprintf(stderr, "   energy: initial %.6g, peak x %.7g, final x %.7g\n", e0, peak / e0,
            previous / e0);
    // Everyone still inside the box.
    for (int i = 0; i < N; ++i) {
        vxk_vec3 p = position(w, ids[i]);
        VXK_CHECK(p.x > 0 && p.x < 16 && p.y > 0 && p.y < 16 && p.z > 0 && p.z < 16);
    }
    vxk_world_destroy(w);
    return 0;
}

// ---- determinism across worker counts
// --------------------------------------------------------------

// Terrain with low bumps and 1,000 bodies (spheres, boxes, 20 voxel bodies) in 10 layers 2.2 m
// apart, the lowest 3 m up: all have landed after about 2 s.
static vxk_status determinism_scene(vxk_world* w, uint64_t seed)
{
    uint64_t rng = seed;
    vxk_status st = flat_floor(w, -40, 39, -40, 39);
    for (int i = 0; i < 40 && st == VXK_OK; ++i) { // bumps
        int32_t x = (int32_t)(vxk_test_rand(&rng) % 70) - 35;
        int32_t z = (int32_t)(vxk_test_rand(&rng) % 70) - 35;
        int32_t top = (int32_t)(vxk_test_rand(&rng) % 2);
        uint8_t m = (uint8_t)(i % 3 == 0 ? VXK_MAT_DIRT : i % 3 == 1 ? VXK_MAT_WOOD : VXK_MAT_ICE);
        st = vxk_world_fill_box(w, (vxk_int_box){{x, 0, z}, {x + 1 + i % 3, top, z + 2}}, m);
    }
    static uint8_t voxels[27];
    vxk_voxel_grid g = {{3, 3, 3}, voxels}; // read by vxk_body_create
    for (int i = 0; i < 1000 && st == VXK_OK; ++i) {
        int ix = i % 10, iy = i / 100, iz = i / 10 % 10;
        vxk_body_def d = vxk_default_body_def();
        d.position = (vxk_vec3){-22.0f + 4.4f * (float)ix + vxk_test_randf(&rng, -0.8f, 0.8f),
                                3.0f + 2.2f * (float)iy,
                                -22.0f + 4.4f * (float)iz + vxk_test_randf(&rng, -0.8f, 0.8f)};
        d.linear_velocity = (vxk_vec3){vxk_test_randf(&rng, -2, 2), vxk_test_randf(&rng, -2, 0),
                                       vxk_test_randf(&rng, -2, 2)};
        d.angular_velocity = (vxk_vec3){vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, 1),
                                        vxk_test_randf(&rng, -1, 1)};
        double ax = vxk_test_randf(&rng, -1, 1), ay = vxk_test_randf(&rng, -1, 1),
               az = vxk_test_randf(&rng, -1, 1), angle = vxk_test_randf(&rng, 0, 3);
        double len = sqrt(ax * ax + ay * ay + az * az) + 1e-9, s = sin(angle / 2) / len;
        d.rotation =
            (vxk_quat){(float)(ax * s), (float)(ay * s), (float)(az * s), (float)cos(angle / 2)};
        if (i % 50 == 7) {
            for (int k = 0; k < 27; ++k)
                voxels[k] = vxk_test_rand(&rng) % 3 ? VXK_MAT_STONE : 0;
            voxels[13] = VXK_MAT_METAL;
            d.shape = vxk_voxel_shape(&g, 0.35f);
        } else if (i % 2 == 0) {
            d.shape = vxk_sphere_shape(vxk_test_randf(&rng, 0.3f, 0.6f), VXK_MAT_STONE);
        } else {
            d.shape = vxk_box_shape((vxk_vec3){vxk_test_randf(&rng, 0.25f, 0.55f),
                                               vxk_test_randf(&rng, 0.25f, 0.55f),
                                               vxk_test_randf(&rng, 0.25f, 0.55f)},
                                    VXK_MAT_WOOD);
        }
        vxk_body_id id;
        st = vxk_body_create(w, &d, &id);
    }
    return st;
}

// Hashes every 100 steps of one run (workers 0: the world runs inline).
static int determinism_run(uint64_t* hashes, int checkpoints, int steps, uint32_t workers,
                           uint64_t seed)
{
    vxk_jobs* jobs = NULL;
    if (workers > 0) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    }
    vxk_world* w = world_with(k_gravity, NULL, jobs);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(determinism_scene(w, seed), VXK_OK);
    VXK_CHECK_EQ_U64(vxk_world_body_count(w), 1000);
    int c = 0;
    for (int step = 1; step <= steps; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        if (step % (steps / checkpoints) == 0 && c < checkpoints)
            hashes[c++] = vxk_world_hash(w);
    }
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    return 0;
}

// 1,000 mixed bodies over terrain: one world hash for the inline world, 1, 2, 3 and 8 workers,
// and a second inline run. Optimized builds step 600 times (Release: about 20 s for the six
// runs); Debug builds (no NDEBUG) 240 times (about 35 s), sanitizer builds (VXK_TEST_SLOW) 90
// times, to stay under a minute; VXK_DETERMINISM_STEPS=n steps n times. The hashes are printed so
// that builds (VXK_SIMD=scalar) can be compared.
static int test_determinism(void)
{
    enum { CHECKPOINTS = 6 };
#if VXK_TEST_SLOW
    int steps = 90;
#elif !defined(NDEBUG)
    int steps = 240;
#else
    int steps = 600;
#endif
    const char* env = getenv("VXK_DETERMINISM_STEPS"); // any count (a multiple of 6 prints all)
    if (env && atoi(env) >= CHECKPOINTS)
        steps = atoi(env);
    const uint64_t seed = vxk_test_seed(0xD373);
    const uint32_t workers[] = {0, 1, 2, 3, 8, 0};
    uint64_t first[CHECKPOINTS], hashes[CHECKPOINTS];
    for (size_t r = 0; r < sizeof(workers) / sizeof(workers[0]); ++r) {
        if (determinism_run(r == 0 ? first : hashes, CHECKPOINTS, steps, workers[r], seed))
            return 1;
        if (r == 0)
            continue;
        for (int c = 0; c < CHECKPOINTS; ++c)
            VXK_CHECK_MSG(hashes[c] == first[c],
                          "%u workers (run %zu): hash %016llx at step %d, inline %016llx",
                          workers[r], r, (unsigned long long)hashes[c],
                          (c + 1) * (steps / CHECKPOINTS), (unsigned long long)first[c]);
    }
    printf("dynamics determinism hash (seed %llu, %d steps): %016llx (at every %d steps:",
           (unsigned long long)seed, steps, (unsigned long long)first[CHECKPOINTS - 1],
           steps / CHECKPOINTS);
    for (int c = 0; c < CHECKPOINTS; ++c)
        printf(" %016llx", (unsigned long long)first[c]);
    printf(")\n");
    fflush(stdout);
    return 0;
}

// ---- contacts and events
// ------------------------------------------------------------------------------

// A sphere dropped on terrain: exactly one begin event (terrain to body, normal up, approach
// speed the impact speed), then exactly one end event when it bounces off.
static int test_contact_events(void)
{
    vxk_world* w = world_with(k_gravity, materials(0.5f, 0.5f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    const float height = 3.0f, r = 0.5f;
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){4.0f, height + r, 4.0f};
    d.restitution = 0.5f;
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    int begin_step = -1, end_step = -1, bounce_step = -1;
    vxk_contact_event begin = {0};
    double lo = 0.0, hi = 0.0;
    for (int step = 0; step < 300 && end_step < 0; ++step) {
        vxk_vec3 v_before = velocity(w, id);
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        if (bounce_step < 0 && v_before.y < 0.0f && velocity(w, id).y > 0.0f)
            bounce_step = step;
        vxk_contact_event begins[2], ends[2];
        uint32_t begin_count = vxk_world_get_contact_begin_events(w, begins, 2);
        uint32_t end_count = vxk_world_get_contact_end_events(w, ends, 2);
        if (begin_step < 0) {
            VXK_CHECK_MSG(end_count == 0, "step %d: end event before any begin", step);
            if (begin_count == 0)
                continue;
            VXK_CHECK_EQ_U64(begin_count, 1);
            begin = begins[0];
            // A short buffer: the count all the same, nothing written past the capacity.
            vxk_contact_event untouched, canary;
            memset(&untouched, 0xA5, sizeof(untouched));
            canary = untouched;
            VXK_CHECK_EQ_U64(vxk_world_get_contact_begin_events(w, NULL, 0), 1);
            VXK_CHECK_EQ_U64(vxk_world_get_contact_begin_events(w, &untouched, 0), 1);
            VXK_CHECK(memcmp(&untouched, &canary, sizeof(canary)) == 0);
            // The closing speed before the solve lies between the speed at the step's start and
            // that plus one step of gravity.
            lo = -v_before.y;
            hi = lo + 9.81 * STEP_DT;
            begin_step = step;
        } else {
            VXK_CHECK_MSG(begin_count == 0, "step %d: a second begin while touching", step);
            if (end_count == 0)
                continue;
            VXK_CHECK_EQ_U64(end_count, 1);
            const vxk_contact_event* e = &ends[0];
            VXK_CHECK(VXK_ID_IS_NULL(e->a));
            VXK_CHECK(VXK_ID_EQUAL(e->b, id));
            VXK_CHECK(e->chunk.x == 0 && e->chunk.y == -1 && e->chunk.z == 0);
            VXK_CHECK(is_vertical(e->normal, 1e-4));
            VXK_CHECK_MSG(velocity(w, id).y > 0.0f, "end event while not rising");
            end_step = step;
        }
    }
    vxk_world_destroy(w);
    const double impact = sqrt(2.0 * 9.81 * height); // free fall from H
    fprintf(stderr,
            "   bounce (velocity turned up) in step %d; begin event in step %d (approach %.5g, "
            "normal impulse %.5g, closing speed at the step's start %.5g, impact %.5g); end "
            "event in step %d\n",
            bounce_step, begin_step, (double)begin.approach_speed, (double)begin.normal_impulse, lo,
            impact, end_step);
    VXK_CHECK_MSG(begin_step >= 0, "no begin event");
    VXK_CHECK_MSG(begin_step <= bounce_step,
                  "the begin event (step %d) came after the bounce "
                  "(step %d)",
                  begin_step, bounce_step);
    VXK_CHECK(VXK_ID_IS_NULL(begin.a));
    VXK_CHECK(VXK_ID_EQUAL(begin.b, id));
    VXK_CHECK(begin.chunk.x == 0 && begin.chunk.y == -1 && begin.chunk.z == 0);
    VXK_CHECK_MSG(is_vertical(begin.normal, 1e-4), "begin normal (%.7g, %.7g, %.7g)",
                  (double)begin.normal.x, (double)begin.normal.y, (double)begin.normal.z);
    VXK_CHECK_MSG(begin.approach_speed >= lo - 1e-3 && begin.approach_speed <= hi + 1e-3,
                  "approach speed %.6g outside [%.6g, %.6g]", (double)begin.approach_speed, lo, hi);
    VXK_CHECK_MSG(fabs(begin.approach_speed - impact) <= 0.05 * impact,
                  "approach speed %.6g, impact speed %.6g", (double)begin.approach_speed, impact);
    VXK_CHECK(begin.normal_impulse > 0.0f);
    VXK_CHECK(fabs(begin.point.x - 4.0) <= 0.01 && fabs(begin.point.z - 4.0) <= 0.01);
    VXK_CHECK(fabs(begin.point.y) <= 0.05);
    VXK_CHECK_MSG(end_step >= 0, "no end event after the bounce");
    return 0;
}

// Destroying a body that touches ends its contact: one end event naming it, at once or with the
// next step's events; the other body's contact goes on.
static int test_destroy_end_event(void)
{
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    vxk_body_id id = add_sphere(w, (vxk_vec3){4.0f, 0.5f, 4.0f}, 0.5f);
    vxk_body_id other = add_sphere(w, (vxk_vec3){-4.0f, 0.5f, -4.0f}, 0.5f);
    VXK_CHECK(!VXK_ID_IS_NULL(id) && !VXK_ID_IS_NULL(other));
    for (int step = 0; step < 60; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, NULL, 0), 2);
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
    vxk_contact_event events[8];
    uint32_t count = vxk_world_get_contact_end_events(w, events, 8);
    VXK_CHECK(count <= 8);
    uint32_t ends = 0;
    for (uint32_t i = 0; i < count; ++i)
        ends += VXK_ID_EQUAL(events[i].b, id);
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    count = vxk_world_get_contact_end_events(w, events, 8);
    VXK_CHECK(count <= 8);
    for (uint32_t i = 0; i < count; ++i) {
        ends += VXK_ID_EQUAL(events[i].b, id);
        VXK_CHECK(!VXK_ID_EQUAL(events[i].b, other));
    }
    VXK_CHECK_EQ_U64(vxk_world_get_contact_begin_events(w, NULL, 0), 0);
    VXK_CHECK_MSG(ends == 1, "%u end events for the destroyed body", ends);
    VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, NULL, 0), 1);
    vxk_world_destroy(w);
    return 0;
}

// Resting shapes: one contact from the terrain chunk (a null) to the body (b), normal up.
static int test_resting_contacts(void)
{
    const float body_friction = 0.9f, body_restitution = 0.1f;
    vxk_world* w = world_with(k_gravity, materials(0.4f, 0.3f), NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    vxk_world_def def = vxk_default_world_def();
    for (int shape = 0; shape < 2; ++shape) {
        vxk_body_def d = vxk_default_body_def();
        d.position = (vxk_vec3){4.0f, 0.5f, 4.0f};
        d.friction = body_friction;
        d.restitution = body_restitution;
        if (shape == 1)
            d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
        vxk_body_id id = add_body(w, &d);
        VXK_CHECK(!VXK_ID_IS_NULL(id));
        for (int step = 0; step < 60; ++step)
            VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, NULL, 0), 1);
        vxk_contact_data c[2];
        memset(c, 0xA5, sizeof(c));
        VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, c, 2), 1);
        VXK_CHECK(VXK_ID_IS_NULL(c[0].a));
        VXK_CHECK(VXK_ID_EQUAL(c[0].b, id));
        VXK_CHECK(c[0].chunk.x == 0 && c[0].chunk.y == -1 && c[0].chunk.z == 0);
        VXK_CHECK_MSG(is_vertical(c[0].normal, 1e-4), "shape %d: normal (%.7g, %.7g, %.7g)", shape,
                      (double)c[0].normal.x, (double)c[0].normal.y, (double)c[0].normal.z);
        VXK_CHECK(fabs(c[0].friction - sqrt(body_friction * 0.4)) <= 1e-6);
        VXK_CHECK(c[0].restitution == 0.3f);
        VXK_CHECK_EQ_U64(c[0].point_count, shape == 0 ? 1 : 4);
        double total = 0.0;
        for (uint32_t i = 0; i < c[0].point_count; ++i) {
            const vxk_contact_point* p = &c[0].points[i];
            VXK_CHECK_MSG(fabs(p->point.y) <= 0.01, "point on the terrain at y %.5g",
                          (double)p->point.y);
            VXK_CHECK_MSG(fabs(p->separation) <= def.linear_slop + 0.005, "resting separation %.5g",
                          (double)p->separation);
            VXK_CHECK(p->normal_impulse >= 0.0f);
            total += p->normal_impulse;
        }
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
        double weight = info.mass * 9.81 * STEP_DT; // the step's impulse of the weight
        VXK_CHECK_MSG(total > 0.0 && total <= 1.5 * weight,
                      "shape %d: normal impulse %.6g for a weight impulse %.6g", shape, total,
                      weight);
        if (shape == 1)
            for (uint32_t i = 0; i < 4; ++i) // the box's four bottom corners
                VXK_CHECK(fabs(fabs(c[0].points[i].point.x - 4.0) - 0.5) <= 0.01 &&
                          fabs(fabs(c[0].points[i].point.z - 4.0) - 0.5) <= 0.01);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, id), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, NULL, 0), 0);
    }
    vxk_world_destroy(w);
    return 0;
}

// Body pairs: a is the lower id index and the normal points from a to b; contacts come in
// pair-key order (terrain first by body, then pairs by (a, b)).
static int test_pair_contacts(void)
{
    for (int order = 0; order < 2; ++order) {
        vxk_world* w = world_with((vxk_vec3){0, 0, 0}, NULL, NULL);
        VXK_CHECK(w != NULL);
        vxk_vec3 left = {0, 10, 0}, right = {0.99f, 10, 0};
        vxk_body_id first = add_sphere(w, order ? right : left, 0.5f);
        vxk_body_id second = add_sphere(w, order ? left : right, 0.5f);
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        vxk_contact_data c;
        VXK_CHECK_EQ_U64(vxk_world_get_contacts(w, &c, 1), 1);
        VXK_CHECK(VXK_ID_EQUAL(c.a, first) && VXK_ID_EQUAL(c.b, second));
        vxk_vec3 want = {order ? -1.0f : 1.0f, 0, 0};
        VXK_CHECK_MSG(fabs(c.normal.x - want.x) <= 1e-4 && fabs(c.normal.y) <= 1e-4 &&
                          fabs(c.normal.z) <= 1e-4,
                      "order %d: normal (%.6g, %.6g, %.6g)", order, (double)c.normal.x,
                      (double)c.normal.y, (double)c.normal.z);
        VXK_CHECK(c.point_count == 1);
        // Pushed apart along the normal.
        VXK_CHECK(velocity(w, first).x * want.x < 0.0f && velocity(w, second).x * want.x > 0.0f);
        vxk_world_destroy(w);
    }
    // Order: a scene of stacks on terrain.
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(flat_floor(w, -16, 15, -16, 15), VXK_OK);
    for (int i = 0; i < 12; ++i) {
        float x = -9.5f + 2.0f * (float)(i % 6);
        float y = i < 6 ? 0.5f : 1.5f; // the second six on the first
        VXK_CHECK(
            !VXK_ID_IS_NULL(add_box(w, (vxk_vec3){x, y, 0.5f}, (vxk_vec3){0.5f, 0.5f, 0.5f})));
    }
    for (int i = 0; i < 30; ++i)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    uint32_t n = read_contacts(w);
    VXK_CHECK(n >= 12);
    bool pairs = false;
    for (uint32_t i = 0; i < n; ++i) {
        const vxk_contact_data* c = &g_contacts[i];
        if (VXK_ID_IS_NULL(c->a)) {
            VXK_CHECK_MSG(!pairs, "terrain contact %u after a body pair", i);
            if (i > 0 && VXK_ID_IS_NULL(g_contacts[i - 1].a))
                VXK_CHECK(g_contacts[i - 1].b.index <= c->b.index);
        } else {
            VXK_CHECK(c->a.index < c->b.index);
            if (pairs) {
                const vxk_contact_data* p = &g_contacts[i - 1];
                VXK_CHECK(p->a.index < c->a.index ||
                          (p->a.index == c->a.index && p->b.index < c->b.index));
            }
            pairs = true;
        }
    }
    VXK_CHECK_MSG(pairs, "no body pair among %u contacts", n);
    vxk_world_destroy(w);
    return 0;
}

// ---- seams
// --------------------------------------------------------------------------------------------

// Terrain of alternating stone and dirt voxels along x (a quad per voxel column and a chunk
// border every 8): a sphere rolling and a box sliding across 200 seams see only vertical normals.
static int seam_case(int shape)
{
    vxk_world* w = world_with(k_gravity, materials(0.6f, 0.0f), NULL);
    VXK_CHECK(w != NULL);
    const vxk_int_box box = {{-16, -8, -8}, {239, -1, 7}};
    const int32_t dx = 256, dz = 16, dy = 8;
    uint8_t* ids = malloc((size_t)dx * dy * dz);
    VXK_CHECK(ids != NULL);
    for (int32_t y = 0; y < dy; ++y)
        for (int32_t z = 0; z < dz; ++z)
            for (int32_t x = 0; x < dx; ++x)
                ids[x + dx * (z + dz * y)] = x % 2 ? VXK_MAT_STONE : VXK_MAT_DIRT;
    vxk_status wst = vxk_world_write_box(w, box, ids);
    free(ids);
    VXK_CHECK_EQ_INT(wst, VXK_OK);
    const float speed = 20.0f;
    vxk_body_def d = vxk_default_body_def();
    d.restitution = 0.0f;
    d.linear_velocity = (vxk_vec3){speed, 0.0f, 0.0f};
    if (shape == 0) { // rolls without slipping
        d.position = (vxk_vec3){0.0f, 0.5f, 4.0f};
        d.angular_velocity = (vxk_vec3){0.0f, 0.0f, -speed / 0.5f};
        d.friction = 0.6f;
    } else { // slides without friction, straddling the chunk border at z = 0
        d.position = (vxk_vec3){0.0f, 0.5f, 0.0f};
        d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
        d.friction = 0.0f;
    }
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    const char* name = shape == 0 ? "sphere" : "box";
    uint64_t contacts_seen = 0;
    double worst = 0.0, lowest = 1.0, highest = 0.0;
    for (int step = 0; step < 600; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        uint32_t n = read_contacts(w);
        for (uint32_t i = 0; i < n; ++i) {
            const vxk_contact_data* c = &g_contacts[i];
            if (c->point_count == 0)
                continue;
            ++contacts_seen;
            vxk_vec3 nv = c->normal;
            worst = fmax(worst, fmax(fabs(nv.x), fmax(fabs(nv.z), fabs(nv.y - 1.0))));
            VXK_CHECK_MSG(is_vertical(nv, 1e-4),
                          "%s step %d at x %.4g: contact %u (chunk %d %d %d) normal (%.7g, %.7g, "
                          "%.7g)",
                          name, step, (double)position(w, id).x, i, c->chunk.x, c->chunk.y,
                          c->chunk.z, (double)nv.x, (double)nv.y, (double)nv.z);
        }
        vxk_vec3 p = position(w, id);
        lowest = fmin(lowest, p.y);
        highest = fmax(highest, p.y);
        VXK_CHECK_MSG(p.y <= 0.5 + 0.01 && p.y >= 0.5 - 0.005 - 0.01,
                      "%s step %d at x %.4g: height %.6g (a bump at a seam)", name, step,
                      (double)p.x, (double)p.y);
    }
    vxk_vec3 p = position(w, id);
    fprintf(stderr,
            "   %s: x %.5g after 10 s, %llu contacts, worst normal %.3g, y in [%.5g, %.5g]\n", name,
            (double)p.x, (unsigned long long)contacts_seen, worst, lowest, highest);
    VXK_CHECK_MSG(p.x >= 195.0f, "%s crossed only %.4g m", name, (double)p.x);
    VXK_CHECK(contacts_seen >= 600);
    vxk_world_destroy(w);
    return 0;
}

static int test_seams(void)
{
    return seam_case(0) || seam_case(1);
}

// ---- the ends of the int32 voxel range ----------------------------------------------------------

// Terrain at the last 21 voxels of the int32 range along x (the first 21 when low), top at y = 0,
// and a body of extent 1 m dropped over its end, at x = 2^31 m (-2^31 when low): where the
// terrain's last voxel ends (begins). Every step succeeds, and the body comes to rest on the top
// face, held by a manifold with normal +y, no further from where it fell than at the origin (its
// bounce moves it a few centimetres there too). Floats there are 128 m apart along x: the body's
// x stays the end of the range itself.
static int edge_case(bool low, int shape)
{
    static const char* const names[] = {"box", "sphere", "voxel body"};
    vxk_world* w = world_with(k_gravity, NULL, NULL);
    VXK_CHECK(w != NULL);
    vxk_int_box terrain = low ? (vxk_int_box){{INT32_MIN, -8, -10}, {INT32_MIN + 20, -1, 10}}
                              : (vxk_int_box){{INT32_MAX - 20, -8, -10}, {INT32_MAX, -1, 10}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, terrain, VXK_MAT_STONE), VXK_OK);
    static uint8_t voxels[8];
    for (int i = 0; i < 8; ++i)
        voxels[i] = VXK_MAT_STONE;
    vxk_voxel_grid grid = {{2, 2, 2}, voxels};
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){low ? -2147483648.0f : 2147483648.0f, 1.5f, 0.0f};
    d.shape = shape == 0   ? vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD)
              : shape == 1 ? vxk_sphere_shape(0.5f, VXK_MAT_STONE)
                           : vxk_voxel_shape(&grid, 0.5f);
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    const float slop = 0.005f, tolerance = 0.01f;
    for (int step = 0; step < 120; ++step) {
        vxk_status st = vxk_world_step(w, STEP_DT);
        VXK_CHECK_MSG(st == VXK_OK, "%s at the %s end, step %d: %s", names[shape],
                      low ? "low" : "high", step, vxk_status_string(st));
        vxk_vec3 p = position(w, id);
        VXK_CHECK_MSG(p.y - 0.5f >= -(slop + tolerance),
                      "%s at the %s end, step %d: bottom at %.6g, below the top", names[shape],
                      low ? "low" : "high", step, (double)(p.y - 0.5f));
    }
    vxk_vec3 p = position(w, id), v = velocity(w, id);
    VXK_CHECK_MSG(fabsf(p.y - 0.5f) <= slop + tolerance && fabsf(p.z) <= 0.1f &&
                      p.x == d.position.x,
                  "%s at the %s end rests at (%.9g, %.6g, %.6g)", names[shape],
                  low ? "low" : "high", (double)p.x, (double)p.y, (double)p.z);
    VXK_CHECK_MSG(sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) <= 0.02f,
                  "%s at the %s end moves at (%.4g, %.4g, %.4g)", names[shape],
                  low ? "low" : "high", (double)v.x, (double)v.y, (double)v.z);
    uint32_t n = read_contacts(w);
    VXK_CHECK_MSG(
        n == 1 && VXK_ID_IS_NULL(g_contacts[0].a) && is_vertical(g_contacts[0].normal, 1e-3),
        "%s at the %s end: %u contacts, the first's normal (%.4g, %.4g, %.4g)", names[shape],
        low ? "low" : "high", n, n ? (double)g_contacts[0].normal.x : 0.0,
        n ? (double)g_contacts[0].normal.y : 0.0, n ? (double)g_contacts[0].normal.z : 0.0);
    vxk_world_destroy(w);
    return 0;
}

static int test_int32_ends(void)
{
    for (int low = 0; low < 2; ++low)
        for (int shape = 0; shape < 3; ++shape)
            if (edge_case(low != 0, shape))
                return 1;
    return 0;
}

// A body that leaves the int32 voxel range finds no terrain there, and the others keep theirs: a
// sphere resting on the floor stays on it while a box flies out of the range at the maximum speed
// (bodies are created inside the range, vxk/world.h's VXK_POSITION_VOXELS; voxels of 1 cm put its
// end at 2.1e7 m, where floats are 2 m apart, so the box moves).
static int test_beyond_int32(void)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.voxel_size = 0.01f;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(w, (vxk_int_box){{-100, -10, -100}, {99, -1, 99}}, VXK_MAT_STONE),
        VXK_OK);
    vxk_body_id sphere = add_sphere(w, (vxk_vec3){0.0f, 0.5f, 0.0f}, 0.5f);
    const float end = VXK_POSITION_VOXELS * 0.01f;
    vxk_body_def d = vxk_default_body_def();
    d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
    d.position = (vxk_vec3){end - 200.0f, 0.5f, 0.0f};
    d.linear_velocity = (vxk_vec3){VXK_MAX_LINEAR_SPEED, 0.0f, 0.0f};
    vxk_body_id far = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(sphere) && !VXK_ID_IS_NULL(far));
    for (int step = 0; step < 60; ++step)
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_vec3 p = position(w, sphere), q = position(w, far);
    VXK_CHECK_MSG(q.x > end + 500.0f, "the box stayed at x %.9g, the range ends at %.9g",
                  (double)q.x, (double)end);
    VXK_CHECK_MSG(fabsf(p.y - 0.5f) <= 0.015f, "the sphere sank to %.6g", (double)p.y);
    VXK_CHECK_MSG(q.y < -3.0f, "the box past the range stopped at %.6g", (double)q.y);
    vxk_world_destroy(w);
    return 0;
}

// Rotational kinetic energy 1/2 w . (R I R^T) w in double from the body-frame inertia (info) and
// the pose, and the linear part: no isotropy assumed.
static double body_energy(const vxk_world* w, vxk_body_id id)
{
    vxk_body_info info;
    vxk_vec3 v, av;
    vxk_transform t;
    vxk_body_get_info(w, id, &info);
    vxk_body_get_velocity(w, id, &v, &av);
    vxk_body_get_transform(w, id, &t);
    double x = t.q.x, y = t.q.y, z = t.q.z, qw = t.q.w;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - qw * z), 2 * (x * z + qw * y)},
                      {2 * (x * y + qw * z), 1 - 2 * (x * x + z * z), 2 * (y * z - qw * x)},
                      {2 * (x * z - qw * y), 2 * (y * z + qw * x), 1 - 2 * (x * x + y * y)}};
    double wl[3], wv[3] = {av.x, av.y, av.z}; // w in the body frame: R^T w
    for (int i = 0; i < 3; ++i)
        wl[i] = r[0][i] * wv[0] + r[1][i] * wv[1] + r[2][i] * wv[2];
    double rot = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            rot += wl[i] * info.inertia[i][j] * wl[j];
    return 0.5 * info.mass * ((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z) +
           0.5 * rot;
}

// Issue 26, item 2: two spinning cubes meet (no gravity, no friction, restitution 0.2 to 1): the
// kinetic energy never rises above its value before the contact (Newton's bounce of a corner that
// closed at another speed than the step began with added up to 8 %).
static int test_restitution_energy(void)
{
    uint64_t rng = vxk_test_seed(0xE26);
    static const float bounces[5] = {0.2f, 0.5f, 0.8f, 0.9f, 1.0f};
    const int pairs = VXK_TEST_SLOW ? 60 : 300;
    double worst = 0.0;
    for (int k = 0; k < pairs; ++k) {
        vxk_world* w = world_with((vxk_vec3){0, 0, 0}, materials(0.0f, 0.0f), NULL);
        VXK_CHECK(w != NULL);
        float e = bounces[k % 5];
        vxk_body_id ids[2];
        for (int i = 0; i < 2; ++i) {
            vxk_body_def d = vxk_default_body_def();
            d.shape = vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
            d.friction = 0.0f;
            d.restitution = e;
            float side = i ? 1.0f : -1.0f;
            d.position = (vxk_vec3){1.3f * side, vxk_test_randf(&rng, -0.5f, 0.5f),
                                    vxk_test_randf(&rng, -0.5f, 0.5f)};
            d.linear_velocity = (vxk_vec3){-vxk_test_randf(&rng, 1.0f, 5.0f) * side, 0, 0};
            d.angular_velocity =
                (vxk_vec3){vxk_test_randf(&rng, -6, 6), vxk_test_randf(&rng, -6, 6),
                           vxk_test_randf(&rng, -6, 6)};
            vxk_quat q = {vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, 1),
                          vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, 0.1f, 1)};
            float l = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
            d.rotation = (vxk_quat){q.x / l, q.y / l, q.z / l, q.w / l};
            ids[i] = add_body(w, &d);
            VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
        }
        double before = body_energy(w, ids[0]) + body_energy(w, ids[1]);
        bool touched = false;
        for (int step = 0; step < 90; ++step) {
            VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
            double now = body_energy(w, ids[0]) + body_energy(w, ids[1]);
            worst = fmax(worst, now / before - 1.0);
            VXK_CHECK_MSG(now <= before * (1.0 + 1e-4),
                          "pair %d (e %g) step %d: kinetic energy %.6g above %.6g before", k,
                          (double)e, step, now, before);
            touched |= read_contacts(w) > 0;
        }
        VXK_CHECK_MSG(touched, "pair %d never met", k);
        vxk_world_destroy(w);
    }
    fprintf(stderr, "   %d pairs: largest rise %.2e of the energy before contact\n", pairs, worst);
    return 0;
}

// Issue 26, item 3: a small metal ball rolling fast (w = v / r) on voxel terrain, a static box and
// a static voxel body keeps its overlap within the slop (5 mm) at every speed up to 50 m/s: the
// separation update moves a round surface's point with the centre, not with the spin.
static int rolling_case(int ground, float speed, bool spin)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.voxel_size = 0.25f;
    wd.enable_sleep = false;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    const float top = 0.25f, r = 0.077f;
    static uint8_t slab[8 * 1 * 240];
    vxk_voxel_grid grid = {{240, 1, 8}, slab};
    if (ground == 0) {
        VXK_CHECK_EQ_INT(
            vxk_world_fill_box(w, (vxk_int_box){{-8, -4, -8}, {400, 0, 8}}, VXK_MAT_STONE), VXK_OK);
    } else {
        vxk_body_def g = vxk_default_body_def();
        g.type = VXK_BODY_STATIC;
        if (ground == 1) {
            g.shape = vxk_box_shape((vxk_vec3){60, 0.5f, 2}, VXK_MAT_STONE);
            g.position = (vxk_vec3){55, top - 0.5f, 0};
        } else {
            memset(slab, VXK_MAT_STONE, sizeof(slab));
            g.shape = vxk_voxel_shape(&grid, 0.25f);
            g.position = (vxk_vec3){29, top - 0.125f, 0}; // x from -1 to 59 m
        }
        vxk_body_id gid = add_body(w, &g);
        VXK_CHECK(!VXK_ID_IS_NULL(gid));
    }
    vxk_body_def d = vxk_default_body_def();
    d.shape = vxk_sphere_shape(r, VXK_MAT_METAL);
    d.position = (vxk_vec3){0, top + r, 0};
    d.linear_velocity = (vxk_vec3){speed, 0, 0};
    if (spin)
        d.angular_velocity = (vxk_vec3){0, 0, -speed / r};
    vxk_body_id id = add_body(w, &d);
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    double deepest = 0.0;
    int steps = (int)(60.0f * 50.0f / speed); // 50 m at most
    steps = steps > 120 ? 120 : steps;
    for (int step = 0; step < steps; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        deepest = fmax(deepest, (double)(top + r) - position(w, id).y);
    }
    VXK_CHECK_MSG(deepest <= 0.005 + 1e-4, "ground %d, %g m/s%s: %.1f mm deep (the slop is 5 mm)",
                  ground, (double)speed, spin ? " rolling" : "", 1e3 * deepest);
    vxk_world_destroy(w);
    return 0;
}

static int test_rolling_ball(void)
{
    static const float speeds[4] = {5.0f, 15.0f, 30.0f, 50.0f};
    for (int ground = 0; ground < 3; ++ground)
        for (int i = 0; i < 4; ++i)
            if (rolling_case(ground, speeds[i], true) || rolling_case(ground, speeds[i], false))
                return 1;
    return 0;
}

// Issue 26, item 4: overlapping bodies parted by the push: two end slower than the push speed; n
// created at one point end slower than the push speed times the n - 1 bodies each overlaps (the
// documented bound of vxk_world_def.contact_push_speed; measured far below it).
static int test_overlap_push(void)
{
    static const int counts[3] = {2, 10, 100};
    for (int shape = 0; shape < 2; ++shape)
        for (int c = 0; c < 3; ++c) {
            int n = counts[c];
            vxk_world* w = world_with((vxk_vec3){0, 0, 0}, materials(0.5f, 0.0f), NULL);
            VXK_CHECK(w != NULL);
            vxk_body_id ids[100];
            for (int i = 0; i < n; ++i) {
                vxk_body_def d = vxk_default_body_def();
                d.shape = shape ? vxk_sphere_shape(0.5f, VXK_MAT_WOOD)
                                : vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD);
                d.position = (vxk_vec3){0.001f * (float)i, 0.0007f * (float)i, 0.0003f * (float)i};
                ids[i] = add_body(w, &d);
                VXK_CHECK(!VXK_ID_IS_NULL(ids[i]));
            }
            double fastest = 0.0;
            for (int step = 0; step < 120; ++step) {
                VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
                for (int i = 0; i < n; ++i) {
                    vxk_vec3 v = velocity(w, ids[i]);
                    fastest = fmax(fastest,
                                   sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z));
                }
            }
            double bound = 3.0 * (n == 2 ? 1 : n - 1);
            fprintf(stderr, "   %s, %d at one point: fastest %.2f m/s (bound %.0f)\n",
                    shape ? "spheres" : "boxes", n, fastest, bound);
            VXK_CHECK_MSG(fastest <= bound, "%d bodies at one point: %.2f m/s over %.0f", n,
                          fastest, bound);
            vxk_world_destroy(w);
        }
    return 0;
}

int main(void)
{
    VXK_RUN(test_free_fall);
    VXK_RUN(test_parabola);
    VXK_RUN(test_kinematic_static);
    VXK_RUN(test_drop_onto_terrain);
    VXK_RUN(test_slope);
    VXK_RUN(test_restitution);
    VXK_RUN(test_tower);
    VXK_RUN(test_tall_column);
    VXK_RUN(test_pyramid);
    VXK_RUN(test_contact_recycling);
    VXK_RUN(test_energy);
    VXK_RUN(test_contact_events);
    VXK_RUN(test_destroy_end_event);
    VXK_RUN(test_resting_contacts);
    VXK_RUN(test_pair_contacts);
    VXK_RUN(test_seams);
    VXK_RUN(test_int32_ends);
    VXK_RUN(test_beyond_int32);
    VXK_RUN(test_restitution_energy);
    VXK_RUN(test_rolling_ball);
    VXK_RUN(test_overlap_push);
    VXK_RUN(test_determinism);
    free(g_contacts);
    return vxk_test_finish();
}
