// bench_contact_voxel.c: the voxel pair routine (contact_voxel.h) on body pairs of growing size,
// against two loops over the same views: the article's (seed 003: every voxel of A in the
// overlap region mapped into B and tested against B's 3x3x3 neighbourhood with its type rule,
// made symmetric as ours, voxels as spheres; its pairs are the article's, not ours: timing only)
// and brute force (vxk_voxel_pairs with VXK_VOXEL_ALL_PAIRS: every active voxel of A against every
// active voxel of B through the same rules). Scenes: two 16x8x16 boxes of 0.1 m voxels stacked
// face on face (`stack16`), the same turned 0.3 rad about the normal (`turned16`), 32x16x32 boxes
// stacked (`stack32`), two 12^3 blobs with holes at random rotations, overlapping by about a
// voxel (`blobs12`), a 64x32x64 box on a 64x32x64 box turned 0.3 rad (`turned64`; no brute
// force), a 12^3 blob of 0.25 m voxels resting on a terrain region of 1 m voxels (`terrain`),
// bodies of 0.1 m voxels resting on flat terrain of 1 m voxels, off its grid and turned 0.3
// rad about y: a 64x8x64 box (`rest_box`) and a 48x12x48 body with holes (`rest_holes`), and two
// 32^3 wedges of 0.05 m voxels whose boxes overlap but whose slopes face each other 2 cm apart
// (`apart32`: no pair, the early outs).
//
// Figures per scene: `_us` median microseconds of vxk_collide_voxels over RUNS batches,
// `_article_us` and `_brute_us` the loops above (medians; brute force once per run), `_pairs`
// the pair count (vxk_voxel_pairs), `_pairs_match` 1 when brute force finds the same count,
// `_manifolds` and `_points` of the result, `_vs_article` and `_vs_brute` speed ratios.
//
// Primitives against a body of 0.05 m voxels (vxk_collide_voxel_sphere and _box): a sphere of
// radius 0.5 m resting on a 32x8x32 body with holes (`sphere_holes`), a unit box turned 0.3 rad
// resting on it (`box_holes`), and the same box on a 32x1x32 plate (`box_plate`: every voxel an
// Edge). Figures: `_us` (medians as above), `_all_us` with VXK_VOXEL_ALL_FACES (every exposed
// face in the primitive's bounds, no culls), `_vs_all`, `_same` 1 when both give the same
// manifolds bit for bit, `_manifolds`, `_points`.
// One thread. Usage: bench_contact_voxel [--quick] [--threads N] (threads unused).
#include "bench.h"

#include "contact_voxel.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 5

typedef struct scene {
    const char* name;
    vxk_voxel_view a, b;
    float margin;
    bool brute;
    void* region_storage;
} scene;

static float rand_unit(uint64_t* state)
{
    return (float)((vxk_splitmix64(state) >> 40) * (1.0 / 16777216.0));
}

static void make_body(vxk_voxel_view* v, vxk_int3 size, float s, float holes, uint64_t* rng)
{
    vxk_voxel_grid grid = {size, NULL};
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    grid.voxels = (uint8_t*)malloc(n);
    for (size_t i = 0; i < n; ++i)
        grid.voxels[i] = rand_unit(rng) >= holes;
    uint8_t solid[256] = {0};
    solid[1] = 1;
    vxk_vec3 origin = {-0.5f * s * (float)size.x, -0.5f * s * (float)size.y,
                       -0.5f * s * (float)size.z};
    if (vxk_voxel_view_create(v, &grid, solid, NULL, s, origin) != VXK_OK)
        abort();
    free(grid.voxels);
}

static vxk_quat random_quat(uint64_t* rng)
{
    for (;;) {
        vxk_quat q = {2 * rand_unit(rng) - 1, 2 * rand_unit(rng) - 1, 2 * rand_unit(rng) - 1,
                      2 * rand_unit(rng) - 1};
        float l2 = vxk_quat_length_sq(q);
        if (l2 > 0.05f && l2 < 1.0f)
            return vxk_quat_normalize(q);
    }
}

// ---- the comparison loops --------------------------------------------------------------------

typedef struct placed {
    const vxk_voxel_view* v;
    vxk_mat3 r;
} placed;

static vxk_vec3 centre(const placed* p, int x, int y, int z)
{
    float s = p->v->voxel_size;
    vxk_vec3 l = {p->v->origin.x + ((float)x + 0.5f) * s, p->v->origin.y + ((float)y + 0.5f) * s,
                  p->v->origin.z + ((float)z + 0.5f) * s};
    return vxk_v3_add(p->v->pose.p, vxk_mat3_mul_v(&p->r, l));
}

static uint8_t type_at(const vxk_voxel_view* v, int x, int y, int z)
{
    return vxk_voxel_type_of(
        v->types[(size_t)x + (size_t)v->size.x * ((size_t)z + (size_t)v->size.z * (size_t)y)]);
}

static bool admitted(uint8_t ta, uint8_t tb)
{
    return ta == VXK_VOXEL_CORNER || tb == VXK_VOXEL_CORNER ||
           (ta == VXK_VOXEL_EDGE && tb == VXK_VOXEL_EDGE);
}

static bool in_active(const vxk_voxel_view* v, int x, int y, int z)
{
    return x >= v->active.min.x && y >= v->active.min.y && z >= v->active.min.z &&
           x <= v->active.max.x && y <= v->active.max.y && z <= v->active.max.z;
}

// Whether voxel (x, y, z) of b, solid and active, pairs with A's voxel of type ta at pa.
static bool pairs_with(const placed* b, int x, int y, int z, uint8_t ta, vxk_vec3 pa, float reach)
{
    uint8_t tb = type_at(b->v, x, y, z);
    if (tb == VXK_VOXEL_EMPTY || !in_active(b->v, x, y, z) || !admitted(ta, tb))
        return false;
    vxk_vec3 d = vxk_v3_sub(centre(b, x, y, z), pa);
    return vxk_v3_dot(d, d) <= reach * reach;
}

// Every active voxel of A against every active voxel of B, by the same rules.
static uint64_t brute_pairs(const scene* sc)
{
    return vxk_voxel_pairs(NULL, 0, &sc->a, &sc->b, sc->margin, VXK_VOXEL_ALL_PAIRS);
}

// The article's loop: A's voxels in the region of B's box, each against B's 3x3x3 cells.
static uint64_t article_pairs(const scene* sc)
{
    placed a = {&sc->a, vxk_mat3_from_quat(sc->a.pose.q)},
           b = {&sc->b, vxk_mat3_from_quat(sc->b.pose.q)};
    float reach = 0.5f * (sc->a.voxel_size + sc->b.voxel_size) + sc->margin;
    float sa = sc->a.voxel_size, sb = sc->b.voxel_size;
    vxk_vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    for (int c = 0; c < 8; ++c) {
        vxk_vec3 l = {sc->b.origin.x + (c & 1 ? (float)sc->b.size.x * sb : 0.0f),
                      sc->b.origin.y + (c & 2 ? (float)sc->b.size.y * sb : 0.0f),
                      sc->b.origin.z + (c & 4 ? (float)sc->b.size.z * sb : 0.0f)};
        vxk_vec3 w = vxk_v3_add(sc->b.pose.p, vxk_mat3_mul_v(&b.r, l));
        vxk_vec3 m = vxk_v3_sub(vxk_mat3_tmul_v(&a.r, vxk_v3_sub(w, sc->a.pose.p)), sc->a.origin);
        lo = vxk_v3_min(lo, m);
        hi = vxk_v3_max(hi, m);
    }
    int r0[3], r1[3];
    for (uint32_t i = 0; i < 3; ++i) {
        int n = i == 0 ? sc->a.size.x : i == 1 ? sc->a.size.y : sc->a.size.z;
        r0[i] = (int)floorf((vxk_v3_get(lo, i) - sa) / sa);
        r1[i] = (int)floorf((vxk_v3_get(hi, i) + sa) / sa);
        r0[i] = r0[i] < 0 ? 0 : r0[i];
        r1[i] = r1[i] >= n ? n - 1 : r1[i];
    }
    uint64_t count = 0;
    for (int ay = r0[1]; ay <= r1[1]; ++ay)
        for (int az = r0[2]; az <= r1[2]; ++az)
            for (int ax = r0[0]; ax <= r1[0]; ++ax) {
                uint8_t ta = type_at(&sc->a, ax, ay, az);
                if (ta == VXK_VOXEL_EMPTY || !in_active(&sc->a, ax, ay, az))
                    continue;
                vxk_vec3 pa = centre(&a, ax, ay, az);
                vxk_vec3 m = vxk_v3_scale(
                    vxk_v3_sub(vxk_mat3_tmul_v(&b.r, vxk_v3_sub(pa, sc->b.pose.p)), sc->b.origin),
                    1.0f / sb);
                int c[3] = {(int)floorf(m.x), (int)floorf(m.y), (int)floorf(m.z)};
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz)
                        for (int dx = -1; dx <= 1; ++dx) {
                            int bx = c[0] + dx, by = c[1] + dy, bz = c[2] + dz;
                            if (bx >= 0 && by >= 0 && bz >= 0 && bx < sc->b.size.x &&
                                by < sc->b.size.y && bz < sc->b.size.z)
                                count += pairs_with(&b, bx, by, bz, ta, pa, reach);
                        }
            }
    return count;
}

// ---- scenes ----------------------------------------------------------------------------------

static void stack(scene* sc, const char* name, int side, float turn, uint64_t* rng)
{
    const float s = 0.1f;
    vxk_int3 size = {side, side / 2, side};
    make_body(&sc->a, size, s, 0.0f, rng);
    make_body(&sc->b, size, s, 0.0f, rng);
    sc->b.pose.p = vxk_v3(0.013f, (float)(side / 2) * s + 0.002f, -0.021f);
    sc->b.pose.q = vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), turn);
    sc->name = name;
    sc->margin = 0.01f;
    sc->brute = side <= 32;
}

static void blobs(scene* sc, uint64_t* rng)
{
    const float s = 0.1f;
    vxk_int3 size = {12, 12, 12};
    make_body(&sc->a, size, s, 0.3f, rng);
    make_body(&sc->b, size, s, 0.3f, rng);
    sc->a.pose.q = random_quat(rng);
    sc->b.pose.q = random_quat(rng);
    sc->b.pose.p = vxk_v3(1.1f, 0.2f, 0.1f);
    sc->name = "blobs12";
    sc->margin = 0.01f;
    sc->brute = true;
}

static void terrain(scene* sc, uint64_t* rng)
{
    const float s = 1.0f;
    vxk_int3 size = {12, 12, 12};
    make_body(&sc->b, size, 0.25f, 0.3f, rng);
    sc->b.pose.q = random_quat(rng);
    sc->b.pose.p = vxk_v3(40.0f, 4.0f + 0.5f * 12 * 0.25f * 1.2f, 40.0f);
    // Rolling ground around the body, gathered with a border.
    vxk_int3 min = {34, -3, 34}, region = {13, 14, 13};
    size_t bytes = vxk_voxel_view_storage_bytes(region);
    sc->region_storage = malloc(bytes);
    uint8_t* occupancy = (uint8_t*)malloc((size_t)region.x * region.y * region.z);
    for (int y = 0; y < region.y; ++y)
        for (int z = 0; z < region.z; ++z)
            for (int x = 0; x < region.x; ++x) {
                float h = 3.5f + sinf(0.7f * (float)(x + min.x)) + cosf(0.5f * (float)(z + min.z));
                occupancy[x + region.x * (z + region.z * y)] = (float)(y + min.y) < h;
            }
    if (vxk_voxel_view_region_dense(&sc->a, sc->region_storage, bytes, min, region, s, occupancy) !=
        VXK_OK)
        abort();
    free(occupancy);
    sc->name = "terrain";
    sc->margin = 0.05f;
    sc->brute = true;
}

// A body of 0.1 m voxels resting on flat terrain of 1 m voxels (top at y = 0), off the terrain's
// grid and turned 0.3 rad about y, 1 mm above it.
static void resting(scene* sc, const char* name, vxk_int3 size, float holes, uint64_t* rng)
{
    const float s = 0.1f;
    if (holes <= 0.0f) {
        make_body(&sc->b, size, s, 0.0f, rng);
    } else {
        // Holes everywhere but in the bottom layer, which rests on the ground whole.
        vxk_voxel_grid grid = {size, NULL};
        size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
        grid.voxels = (uint8_t*)malloc(n);
        for (size_t i = 0; i < n; ++i)
            grid.voxels[i] = i < (size_t)size.x * (size_t)size.z || rand_unit(rng) >= holes;
        uint8_t solid[256] = {0};
        solid[1] = 1;
        vxk_vec3 origin = {-0.5f * s * (float)size.x, -0.5f * s * (float)size.y,
                           -0.5f * s * (float)size.z};
        if (vxk_voxel_view_create(&sc->b, &grid, solid, NULL, s, origin) != VXK_OK)
            abort();
        free(grid.voxels);
    }
    sc->b.pose.q = vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), 0.3f);
    sc->b.pose.p = vxk_v3(0.37f, 0.5f * s * (float)size.y + 0.001f, -0.21f);
    float reach = 0.5f * s * sqrtf((float)(size.x * size.x + size.z * size.z)) + 2.0f;
    int32_t half = (int32_t)ceilf(reach);
    vxk_int3 min = {-half, -3, -half}, region = {2 * half, 5, 2 * half};
    size_t bytes = vxk_voxel_view_storage_bytes(region);
    sc->region_storage = malloc(bytes);
    uint8_t* occupancy = (uint8_t*)malloc((size_t)region.x * region.y * region.z);
    for (int y = 0; y < region.y; ++y)
        for (int z = 0; z < region.z; ++z)
            for (int x = 0; x < region.x; ++x)
                occupancy[x + region.x * (z + region.z * y)] = y + min.y < 0;
    if (vxk_voxel_view_region_dense(&sc->a, sc->region_storage, bytes, min, region, 1.0f,
                                    occupancy) != VXK_OK)
        abort();
    free(occupancy);
    sc->name = name;
    sc->margin = 0.005f;
    sc->brute = true;
}

// Two 32^3 wedges (voxels under the diagonal plane x + y < 32, and over it), the second moved
// 2 cm along the plane's normal and a little along it: their boxes overlap, their voxels stay
// apart.
static void wedges(scene* sc)
{
    const float s = 0.05f;
    vxk_int3 size = {32, 32, 32};
    vxk_voxel_grid grid = {size, (uint8_t*)malloc(32 * 32 * 32)};
    uint8_t solid[256] = {0};
    solid[1] = 1;
    vxk_vec3 origin = {-0.8f, -0.8f, -0.8f};
    vxk_voxel_view* views[2] = {&sc->a, &sc->b};
    for (int k = 0; k < 2; ++k) {
        for (int y = 0; y < 32; ++y)
            for (int z = 0; z < 32; ++z)
                for (int x = 0; x < 32; ++x)
                    grid.voxels[x + 32 * (z + 32 * y)] = k ? x + y >= 33 : x + y <= 30;
        if (vxk_voxel_view_create(views[k], &grid, solid, NULL, s, origin) != VXK_OK)
            abort();
    }
    free(grid.voxels);
    const float gap = 0.02f * 0.70710678f;
    sc->b.pose.p = vxk_v3(gap + 0.013f, gap - 0.013f, 0.007f);
    sc->name = "apart32";
    sc->margin = 0.01f;
    sc->brute = true;
}

static void figure(vxk_bench* b, const scene* sc, const char* what, double value)
{
    char key[48];
    snprintf(key, sizeof(key), "%s_%s", sc->name, what);
    vxk_bench_figure_add(b, key, value);
}

static void run_scene(vxk_bench* b, scene* sc)
{
    static vxk_voxel_contact_scratch scratch;
    vxk_voxel_manifolds out;
    uint32_t pairs = vxk_voxel_pairs(NULL, 0, &sc->a, &sc->b, sc->margin, 0);
    uint32_t manifolds = vxk_collide_voxels(&out, &scratch, &sc->a, &sc->b, sc->margin, 0);
    uint32_t points = 0;
    for (uint32_t m = 0; m < manifolds; ++m)
        points += out.manifolds[m].point_count;
    vxk_bench_hash(b, &out, sizeof(out));
    // Batches of calls long enough to time.
    uint32_t reps = 1;
    for (;;) {
        double t0 = vxk_bench_now();
        for (uint32_t i = 0; i < reps; ++i)
            vxk_collide_voxels(&out, &scratch, &sc->a, &sc->b, sc->margin, 0);
        if (vxk_bench_now() - t0 > (b->quick ? 0.002 : 0.02) || reps > (1u << 20))
            break;
        reps *= 2;
    }
    double ours[RUNS], article[RUNS], brute[RUNS];
    uint64_t article_count = 0, brute_count = 0;
    for (int run = 0; run < RUNS; ++run) {
        double t0 = vxk_bench_now();
        for (uint32_t i = 0; i < reps; ++i)
            vxk_collide_voxels(&out, &scratch, &sc->a, &sc->b, sc->margin, 0);
        ours[run] = (vxk_bench_now() - t0) / reps * 1e6;
        t0 = vxk_bench_now();
        article_count = article_pairs(sc);
        article[run] = (vxk_bench_now() - t0) * 1e6;
        if (sc->brute && !(b->quick && run > 0)) {
            t0 = vxk_bench_now();
            brute_count = brute_pairs(sc);
            brute[run] = (vxk_bench_now() - t0) * 1e6;
        } else {
            brute[run] = run ? brute[0] : 0.0;
        }
    }
    vxk_bench_sink(article_count + brute_count);
    double us = vxk_bench_median(ours, RUNS), article_us = vxk_bench_median(article, RUNS);
    figure(b, sc, "us", us);
    figure(b, sc, "article_us", article_us);
    figure(b, sc, "vs_article", article_us / us);
    if (sc->brute) {
        double brute_us = vxk_bench_median(brute, RUNS);
        figure(b, sc, "brute_us", brute_us);
        figure(b, sc, "vs_brute", brute_us / us);
        figure(b, sc, "pairs_match", brute_count == pairs);
    }
    figure(b, sc, "pairs", pairs);
    figure(b, sc, "manifolds", manifolds);
    figure(b, sc, "points", points);
    vxk_bench_phase_add(b, sc->name, us * 1e-6, 1);
}

// ---- primitives --------------------------------------------------------------------------------

typedef struct prim_scene {
    const char* name;
    vxk_voxel_view body;
    bool is_box;
    vxk_vec3 centre;
    float radius;
    vxk_obb box;
    float margin;
} prim_scene;

static uint32_t prim_collide(vxk_voxel_manifolds* out, const prim_scene* sc, uint32_t flags)
{
    static vxk_voxel_contact_scratch scratch;
    return sc->is_box ? vxk_collide_voxel_box(out, &scratch, &sc->body, &sc->box, sc->margin, flags)
                      : vxk_collide_voxel_sphere(out, &scratch, &sc->body, sc->centre, sc->radius,
                                                 sc->margin, flags);
}

// Median microseconds of one call over RUNS batches.
static double prim_time(const vxk_bench* b, const prim_scene* sc, uint32_t flags)
{
    vxk_voxel_manifolds out;
    uint32_t reps = 1;
    for (;;) {
        double t0 = vxk_bench_now();
        for (uint32_t i = 0; i < reps; ++i)
            prim_collide(&out, sc, flags);
        if (vxk_bench_now() - t0 > (b->quick ? 0.002 : 0.02) || reps > (1u << 20))
            break;
        reps *= 2;
    }
    double t[RUNS];
    for (int run = 0; run < RUNS; ++run) {
        double t0 = vxk_bench_now();
        for (uint32_t i = 0; i < reps; ++i)
            prim_collide(&out, sc, flags);
        t[run] = (vxk_bench_now() - t0) / reps * 1e6;
    }
    return vxk_bench_median(t, RUNS);
}

static void prim_figure(vxk_bench* b, const prim_scene* sc, const char* what, double value)
{
    char key[48];
    snprintf(key, sizeof(key), "%s_%s", sc->name, what);
    vxk_bench_figure_add(b, key, value);
}

static void run_prim_scene(vxk_bench* b, const prim_scene* sc)
{
    vxk_voxel_manifolds out, all;
    memset(&out, 0, sizeof(out));
    memset(&all, 0, sizeof(all));
    uint32_t manifolds = prim_collide(&out, sc, 0);
    prim_collide(&all, sc, VXK_VOXEL_ALL_FACES);
    uint32_t points = 0;
    for (uint32_t m = 0; m < manifolds; ++m)
        points += out.manifolds[m].point_count;
    vxk_bench_hash(b, &out, sizeof(out));
    double us = prim_time(b, sc, 0), all_us = prim_time(b, sc, VXK_VOXEL_ALL_FACES);
    prim_figure(b, sc, "us", us);
    prim_figure(b, sc, "all_us", all_us);
    prim_figure(b, sc, "vs_all", all_us / us);
    prim_figure(b, sc, "same", memcmp(&out, &all, sizeof(out)) == 0);
    prim_figure(b, sc, "manifolds", manifolds);
    prim_figure(b, sc, "points", points);
    vxk_bench_phase_add(b, sc->name, us * 1e-6, 1);
}

// A body of 0.05 m voxels, its top at y = 0: holes everywhere but in the top layer.
static void prim_body(prim_scene* sc, vxk_int3 size, float holes, uint64_t* rng)
{
    const float s = 0.05f;
    vxk_voxel_grid grid = {size, NULL};
    size_t n = (size_t)size.x * (size_t)size.y * (size_t)size.z;
    grid.voxels = (uint8_t*)malloc(n);
    size_t top = (size_t)size.x * (size_t)size.z * (size_t)(size.y - 1);
    for (size_t i = 0; i < n; ++i)
        grid.voxels[i] = i >= top || rand_unit(rng) >= holes;
    uint8_t solid[256] = {0};
    solid[1] = 1;
    vxk_vec3 origin = {-0.5f * s * (float)size.x, -s * (float)size.y, -0.5f * s * (float)size.z};
    if (vxk_voxel_view_create(&sc->body, &grid, solid, NULL, s, origin) != VXK_OK)
        abort();
    free(grid.voxels);
    sc->margin = 0.01f;
}

static void prim_resting_box(prim_scene* sc, const char* name)
{
    sc->name = name;
    sc->is_box = true;
    sc->box.half = vxk_v3(0.5f, 0.5f, 0.5f);
    sc->box.axes = vxk_mat3_from_quat(vxk_quat_from_axis_angle(vxk_v3(0, 1, 0), 0.3f));
    sc->box.center = vxk_v3(0.031f, 0.5f + 0.002f, -0.017f);
}

static void bench_primitives(vxk_bench* b, uint64_t* rng)
{
    prim_scene scenes[3];
    memset(scenes, 0, sizeof(scenes));
    prim_body(&scenes[0], (vxk_int3){32, 8, 32}, 0.3f, rng);
    scenes[0].name = "sphere_holes";
    scenes[0].centre = vxk_v3(0.021f, 0.5f + 0.003f, -0.012f);
    scenes[0].radius = 0.5f;
    prim_body(&scenes[1], (vxk_int3){32, 8, 32}, 0.3f, rng);
    prim_resting_box(&scenes[1], "box_holes");
    prim_body(&scenes[2], (vxk_int3){32, 1, 32}, 0.0f, rng);
    prim_resting_box(&scenes[2], "box_plate");
    for (uint32_t i = 0; i < 3; ++i) {
        if (!b->quick || i == 0)
            run_prim_scene(b, &scenes[i]);
        vxk_voxel_view_destroy(&scenes[i].body);
    }
}

static void bench_contact_voxel(vxk_bench* b)
{
    uint64_t rng = 0xC0117AC7ull;
    scene scenes[9];
    memset(scenes, 0, sizeof(scenes));
    stack(&scenes[0], "stack16", 16, 0.0f, &rng);
    stack(&scenes[1], "turned16", 16, 0.3f, &rng);
    stack(&scenes[2], "stack32", 32, 0.0f, &rng);
    blobs(&scenes[3], &rng);
    stack(&scenes[4], "turned64", 64, 0.3f, &rng);
    terrain(&scenes[5], &rng);
    resting(&scenes[6], "rest_box", (vxk_int3){64, 8, 64}, 0.0f, &rng);
    resting(&scenes[7], "rest_holes", (vxk_int3){48, 12, 48}, 0.3f, &rng);
    wedges(&scenes[8]);
    uint32_t count = b->quick ? 2 : 9;
    for (uint32_t i = 0; i < count; ++i) {
        run_scene(b, &scenes[i]);
        vxk_voxel_view_destroy(&scenes[i].b);
        if (scenes[i].region_storage)
            free(scenes[i].region_storage);
        else
            vxk_voxel_view_destroy(&scenes[i].a);
    }
    for (uint32_t i = count; i < 9; ++i) {
        vxk_voxel_view_destroy(&scenes[i].b);
        if (scenes[i].region_storage)
            free(scenes[i].region_storage);
        else
            vxk_voxel_view_destroy(&scenes[i].a);
    }
    bench_primitives(b, &rng);
}

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {bench_contact_voxel};
    return vxk_bench_main(argc, argv, phases, 1, 1);
}
