// bench_world.c: generates the benchmark world (the world phase: 2048 x 256 x 2048 voxels;
// --quick: 256 x 128 x 256), then builds and queries its bit broadphase (seed 000), and prints
// every figure as one JSON line. Usage: bench_world [--quick] [--threads N] (0 = all cores).
#include "bench.h"

#include <vxk/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
    bool quick = false;
    uint32_t threads = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--threads N]\n", argv[0]);
            return 2;
        }
    }
    vxk_jobs* jobs = vxk_bench_jobs_create(threads);
    vxk_bench b;
    vxk_bench_init(&b, jobs, vxk_jobs_worker_count(jobs));
    b.quick = quick;
    vxk_bench_world(&b);
    vxk_bench_broadphase(&b);
    vxk_bench_figure_add(&b, "threads", (double)b.threads);
    vxk_bench_figure_add(&b, "hash_low32", (double)(uint32_t)b.hash);
    vxk_bench_print_figures(&b);
    vxk_world_destroy((vxk_world*)b.world);
    b.world = NULL;
    vxk_jobs_destroy(jobs);
    return 0;
}
