// phase_jobs.c: benchmarks of the job scheduler: the cost of an empty job (submit, run, wait)
// with one worker and with two, and vxk_parallel_for against OpenMP schedule(static) on the same
// trivial loop with the same thread count, measured in the same run (medians of repetitions).
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef VXK_HAVE_OPENMP
#include <omp.h>
#endif

// Fixed grain for the 1M-item loop: 62 pieces, enough for load balance on any small machine and
// independent of the thread count (the cut must not depend on it).
#define PFOR_ITEMS 1000000u
#define PFOR_GRAIN 16384u

static void empty_job(void* ctx, uint32_t thread)
{
    (void)ctx;
    (void)thread;
}

static vxk_jobs* create_workers(uint32_t workers)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = workers;
    vxk_jobs* jobs = NULL;
    return vxk_jobs_create(&def, &jobs) == 0 ? jobs : NULL;
}

// Median seconds per job to submit `batch` empty jobs into a group and wait for the group,
// `batches` times in a row (the live set stays cache-sized, as in a simulation step).
static double time_empty_jobs(vxk_jobs* jobs, uint32_t batch, uint32_t batches, int reps)
{
    double times[32];
    vxk_job_desc desc = {"empty", empty_job, NULL, NULL, 0, NULL};
    for (int r = 0; r < reps + 1; ++r) {
        double t0 = vxk_bench_now();
        for (uint32_t k = 0; k < batches; ++k) {
            vxk_job_group group;
            vxk_job_group_init(&group);
            desc.group = &group;
            for (uint32_t i = 0; i < batch; ++i)
                vxk_jobs_submit(jobs, &desc);
            vxk_jobs_wait_group(jobs, &group);
        }
        double t1 = vxk_bench_now();
        if (r > 0) // the first round warms the pool
            times[r - 1] = (t1 - t0) / ((double)batch * batches);
    }
    return vxk_bench_median(times, reps);
}

typedef struct trivial_ctx {
    uint32_t* out;
    uint32_t seed;
} trivial_ctx;

static void trivial_range(void* ctx, uint32_t begin, uint32_t end, uint32_t thread)
{
    (void)thread;
    trivial_ctx* c = ctx;
    for (uint32_t i = begin; i < end; ++i)
        c->out[i] = (i * 2654435761u) ^ c->seed;
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

void vxk_bench_jobs(vxk_bench* b)
{
    const uint32_t batch = 16384, batches = b->quick ? 4 : 32;
    const int reps = b->quick ? 5 : 11;
    const double count = (double)batch * batches;

    vxk_jobs* one = create_workers(1);
    vxk_jobs* two = create_workers(2);
    if (!one || !two) {
        fprintf(stderr, "jobs bench: cannot create schedulers\n");
        vxk_jobs_destroy(one);
        vxk_jobs_destroy(two);
        return;
    }
    double t1 = time_empty_jobs(one, batch, batches, reps);
    vxk_bench_phase_add(b, "jobs_empty", t1 * count * reps, count * reps);
    vxk_bench_figure_add(b, "ns_per_job", t1 * 1e9);
    vxk_jobs_destroy(one);
    double t2 = time_empty_jobs(two, batch, batches, reps);
    vxk_bench_phase_add(b, "jobs_empty_2t", t2 * count * reps, count * reps);
    vxk_bench_figure_add(b, "jobs_per_s_2t", 1.0 / t2);
    vxk_bench_figure_add(b, "ns_per_job_2t", t2 * 1e9);
    vxk_jobs_destroy(two);

    // parallel_for vs OpenMP on b->jobs's thread count. Ours runs first so that OpenMP's
    // spinning threads cannot steal cycles from it; both get warm-up rounds.
    vxk_jobs* jobs = b->jobs;
    uint32_t threads = vxk_jobs_worker_count(jobs);
    const int pfor_reps = b->quick ? 7 : 31;
    uint32_t* out = malloc(PFOR_ITEMS * sizeof(uint32_t));
    uint32_t* out_omp = malloc(PFOR_ITEMS * sizeof(uint32_t));
    if (!out || !out_omp) {
        free(out);
        free(out_omp);
        return;
    }
    trivial_ctx ctx = {out, (uint32_t)b->seed};
    double ours[64], theirs[64];
    pause_ms(20);
    for (int r = 0; r < pfor_reps + 2; ++r) {
        double t0 = vxk_bench_now();
        vxk_parallel_for(jobs, "trivial", PFOR_ITEMS, PFOR_GRAIN, trivial_range, &ctx);
        double dt = vxk_bench_now() - t0;
        if (r >= 2)
            ours[r - 2] = dt;
    }
    uint64_t check = 0;
    for (uint32_t i = 0; i < PFOR_ITEMS; i += 4099)
        check += out[i];
    vxk_bench_hash(b, &check, sizeof(check));
    double ours_median = vxk_bench_median(ours, pfor_reps);
    vxk_bench_phase_add(b, "jobs_parallel_for", ours_median * pfor_reps,
                        (double)PFOR_ITEMS * pfor_reps);
    vxk_bench_figure_add(b, "pfor_1m_us", ours_median * 1e6);
    vxk_bench_figure_add(b, "pfor_grain", PFOR_GRAIN);
    vxk_bench_figure_add(b, "pfor_threads", threads);
#ifdef VXK_HAVE_OPENMP
    pause_ms(20); // let our workers fall asleep
    const uint32_t seed = (uint32_t)b->seed;
    for (int r = 0; r < pfor_reps + 2; ++r) {
        double t0 = vxk_bench_now();
#pragma omp parallel for schedule(static) num_threads(threads)
        for (uint32_t i = 0; i < PFOR_ITEMS; ++i)
            out_omp[i] = (i * 2654435761u) ^ seed;
        double dt = vxk_bench_now() - t0;
        if (r >= 2)
            theirs[r - 2] = dt;
    }
    uint64_t check_omp = 0;
    for (uint32_t i = 0; i < PFOR_ITEMS; i += 4099)
        check_omp += out_omp[i];
    double omp_median = vxk_bench_median(theirs, pfor_reps);
    vxk_bench_phase_add(b, "jobs_omp_for", omp_median * pfor_reps, (double)PFOR_ITEMS * pfor_reps);
    vxk_bench_figure_add(b, "omp_1m_us", omp_median * 1e6);
    // Both loops must have computed the same thing for the ratio to mean anything.
    vxk_bench_figure_add(b, "omp_ratio", check == check_omp ? ours_median / omp_median : -1.0);
#else
    (void)theirs;
    vxk_bench_figure_add(b, "omp_ratio", -1.0); // built without OpenMP
#endif
    free(out);
    free(out_omp);
}
