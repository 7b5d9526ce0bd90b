// test_step.c: vxk_world_step. After random writes a step brings the broadphase to exactly what a
// full build of the same terrain gives, drops exactly the cached chunk data the writes made
// stale (each written chunk's 27-neighbourhood), and rays afterwards answer as on a fresh world
// with the same terrain; the written chunks are taken once (a second step has none); bad dt
// changes nothing.
#include "scenes.h"
#include "test.h"
#include "status_lists.h"

#include <vxk/vxk.h>

#include "narrow_cache.h"

#include <float.h>
#include <math.h>
#include <string.h>

static vxk_int_box random_box(uint64_t* rng, int32_t span)
{
    vxk_int_box box;
    for (int i = 0; i < 3; ++i) {
        (&box.min.x)[i] = (int32_t)(vxk_test_rand(rng) % (uint64_t)span) - span / 2;
        (&box.max.x)[i] = (&box.min.x)[i] + (int32_t)(vxk_test_rand(rng) % 5);
    }
    return box;
}

// The terrain of `world` copied into a new world, written once and built from scratch.
static vxk_world* rebuilt_copy(const vxk_world* world, int32_t span)
{
    vxk_world* copy = vxk_scene_world();
    if (!copy)
        return NULL;
    size_t side = 2 * (size_t)span;
    uint8_t* voxels = malloc(side * side * side);
    const vxk_int_box box = {{-span, -span, -span}, {span - 1, span - 1, span - 1}};
    if (vxk_world_read_box(world, voxels, box) != VXK_OK ||
        vxk_world_write_box(copy, box, voxels) != VXK_OK || vxk_broadphase_build(copy) != VXK_OK) {
        free(voxels);
        vxk_world_destroy(copy);
        return NULL;
    }
    free(voxels);
    return copy;
}

static void make_rays(uint64_t* rng, vxk_ray* rays, uint32_t count, float span)
{
    for (uint32_t i = 0; i < count; ++i) {
        rays[i].origin =
            (vxk_vec3){vxk_test_randf(rng, -span, span), vxk_test_randf(rng, -span, span),
                       vxk_test_randf(rng, -span, span)};
        rays[i].direction = (vxk_vec3){vxk_test_randf(rng, -1, 1), vxk_test_randf(rng, -1, 1),
                                       vxk_test_randf(rng, -1, 1)};
        rays[i].max_distance = 4 * span;
    }
}

static int test_step_follows_writes(void)
{
    enum { rounds = 12, ray_count = 600, span = 40 };
    uint64_t rng = vxk_test_seed(0x57E9);
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(world, &stats);
    VXK_CHECK_EQ_U64(stats.steps, 0);
    vxk_ray* rays = malloc(ray_count * sizeof(vxk_ray));
    vxk_ray_hit* hits = malloc(ray_count * sizeof(vxk_ray_hit));
    vxk_ray_hit* expect = malloc(ray_count * sizeof(vxk_ray_hit));
    for (int round = 0; round < rounds; ++round) {
        uint64_t hash_before = vxk_world_terrain_hash(world);
        uint32_t writes = 1 + (uint32_t)(vxk_test_rand(&rng) % 6);
        for (uint32_t k = 0; k < writes; ++k) {
            vxk_int_box box = random_box(&rng, span);
            uint8_t material = vxk_test_rand(&rng) % 3 ? VXK_MAT_STONE : VXK_MAT_AIR;
            VXK_CHECK_EQ_INT(vxk_world_fill_box(world, box, material), VXK_OK);
        }
        // Which cached chunks lie in a written chunk's 27-neighbourhood: the reference for what
        // the cache stage must drop (the world's cache is filled by the rays of the last round).
        vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
        VXK_CHECK(cache);
        vxk_narrow_stats before;
        vxk_narrow_cache_stats(cache, &before);
        // Bad dt first: nothing changes, the written chunks stay for the real step.
        VXK_CHECK_EQ_INT(vxk_world_step(world, nanf("")), VXK_ERR_NOT_FINITE);
        VXK_CHECK_EQ_INT(vxk_world_step(world, -0.5f), VXK_ERR_OUT_OF_RANGE);
        VXK_CHECK_EQ_INT(vxk_world_step(world, 1.0f / 60.0f), VXK_OK);
        vxk_world_get_step_stats(world, &stats);
        VXK_CHECK_EQ_U64(stats.steps, 2 * (uint64_t)round + 1); // two steps a round
        // Writes that changed voxels leave chunks to hand on (air into air may change none).
        if (vxk_world_terrain_hash(world) != hash_before)
            VXK_CHECK(stats.dirty_chunks > 0);
        VXK_CHECK(stats.total_seconds >= 0.0);
        vxk_narrow_stats after;
        vxk_narrow_cache_stats(cache, &after);
        VXK_CHECK_EQ_U64(before.entries - after.entries, stats.cache_entries_dropped);
        // Masks equal a full build of the same terrain, and rays answer as on that world.
        vxk_world* copy = rebuilt_copy(world, span + 8);
        VXK_CHECK(copy);
        VXK_CHECK_EQ_U64(vxk_broadphase_hash(world), vxk_broadphase_hash(copy));
        make_rays(&rng, rays, ray_count, span);
        VXK_CHECK_EQ_INT(vxk_raycast_batch(world, hits, rays, ray_count), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_raycast_batch(copy, expect, rays, ray_count), VXK_OK);
        VXK_CHECK(memcmp(hits, expect, ray_count * sizeof(vxk_ray_hit)) == 0);
        vxk_world_destroy(copy);
        // Taken once: a step without writes has nothing to hand on and drops nothing.
        VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
        vxk_world_get_step_stats(world, &stats);
        VXK_CHECK_EQ_U64(stats.dirty_chunks, 0);
        VXK_CHECK_EQ_U64(stats.cache_entries_dropped, 0);
    }
    free(rays);
    free(hits);
    free(expect);
    vxk_world_destroy(world);
    return 0;
}

// The cache stage drops exactly the entries of each written chunk's 27-neighbourhood.
static int test_cache_stage_drops_neighbourhood(void)
{
    vxk_world* world = vxk_scene_world();
    VXK_CHECK(world);
    const vxk_int_box ground = {{-40, -8, -40}, {40, 0, 40}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, ground, VXK_MAT_STONE), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
    // Cache every surface chunk with a downward ray through each chunk column.
    for (int32_t cz = -5; cz < 5; ++cz)
        for (int32_t cx = -5; cx < 5; ++cx) {
            vxk_ray ray = {{cx * 8.0f + 4.5f, 20.0f, cz * 8.0f + 4.5f}, {0, -1, 0}, 100.0f};
            vxk_ray_hit hit;
            VXK_CHECK_EQ_INT(vxk_raycast(world, &hit, &ray), VXK_OK);
            VXK_CHECK(hit.hit);
        }
    vxk_narrow_cache* cache = vxk_narrow_cache_get(world);
    // Reference: the chunks with an entry, by brute force over the region.
    int32_t cached[12][3][12];
    int64_t total = 0;
    for (int32_t cz = -6; cz < 6; ++cz)
        for (int32_t cy = -2; cy < 1; ++cy)
            for (int32_t cx = -6; cx < 6; ++cx) {
                uint64_t stamp = vxk_narrow_stamp(world, (vxk_int3){cx, cy, cz});
                cached[cz + 6][cy + 2][cx + 6] =
                    vxk_narrow_cache_contains(cache, (vxk_int3){cx, cy, cz}, stamp);
                total += cached[cz + 6][cy + 2][cx + 6];
            }
    VXK_CHECK(total > 20);
    // One voxel written in chunk (1, -1, 2): the entries of chunks (0..2, -2..0, 1..3) go.
    const vxk_int_box voxel = {{12, -3, 20}, {12, -3, 20}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(world, voxel, VXK_MAT_AIR), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(world, 0.0f), VXK_OK);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(world, &stats);
    uint64_t expect_dropped = 0;
    for (int32_t cz = 1; cz <= 3; ++cz)
        for (int32_t cy = -2; cy <= 0; ++cy)
            for (int32_t cx = 0; cx <= 2; ++cx)
                expect_dropped += (uint64_t)cached[cz + 6][cy + 2][cx + 6];
    VXK_CHECK(expect_dropped > 0);
    VXK_CHECK_EQ_U64(stats.cache_entries_dropped, expect_dropped);
    // Everything else is still cached.
    for (int32_t cz = -6; cz < 6; ++cz)
        for (int32_t cy = -2; cy < 1; ++cy)
            for (int32_t cx = -6; cx < 6; ++cx) {
                bool near = cz >= 1 && cz <= 3 && cy >= -2 && cy <= 0 && cx >= 0 && cx <= 2;
                if (near || !cached[cz + 6][cy + 2][cx + 6])
                    continue;
                uint64_t stamp = vxk_narrow_stamp(world, (vxk_int3){cx, cy, cz});
                VXK_CHECK_MSG(vxk_narrow_cache_contains(cache, (vxk_int3){cx, cy, cz}, stamp),
                              "chunk (%d, %d, %d) dropped", cx, cy, cz);
            }
    vxk_world_destroy(world);
    return 0;
}

// The stages of a step with bodies show in the scheduler's trace, in order and back to back, and
// the stage times add up to no more than the step's total.
static int test_stage_trace(void)
{
    vxk_jobs_def jd = vxk_default_jobs_def();
    jd.worker_count = 2;
    jd.trace_capacity = 4096;
    vxk_jobs* jobs = NULL;
    VXK_CHECK(vxk_jobs_create(&jd, &jobs) == 0);
    vxk_world_def wd = vxk_default_world_def();
    wd.jobs = jobs;
    vxk_world* w = NULL;
    VXK_CHECK_EQ_INT(vxk_world_create(&wd, &w), VXK_OK);
    VXK_CHECK_EQ_INT(
        vxk_world_fill_box(w, (vxk_int_box){{-16, -8, -16}, {15, -1, 15}}, VXK_MAT_STONE), VXK_OK);
    vxk_body_def bd = vxk_default_body_def();
    vxk_body_id id;
    for (int i = 0; i < 20; ++i) {
        bd.position = (vxk_vec3){(float)(i % 5) * 1.5f, 0.45f, (float)(i / 5) * 1.5f};
        VXK_CHECK_EQ_INT(vxk_body_create(w, &bd, &id), VXK_OK);
    }
    vxk_jobs_clear_trace(jobs);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    vxk_world_step_stats st;
    vxk_world_get_step_stats(w, &st);
    double sum = 0.0;
    for (int i = 0; i < VXK_STEP_STAGE_COUNT; ++i)
        sum += st.stage_seconds[i];
    VXK_CHECK(sum <= st.total_seconds + 1e-9);
    VXK_CHECK_MSG(st.contacts == 20 && st.terrain_tasks == 20, "contacts %u terrain tasks %u",
                  st.contacts, st.terrain_tasks);
    vxk_job_summary sums[64];
    uint32_t n = vxk_jobs_get_summaries(jobs, sums, 64);
    const char* want[] = {"step_candidates", "step_narrowphase", "step_solve", "narrowphase"};
    for (int k = 0; k < 4; ++k) {
        bool found = false;
        for (uint32_t i = 0; i < n && i < 64; ++i)
            found = found || strcmp(sums[i].name, want[k]) == 0;
        VXK_CHECK_MSG(found, "no %s in the trace", want[k]);
    }
    vxk_world_destroy(w);
    vxk_jobs_destroy(jobs);
    return 0;
}

// The step's dt range (vxk/world.h, Limits): dt 1e30 was accepted and the world stuck at
// VXK_ERR_NOT_FINITE (issue 26, item 6); a dt past VXK_MAX_DT, or below VXK_MIN_DT but not 0, is
// refused with nothing changed, and the ends of the range step.
static int test_step_dt_limits(void)
{
    vxk_world* w = vxk_scene_world();
    VXK_CHECK(w != NULL);
    vxk_body_def d = vxk_default_body_def();
    d.position = (vxk_vec3){16, 60, 16};
    d.linear_velocity = (vxk_vec3){3, 0, 1};
    vxk_body_id id;
    VXK_CHECK_EQ_INT(vxk_body_create(w, &d, &id), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    const float bad[] = {1e30f, FLT_MAX, 1.0001f, 2.0f, 0.99e-6f, 1e-30f, FLT_TRUE_MIN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        uint64_t hash = vxk_world_hash(w);
        vxk_world_step_stats before, after;
        vxk_world_get_step_stats(w, &before);
        vxk_status st = vxk_world_step(w, bad[i]);
        VXK_CHECK_MSG(st == VXK_ERR_OUT_OF_RANGE, "dt %g: %s", (double)bad[i],
                      vxk_status_string(st));
        vxk_world_get_step_stats(w, &after);
        VXK_CHECK_EQ_U64(vxk_world_hash(w), hash);
        VXK_CHECK_EQ_U64(after.steps, before.steps);
        VXK_CHECK_EQ_INT(vxk_world_step(w, 1.0f / 60.0f), VXK_OK);
    }
    const float ends[] = {1.0f, 1e-6f, 0.0f};
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); ++i) {
        VXK_CHECK_EQ_INT(vxk_world_step(w, ends[i]), VXK_OK);
        vxk_transform t;
        vxk_vec3 v, av;
        VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
        VXK_CHECK_EQ_INT(vxk_body_get_velocity(w, id, &v, &av), VXK_OK);
        VXK_CHECK(isfinite(t.p.x) && isfinite(t.p.y) && isfinite(t.p.z) && isfinite(v.x) &&
                  isfinite(v.y) && isfinite(v.z));
    }
    vxk_world_destroy(w);
    return 0;
}

// ---- statuses: each call returns the status its header lists for its input (status_lists.h) ----

// vxk_world_step for each status vxk/world.h lists for it: out of memory while the broadphase
// takes a written chunk, bad dt and no world.
static int test_statuses_step(void)
{
    vxk_status_group start = vxk_status_group_begin();
    vxk_world* w = vxk_scene_status_world();
    VXK_CHECK(w != NULL);
    VXK_CHECK_EQ_INT(vxk_broadphase_build(w), VXK_OK);
    const vxk_int_box stone = {{30, 0, 0}, {33, 3, 3}};
    VXK_CHECK_EQ_INT(vxk_world_fill_box(w, stone, VXK_MAT_STONE), VXK_OK);
    EXPECT_NO_MEMORY(vxk_world_step(w, 0.0f));
    EXPECT_STATUS(VXK_OK, vxk_world_step(w, 0.0f));
    EXPECT_STATUS(VXK_ERR_INVALID_ARGUMENT, vxk_world_step(NULL, 0.0f));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_world_step(w, nanf("")));
    EXPECT_STATUS(VXK_ERR_NOT_FINITE, vxk_world_step(w, INFINITY));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, -1.0f));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, 1e30f));
    EXPECT_STATUS(VXK_ERR_OUT_OF_RANGE, vxk_world_step(w, 1e-30f));
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
    VXK_RUN(test_step_follows_writes);
    VXK_RUN(test_cache_stage_drops_neighbourhood);
    VXK_RUN(test_stage_trace);
    VXK_RUN(test_step_dt_limits);
    VXK_RUN(test_statuses_step);
    VXK_RUN(test_statuses_all_produced);
    return vxk_test_finish();
}
