// test_edit.c: the edit system (vxk/edit.h). Every check compares with a reference of this file:
// a dense voxel array per region (and per body grid) that replays the same edits in ticket order,
// voxel by voxel, with its own sphere test, and its own expectation of each edit's status.
//   - shapes: random edits of every kind, published, equal the replay (caller-driven and thread);
//   - latency: an edit submitted before step n is visible from step n + 1 and not before, and the
//     world's terrain never shows an unpublished version;
//   - bad edits are rejected with the right status and change nothing; the writer goes on;
//   - the queue: tickets, a full queue (VXK_ERR_CAPACITY, a timed and a released wait), expired
//     outcomes;
//   - flood: 4 producers x 250,000 random edits (VXK_EDIT_FLOOD=n per producer; fewer under the
//     sanitizers) while the world steps with bodies: every ticket has one outcome, the final
//     terrain and body grid equal the replay, and after every step a reader (jobs) finds every
//     chunk equal to the replay of exactly the tickets published so far (whole versions only);
//   - determinism: scripted edits give one world hash for 1, 2 and 8 workers, with the writer
//     thread, a slowed writer thread, or no thread;
//   - body edits (applied at the publish): the grid equals the replay; stale, outside, emptying;
//   - the batch hook: the removed solid voxels of each batch equal the replay's;
//   - out of memory: enable, the writer and the publish under failing allocations lose no edit.
#include "harness.h"
#include "scenes.h"
#include "test.h"
#include "status_lists.h"

#include <vxk/edit.h>
#include <vxk/vxk.h>

#include "edit_thread.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ---- the reference: dense grids replaying edits ---------------------------------------------

typedef struct ref_grid {
    vxk_int3 min, size;
    uint8_t* v; // x + size.x * (z + size.z * y)
} ref_grid;

static ref_grid ref_make(vxk_int3 min, vxk_int3 size)
{
    ref_grid g = {min, size, calloc((size_t)size.x * size.y * size.z, 1)};
    return g;
}

static uint8_t* ref_at(const ref_grid* g, int64_t x, int64_t y, int64_t z)
{
    x -= g->min.x;
    y -= g->min.y;
    z -= g->min.z;
    if (x < 0 || y < 0 || z < 0 || x >= g->size.x || y >= g->size.y || z >= g->size.z)
        return NULL;
    return g->v + x + (int64_t)g->size.x * (z + (int64_t)g->size.z * y);
}

static size_t ref_bytes(const ref_grid* g)
{
    return (size_t)g->size.x * g->size.y * g->size.z;
}

static vxk_int_box ref_box(const ref_grid* g)
{
    return (vxk_int_box){
        g->min, {g->min.x + g->size.x - 1, g->min.y + g->size.y - 1, g->min.z + g->size.z - 1}};
}

static bool ref_sphere_kind(const vxk_edit* e)
{
    return e->kind == VXK_EDIT_FILL_SPHERE || e->kind == VXK_EDIT_PAINT_SPHERE;
}

// Voxel by voxel: every voxel of the grid near the shape, tested on its own.
static void ref_apply(ref_grid* g, const vxk_edit* e)
{
    bool paint = e->kind == VXK_EDIT_PAINT_BOX || e->kind == VXK_EDIT_PAINT_SPHERE;
    int64_t lo[3], hi[3];
    if (ref_sphere_kind(e)) {
        const double c[3] = {e->centre.x, e->centre.y, e->centre.z};
        for (int a = 0; a < 3; ++a) {
            lo[a] = (int64_t)c[a] - (int64_t)e->radius - 3;
            hi[a] = (int64_t)c[a] + (int64_t)e->radius + 3;
        }
    } else {
        vxk_int_box b = e->box;
        if (e->kind == VXK_EDIT_SET_VOXEL)
            b.max = b.min;
        lo[0] = b.min.x, lo[1] = b.min.y, lo[2] = b.min.z;
        hi[0] = b.max.x, hi[1] = b.max.y, hi[2] = b.max.z;
    }
    double r2 = (double)e->radius * (double)e->radius;
    for (int64_t y = lo[1]; y <= hi[1]; ++y)
        for (int64_t z = lo[2]; z <= hi[2]; ++z)
            for (int64_t x = lo[0]; x <= hi[0]; ++x) {
                uint8_t* v = ref_at(g, x, y, z);
                if (!v)
                    continue;
                if (ref_sphere_kind(e)) {
                    double dx = ((double)x + 0.5) - (double)e->centre.x;
                    double dy = ((double)y + 0.5) - (double)e->centre.y;
                    double dz = ((double)z + 0.5) - (double)e->centre.z;
                    if (!((dx * dx + dy * dy) + dz * dz <= r2))
                        continue;
                }
                if (!paint || *v != 0)
                    *v = e->material;
            }
}

static uint64_t ref_solid_count(const ref_grid* g)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ref_bytes(g); ++i)
        n += g->v[i] != 0;
    return n;
}

// A body edit on its reference grid: refused (and undone) when it would empty the body, or when
// a box reaches outside the grid.
static vxk_status ref_apply_body(ref_grid* g, const vxk_edit* e)
{
    if (!ref_sphere_kind(e)) {
        vxk_int_box b = e->box;
        if (e->kind == VXK_EDIT_SET_VOXEL)
            b.max = b.min;
        if (b.min.x < 0 || b.min.y < 0 || b.min.z < 0 || b.max.x >= g->size.x ||
            b.max.y >= g->size.y || b.max.z >= g->size.z)
            return VXK_ERR_OUT_OF_RANGE;
    }
    uint8_t* saved = malloc(ref_bytes(g));
    memcpy(saved, g->v, ref_bytes(g));
    ref_apply(g, e);
    vxk_status st = VXK_OK;
    if (ref_solid_count(g) == 0) {
        memcpy(g->v, saved, ref_bytes(g));
        st = VXK_ERR_OUT_OF_RANGE;
    }
    free(saved);
    return st;
}

static uint64_t fnv(uint64_t h, const uint8_t* p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

// ---- helpers ------------------------------------------------------------------------------------

static const uint8_t k_materials[] = {VXK_MAT_AIR,  VXK_MAT_STONE, VXK_MAT_DIRT, VXK_MAT_GRASS,
                                      VXK_MAT_SAND, VXK_MAT_WOOD,  VXK_MAT_WATER};

static uint8_t rand_material(uint64_t* rng, bool allow_air)
{
    uint32_t n = sizeof(k_materials);
    uint32_t i = (uint32_t)(vxk_test_rand(rng) % (allow_air ? n : n - 1));
    return allow_air ? k_materials[i] : k_materials[i + 1];
}

static int32_t rand_in(uint64_t* rng, int32_t lo, int32_t hi) // inclusive
{
    return lo + (int32_t)(vxk_test_rand(rng) % (uint64_t)(hi - lo + 1));
}

// A random good edit inside the box [min, min + size) (spheres stay 3 voxels inside).
static vxk_edit rand_edit(uint64_t* rng, vxk_int3 min, vxk_int3 size, float max_radius)
{
    uint32_t k = (uint32_t)(vxk_test_rand(rng) % 100);
    vxk_int3 p = {rand_in(rng, min.x, min.x + size.x - 1), rand_in(rng, min.y, min.y + size.y - 1),
                  rand_in(rng, min.z, min.z + size.z - 1)};
    if (k < 35)
        return vxk_edit_set_voxel(p, rand_material(rng, true));
    if (k < 55 || (k >= 80 && k < 88)) {
        vxk_int3 d = {rand_in(rng, 0, 5), rand_in(rng, 0, 5), rand_in(rng, 0, 5)};
        vxk_int3 q = {VXK_MIN(p.x + d.x, min.x + size.x - 1),
                      VXK_MIN(p.y + d.y, min.y + size.y - 1),
                      VXK_MIN(p.z + d.z, min.z + size.z - 1)};
        vxk_int_box b = {p, q};
        return k < 55 ? vxk_edit_fill_box(b, rand_material(rng, true))
                      : vxk_edit_paint_box(b, rand_material(rng, false));
    }
    float r = vxk_test_randf(rng, 0.4f, max_radius);
    float margin = r + 3.0f;
    vxk_vec3 c = {vxk_test_randf(rng, (float)min.x + margin, (float)(min.x + size.x) - margin),
                  vxk_test_randf(rng, (float)min.y + margin, (float)(min.y + size.y) - margin),
                  vxk_test_randf(rng, (float)min.z + margin, (float)(min.z + size.z) - margin)};
    if (k < 80)
        return vxk_edit_fill_sphere(c, r, rand_material(rng, true));
    return vxk_edit_paint_sphere(c, r, rand_material(rng, false));
}

// A bad edit and the status it must be rejected with.
static vxk_edit bad_edit(uint64_t* rng, vxk_status* expect)
{
    vxk_edit e = vxk_edit_fill_sphere((vxk_vec3){10, 10, 10}, 2.0f, VXK_MAT_STONE);
    switch (vxk_test_rand(rng) % 10) {
    case 0:
        e.centre.y = nanf("");
        *expect = VXK_ERR_NOT_FINITE;
        break;
    case 1:
        e.radius = INFINITY;
        *expect = VXK_ERR_NOT_FINITE;
        break;
    case 2:
        e.radius = 0.0f;
        *expect = VXK_ERR_OUT_OF_RANGE;
        break;
    case 3:
        e.radius = -1.0f;
        *expect = VXK_ERR_OUT_OF_RANGE;
        break;
    case 4:
        e.radius = VXK_EDIT_MAX_RADIUS * 2;
        *expect = VXK_ERR_OUT_OF_RANGE;
        break;
    case 5:
        e.material = 200;
        *expect = VXK_ERR_BAD_MATERIAL;
        break;
    case 6:
        e = vxk_edit_paint_box((vxk_int_box){{1, 1, 1}, {2, 2, 2}}, VXK_MAT_AIR);
        *expect = VXK_ERR_BAD_MATERIAL;
        break;
    case 7:
        e = vxk_edit_fill_box((vxk_int_box){{5, 1, 1}, {4, 2, 2}}, VXK_MAT_STONE);
        *expect = VXK_ERR_INVALID_ARGUMENT;
        break;
    case 8:
        e = vxk_edit_fill_box((vxk_int_box){{0, 0, 0}, {VXK_EDIT_MAX_EXTENT, 1, 1}}, VXK_MAT_STONE);
        *expect = VXK_ERR_OUT_OF_RANGE;
        break;
    default:
        e.kind = (vxk_edit_kind)(vxk_test_rand(rng) & 1 ? 0 : 9);
        *expect = VXK_ERR_INVALID_ARGUMENT;
        break;
    }
    return e;
}

static vxk_world* make_world(vxk_jobs* jobs, ref_grid* ref, int32_t ground)
{
    vxk_world* w = vxk_scene_world_with(jobs, 0.0f);
    if (!w)
        return NULL;
    vxk_int_box box = ref_box(ref);
    box.max.y = box.min.y + ground - 1;
    if (vxk_world_fill_box(w, box, VXK_MAT_STONE) != VXK_OK) {
        vxk_world_destroy(w);
        return NULL;
    }
    vxk_edit ground_edit = vxk_edit_fill_box(box, VXK_MAT_STONE);
    ref_apply(ref, &ground_edit);
    return w;
}

// Checks that the world's terrain over the reference's box equals it, and that nothing outside
// it is set (the world's hash equals that of a world written from the reference alone).
static int check_terrain(const vxk_world* w, const ref_grid* ref)
{
    uint8_t* got = malloc(ref_bytes(ref));
    VXK_CHECK_EQ_INT(vxk_world_read_box(w, got, ref_box(ref)), VXK_OK);
    for (size_t i = 0; i < ref_bytes(ref); ++i)
        if (got[i] != ref->v[i]) {
            int64_t x = (int64_t)(i % (size_t)ref->size.x);
            int64_t z = (int64_t)((i / (size_t)ref->size.x) % (size_t)ref->size.z);
            int64_t y = (int64_t)(i / ((size_t)ref->size.x * ref->size.z));
            fprintf(stderr, "voxel (%lld, %lld, %lld): world %d, reference %d\n",
                    (long long)(x + ref->min.x), (long long)(y + ref->min.y),
                    (long long)(z + ref->min.z), got[i], ref->v[i]);
            free(got);
            return 1;
        }
    free(got);
    vxk_world* copy = vxk_scene_world();
    VXK_CHECK(copy != NULL);
    VXK_CHECK_EQ_INT(vxk_world_write_box(copy, ref_box(ref), ref->v), VXK_OK);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), vxk_world_terrain_hash(copy));
    vxk_world_destroy(copy);
    return 0;
}

static vxk_edit_outcome outcome(const vxk_world* w, uint64_t ticket)
{
    vxk_edit_outcome out = {VXK_EDIT_PENDING, VXK_ERR_IO, 0};
    if (vxk_edit_get_outcome(w, &out, ticket) != VXK_OK)
        out.status = VXK_ERR_IO;
    return out;
}

static uint64_t steps_done(const vxk_world* w)
{
    vxk_world_step_stats s;
    vxk_world_get_step_stats(w, &s);
    return s.steps;
}

// Steps (dt 0) until every ticket issued is final; false after 8 steps.
static bool publish_all(vxk_world* w)
{
    for (int i = 0; i < 8; ++i) {
        vxk_edit_stats s;
        vxk_edit_get_stats(w, &s);
        if (s.applied + s.rejected == s.submitted)
            return true;
        if (vxk_world_step(w, 0.0f) != VXK_OK)
            return false;
    }
    return false;
}

static vxk_status enable(vxk_world* w, uint32_t queue, uint32_t outcomes)
{
    vxk_edit_def def = vxk_default_edit_def();
    def.split = false; // these tests compare against a plain replay; test_splitting splits
    if (queue)
        def.queue_capacity = queue;
    if (outcomes)
        def.outcome_capacity = outcomes;
    return vxk_edit_enable(w, &def);
}

// ---- shapes: random edits equal the replay --------------------------------------------------

static int shapes_run(uint64_t seed, bool thread, vxk_int3 min, float max_radius)
{
    uint64_t rng = vxk_test_seed(seed);
    vxk_int3 size = {72, 48, 64};
    ref_grid ref = ref_make(min, size);
    vxk_world* w = make_world(NULL, &ref, 16);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(enable(w, 256, 1024), VXK_OK);
    if (thread)
        VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
    enum { edits = 300 };
    uint64_t tickets[edits];
    for (int i = 0; i < edits; ++i) {
        vxk_edit e = rand_edit(&rng, min, size, max_radius);
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &tickets[i], &e, VXK_EDIT_WAIT_FOREVER), VXK_OK);
        ref_apply(&ref, &e);
        if (i % 37 == 0)
            VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    }
    VXK_CHECK(publish_all(w));
    for (int i = 0; i < edits; ++i) {
        vxk_edit_outcome o = outcome(w, tickets[i]);
        VXK_CHECK_MSG(o.state == VXK_EDIT_APPLIED && o.status == VXK_OK, "ticket %d: %d %d", i,
                      (int)o.state, (int)o.status);
        VXK_CHECK_EQ_U64(tickets[i], (uint64_t)i + 1);
    }
    if (check_terrain(w, &ref))
        return 1;
    // Derived data followed: the broadphase equals a full build of the same terrain.
    vxk_world* copy = vxk_scene_world();
    VXK_CHECK(copy != NULL);
    VXK_CHECK_EQ_INT(vxk_world_write_box(copy, ref_box(&ref), ref.v), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(copy, 0.0f), VXK_OK);
    VXK_CHECK_EQ_U64(vxk_broadphase_hash(w), vxk_broadphase_hash(copy));
    vxk_world_destroy(copy);
    vxk_world_destroy(w);
    free(ref.v);
    return 0;
}

static int test_edit_shapes(void)
{
    const int rounds = VXK_TEST_SLOW ? 2 : 6;
    for (int r = 0; r < rounds; ++r) {
        vxk_int3 min = {-36 + 7 * r, -20 + r, -30 - 3 * r};
        if (shapes_run(0xED17 + (uint64_t)r, r & 1, min, r == rounds - 1 ? 14.0f : 6.0f))
            return 1;
    }
    return 0;
}

// ---- latency and isolation ------------------------------------------------------------------

static int test_edit_latency_and_isolation(void)
{
    ref_grid ref = ref_make((vxk_int3){0, 0, 0}, (vxk_int3){32, 16, 32});
    vxk_world* w = make_world(NULL, &ref, 6);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 0, 0), VXK_OK);
    uint64_t hash0 = vxk_world_terrain_hash(w);
    // Carve into a mixed chunk and a uniform one; the writer applies them at once.
    vxk_edit carve = vxk_edit_carve_sphere((vxk_vec3){12.0f, 5.5f, 12.0f}, 3.0f);
    vxk_edit fill = vxk_edit_fill_box((vxk_int_box){{20, 6, 20}, {23, 9, 23}}, VXK_MAT_WOOD);
    uint64_t t1, t2, t3;
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t1, &carve, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t2, &fill, 0), VXK_OK);
    uint32_t applied = 0;
    VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, &applied), VXK_OK);
    VXK_CHECK_EQ_INT(applied, 2);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), hash0); // applied to the writer's versions only
    VXK_CHECK_EQ_INT(outcome(w, t1).state, VXK_EDIT_PENDING);
    uint64_t s0 = steps_done(w);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK); // step s0+1: submitted before it began
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), hash0);
    VXK_CHECK_EQ_INT(outcome(w, t2).state, VXK_EDIT_PENDING);
    vxk_edit late = vxk_edit_set_voxel((vxk_int3){1, 10, 1}, VXK_MAT_METAL);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t3, &late, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK); // step s0+2 publishes t1, t2
    ref_apply(&ref, &carve);
    ref_apply(&ref, &fill);
    for (uint64_t t = t1; t <= t2; ++t) {
        vxk_edit_outcome o = outcome(w, t);
        VXK_CHECK_EQ_INT(o.state, VXK_EDIT_APPLIED);
        VXK_CHECK_EQ_U64(o.step, s0 + 2);
    }
    VXK_CHECK_EQ_INT(outcome(w, t3).state, VXK_EDIT_PENDING);
    VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){1, 10, 1}), VXK_MAT_AIR);
    if (check_terrain(w, &ref))
        return 1;
    VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
    VXK_CHECK_EQ_U64(outcome(w, t3).step, s0 + 3);
    ref_apply(&ref, &late);
    if (check_terrain(w, &ref))
        return 1;
    // Direct writes are refused while enabled, allowed after.
    uint64_t hash = vxk_world_terrain_hash(w);
    vxk_int_box b = {{0, 0, 0}, {3, 3, 3}};
    uint8_t ids[64];
    memset(ids, VXK_MAT_SAND, sizeof(ids));
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, b, VXK_MAT_SAND), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_world_write_box(w, b, ids), VXK_ERR_UNSUPPORTED);
    vxk_worldgen_def gen = vxk_scene_worldgen_def((vxk_int3){16, 16, 16}, 3);
    VXK_CHECK_EQ_INT(vxk_worldgen_run(w, &gen), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), hash);
    // Disable publishes what was submitted, at once.
    vxk_edit more = vxk_edit_fill_box((vxk_int_box){{2, 12, 2}, {5, 13, 5}}, VXK_MAT_ICE);
    uint64_t t4;
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t4, &more, 0), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_edit_disable(w), VXK_OK);
    ref_apply(&ref, &more);
    if (check_terrain(w, &ref))
        return 1;
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, b, VXK_MAT_SAND), VXK_OK);
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    VXK_CHECK(!st.enabled);
    // And again: a second enable starts from the world's terrain as it is now.
    VXK_CHECK_EQ_INT(enable(w, 0, 0), VXK_OK);
    ref_apply(&ref, &(vxk_edit){.kind = VXK_EDIT_FILL_BOX, .material = VXK_MAT_SAND, .box = b});
    vxk_edit dig = vxk_edit_carve_sphere((vxk_vec3){2.0f, 3.0f, 2.0f}, 2.5f);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t1, &dig, 0), VXK_OK);
    VXK_CHECK_EQ_U64(t1, 1);
    VXK_CHECK(publish_all(w));
    ref_apply(&ref, &dig);
    if (check_terrain(w, &ref))
        return 1;
    vxk_world_destroy(w);
    free(ref.v);
    return 0;
}

// ---- bad edits ----------------------------------------------------------------------------------

static int test_edit_bad_edits(void)
{
    uint64_t rng = vxk_test_seed(0xBAD1);
    for (int thread = 0; thread < 2; ++thread) {
        ref_grid ref = ref_make((vxk_int3){0, 0, 0}, (vxk_int3){24, 16, 24});
        vxk_world* w = make_world(NULL, &ref, 8);
        VXK_CHECK(w != NULL);
        vxk_body_def bd = vxk_default_body_def();
        bd.position = (vxk_vec3){40, 40, 40};
        vxk_body_id sphere_body, gone;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &sphere_body), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &gone), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_destroy(w, gone), VXK_OK);
        VXK_CHECK_EQ_INT(enable(w, 128, 256), VXK_OK);
        if (thread)
            VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
        snapshot before = snap(w);
        enum { count = 60 };
        uint64_t tickets[count];
        vxk_status expect[count];
        for (int i = 0; i < count; ++i) {
            vxk_edit e;
            if (i % 3 == 2) { // body edits: a stale id, a body that is not a voxel body
                e = vxk_edit_carve_sphere((vxk_vec3){1, 1, 1}, 1.0f);
                e.body = i % 2 ? gone : sphere_body;
                expect[i] = i % 2 ? VXK_ERR_STALE_ID : VXK_ERR_INVALID_ARGUMENT;
            } else {
                e = bad_edit(&rng, &expect[i]);
            }
            VXK_CHECK_EQ_INT(vxk_edit_submit(w, &tickets[i], &e, VXK_EDIT_WAIT_FOREVER), VXK_OK);
        }
        // Edits near the ends of int32: shapes that would pass them.
        vxk_edit edge = vxk_edit_fill_sphere((vxk_vec3){2147483600.0f, 0, 0}, 60.0f, 2);
        uint64_t t_edge;
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t_edge, &edge, VXK_EDIT_WAIT_FOREVER), VXK_OK);
        VXK_CHECK(publish_all(w));
        for (int i = 0; i < count; ++i) {
            vxk_edit_outcome o = outcome(w, tickets[i]);
            VXK_CHECK_MSG(o.state == VXK_EDIT_REJECTED && o.status == expect[i],
                          "edit %d: state %d status %d, expected status %d", i, (int)o.state,
                          (int)o.status, (int)expect[i]);
        }
        VXK_CHECK_EQ_INT(outcome(w, t_edge).status, VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_U64(vxk_world_terrain_hash(w), before.terrain);
        // The writer goes on: a good edit after them is applied.
        vxk_edit good = vxk_edit_set_voxel((vxk_int3){3, 12, 3}, VXK_MAT_METAL);
        uint64_t t;
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &good, VXK_EDIT_WAIT_FOREVER), VXK_OK);
        VXK_CHECK(publish_all(w));
        VXK_CHECK_EQ_INT(outcome(w, t).state, VXK_EDIT_APPLIED);
        VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){3, 12, 3}), VXK_MAT_METAL);
        vxk_edit_stats st;
        vxk_edit_get_stats(w, &st);
        VXK_CHECK_EQ_U64(st.rejected, count + 1);
        VXK_CHECK_EQ_U64(st.applied, 1);
        vxk_world_destroy(w);
        free(ref.v);
    }
    return 0;
}

// ---- the API's own errors, tickets and the queue ---------------------------------------------

static int test_edit_api_errors(void)
{
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_edit e = vxk_edit_set_voxel((vxk_int3){0, 0, 0}, VXK_MAT_STONE);
    uint64_t t = 77;
    vxk_edit_outcome o;
    vxk_edit_def def = vxk_default_edit_def();
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 0), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_U64(t, 77);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 1), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_thread_stop(w), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_disable(w), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_enable(NULL, &def), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_edit_enable(w, NULL), VXK_ERR_INVALID_ARGUMENT);
    vxk_edit_def bad = def;
    bad.cookie = 0;
    VXK_CHECK_EQ_INT(vxk_edit_enable(w, &bad), VXK_ERR_BAD_DEF);
    const uint32_t bad_sizes[][2] = {
        {3, 64}, {0, 64}, {1, 64}, {64, 32}, {64, 100}, {1u << 25, 1u << 26}, {64, 1u << 27}};
    for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); ++i) {
        bad = def;
        bad.queue_capacity = bad_sizes[i][0];
        bad.outcome_capacity = bad_sizes[i][1];
        VXK_CHECK_EQ_INT(vxk_edit_enable(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    const uint32_t bad_split[][2] = {{0, 4096}, {257, 4096}, {32, 4095}, {32, 0}};
    for (size_t i = 0; i < sizeof(bad_split) / sizeof(bad_split[0]); ++i) {
        bad = def;
        bad.split_margin = bad_split[i][0];
        bad.split_budget = bad_split[i][1];
        VXK_CHECK_EQ_INT(vxk_edit_enable(w, &bad), VXK_ERR_OUT_OF_RANGE);
    }
    VXK_CHECK_EQ_INT(enable(w, 4, 8), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 4, 8), VXK_ERR_UNSUPPORTED);
    VXK_CHECK_EQ_INT(vxk_edit_submit(NULL, &t, &e, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, NULL, &e, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, NULL, 0), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, NULL, 1), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 0), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 1), VXK_ERR_OUT_OF_RANGE);
    // Tickets 1, 2, ...; a full queue refuses at once, then after its timeout.
    for (uint64_t i = 1; i <= 4; ++i) {
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 0), VXK_OK);
        VXK_CHECK_EQ_U64(t, i);
    }
    t = 0;
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 0), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 2000), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(t, 0);
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    VXK_CHECK_EQ_U64(st.capacity_refusals, 2);
    VXK_CHECK_EQ_U64(st.submitted, 4);
    VXK_CHECK_EQ_INT(st.queue_depth, 4);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 4), VXK_OK);
    VXK_CHECK_EQ_INT(o.state, VXK_EDIT_PENDING);
    uint32_t n = 0;
    VXK_CHECK_EQ_INT(vxk_edit_run(w, 3, &n), VXK_OK);
    VXK_CHECK_EQ_INT(n, 3);
    VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, &n), VXK_OK);
    VXK_CHECK_EQ_INT(n, 1);
    // Outcomes of 8 tickets are kept: older ones expire.
    for (int i = 0; i < 12; ++i) {
        vxk_status s;
        while ((s = vxk_edit_submit(w, &t, &e, 0)) == VXK_ERR_CAPACITY)
            VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_OK);
        VXK_CHECK_EQ_INT(s, VXK_OK);
    }
    VXK_CHECK(publish_all(w));
    VXK_CHECK_EQ_U64(t, 16);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 8), VXK_ERR_STALE_ID);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 9), VXK_OK);
    VXK_CHECK_EQ_INT(o.state, VXK_EDIT_APPLIED);
    VXK_CHECK_EQ_INT(vxk_edit_get_outcome(w, &o, 17), VXK_ERR_OUT_OF_RANGE);
    VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_ERR_UNSUPPORTED);
    vxk_edit_get_stats(w, &st);
    VXK_CHECK(st.enabled && st.thread_running);
    VXK_CHECK_EQ_INT(vxk_edit_thread_stop(w), VXK_OK);
    vxk_world_destroy(w);
    return 0;
}

// A world destroyed with edits queued, applied but unpublished, and its writer thread running
// releases everything (the sanitizer builds check the bytes).
static int test_edit_destroy_pending(void)
{
    size_t base = vxk_allocated_bytes();
    ref_grid ref = ref_make((vxk_int3){0, 0, 0}, (vxk_int3){32, 16, 32});
    vxk_world* w = make_world(NULL, &ref, 8);
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(enable(w, 64, 256), VXK_OK);
    uint64_t rng = vxk_test_seed(0xDE57);
    for (int i = 0; i < 40; ++i) {
        vxk_edit e = rand_edit(&rng, ref.min, ref.size, 5.0f);
        uint64_t t;
        VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 0), VXK_OK);
        if (i == 20) {
            VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_OK); // batch 0 sealed, unpublished
            VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
        }
    }
    vxk_world_memory_stats mem;
    vxk_world_get_memory_stats(w, &mem);
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    VXK_CHECK(st.bytes > 0 && mem.terrain_other_bytes >= st.bytes);
    vxk_world_destroy(w);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    free(ref.v);
    return 0;
}

typedef struct blocked_producer {
    vxk_world* world;
    int count;
    vxk_status status;
    uint64_t last;
} blocked_producer;

static void* blocked_main(void* arg)
{
    blocked_producer* p = (blocked_producer*)arg;
    p->status = VXK_OK;
    for (int i = 0; i < p->count && p->status == VXK_OK; ++i) {
        vxk_edit e = vxk_edit_set_voxel((vxk_int3){i, 0, 0}, VXK_MAT_STONE);
        p->status = vxk_edit_submit(p->world, &p->last, &e, VXK_EDIT_WAIT_FOREVER);
    }
    return NULL;
}

// A producer waiting on a full queue is released as the writer makes room, and nothing is lost.
static int test_edit_full_queue_waits(void)
{
    for (int thread = 0; thread < 2; ++thread) {
        vxk_world* w = vxk_scene_world();
        VXK_CHECK(w != NULL);
        VXK_CHECK_EQ_INT(enable(w, 2, 64), VXK_OK);
        blocked_producer p = {w, 40, VXK_ERR_IO, 0};
        pthread_t th;
        VXK_CHECK_EQ_INT(pthread_create(&th, NULL, blocked_main, &p), 0);
        if (thread) {
            VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
        } else {
            for (;;) { // the caller drives the writer until the producer is through
                vxk_edit_stats st;
                vxk_edit_get_stats(w, &st);
                if (st.processed == 40)
                    break;
                VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_OK);
            }
        }
        pthread_join(th, NULL);
        VXK_CHECK_EQ_INT(p.status, VXK_OK);
        VXK_CHECK_EQ_U64(p.last, 40);
        VXK_CHECK(publish_all(w));
        for (int i = 0; i < 40; ++i)
            VXK_CHECK_EQ_INT(vxk_world_get_voxel(w, (vxk_int3){i, 0, 0}), VXK_MAT_STONE);
        vxk_world_destroy(w);
    }
    return 0;
}

// ---- flood
// ----------------------------------------------------------------------------------------

#define FLOOD_PRODUCERS 4
#define FLOOD_BODY_GRID 12

typedef struct flood_edit {
    vxk_edit edit;
    vxk_status expect; // for bad edits; good ones are decided by the replay
    bool bad;
} flood_edit;

typedef struct flood_producer {
    vxk_world* world;
    uint64_t seed;
    uint32_t count;
    vxk_int3 min, size;
    vxk_body_id body, stale;
    flood_edit* edits;
    uint64_t* tickets;
    vxk_status status;
} flood_producer;

static void* flood_main(void* arg)
{
    flood_producer* p = (flood_producer*)arg;
    uint64_t rng = p->seed;
    p->status = VXK_OK;
    for (uint32_t i = 0; i < p->count; ++i) {
        flood_edit* f = &p->edits[i];
        uint32_t k = (uint32_t)(vxk_test_rand(&rng) % 200);
        f->bad = false;
        f->expect = VXK_OK;
        if (k < 3) {
            f->edit = bad_edit(&rng, &f->expect);
            f->bad = true;
        } else if (k < 4) {
            f->edit = vxk_edit_carve_sphere((vxk_vec3){2, 2, 2}, 1.5f);
            f->edit.body = p->stale;
            f->expect = VXK_ERR_STALE_ID;
            f->bad = true;
        } else if (k < 8) {
            f->edit =
                rand_edit(&rng, (vxk_int3){0, 0, 0},
                          (vxk_int3){FLOOD_BODY_GRID, FLOOD_BODY_GRID, FLOOD_BODY_GRID}, 2.0f);
            f->edit.body = p->body;
        } else {
            f->edit = rand_edit(&rng, p->min, p->size, 4.0f);
        }
        p->status = vxk_edit_submit(p->world, &p->tickets[i], &f->edit, VXK_EDIT_WAIT_FOREVER);
        if (p->status != VXK_OK)
            break;
    }
    return NULL;
}

typedef struct flood_reader {
    const vxk_world* world;
    vxk_int3 min, chunks;
    uint64_t* hashes;
} flood_reader;

static uint64_t chunk_hash_at(const vxk_world* w, vxk_int3 min, vxk_int3 chunks, uint32_t i,
                              uint8_t* voxels)
{
    vxk_int3 c = {(int32_t)(i % (uint32_t)chunks.x), (int32_t)(i / (uint32_t)(chunks.x * chunks.z)),
                  (int32_t)((i / (uint32_t)chunks.x) % (uint32_t)chunks.z)};
    vxk_int3 o = {min.x + 8 * c.x, min.y + 8 * c.y, min.z + 8 * c.z};
    vxk_int_box b = {o, {o.x + 7, o.y + 7, o.z + 7}};
    if (vxk_world_read_box(w, voxels, b) != VXK_OK)
        return 0;
    return fnv(0xCBF29CE484222325ull, voxels, 512);
}

// A reader job: the hashes of its chunks as the world's terrain holds them now.
static void flood_read(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    flood_reader* r = (flood_reader*)ctx;
    uint8_t voxels[512];
    for (uint32_t i = begin; i < end; ++i)
        r->hashes[i] = chunk_hash_at(r->world, r->min, r->chunks, i, voxels);
}

// The reference's hash of chunk i (the chunk's 512 voxels in read_box order).
static uint64_t ref_chunk_hash(const ref_grid* g, vxk_int3 chunks, uint32_t i)
{
    vxk_int3 c = {(int32_t)(i % (uint32_t)chunks.x), (int32_t)(i / (uint32_t)(chunks.x * chunks.z)),
                  (int32_t)((i / (uint32_t)chunks.x) % (uint32_t)chunks.z)};
    uint8_t voxels[512];
    for (int y = 0; y < 8; ++y)
        for (int z = 0; z < 8; ++z)
            memcpy(voxels + 8 * z + 64 * y,
                   ref_at(g, g->min.x + 8 * c.x, g->min.y + 8 * c.y + y, g->min.z + 8 * c.z + z),
                   8);
    return fnv(0xCBF29CE484222325ull, voxels, 512);
}

static int test_edit_flood(void)
{
    uint32_t per = VXK_TEST_SLOW ? 6000 : 250000;
    const char* env = getenv("VXK_EDIT_FLOOD");
    if (env && atoi(env) > 0)
        per = (uint32_t)atoi(env);
    const uint32_t total = per * FLOOD_PRODUCERS;
    vxk_jobs_def jd = vxk_default_jobs_def();
    jd.worker_count = 2;
    vxk_jobs* jobs = NULL;
    VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    const vxk_int3 min = {0, 0, 0}, size = {96, 48, 96};
    const vxk_int3 chunks = {size.x / 8, size.y / 8, size.z / 8};
    const uint32_t chunk_count = (uint32_t)(chunks.x * chunks.y * chunks.z);
    ref_grid ref = ref_make(min, size);
    vxk_world* w = make_world(jobs, &ref, 18);
    VXK_CHECK(w != NULL);
    // Bodies: spheres dropped on the ground, a voxel body the producers edit, a destroyed one.
    vxk_body_def bd = vxk_default_body_def();
    for (int i = 0; i < 8; ++i) {
        bd.position = (vxk_vec3){12.0f + 10.0f * (float)i, 24.0f, 40.0f + 2.0f * (float)(i % 3)};
        vxk_body_id id;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    }
    ref_grid body_ref = ref_make((vxk_int3){0, 0, 0},
                                 (vxk_int3){FLOOD_BODY_GRID, FLOOD_BODY_GRID, FLOOD_BODY_GRID});
    memset(body_ref.v, VXK_MAT_WOOD, ref_bytes(&body_ref));
    vxk_voxel_grid grid = {body_ref.size, body_ref.v};
    bd.position = (vxk_vec3){48.0f, 30.0f, 60.0f};
    bd.shape = vxk_voxel_shape(&grid, 0.0f);
    vxk_body_id body, stale;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &body), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &stale), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_body_destroy(w, stale), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 1024, 1u << 21), VXK_OK);
    VXK_CHECK(total <= (1u << 21));
    VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);

    flood_producer producers[FLOOD_PRODUCERS];
    pthread_t threads[FLOOD_PRODUCERS];
    for (int p = 0; p < FLOOD_PRODUCERS; ++p) {
        producers[p] = (flood_producer){w,
                                        vxk_test_seed(0xF100D + (uint64_t)p),
                                        per,
                                        min,
                                        size,
                                        body,
                                        stale,
                                        calloc(per, sizeof(flood_edit)),
                                        calloc(per, sizeof(uint64_t)),
                                        VXK_ERR_IO};
        VXK_CHECK_EQ_INT(pthread_create(&threads[p], NULL, flood_main, &producers[p]), 0);
    }
    // Step while they flood; after every step, read every chunk as jobs.
    uint32_t step_capacity = 1024, step_count = 0;
    uint64_t* step_digest = malloc(step_capacity * sizeof(uint64_t));
    uint64_t* step_number = malloc(step_capacity * sizeof(uint64_t));
    uint64_t* hashes = malloc(chunk_count * sizeof(uint64_t));
    flood_reader reader = {w, min, chunks, hashes};
    for (;;) {
        vxk_edit_stats st;
        vxk_edit_get_stats(w, &st);
        if (st.applied + st.rejected == total)
            break;
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
        vxk_parallel_for(jobs, "flood_reader", chunk_count, 16, flood_read, &reader);
        if (step_count == step_capacity) {
            step_capacity *= 2;
            step_digest = realloc(step_digest, step_capacity * sizeof(uint64_t));
            step_number = realloc(step_number, step_capacity * sizeof(uint64_t));
        }
        step_digest[step_count] =
            fnv(0xCBF29CE484222325ull, (const uint8_t*)hashes, chunk_count * sizeof(uint64_t));
        step_number[step_count++] = steps_done(w);
        VXK_CHECK_MSG(step_count < 2000000, "the flood never finished");
    }
    for (int p = 0; p < FLOOD_PRODUCERS; ++p) {
        pthread_join(threads[p], NULL);
        VXK_CHECK_EQ_INT(producers[p].status, VXK_OK);
    }
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    VXK_CHECK_EQ_U64(st.submitted, total);
    VXK_CHECK_EQ_U64(st.processed, total);
    VXK_CHECK_EQ_U64(st.applied + st.rejected, total);
    fprintf(stderr, "  %u edits over %u steps, %llu stalls, %llu refusals\n", total, step_count,
            (unsigned long long)st.stalls, (unsigned long long)st.capacity_refusals);

    // Tickets: each producer's in its order; every one issued once.
    const flood_edit** by_ticket = calloc(total, sizeof(flood_edit*));
    for (int p = 0; p < FLOOD_PRODUCERS; ++p)
        for (uint32_t i = 0; i < per; ++i) {
            uint64_t t = producers[p].tickets[i];
            VXK_CHECK(t >= 1 && t <= total && !by_ticket[t - 1]);
            VXK_CHECK(i == 0 || t > producers[p].tickets[i - 1]);
            by_ticket[t - 1] = &producers[p].edits[i];
        }
    // Replay in ticket order, step by step: outcomes and the readers' digests.
    uint64_t* ref_hashes = malloc(chunk_count * sizeof(uint64_t));
    for (uint32_t i = 0; i < chunk_count; ++i)
        ref_hashes[i] = ref_chunk_hash(&ref, chunks, i);
    uint64_t next = 0, last_step = 0, applied = 0, rejected = 0;
    uint8_t* touched = calloc(chunk_count, 1);
    for (uint32_t s = 0; s < step_count; ++s) {
        for (; next < total; ++next) {
            vxk_edit_outcome o = outcome(w, next + 1);
            VXK_CHECK(o.state != VXK_EDIT_PENDING);
            if (o.step > step_number[s])
                break;
            VXK_CHECK_MSG(o.step >= last_step, "ticket %llu published before an earlier one",
                          (unsigned long long)next + 1);
            last_step = o.step;
            const flood_edit* f = by_ticket[next];
            vxk_status expect = f->expect;
            if (!f->bad && !VXK_ID_IS_NULL(f->edit.body)) {
                expect = ref_apply_body(&body_ref, &f->edit);
            } else if (!f->bad) {
                ref_apply(&ref, &f->edit);
                vxk_int_box b = f->edit.box;
                if (ref_sphere_kind(&f->edit)) {
                    int32_t r = (int32_t)f->edit.radius + 1;
                    b.min = (vxk_int3){(int32_t)f->edit.centre.x - r, (int32_t)f->edit.centre.y - r,
                                       (int32_t)f->edit.centre.z - r};
                    b.max = (vxk_int3){(int32_t)f->edit.centre.x + r, (int32_t)f->edit.centre.y + r,
                                       (int32_t)f->edit.centre.z + r};
                } else if (f->edit.kind == VXK_EDIT_SET_VOXEL) {
                    b.max = b.min;
                }
                for (int32_t cy = VXK_MAX(b.min.y, 0) / 8; cy <= VXK_MIN(b.max.y, size.y - 1) / 8;
                     ++cy)
                    for (int32_t cz = VXK_MAX(b.min.z, 0) / 8;
                         cz <= VXK_MIN(b.max.z, size.z - 1) / 8; ++cz)
                        for (int32_t cx = VXK_MAX(b.min.x, 0) / 8;
                             cx <= VXK_MIN(b.max.x, size.x - 1) / 8; ++cx)
                            touched[cx + chunks.x * (cz + chunks.z * cy)] = 1;
            }
            VXK_CHECK_MSG(o.status == expect && (o.state == VXK_EDIT_APPLIED) == (expect == VXK_OK),
                          "ticket %llu: state %d status %d, expected %d",
                          (unsigned long long)next + 1, (int)o.state, (int)o.status, (int)expect);
            ++*(expect == VXK_OK ? &applied : &rejected);
        }
        for (uint32_t i = 0; i < chunk_count; ++i)
            if (touched[i]) {
                ref_hashes[i] = ref_chunk_hash(&ref, chunks, i);
                touched[i] = 0;
            }
        uint64_t digest =
            fnv(0xCBF29CE484222325ull, (const uint8_t*)ref_hashes, chunk_count * sizeof(uint64_t));
        VXK_CHECK_MSG(digest == step_digest[s],
                      "after step %llu the readers saw a terrain that is no published version",
                      (unsigned long long)step_number[s]);
    }
    VXK_CHECK_EQ_U64(next, total);
    VXK_CHECK_EQ_U64(applied, st.applied);
    VXK_CHECK_EQ_U64(rejected, st.rejected);
    if (check_terrain(w, &ref))
        return 1;
    uint8_t* body_now = malloc(ref_bytes(&body_ref));
    VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, body, body_now,
                                          (vxk_int_box){{0, 0, 0},
                                                        {FLOOD_BODY_GRID - 1, FLOOD_BODY_GRID - 1,
                                                         FLOOD_BODY_GRID - 1}}),
                     VXK_OK);
    VXK_CHECK(memcmp(body_now, body_ref.v, ref_bytes(&body_ref)) == 0);
    free(body_now);
    vxk_world_destroy(w);
    vxk_jobs_destroy(jobs);
    for (int p = 0; p < FLOOD_PRODUCERS; ++p) {
        free(producers[p].edits);
        free(producers[p].tickets);
    }
    free(by_ticket);
    free(ref_hashes);
    free(touched);
    free(hashes);
    free(step_digest);
    free(step_number);
    free(ref.v);
    free(body_ref.v);
    return 0;
}

// ---- determinism
// ----------------------------------------------------------------------------------

enum { MODE_INLINE, MODE_THREAD, MODE_SLOW_THREAD, MODE_RUN, MODE_COUNT };

static int determinism_run(uint32_t workers, int mode, uint64_t* hash, uint64_t* stalls)
{
    vxk_jobs* jobs = NULL;
    if (workers) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        VXK_CHECK_EQ_INT(vxk_jobs_create(&jd, &jobs), 0);
    }
    ref_grid ref = ref_make((vxk_int3){0, 0, 0}, (vxk_int3){48, 24, 48});
    vxk_world* w = make_world(jobs, &ref, 10);
    VXK_CHECK(w != NULL);
    vxk_body_def bd = vxk_default_body_def();
    for (int i = 0; i < 9; ++i) {
        bd.position = (vxk_vec3){8.0f + 4.0f * (float)(i % 3), 12.0f + 1.1f * (float)i,
                                 8.0f + 4.0f * (float)(i / 3)};
        bd.shape = i % 2 ? vxk_box_shape((vxk_vec3){0.5f, 0.5f, 0.5f}, VXK_MAT_WOOD)
                         : vxk_sphere_shape(0.5f, VXK_MAT_STONE);
        vxk_body_id id;
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    }
    uint8_t cube[6 * 6 * 6];
    memset(cube, VXK_MAT_DIRT, sizeof(cube));
    vxk_voxel_grid grid = {{6, 6, 6}, cube};
    bd.position = (vxk_vec3){30.0f, 14.0f, 30.0f};
    bd.shape = vxk_voxel_shape(&grid, 0.0f);
    vxk_body_id body;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &body), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 16, 1024), VXK_OK);
    if (mode == MODE_THREAD || mode == MODE_SLOW_THREAD)
        VXK_CHECK_EQ_INT(vxk_edit_thread_start(w), VXK_OK);
    if (mode == MODE_SLOW_THREAD)
        vxk_edit_set_test_delay(w, 2000);
    uint64_t rng = vxk_test_seed(0xDE7E);
    const int steps = VXK_TEST_SLOW ? 60 : 120;
    for (int s = 0; s < steps; ++s) {
        if (s % 4 == 1) {
            for (int k = 0; k < 3; ++k) { // craters under the bodies, walls, paint
                vxk_edit e = rand_edit(&rng, (vxk_int3){2, 2, 2}, (vxk_int3){40, 12, 40}, 5.0f);
                uint64_t t;
                VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, VXK_EDIT_WAIT_FOREVER), VXK_OK);
            }
            vxk_edit b = vxk_edit_carve_sphere((vxk_vec3){vxk_test_randf(&rng, 0, 6),
                                                          vxk_test_randf(&rng, 0, 6),
                                                          vxk_test_randf(&rng, 0, 6)},
                                               1.2f);
            b.body = body;
            uint64_t t;
            VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &b, VXK_EDIT_WAIT_FOREVER), VXK_OK);
            if (mode == MODE_RUN)
                VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_OK);
        }
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    }
    vxk_edit_stats st;
    vxk_edit_get_stats(w, &st);
    *stalls = st.stalls;
    *hash = vxk_world_hash(w) ^ (st.applied * 0x9E3779B97F4A7C15ull) ^ st.rejected;
    vxk_world_destroy(w);
    if (jobs)
        vxk_jobs_destroy(jobs);
    free(ref.v);
    return 0;
}

static int test_edit_determinism(void)
{
    uint64_t first = 0, stalls = 0;
    if (determinism_run(1, MODE_INLINE, &first, &stalls))
        return 1;
    const uint32_t workers[] = {1, 2, 8};
    for (int m = 0; m < MODE_COUNT; ++m)
        for (int k = 0; k < 3; ++k) {
            if (VXK_TEST_SLOW && m != MODE_SLOW_THREAD && k == 1)
                continue;
            uint64_t hash = 0;
            if (determinism_run(workers[k], m, &hash, &stalls))
                return 1;
            VXK_CHECK_MSG(hash == first, "mode %d, %u workers: hash %016llx, first %016llx", m,
                          workers[k], (unsigned long long)hash, (unsigned long long)first);
            if (m == MODE_SLOW_THREAD)
                VXK_CHECK_MSG(stalls > 0, "a slowed writer never made a step wait");
        }
    return 0;
}

// ---- body edits --------------------------------------------------------------------------------

static int test_edit_bodies(void)
{
    uint64_t rng = vxk_test_seed(0xB0D1);
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    ref_grid g = ref_make((vxk_int3){0, 0, 0}, (vxk_int3){10, 7, 9});
    for (size_t i = 0; i < ref_bytes(&g); ++i)
        g.v[i] = i % 5 ? VXK_MAT_STONE : VXK_MAT_WOOD;
    vxk_voxel_grid grid = {g.size, g.v};
    vxk_body_def bd = vxk_default_body_def();
    bd.gravity_scale = 0.0f;
    bd.shape = vxk_voxel_shape(&grid, 0.0f);
    vxk_body_id body;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &body), VXK_OK);
    VXK_CHECK_EQ_INT(enable(w, 64, 1024), VXK_OK);
    for (int round = 0; round < 12; ++round) {
        enum { count = 14 };
        uint64_t t[count];
        vxk_status expect[count];
        for (int i = 0; i < count; ++i) {
            vxk_edit e;
            if (i == 5) { // a box reaching outside the grid
                e = vxk_edit_fill_box((vxk_int_box){{8, 0, 0}, {10, 1, 1}}, VXK_MAT_METAL);
            } else if (i == 9 && round % 3 == 0) { // an edit that would empty the body
                e = vxk_edit_fill_box((vxk_int_box){{0, 0, 0}, {9, 6, 8}}, VXK_MAT_AIR);
            } else if (i == 11) { // a sphere that misses the grid
                e = vxk_edit_carve_sphere((vxk_vec3){-20.0f, 3.0f, 3.0f}, 2.0f);
            } else {
                e = rand_edit(&rng, (vxk_int3){0, 0, 0}, g.size, 3.0f);
                if (ref_sphere_kind(&e)) // centred in the grid, reaching past it (clipped)
                    e.centre = (vxk_vec3){vxk_test_randf(&rng, 0.0f, 10.0f),
                                          vxk_test_randf(&rng, 0.0f, 7.0f),
                                          vxk_test_randf(&rng, 0.0f, 9.0f)};
            }
            e.body = body;
            expect[i] = i == 11 ? VXK_ERR_OUT_OF_RANGE : ref_apply_body(&g, &e);
            VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t[i], &e, 0), VXK_OK);
        }
        VXK_CHECK(publish_all(w));
        for (int i = 0; i < count; ++i) {
            vxk_edit_outcome o = outcome(w, t[i]);
            VXK_CHECK_MSG(o.status == expect[i], "round %d edit %d: %d, expected %d", round, i,
                          (int)o.status, (int)expect[i]);
        }
        uint8_t now[10 * 7 * 9];
        VXK_CHECK_EQ_INT(vxk_body_read_voxels(w, body, now, ref_box(&g)), VXK_OK);
        VXK_CHECK_MSG(memcmp(now, g.v, sizeof(now)) == 0, "round %d: body grid differs", round);
        vxk_body_info info;
        VXK_CHECK_EQ_INT(vxk_body_get_info(w, body, &info), VXK_OK);
        VXK_CHECK_EQ_U64(info.solid_voxels, ref_solid_count(&g));
    }
    // A direct vxk_body_set_voxels stays allowed while the edit system is on.
    uint8_t one = VXK_MAT_METAL;
    VXK_CHECK_EQ_INT(vxk_body_set_voxels(w, body, (vxk_int_box){{1, 1, 1}, {1, 1, 1}}, &one),
                     VXK_OK);
    vxk_world_destroy(w);
    free(g.v);
    return 0;
}

// ---- the batch hook: removed voxels ------------------------------------------------------------

typedef struct hook_log {
    ref_grid before, now; // the reference at the batch's start and as its edits are replayed
    uint32_t batches, mismatches, chunks;
    bool write_marker;
} hook_log;

static bool ref_solid(const ref_grid* g, int64_t x, int64_t y, int64_t z)
{
    const uint8_t* v = ref_at(g, x, y, z);
    return v && *v && *v != VXK_MAT_WATER;
}

static vxk_status hook_check(void* ctx, const vxk_edit_batch_view* view)
{
    hook_log* log = (hook_log*)ctx;
    log->batches++;
    // The reference's removed voxels, chunk by chunk, against the view's list.
    uint32_t listed = 0;
    const vxk_int3 cmin = {log->now.min.x >> 3, log->now.min.y >> 3, log->now.min.z >> 3};
    const vxk_int3 cmax = {(log->now.min.x + log->now.size.x - 1) >> 3,
                           (log->now.min.y + log->now.size.y - 1) >> 3,
                           (log->now.min.z + log->now.size.z - 1) >> 3};
    for (int32_t cy = cmin.y; cy <= cmax.y; ++cy)
        for (int32_t cz = cmin.z; cz <= cmax.z; ++cz)
            for (int32_t cx = cmin.x; cx <= cmax.x; ++cx) {
                uint64_t bits[8] = {0}, any = 0;
                for (int y = 0; y < 8; ++y)
                    for (int z = 0; z < 8; ++z)
                        for (int x = 0; x < 8; ++x) {
                            int64_t vx = 8 * cx + x, vy = 8 * cy + y, vz = 8 * cz + z;
                            if (ref_solid(&log->before, vx, vy, vz) &&
                                !ref_solid(&log->now, vx, vy, vz))
                                bits[y] |= 1ull << (x + 8 * z);
                        }
                for (int y = 0; y < 8; ++y)
                    any |= bits[y];
                if (!any)
                    continue;
                if (listed >= view->removed_count || view->removed[listed].chunk.x != cx ||
                    view->removed[listed].chunk.y != cy || view->removed[listed].chunk.z != cz ||
                    memcmp(view->removed[listed].solid, bits, sizeof(bits)) != 0)
                    log->mismatches++;
                ++listed;
            }
    if (listed != view->removed_count)
        log->mismatches++;
    log->chunks += listed;
    memcpy(log->before.v, log->now.v, ref_bytes(&log->now));
    // A write of the hook joins its batch: a marker voxel counting batches.
    if (log->write_marker)
        return vxk_terrain_fill(view->terrain, (vxk_int_box){{-50, 0, 0}, {-50, 0, 0}},
                                (uint8_t)(VXK_MAT_STONE + (log->batches & 1)));
    return VXK_OK;
}

static int test_edit_batch_hook(void)
{
    uint64_t rng = vxk_test_seed(0x4007);
    hook_log log = {0};
    vxk_int3 min = {-16, 0, -8}, size = {48, 32, 40};
    log.now = ref_make(min, size);
    log.before = ref_make(min, size);
    log.write_marker = true;
    vxk_world* w = make_world(NULL, &log.now, 14);
    VXK_CHECK(w != NULL);
    memcpy(log.before.v, log.now.v, ref_bytes(&log.now));
    VXK_CHECK_EQ_INT(enable(w, 64, 1024), VXK_OK);
    vxk_edit_set_batch_hook(w, hook_check, &log);
    // Batches of edits between steps; the caller-driven writer replays them into log.now as it
    // goes, so the hook sees the reference of exactly its batch.
    for (int s = 0; s < 30; ++s) {
        int n = (int)(vxk_test_rand(&rng) % 6);
        for (int i = 0; i < n; ++i) {
            vxk_edit e = rand_edit(&rng, min, size, 6.0f);
            uint64_t t;
            VXK_CHECK_EQ_INT(vxk_edit_submit(w, &t, &e, 0), VXK_OK);
            ref_apply(&log.now, &e);
        }
        // Step s+1 closes this batch; its publish completes the one before (inline writer), so
        // the reference must hold this batch's edits only when the hook runs for it: run the
        // writer now, before the next batch's edits are replayed.
        VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_edit_run(w, 0, NULL), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_world_step(w, 0.0f), VXK_OK);
        uint8_t marker = vxk_world_get_voxel(w, (vxk_int3){-50, 0, 0});
        VXK_CHECK(marker == 0 || marker == (uint8_t)(VXK_MAT_STONE + (log.batches & 1)));
    }
    VXK_CHECK_EQ_INT(log.mismatches, 0);
    VXK_CHECK(log.batches > 10 && log.chunks > 10);
    vxk_world_destroy(w);
    free(log.now.v);
    free(log.before.v);
    return 0;
}

// ---- out of memory
// --------------------------------------------------------------------------------

static vxk_world* g_oom_world;
static ref_grid g_oom_ref;
static uint64_t g_oom_tickets[8];
static vxk_edit g_oom_edits[8];
static vxk_body_id g_oom_body;

static void oom_setup(bool enabled)
{
    g_oom_ref = ref_make((vxk_int3){-8, 0, -8}, (vxk_int3){32, 16, 32});
    g_oom_world = make_world(NULL, &g_oom_ref, 6);
    uint8_t cube[27];
    memset(cube, VXK_MAT_STONE, sizeof(cube));
    vxk_voxel_grid grid = {{3, 3, 3}, cube};
    vxk_body_def bd = vxk_default_body_def();
    bd.gravity_scale = 0.0f;
    bd.position = (vxk_vec3){0, 30, 0};
    bd.shape = vxk_voxel_shape(&grid, 0.0f);
    vxk_body_create(g_oom_world, &bd, &g_oom_body);
    if (enabled)
        enable(g_oom_world, 8, 64);
    g_oom_edits[0] = vxk_edit_carve_sphere((vxk_vec3){4.0f, 5.0f, 4.0f}, 4.0f);
    g_oom_edits[1] = vxk_edit_fill_box((vxk_int_box){{-8, 6, -8}, {9, 8, 1}}, VXK_MAT_DIRT);
    g_oom_edits[2] = vxk_edit_set_voxel((vxk_int3){2, 12, 3}, VXK_MAT_WOOD);
    g_oom_edits[3] = vxk_edit_paint_sphere((vxk_vec3){0.0f, 6.0f, 0.0f}, 5.0f, VXK_MAT_GRASS);
    g_oom_edits[4] = vxk_edit_fill_sphere((vxk_vec3){12.0f, 9.0f, 12.0f}, 3.0f, VXK_MAT_SAND);
    g_oom_edits[5] = vxk_edit_carve_sphere((vxk_vec3){1.0f, 1.0f, 1.0f}, 1.0f);
    g_oom_edits[5].body = g_oom_body;
}

static void oom_cleanup(void)
{
    vxk_world_destroy(g_oom_world);
    g_oom_world = NULL;
    free(g_oom_ref.v);
}

// Submits the edits (no allocation), then runs the writer and two steps: the failing part.
static vxk_status oom_writer_and_publish(void)
{
    for (int i = 0; i < 6; ++i)
        if (vxk_edit_submit(g_oom_world, &g_oom_tickets[i], &g_oom_edits[i], 0) != VXK_OK)
            return VXK_ERR_IO;
    vxk_status st = vxk_edit_run(g_oom_world, 0, NULL);
    for (int s = 0; s < 2; ++s) {
        vxk_status step = vxk_world_step(g_oom_world, 0.0f);
        if (st == VXK_OK)
            st = step;
    }
    return st;
}

// No edit lost: every ticket ends applied or rejected out of memory, and the terrain holds
// exactly the applied ones.
static int oom_check_writer(void)
{
    VXK_CHECK(publish_all(g_oom_world));
    for (int i = 0; i < 6; ++i) {
        vxk_edit_outcome o = outcome(g_oom_world, g_oom_tickets[i]);
        VXK_CHECK_MSG(o.state == VXK_EDIT_APPLIED ||
                          (o.state == VXK_EDIT_REJECTED && o.status == VXK_ERR_OUT_OF_MEMORY),
                      "edit %d: state %d status %d", i, (int)o.state, (int)o.status);
        if (o.state == VXK_EDIT_APPLIED && VXK_ID_IS_NULL(g_oom_edits[i].body))
            ref_apply(&g_oom_ref, &g_oom_edits[i]);
    }
    vxk_edit_stats st;
    vxk_edit_get_stats(g_oom_world, &st);
    VXK_CHECK_EQ_U64(st.applied + st.rejected, 6);
    return check_terrain(g_oom_world, &g_oom_ref);
}

static int test_edit_oom(void)
{
    size_t base = vxk_allocated_bytes();
    OOM_SWEEP(
        oom_setup(false), enable(g_oom_world, 8, 64),
        {
            vxk_edit_stats s;
            vxk_edit_get_stats(g_oom_world, &s);
            VXK_CHECK(st == VXK_OK || st == VXK_ERR_OUT_OF_MEMORY);
            VXK_CHECK_EQ_INT(s.enabled, st == VXK_OK);
        },
        oom_cleanup());
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    OOM_SWEEP(
        oom_setup(true), oom_writer_and_publish(),
        {
            if (oom_check_writer())
                return 1;
        },
        oom_cleanup());
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    // Disable: nothing lost either, retried after a failure.
    // The edits are applied before (their own failures are the sweep above).
    OOM_SWEEP(
        {
            oom_setup(true);
            for (int i = 0; i < 5; ++i)
                vxk_edit_submit(g_oom_world, &g_oom_tickets[i], &g_oom_edits[i], 0);
            vxk_edit_run(g_oom_world, 0, NULL);
        },
        vxk_edit_disable(g_oom_world),
        {
            if (st != VXK_OK)
                VXK_CHECK_EQ_INT(vxk_edit_disable(g_oom_world), VXK_OK);
            for (int i = 0; i < 5; ++i)
                ref_apply(&g_oom_ref, &g_oom_edits[i]);
            if (st == VXK_OK && check_terrain(g_oom_world, &g_oom_ref))
                return 1;
        },
        oom_cleanup());
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// Each function of vxk/edit.h for each status it lists: before the system is on, its def, the
// queue, the outcomes, the caller-driven writer and the thread.
static int test_statuses_edit(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world* w = NULL;
    vxk_world_def wd = vxk_default_world_def();
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    vxk_edit_def def = vxk_default_edit_def();
    vxk_edit_def bad_def = def;
    bad_def.cookie = 0;
    vxk_edit_def bad_range = def;
    bad_range.queue_capacity = 3; // not a power of two
    vxk_edit fill = vxk_edit_fill_box((vxk_int_box){{0, 0, 0}, {3, 3, 3}}, VXK_MAT_STONE);
    uint64_t ticket = 0;
    vxk_edit_outcome outcome;
    uint32_t applied = 0;
    // Not enabled yet.
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_disable(w));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_thread_start(w));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_thread_stop(w));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_run(w, 0, &applied));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_get_outcome(w, &outcome, 1));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_enable(NULL, &def));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_enable(w, NULL));
    EXPECT_STATUS(VXK_ERR_BAD_DEF, vxk_edit_enable(w, &bad_def));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_edit_enable(w, &bad_range));
    EXPECT_NO_MEMORY(vxk_edit_enable(w, &def));
    EXPECT_STATUS(VXK_OK, vxk_edit_enable(w, &def));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_enable(w, &def));
    // Submit and outcomes.
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_submit(NULL, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_submit(w, NULL, &fill, 0));
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_get_outcome(NULL, &outcome, ticket));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_get_outcome(w, NULL, ticket));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_edit_get_outcome(w, &outcome, ticket + 100));
    EXPECT_STATUS(VXK_OK, vxk_edit_get_outcome(w, &outcome, ticket));
    // The caller-driven writer (out of memory: a step's cut ends the batch, whose chunk versions
    // cannot be made).
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_run(NULL, 0, &applied));
    VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    EXPECT_NO_MEMORY(vxk_edit_run(w, 0, &applied));
    EXPECT_STATUS(VXK_OK, vxk_edit_run(w, 0, &applied));
    // The thread.
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_thread_start(NULL));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_thread_stop(NULL));
    EXPECT_NO_MEMORY(vxk_edit_thread_start(w));
    EXPECT_STATUS(VXK_OK, vxk_edit_thread_start(w));
    EXPECT_STATUS(VXK_ERR_UNSUPPORTED, vxk_edit_thread_start(w));
    EXPECT_STATUS(VXK_OK, vxk_edit_thread_stop(w));
    // A full queue (the smallest) with no writer, refused at once.
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_edit_disable(NULL));
    EXPECT_STATUS(VXK_OK, vxk_edit_disable(w));
    vxk_edit_def small = def;
    small.queue_capacity = 2;
    small.outcome_capacity = 2;
    EXPECT_STATUS(VXK_OK, vxk_edit_enable(w, &small));
    uint64_t first = 0;
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &first, &fill, 0));
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_ERR_CAPACITY, vxk_edit_submit(w, &ticket, &fill, 0));
    // Outcomes past the kept ones: applying these and two more forgets the first.
    EXPECT_STATUS(VXK_OK, vxk_edit_run(w, 0, &applied));
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &ticket, &fill, 0));
    EXPECT_STATUS(VXK_OK, vxk_edit_run(w, 0, &applied));
    EXPECT_STATUS(VXK_ERR_STALE_ID, vxk_edit_get_outcome(w, &outcome, first));
    // Disable out of memory: a pending edit cannot be published; the system stays on.
    vxk_edit far = vxk_edit_fill_box((vxk_int_box){{800, 0, 800}, {803, 3, 803}}, VXK_MAT_SAND);
    EXPECT_STATUS(VXK_OK, vxk_edit_submit(w, &ticket, &far, 0));
    EXPECT_NO_MEMORY(vxk_edit_disable(w));
    EXPECT_STATUS(VXK_OK, vxk_edit_disable(w));
    vxk_world_destroy(w);
    return vxk_status_group_end(start);
}

// The functions status_lists.c gives this program produced every status their headers list.
static int test_statuses_all_produced(void)
{
    return vxk_test_statuses_all_produced(__FILE__);
}

int main(void)
{
    VXK_RUN(test_edit_api_errors);
    VXK_RUN(test_edit_latency_and_isolation);
    VXK_RUN(test_edit_shapes);
    VXK_RUN(test_edit_bad_edits);
    VXK_RUN(test_edit_full_queue_waits);
    VXK_RUN(test_edit_destroy_pending);
    VXK_RUN(test_edit_bodies);
    VXK_RUN(test_edit_batch_hook);
    VXK_RUN(test_edit_determinism);
    VXK_RUN(test_edit_flood);
    vxk_edge_tests_begin();
    vxk_oom_tests_begin();
    VXK_RUN_SWEEP(test_edit_oom);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    VXK_RUN(test_statuses_edit);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
