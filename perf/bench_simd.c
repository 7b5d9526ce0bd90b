// bench_simd.c: prints one JSON line with the throughput of each SIMD kernel and its speedup
// over the scalar twin (bits_*_gbps counts bytes read + written; ray_aabb8_per_s counts rays,
// ray_tri8_per_s / ray_quad8_per_s count ray-primitive tests). Usage: bench_simd [--quick]
// [--threads N] (the kernels run on one thread; N only sizes the job system).
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
    bool quick = false;
    uint32_t threads = 1;
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
    vxk_bench_simd(&b);
    vxk_bench_print_figures(&b);
    vxk_jobs_destroy(jobs);
    return 0;
}
