// bench_mesh.c: prints one JSON line with the greedy mesher and box compound figures over the
// mixed chunks of a generated world (per-core chunk and triangle rates, quads and triangles per
// chunk, boxes per solid voxel). Usage: bench_mesh [--quick] [--threads N] (0 = all cores).
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
    vxk_bench_mesh(&b);
    vxk_bench_print_figures(&b);
    fprintf(stderr, "hash %016llx\n", (unsigned long long)b.hash);
    vxk_jobs_destroy(jobs);
    return 0;
}
