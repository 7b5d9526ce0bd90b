// phase_edit.c: the edit system's benchmark phase (vxk/edit.h). A world of stone ground (256 x 48
// x 256 voxels, quick 128 x 32 x 128) with its edit system on and the writer thread running; one
// producer (this thread) submits seeded random edits of one kind at a time:
//   - edit_<kind>_per_s: edits the writer thread applies per second (first submit to last edit
//     taken), for single voxels, 4^3 boxes, spheres of radius 4 and of radius 16 (carved and
//     filled in turn); direct_<kind>_per_s: the same voxels and boxes written directly
//     (vxk_world_fill_box, the edit system off), the cost without versions;
//   - submit_ns_median, submit_ns_p99: the time of one vxk_edit_submit call while the writer
//     drains the queue (a queue large enough that no submit waits);
//   - publish_us_median, publish_us_p95, publish_chunks_median: the step's publish of a batch of
//     1,000 radius-4 spheres (its wait for the writer excluded), and the chunk versions it
//     installs.
// The terrain hash folds into the run's hash: the same seed gives the same terrain for any
// thread count and any writer speed.
#define _POSIX_C_SOURCE 200809L // nanosleep

#include "bench.h"
#include "core.h"

#include <vxk/edit.h>
#include <vxk/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct edit_run {
    const char* name;
    uint32_t count, quick_count;
    int shape; // 0 voxel, 1 box of 4, 2 sphere
    float radius;
} edit_run;

static const edit_run k_runs[] = {
    {"voxel", 200000, 20000, 0, 0.0f},
    {"box4", 100000, 10000, 1, 0.0f},
    {"sphere4", 40000, 4000, 2, 4.0f},
    {"sphere16", 2000, 200, 2, 16.0f},
};

static vxk_edit random_edit(uint64_t* rng, const edit_run* run, vxk_int3 size, uint32_t i)
{
    int32_t x = (int32_t)(vxk_splitmix64(rng) % (uint64_t)size.x);
    int32_t y = (int32_t)(vxk_splitmix64(rng) % (uint64_t)size.y);
    int32_t z = (int32_t)(vxk_splitmix64(rng) % (uint64_t)size.z);
    uint8_t material = (uint8_t)(vxk_splitmix64(rng) % 4 == 0 ? VXK_MAT_AIR : VXK_MAT_DIRT);
    if (run->shape == 0)
        return vxk_edit_set_voxel((vxk_int3){x, y, z}, material);
    if (run->shape == 1)
        return vxk_edit_fill_box((vxk_int_box){{x, y, z}, {x + 3, y + 3, z + 3}}, material);
    vxk_vec3 c = {(float)x + 0.5f, (float)y + 0.5f, (float)z + 0.5f};
    return i & 1 ? vxk_edit_fill_sphere(c, run->radius, VXK_MAT_STONE)
                 : vxk_edit_carve_sphere(c, run->radius);
}

static uint64_t now_ns(void)
{
    return (uint64_t)(vxk_bench_now() * 1e9);
}

static void wait_processed(vxk_world* world, uint64_t submitted)
{
    struct timespec pause = {0, 50000};
    for (;;) {
        vxk_edit_stats st;
        vxk_edit_get_stats(world, &st);
        if (st.processed >= submitted)
            return;
        nanosleep(&pause, NULL);
    }
}

static vxk_world* ground_world(vxk_bench* b, vxk_int3 size)
{
    vxk_world_def def = vxk_default_world_def();
    def.jobs = b->jobs;
    vxk_world* world = NULL;
    if (vxk_world_create(&def, &world) != VXK_OK)
        return NULL;
    vxk_int_box ground = {{0, 0, 0}, {size.x - 1, size.y / 2, size.z - 1}};
    if (vxk_world_fill_box(world, ground, VXK_MAT_STONE) != VXK_OK ||
        vxk_world_step(world, 0.0f) != VXK_OK) {
        vxk_world_destroy(world);
        return NULL;
    }
    return world;
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

void vxk_bench_edit(vxk_bench* b)
{
    const vxk_int3 size = b->quick ? (vxk_int3){128, 32, 128} : (vxk_int3){256, 48, 256};
    vxk_world* world = ground_world(b, size);
    vxk_edit_def def = vxk_default_edit_def();
    def.queue_capacity = 1u << 18; // no submit waits: submit_ns is the call alone
    def.outcome_capacity = 1u << 18;
    def.split = false; // the writer's edit rate alone; splitting is the split phase's
    if (!world || vxk_edit_enable(world, &def) != VXK_OK ||
        vxk_edit_thread_start(world) != VXK_OK) {
        fprintf(stderr, "edit: cannot set up the world\n");
        if (world)
            vxk_world_destroy(world);
        return;
    }
    uint64_t rng = b->seed ^ 0xED17ull;
    double* latency = NULL;
    uint32_t latency_count = 0;
    for (size_t r = 0; r < sizeof(k_runs) / sizeof(k_runs[0]); ++r) {
        const edit_run* run = &k_runs[r];
        uint32_t count = b->quick ? run->quick_count : run->count;
        vxk_edit* edits = (vxk_edit*)malloc(count * sizeof(vxk_edit));
        double* lat = (double*)malloc(count * sizeof(double));
        if (!edits || !lat)
            abort();
        for (uint32_t i = 0; i < count; ++i)
            edits[i] = random_edit(&rng, run, size, i);
        vxk_edit_stats before;
        vxk_edit_get_stats(world, &before);
        uint64_t start = now_ns();
        for (uint32_t i = 0; i < count; ++i) {
            uint64_t t0 = now_ns(), ticket;
            if (vxk_edit_submit(world, &ticket, &edits[i], VXK_EDIT_WAIT_FOREVER) != VXK_OK)
                abort();
            lat[i] = (double)(now_ns() - t0);
        }
        wait_processed(world, before.submitted + count);
        double seconds = (double)(now_ns() - start) * 1e-9;
        char key[48];
        snprintf(key, sizeof(key), "edit_%s", run->name);
        vxk_bench_phase_add(b, key, seconds, count);
        snprintf(key, sizeof(key), "edit_%s_per_s", run->name);
        vxk_bench_figure_add(b, key, count / seconds);
        if (r == 0) { // the submit latency of the fastest edits, where the queue is busiest
            latency = lat;
            latency_count = count;
        } else {
            free(lat);
        }
        // Publish them (two steps) so each run starts from a published terrain.
        vxk_world_step(world, 0.0f);
        vxk_world_step(world, 0.0f);
        free(edits);
    }
    qsort(latency, latency_count, sizeof(double), compare_double);
    vxk_bench_figure_add(b, "submit_ns_median", latency[latency_count / 2]);
    vxk_bench_figure_add(b, "submit_ns_p99", latency[(uint32_t)(latency_count * 0.99)]);
    free(latency);

    // The publish of batches of 1,000 spheres of radius 4.
    enum { rounds = 24, batch = 1000 };
    double publish_us[rounds], chunks[rounds];
    const edit_run sphere = {"sphere4", 0, 0, 2, 4.0f};
    for (int round = 0; round < rounds; ++round) {
        vxk_edit_stats before;
        vxk_edit_get_stats(world, &before);
        for (uint32_t i = 0; i < batch; ++i) {
            vxk_edit e = random_edit(&rng, &sphere, size, i);
            uint64_t ticket;
            vxk_edit_submit(world, &ticket, &e, VXK_EDIT_WAIT_FOREVER);
        }
        wait_processed(world, before.submitted + batch);
        vxk_world_step(world, 0.0f); // closes the batch
        vxk_world_step(world, 0.0f); // publishes it
        vxk_edit_stats st;
        vxk_edit_get_stats(world, &st);
        publish_us[round] = st.publish_seconds * 1e6;
        chunks[round] = st.published_chunks;
    }
    double p95 = vxk_bench_percentile(publish_us, rounds, 0.95);
    vxk_bench_figure_add(b, "publish_us_median", vxk_bench_median(publish_us, rounds));
    vxk_bench_figure_add(b, "publish_us_p95", p95);
    vxk_bench_figure_add(b, "publish_chunks_median", vxk_bench_median(chunks, rounds));
    vxk_edit_stats st;
    vxk_edit_get_stats(world, &st);
    vxk_bench_figure_add(b, "edit_stalls", (double)st.stalls);
    vxk_bench_figure_add(b, "edit_bytes", (double)st.bytes);
    vxk_edit_disable(world);
    uint64_t hash = vxk_world_terrain_hash(world);
    vxk_bench_hash(b, &hash, sizeof(hash));
    vxk_world_destroy(world);

    // Direct writes of the same kinds of voxels and boxes, the edit system off.
    world = ground_world(b, size);
    if (!world)
        return;
    for (size_t r = 0; r < 2; ++r) {
        const edit_run* run = &k_runs[r];
        uint32_t count = b->quick ? run->quick_count : run->count;
        uint64_t direct_rng = b->seed ^ 0xD1ECull;
        uint64_t start = now_ns();
        for (uint32_t i = 0; i < count; ++i) {
            vxk_edit e = random_edit(&direct_rng, run, size, i);
            vxk_int_box box = e.box;
            if (e.kind == VXK_EDIT_SET_VOXEL)
                box.max = box.min;
            vxk_world_fill_box(world, box, e.material);
        }
        double seconds = (double)(now_ns() - start) * 1e-9;
        char key[48];
        snprintf(key, sizeof(key), "direct_%s_per_s", run->name);
        vxk_bench_figure_add(b, key, count / seconds);
    }
    vxk_world_destroy(world);
}
