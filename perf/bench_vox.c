// bench_vox.c: the .vox import benchmark: parses, flattens and loads into terrain a synthetic
// MagicaVoxel scene (16 models of 64^3 voxels, 64 rotated instances; --quick: 4 models of 24^3,
// 8 instances) and prints the figures as one JSON line. Usage: bench_vox [--quick] [--threads N].
#include "bench.h"

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
    vxk_bench_vox(&b);
    vxk_bench_figure_add(&b, "threads", (double)b.threads);
    vxk_bench_figure_add(&b, "hash_low32", (double)(uint32_t)b.hash);
    vxk_bench_print_figures(&b);
    vxk_jobs_destroy(jobs);
    return 0;
}
