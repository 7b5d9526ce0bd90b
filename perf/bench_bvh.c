// bench_bvh.c: the body BVH (seed 001): builds with binned SAH and with the article's midpoint
// split, refit after motion, SAH cost, and pair finding (one thread and a scheduler) over 1,000,
// 10,000 and 100,000 uniform boxes, against all-pairs brute force for the two smaller sizes.
// Prints one JSON line (seconds are medians of 5 runs; brute force once per run). Usage:
// bench_bvh [--quick] [--threads N].
#include "bench.h"

#include "body_bvh.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 5

static float rand_unit(uint64_t* state)
{
    return (float)((vxk_splitmix64(state) >> 40) * (1.0 / 16777216.0));
}

// Boxes of half size 0.25..1 at a density that gives each a few neighbours at any count.
static void make_boxes(vxk_aabb* boxes, uint32_t n, uint64_t seed)
{
    float side = 4.0f * cbrtf((float)n);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 c = {side * rand_unit(&seed), side * rand_unit(&seed), side * rand_unit(&seed)};
        float h = 0.25f + 0.75f * rand_unit(&seed);
        boxes[i] = (vxk_aabb){{c.x - h, c.y - h, c.z - h}, {c.x + h, c.y + h, c.z + h}};
    }
}

static uint64_t brute_pairs(const vxk_aabb* b, uint32_t n)
{
    uint64_t count = 0;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j)
            count += b[i].min.x <= b[j].max.x && b[j].min.x <= b[i].max.x &&
                     b[i].min.y <= b[j].max.y && b[j].min.y <= b[i].max.y &&
                     b[i].min.z <= b[j].max.z && b[j].min.z <= b[i].max.z;
    return count;
}

static bool measure_size(vxk_bench* b, uint32_t n)
{
    vxk_aabb* boxes = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_aabb* moved = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    make_boxes(boxes, n, 0xB7B7u + n);
    uint64_t motion = 99;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 v = {rand_unit(&motion) - 0.5f, rand_unit(&motion) - 0.5f,
                      rand_unit(&motion) - 0.5f};
        moved[i] = vxk_bvh_swept_box(boxes[i], v, 1.0f, 0.05f);
    }
    double t[6][RUNS];
    double cost[2] = {0, 0}, refit_cost = 0;
    uint32_t pair_count = 0;
    bool ok = true;
    bool brute = n <= 10000;
    for (int r = 0; r < RUNS && ok; ++r) {
        for (int kind = 0; kind < 2 && ok; ++kind) {
            vxk_bvh bvh = {0};
            double t0 = vxk_bench_now();
            ok = vxk_bvh_build(&bvh, boxes, n, (vxk_bvh_build_kind)kind) == VXK_OK;
            t[kind][r] = vxk_bench_now() - t0;
            cost[kind] = vxk_bvh_cost(&bvh);
            if (ok && kind == VXK_BVH_BUILD_SAH) {
                t0 = vxk_bench_now();
                ok = vxk_bvh_refit(&bvh, moved) == VXK_OK;
                t[2][r] = vxk_bench_now() - t0;
                refit_cost = vxk_bvh_cost(&bvh);
                for (int threaded = 0; threaded < 2 && ok; ++threaded) {
                    vxk_bvh_pair* pairs = NULL;
                    t0 = vxk_bench_now();
                    ok = vxk_bvh_pairs(&bvh, threaded ? b->jobs : NULL, &pairs, &pair_count,
                                       UINT32_MAX) == VXK_OK;
                    t[3 + threaded][r] = vxk_bench_now() - t0;
                    if (ok)
                        vxk_bench_hash(b, pairs, (uint64_t)pair_count * sizeof(*pairs));
                    vxk_bvh_pairs_free(pairs, pair_count);
                }
            }
            vxk_bvh_free(&bvh);
        }
        t[5][r] = 0;
        if (ok && brute) {
            double t0 = vxk_bench_now();
            ok = brute_pairs(moved, n) == pair_count;
            t[5][r] = vxk_bench_now() - t0;
        }
    }
    free(boxes);
    free(moved);
    if (!ok)
        return false;
    static const char* const names[6] = {"build_sah_s", "build_midpoint_s", "refit_s",
                                         "pairs_1t_s",  "pairs_jobs_s",     "brute_s"};
    char key[48];
    for (int k = 0; k < (brute ? 6 : 5); ++k) {
        snprintf(key, sizeof(key), "n%u_%s", n, names[k]);
        vxk_bench_figure_add(b, key, vxk_bench_median(t[k], RUNS));
    }
    snprintf(key, sizeof(key), "n%u_cost_sah", n);
    vxk_bench_figure_add(b, key, cost[0]);
    snprintf(key, sizeof(key), "n%u_cost_midpoint", n);
    vxk_bench_figure_add(b, key, cost[1]);
    snprintf(key, sizeof(key), "n%u_cost_refit", n);
    vxk_bench_figure_add(b, key, refit_cost);
    snprintf(key, sizeof(key), "n%u_pairs", n);
    vxk_bench_figure_add(b, key, pair_count);
    return true;
}

static void bench_bvh(vxk_bench* b)
{
    static const uint32_t sizes[3] = {1000, 10000, 100000};
    for (int s = 0; s < (b->quick ? 1 : 3); ++s)
        if (!measure_size(b, sizes[s]))
            vxk_bench_figure_add(b, "failed", sizes[s]);
}

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {bench_bvh};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
