// bench_jobs.c: prints one JSON line of job-system figures: ns_per_job (an empty job submitted,
// run and waited for, 1 worker), jobs_per_s_2t (2 workers), omp_ratio (vxk_parallel_for over 1M
// trivial items, grain 16384, divided by OpenMP schedule(static) on the same loop and thread
// count; -1 without OpenMP). Usage: bench_jobs [--quick] [--threads N] (N = 0: all cores).
#include "bench.h"

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {vxk_bench_jobs};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
