// test_voxel_rest.c: voxel bodies coming to rest through the public API (vxk/vxk.h), on the
// voxel contacts of collision/contact_voxel.c: a box of voxels dropped flat on terrain of its own
// voxel size, on terrain of 1 m voxels with body voxels of 0.1 and 0.25 m, on a static voxel
// body (equal and unequal voxels), on a dynamic voxel body resting on terrain, and an L of voxels
// standing on the end edges of its two legs. Each lands at a place and yaw that puts its voxels
// off the grid below (corners over seams between voxels). The reference is the geometry: the
// lowest point of the body's cubes (computed here from its pose and grid) must stay within 2 cm
// below the surface during the fall and end within 1 cm of it; the kinetic energy after 2 s
// under 1e-4 J per kg; with sleep off, the body must move less than 0.5 mm over the last 60
// steps (no jitter); with sleep on, it must be asleep after 2 s where it rested. Then seeded
// random drops of random sizes, voxels, places and yaws.
#include "test.h"

#include <vxk/vxk.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)
#define STEPS 120      // 2 s
#define STILL_STEPS 60 // the last second: no jitter
#define KE_PER_KG 1e-4
#define REST_TOL 0.01
#define FALL_TOL 0.02
#define JITTER_TOL 5e-4

// A box of voxels, or an L (legs along x and y from the corner voxel column, `thick` voxels
// thick), extruded along z; material stone.
static vxk_voxel_grid make_grid(vxk_int3 size, int l_thick)
{
    vxk_voxel_grid g = {size, NULL};
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    g.voxels = (uint8_t*)malloc(n);
    for (int y = 0; y < size.y; ++y)
        for (int z = 0; z < size.z; ++z)
            for (int x = 0; x < size.x; ++x) {
                int solid = l_thick ? (x < l_thick || y < l_thick) : 1;
                g.voxels[(size_t)x + (size_t)size.x * ((size_t)z + (size_t)size.z * (size_t)y)] =
                    solid ? VXK_MAT_STONE : VXK_MAT_AIR;
            }
    return g;
}

static vxk_vec3 rotate(vxk_quat q, vxk_vec3 v)
{
    // v + 2 w (u x v) + 2 u x (u x v), u = q's vector part.
    vxk_vec3 u = {q.x, q.y, q.z};
    vxk_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z),
                  2 * (u.x * v.y - u.y * v.x)};
    return (vxk_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                      v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                      v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

static vxk_quat axis_angle(vxk_vec3 axis, float angle)
{
    float l = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    float s = sinf(0.5f * angle) / l;
    return (vxk_quat){axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle)};
}

static vxk_quat quat_mul(vxk_quat a, vxk_quat b)
{
    return (vxk_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

// The lowest (or highest) world y of the corners of the body's solid voxels, from its pose and
// grid.
static double extreme_y(const vxk_world* w, vxk_body_id id, const vxk_voxel_grid* g, int highest)
{
    vxk_transform t;
    vxk_body_info info;
    if (vxk_body_get_transform(w, id, &t) != VXK_OK || vxk_body_get_info(w, id, &info) != VXK_OK)
        return NAN;
    const float s = info.voxel_size;
    // The world y of a local point is p.y + row 1 of the rotation . local: linear, so each voxel
    // corner's height is a sum of per-axis terms.
    vxk_vec3 ex = rotate(t.q, (vxk_vec3){1, 0, 0}), ey = rotate(t.q, (vxk_vec3){0, 1, 0}),
             ez = rotate(t.q, (vxk_vec3){0, 0, 1});
    double best = highest ? -1e30 : 1e30;
    for (int y = 0; y < g->size.y; ++y)
        for (int z = 0; z < g->size.z; ++z)
            for (int x = 0; x < g->size.x; ++x) {
                if (!g->voxels[(size_t)x +
                               (size_t)g->size.x * ((size_t)z + (size_t)g->size.z * (size_t)y)])
                    continue;
                for (int c = 0; c < 8; ++c) {
                    double lx = info.grid_origin.x + (x + (c & 1)) * (double)s;
                    double ly = info.grid_origin.y + (y + ((c >> 1) & 1)) * (double)s;
                    double lz = info.grid_origin.z + (z + ((c >> 2) & 1)) * (double)s;
                    double wy = t.p.y + lx * ex.y + ly * ey.y + lz * ez.y;
                    best = highest ? fmax(best, wy) : fmin(best, wy);
                }
            }
    return best;
}

// Kinetic energy per kilogram, linear and angular (the body-frame inertia, rotated).
static double energy_per_kg(const vxk_world* w, vxk_body_id id)
{
    vxk_vec3 v, av;
    vxk_body_info info;
    vxk_transform t;
    if (vxk_body_get_velocity(w, id, &v, &av) != VXK_OK ||
        vxk_body_get_info(w, id, &info) != VXK_OK || vxk_body_get_transform(w, id, &t) != VXK_OK)
        return NAN;
    // The angular velocity in the body frame: rotate by the conjugate.
    vxk_quat inverse = {-t.q.x, -t.q.y, -t.q.z, t.q.w};
    vxk_vec3 wb = rotate(inverse, av);
    double wv[3] = {wb.x, wb.y, wb.z}, angular = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            angular += wv[i] * (double)info.inertia[i][j] * wv[j];
    double linear = (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z;
    return 0.5 * linear + 0.5 * angular / (double)info.mass;
}

typedef struct drop {
    const char* name;
    float world_voxel; // the terrain's voxel size
    float voxel;       // the dropped body's
    vxk_int3 size;     // its grid
    int l_thick;       // an L of this thickness (0: a box)
    float base_voxel;  // a voxel body under it (0: the terrain): a 3 m slab 2 voxels thick
    int base_dynamic;  // that body dynamic, itself resting on the terrain
    float x, z, yaw;   // where it lands (centre of mass), turned about y
    float lift;        // how far above the surface its lowest point starts
} drop;

typedef struct outcome {
    double lowest_during; // the least lowest-point height over the surface during the fall
    double rest;          // the lowest point's height over the surface after 2 s
    double energy;        // J/kg after 2 s
    double moved;         // the most the centre of mass moved over the last 60 steps
    int asleep;
    double base_rest, base_energy; // a dynamic base: its own rest and energy
} outcome;

// The surface the body lands on: 0 for the terrain, the base's top for a base.
static double surface_of(const vxk_world* w, vxk_body_id base, const vxk_voxel_grid* base_grid)
{
    return base.generation ? extreme_y(w, base, base_grid, 1) : 0.0;
}

static int run_drop(const drop* d, int sleep, outcome* out)
{
    vxk_world_def wd = vxk_default_world_def();
    wd.voxel_size = d->world_voxel;
    wd.enable_sleep = sleep != 0;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    // Flat ground, its top at y = 0, 2 m deep, 12 m wide.
    int32_t deep = (int32_t)ceilf(2.0f / d->world_voxel),
            half = (int32_t)ceilf(6.0f / d->world_voxel);
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(w, (vxk_int_box){{-half, -deep, -half}, {half - 1, -1, half - 1}},
                           VXK_MAT_STONE),
        VXK_OK);
    vxk_voxel_grid base_grid = {{0, 0, 0}, NULL};
    vxk_body_id base = {0, 0};
    double surface = 0.0;
    if (d->base_voxel > 0.0f) {
        int side = (int)lroundf(3.0f / d->base_voxel);
        base_grid = make_grid((vxk_int3){side, 2, side}, 0);
        vxk_body_def bd = vxk_default_body_def();
        bd.type = d->base_dynamic ? VXK_BODY_DYNAMIC : VXK_BODY_STATIC;
        bd.shape = vxk_voxel_shape(&base_grid, d->base_voxel);
        // Resting on the terrain (its bottom at 0; its frame is its centre of mass), off the
        // terrain's grid by a fraction of a voxel, turned.
        bd.position = (vxk_vec3){0.31f * d->world_voxel, d->base_voxel, -0.23f * d->world_voxel};
        bd.rotation = axis_angle((vxk_vec3){0, 1, 0}, 0.17f);
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &base), VXK_OK);
        surface = surface_of(w, base, &base_grid);
        VXK_CHECK(fabs(surface - 2.0 * d->base_voxel) < 1e-5);
    }
    vxk_voxel_grid g = make_grid(d->size, d->l_thick);
    vxk_body_def def = vxk_default_body_def();
    def.shape = vxk_voxel_shape(&g, d->voxel);
    vxk_quat q = axis_angle((vxk_vec3){0, 1, 0}, d->yaw);
    if (d->l_thick) // both legs pointing down at 45 degrees, the L's corner up
        q = quat_mul(q, axis_angle((vxk_vec3){0, 0, 1}, -2.35619449f));
    def.rotation = q;
    def.position = (vxk_vec3){d->x, 10.0f, d->z};
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &def, &id), VXK_OK);
    // Lift it so that its lowest point is `lift` above the surface.
    double low = extreme_y(w, id, &g, 0);
    def.position.y = (float)(10.0 - low + surface + d->lift);
    VXK_CHECK_EQ_INT(vxk_body_set_transform(w, id, def.position, q), VXK_OK);
    VXK_CHECK(fabs(extreme_y(w, id, &g, 0) - surface - d->lift) < 1e-4);
    out->lowest_during = 1e30;
    vxk_vec3 track[STILL_STEPS + 1];
    for (int step = 1; step <= STEPS; ++step) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
        double surf = surface_of(w, base, &base_grid);
        out->lowest_during = fmin(out->lowest_during, extreme_y(w, id, &g, 0) - surf);
        if (step >= STEPS - STILL_STEPS) {
            vxk_transform t;
            VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
            track[step - (STEPS - STILL_STEPS)] = t.p;
        }
    }
    out->rest = extreme_y(w, id, &g, 0) - surface_of(w, base, &base_grid);
    out->energy = energy_per_kg(w, id);
    out->moved = 0.0;
    for (int i = 0; i < STILL_STEPS; ++i) {
        vxk_vec3 a = track[i], b = track[STILL_STEPS];
        double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
        out->moved = fmax(out->moved, sqrt(dx * dx + dy * dy + dz * dz));
    }
    vxk_body_info info;
    VXK_CHECK_EQ_INT(vxk_body_get_info(w, id, &info), VXK_OK);
    out->asleep = !info.awake;
    out->base_rest = 0.0;
    out->base_energy = 0.0;
    if (d->base_dynamic) {
        out->base_rest = extreme_y(w, base, &base_grid, 0);
        out->base_energy = energy_per_kg(w, base);
    }
    free(g.voxels);
    free(base_grid.voxels);
    vxk_world_destroy(w);
    return 0;
}

// Both runs of a drop and every check.
static int check_drop(const drop* d)
{
    outcome awake_run, sleep_run;
    if (run_drop(d, 0, &awake_run) || run_drop(d, 1, &sleep_run))
        return 1;
    fprintf(stderr,
            "   %-22s lowest in fall %+.4f m, rest %+.4f m, %.2e J/kg, moved %.2e m in the last "
            "second (sleep off); rest %+.4f m, %s (sleep on)\n",
            d->name, awake_run.lowest_during, awake_run.rest, awake_run.energy, awake_run.moved,
            sleep_run.rest, sleep_run.asleep ? "asleep" : "awake");
    const outcome* runs[2] = {&awake_run, &sleep_run};
    for (int r = 0; r < 2; ++r) {
        const outcome* o = runs[r];
        VXK_CHECK_MSG(o->lowest_during >= -FALL_TOL, "%s (sleep %d): %.4f m below the surface",
                      d->name, r, -o->lowest_during);
        VXK_CHECK_MSG(fabs(o->rest) <= REST_TOL, "%s (sleep %d): rests %+.4f m from the surface",
                      d->name, r, o->rest);
        VXK_CHECK_MSG(o->energy <= KE_PER_KG, "%s (sleep %d): %.3e J/kg after 2 s", d->name, r,
                      o->energy);
        if (d->base_dynamic) {
            VXK_CHECK_MSG(fabs(o->base_rest) <= REST_TOL, "%s: base rests %+.4f m from the ground",
                          d->name, o->base_rest);
            VXK_CHECK(o->base_energy <= KE_PER_KG);
        }
    }
    VXK_CHECK_MSG(awake_run.moved < JITTER_TOL, "%s: moved %.2e m over the last %d steps", d->name,
                  awake_run.moved, STILL_STEPS);
    VXK_CHECK_MSG(sleep_run.asleep, "%s: awake after 2 s", d->name);
    return 0;
}

static int check_drops(const drop* drops, int count)
{
    for (int i = 0; i < count; ++i)
        if (check_drop(&drops[i]))
            return 1;
    return 0;
}

// (a) Terrain of the body's own voxel size.
static int test_rest_equal_terrain(void)
{
    const drop drops[2] = {
        {"0.25 on 0.25 terrain", 0.25f, 0.25f, {8, 3, 8}, 0, 0.0f, 0, 0.37f, -0.61f, 0.4f, 0.05f},
        {"0.1 on 0.1 terrain", 0.1f, 0.1f, {12, 3, 10}, 0, 0.0f, 0, 0.043f, 0.017f, 0.0f, 0.04f},
    };
    return check_drops(drops, 2);
}

// (b) Terrain of 1 m voxels, body voxels of 0.1 and 0.25 m.
static int test_rest_small_on_large(void)
{
    const drop drops[3] = {
        {"0.1 on 1 m terrain", 1.0f, 0.1f, {14, 4, 12}, 0, 0.0f, 0, 0.43f, 0.58f, 0.3f, 0.05f},
        {"0.1 on 1 m, level", 1.0f, 0.1f, {10, 3, 10}, 0, 0.0f, 0, 0.5f, 0.47f, 0.0f, 0.03f},
        {"0.25 on 1 m terrain", 1.0f, 0.25f, {8, 3, 6}, 0, 0.0f, 0, -0.27f, 0.9f, 0.9f, 0.05f},
    };
    return check_drops(drops, 3);
}

// (c) On another voxel body: static, equal and unequal voxels; dynamic, on the terrain.
static int test_rest_on_voxel_body(void)
{
    const drop drops[3] = {
        {"0.25 on 0.25 body", 1.0f, 0.25f, {6, 2, 6}, 0, 0.25f, 0, 0.13f, 0.29f, 0.6f, 0.05f},
        {"0.1 on 0.25 body", 1.0f, 0.1f, {10, 3, 8}, 0, 0.25f, 0, -0.21f, 0.06f, 0.25f, 0.04f},
        {"0.1 on 0.5 body, 1 m", 1.0f, 0.1f, {8, 3, 8}, 0, 0.5f, 1, 0.09f, -0.12f, 0.5f, 0.04f},
    };
    return check_drops(drops, 3);
}

// (d) An L standing on the end edges of its two legs (both at 45 degrees): each leg rests on a
// tilted voxel's cube edge, not on a sphere inside it.
static int test_rest_on_edges(void)
{
    const drop drops[2] = {
        {"L of 0.1 on 1 m", 1.0f, 0.1f, {8, 8, 6}, 2, 0.0f, 0, 0.2f, 0.35f, 0.3f, 0.03f},
        {"L of 0.25 on 0.25", 0.25f, 0.25f, {5, 5, 4}, 2, 0.0f, 0, 0.1f, -0.4f, 1.1f, 0.03f},
    };
    return check_drops(drops, 2);
}

// Seeded drops: boxes of random size and voxels (0.1 to 0.5 m) on terrain of 0.25, 0.5 or 1 m
// voxels, or on a static body, at random places and yaws, from random heights.
static int test_rest_random(void)
{
    uint64_t rng = vxk_test_seed(0x4E57);
    static const float world_voxels[3] = {0.25f, 0.5f, 1.0f};
    static const float body_voxels[4] = {0.1f, 0.125f, 0.25f, 0.5f};
    const int drops = VXK_TEST_SLOW ? 4 : 12;
    for (int i = 0; i < drops; ++i) {
        drop d;
        memset(&d, 0, sizeof(d));
        d.name = "seeded drop";
        d.world_voxel = world_voxels[vxk_test_rand(&rng) % 3];
        d.voxel = body_voxels[vxk_test_rand(&rng) % 4];
        // Flat: no side longer than 3 m, height at most half the shorter side.
        int most = (int)(3.0f / d.voxel);
        d.size.x = 4 + (int)(vxk_test_rand(&rng) % (uint64_t)(most - 3));
        d.size.z = 4 + (int)(vxk_test_rand(&rng) % (uint64_t)(most - 3));
        int low = d.size.x < d.size.z ? d.size.x : d.size.z;
        d.size.y = 2 + (int)(vxk_test_rand(&rng) % (uint64_t)(low / 2 - 1));
        if (vxk_test_rand(&rng) % 4 == 0)
            d.base_voxel = body_voxels[1 + vxk_test_rand(&rng) % 3];
        d.x = vxk_test_randf(&rng, -0.5f, 0.5f);
        d.z = vxk_test_randf(&rng, -0.5f, 0.5f);
        d.yaw = vxk_test_randf(&rng, 0.0f, 1.5708f);
        d.lift = vxk_test_randf(&rng, 0.0f, 0.08f);
        fprintf(stderr, "   %d: %dx%dx%d of %g m on %s of %g m at (%.3f %.3f) yaw %.3f from %.3f\n",
                i, d.size.x, d.size.y, d.size.z, (double)d.voxel,
                d.base_voxel > 0 ? "a static body" : "terrain",
                (double)(d.base_voxel > 0 ? d.base_voxel : d.world_voxel), (double)d.x, (double)d.z,
                (double)d.yaw, (double)d.lift);
        if (check_drop(&d))
            return 1;
    }
    return 0;
}

int main(void)
{
    VXK_RUN(test_rest_equal_terrain);
    VXK_RUN(test_rest_small_on_large);
    VXK_RUN(test_rest_on_voxel_body);
    VXK_RUN(test_rest_on_edges);
    VXK_RUN(test_rest_random);
    return vxk_test_finish();
}
