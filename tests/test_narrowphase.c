// test_narrowphase.c: the terrain regions of voxel bodies (dynamics/narrowphase.c). A 2x2x2 voxel
// body launched at a slab of terrain, across it and along a strip of it moves 0.67 to 6,667
// voxels in a step (up to 1,000 m/s over voxels of 0.25 m down to 0.0025 m, every length in
// voxels alike). The region work (vxk_dynamics_region_work: voxels typed, chunks read, tiles) of
// a fast body stays what its size needs, whatever its speed, and the body meets the slab's top at
// any speed (contacts within a voxel, the continuous stage for the rest). Fast bodies give the
// same world for any worker count.
#include "scenes.h"
#include "test.h"

#include <vxk/body.h>
#include <vxk/jobs.h>
#include <vxk/vxk.h>

#include "dynamics.h"

#include <math.h>
#include <string.h>

#define STEP_DT (1.0f / 60.0f)

typedef enum { DOWN, DIAGONAL, ALONG, DIRECTIONS } direction;
static const char* const g_direction_names[DIRECTIONS] = {"down", "diagonal", "along"};

// Motions of 0.67, 6.7, 67, 667 and 6,667 voxels in a step.
#define CASES 5
static const float g_voxel_sizes[CASES] = {0.25f, 0.25f, 0.25f, 0.025f, 0.0025f};
// Just below VXK_MAX_LINEAR_SPEED: the diagonal's unit vector rounds a hair above 1.
static const float g_speeds[CASES] = {10.0f, 100.0f, 999.0f, 999.0f, 999.0f};

// The square slab is 256 voxels a side.
static vxk_world* slab_world(float s, vxk_jobs* jobs)
{
    return vxk_scene_fast_body_world(jobs, s, 256);
}

static vxk_body_id add_voxel_body(vxk_world* w, float s, vxk_vec3 p, vxk_vec3 v)
{
    vxk_body_id id = {0, 0};
    return vxk_scene_fast_body(w, s, p, v, &id) == VXK_OK ? id : (vxk_body_id){0, 0};
}

// Where a direction's body starts (voxels) and which way it goes.
static void launch(direction dir, vxk_vec3* p, vxk_vec3* unit)
{
    const float k = 0.57735027f;
    if (dir == DOWN) {
        *p = (vxk_vec3){0.0f, 4.0f, 0.0f};
        *unit = (vxk_vec3){0.0f, -1.0f, 0.0f};
    } else if (dir == DIAGONAL) {
        *p = (vxk_vec3){-20.0f, 4.0f, -20.0f};
        *unit = (vxk_vec3){k, -k, k};
    } else {                                 // just over the strip, along it
        *p = (vxk_vec3){140.0f, 1.2f, 0.0f}; // the strip starts at x = 128
        *unit = (vxk_vec3){1.0f, 0.0f, 0.0f};
    }
}

// One step of one body: its region work, and its centre's height after the step (voxels).
static int one_step(direction dir, int c, vxk_region_work* work, float* height)
{
    const float s = g_voxel_sizes[c], v = g_speeds[c];
    vxk_world* w = slab_world(s, NULL);
    VXK_CHECK(w != NULL);
    vxk_vec3 p, unit;
    launch(dir, &p, &unit);
    vxk_body_id id = add_voxel_body(w, s, (vxk_vec3){p.x * s, p.y * s, p.z * s},
                                    (vxk_vec3){unit.x * v, unit.y * v, unit.z * v});
    VXK_CHECK(!VXK_ID_IS_NULL(id));
    VXK_CHECK_EQ_INT(vxk_world_step(w, STEP_DT), VXK_OK);
    vxk_dynamics_region_work(vxk_dynamics_get(w), work);
    vxk_transform t;
    VXK_CHECK_EQ_INT(vxk_body_get_transform(w, id, &t), VXK_OK);
    *height = t.p.y / s;
    vxk_world_destroy(w);
    return 0;
}

static int test_fast_body_work(void)
{
    for (int dir = 0; dir < DIRECTIONS; ++dir) {
        vxk_region_work work[CASES];
        for (int c = 0; c < CASES; ++c) {
            float height = 0.0f;
            if (one_step((direction)dir, c, &work[c], &height))
                return 1;
            float motion = g_speeds[c] * STEP_DT / g_voxel_sizes[c];
            fprintf(stderr,
                    "   %s, %.4g voxels a step: %llu voxels typed, %llu chunks read, "
                    "%llu tiles; height after %.4g\n",
                    g_direction_names[dir], (double)motion, (unsigned long long)work[c].voxels,
                    (unsigned long long)work[c].chunks, (unsigned long long)work[c].tiles,
                    (double)height);
            // Whatever the speed, the body is held at the top (its centre a voxel over it).
            VXK_CHECK_MSG(height >= 0.5f, "%s at %.4g voxels a step: centre at %.4g voxels",
                          g_direction_names[dir], (double)motion, (double)height);
        }
        // Past the fast motion (8 voxels), the work of the fastest no more than twice the first's.
        for (int c = 3; c < CASES; ++c) {
            const vxk_region_work *a = &work[2], *b = &work[c];
            VXK_CHECK_MSG(
                b->voxels <= 2 * a->voxels && b->chunks <= 2 * a->chunks && b->tiles <= a->tiles,
                "%s: %llu voxels, %llu chunks, %llu tiles at %.4g voxels a step, "
                "after %llu, %llu, %llu at 66.7",
                g_direction_names[dir], (unsigned long long)b->voxels,
                (unsigned long long)b->chunks, (unsigned long long)b->tiles,
                (double)(g_speeds[c] * STEP_DT / g_voxel_sizes[c]), (unsigned long long)a->voxels,
                (unsigned long long)a->chunks, (unsigned long long)a->tiles);
        }
        VXK_CHECK(work[CASES - 1].voxels > 0);
    }
    return 0;
}

// Voxel bodies fast and slow over the slab give the same world on 1 and 3 workers.
static uint64_t run_bodies(uint32_t workers)
{
    vxk_jobs* jobs = NULL;
    if (workers > 1) {
        vxk_jobs_def jd = vxk_default_jobs_def();
        jd.worker_count = workers;
        if (vxk_jobs_create(&jd, &jobs) != 0)
            return 0;
    }
    const float s = 0.25f;
    vxk_world* w = slab_world(s, jobs);
    uint64_t hash = 0;
    if (w) {
        uint64_t rng = vxk_test_seed(0xFA57);
        bool ok = true;
        for (int i = 0; i < 24 && ok; ++i) {
            vxk_vec3 p = {vxk_test_randf(&rng, -20, 20), vxk_test_randf(&rng, 2, 12),
                          vxk_test_randf(&rng, -20, 20)};
            float speed = i % 3 == 0 ? 900.0f : i % 3 == 1 ? 150.0f : 5.0f;
            vxk_vec3 d = {vxk_test_randf(&rng, -1, 1), vxk_test_randf(&rng, -1, -0.2f),
                          vxk_test_randf(&rng, -1, 1)};
            float n = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
            ok = !VXK_ID_IS_NULL(add_voxel_body(
                w, s, p, (vxk_vec3){d.x * speed / n, d.y * speed / n, d.z * speed / n}));
        }
        for (int step = 0; step < 30 && ok; ++step)
            ok = vxk_world_step(w, STEP_DT) == VXK_OK;
        hash = ok ? vxk_world_hash(w) : 0;
        vxk_world_destroy(w);
    }
    vxk_jobs_destroy(jobs);
    return hash;
}

static int test_fast_bodies_any_workers(void)
{
    uint64_t one = run_bodies(1), three = run_bodies(3);
    VXK_CHECK(one != 0);
    VXK_CHECK_EQ_U64(one, three);
    return 0;
}

int main(void)
{
    VXK_RUN(test_fast_body_work);
    VXK_RUN(test_fast_bodies_any_workers);
    return vxk_test_finish();
}
