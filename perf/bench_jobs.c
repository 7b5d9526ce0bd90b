// bench_jobs.c: prints one JSON line of job-system figures: ns_per_job (an empty job submitted,
// run and waited for, 1 worker), jobs_per_s_2t (2 workers), omp_ratio (vxk_parallel_for over 1M
// trivial items, grain 16384, divided by OpenMP schedule(static) on the same loop and thread
// count; -1 without OpenMP). Usage: bench_jobs [--quick] [--threads N] (N = 0: all cores).
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
    vxk_bench_jobs(&b);
    vxk_bench_print_figures(&b);
    vxk_jobs_destroy(jobs);
    return 0;
}
