// phase_fast_body.c: what one fast body costs a step (issue 26, item 8): a 2 x 2 x 2 voxel body
// of 0.25 m stone voxels over flat stone terrain (vxk_scene_fast_body_world at voxel size 0.25:
// a slab 8 voxels thick and SIDE voxels square, top at y = 0, and a strip along it), launched at
// 10, 100, 1,000, 10,000 and 100,000 m/s in three directions: down onto the slab from 1 m (`down`),
// down and sideways along the diagonal of all three axes (`diag`, the case whose bounding box is a
// cube), and along the ground just above it
// (`skim`). Each run makes a fresh body, steps the world once (1/60 s, inline) and destroys it.
// Figures per direction and speed (median of RUNS runs): `fast_<dir>_<speed>_ms` the step,
// `_candidates_ms`, `_narrow_ms` and `_continuous_ms` its stages, `_region_voxels` and
// `_region_chunks` the terrain region work of the narrowphase (vxk_dynamics_region_work). A
// speed the body API refuses gets -1. Run by perf/bench_fast_body and `vxk bench --phases
// fast_body`: [--quick] (a 512 voxel square, 3 runs).
#include "bench.h"

#include "dynamics.h"
#include "scenes.h"

#include <vxk/body.h>
#include <vxk/world.h>

#include <math.h>
#include <stdio.h>

#define SIDE 2048
#define QUICK_SIDE 512
#define RUNS 5
#define QUICK_RUNS 3

typedef struct fast_run {
    double ms, candidates_ms, narrow_ms, continuous_ms;
    double region_voxels, region_chunks;
} fast_run;

// One run: false when the body was refused.
static bool fast_step(vxk_world* w, vxk_vec3 p, vxk_vec3 v, fast_run* out)
{
    vxk_body_id id;
    if (vxk_scene_fast_body(w, 0.25f, p, v, &id) != VXK_OK)
        return false;
    vxk_status status = vxk_world_step(w, 1.0f / 60.0f);
    vxk_world_step_stats stats;
    vxk_world_get_step_stats(w, &stats);
    vxk_region_work work;
    vxk_dynamics_region_work(vxk_dynamics_get(w), &work);
    vxk_body_destroy(w, id);
    if (status != VXK_OK)
        return false;
    out->ms = 1e3 * stats.total_seconds;
    out->candidates_ms = 1e3 * stats.stage_seconds[VXK_STEP_CANDIDATES];
    out->narrow_ms = 1e3 * stats.stage_seconds[VXK_STEP_NARROWPHASE];
    out->continuous_ms = 1e3 * stats.stage_seconds[VXK_STEP_CONTINUOUS];
    out->region_voxels = (double)work.voxels;
    out->region_chunks = (double)work.chunks;
    return true;
}

static void figure(vxk_bench* b, const char* dir, const char* speed, const char* key, double v)
{
    char name[48];
    snprintf(name, sizeof(name), "fast_%s_%s_%s", dir, speed, key);
    vxk_bench_figure_add(b, name, v);
}

void vxk_bench_fast_body(vxk_bench* b)
{
    const int32_t side = b->quick ? QUICK_SIDE : SIDE;
    const int runs = b->quick ? QUICK_RUNS : RUNS;
    double t0 = vxk_bench_now();
    vxk_world* w = vxk_scene_fast_body_world(NULL, 0.25f, side);
    if (!w)
        return;
    vxk_bench_phase_add(b, "fast_body_terrain", vxk_bench_now() - t0, (double)side * side * 8);
    static const char* const dirs[] = {"down", "diag", "skim"};
    static const char* const speed_names[] = {"10", "1e2", "1e3", "1e4", "1e5"};
    static const double speeds[] = {10.0, 1e2, 1e3, 1e4, 1e5};
    const float k = 0.57735027f;
    const vxk_vec3 starts[] = {{0.0f, 1.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.3f, 0.0f}};
    const vxk_vec3 units[] = {{0.0f, -1.0f, 0.0f}, {k, -k, k}, {1.0f, 0.0f, 0.0f}};
    t0 = vxk_bench_now();
    for (int di = 0; di < 3; ++di)
        for (int si = 0; si < 5; ++si) {
            float speed = (float)speeds[si];
            vxk_vec3 v = {units[di].x * speed, units[di].y * speed, units[di].z * speed};
            double ms[RUNS], cand[RUNS], narrow[RUNS], cont[RUNS];
            fast_run r = {0};
            bool ok = true;
            for (int i = 0; i < runs && ok; ++i) {
                ok = fast_step(w, starts[di], v, &r);
                ms[i] = r.ms;
                cand[i] = r.candidates_ms;
                narrow[i] = r.narrow_ms;
                cont[i] = r.continuous_ms;
            }
            const char* dir = dirs[di];
            const char* sp = speed_names[si];
            figure(b, dir, sp, "ms", ok ? vxk_bench_median(ms, runs) : -1.0);
            figure(b, dir, sp, "candidates_ms", ok ? vxk_bench_median(cand, runs) : -1.0);
            figure(b, dir, sp, "narrow_ms", ok ? vxk_bench_median(narrow, runs) : -1.0);
            figure(b, dir, sp, "continuous_ms", ok ? vxk_bench_median(cont, runs) : -1.0);
            figure(b, dir, sp, "region_voxels", ok ? r.region_voxels : -1.0);
            figure(b, dir, sp, "region_chunks", ok ? r.region_chunks : -1.0);
            vxk_bench_hash(b, &r.region_voxels, sizeof(r.region_voxels));
        }
    vxk_bench_phase_add(b, "fast_body_steps", vxk_bench_now() - t0, 15.0 * runs);
    vxk_world_destroy(w);
}
