// bench.c: the shared benchmark harness (phases, figures, JSON output, progress line).
#include "bench.h"

#include <vxk/world.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double vxk_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void vxk_bench_init(vxk_bench* b, vxk_jobs* jobs, uint32_t threads)
{
    memset(b, 0, sizeof(*b));
    b->jobs = jobs;
    b->threads = threads;
    b->scale = 1.0;
    b->seed = 1;
    b->hash = 0xCBF29CE484222325ull;
    b->start_time = vxk_bench_now();
}

void vxk_bench_phase_add(vxk_bench* b, const char* name, double seconds, double items)
{
    if (b->phase_count >= VXK_BENCH_MAX_PHASES)
        return;
    vxk_bench_phase* p = &b->phases[b->phase_count++];
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->seconds = seconds;
    p->items = items;
}

void vxk_bench_figure_add(vxk_bench* b, const char* key, double value)
{
    for (int i = 0; i < b->figure_count; ++i) {
        if (strcmp(b->figures[i].key, key) == 0) {
            b->figures[i].value = value;
            return;
        }
    }
    if (b->figure_count >= VXK_BENCH_MAX_FIGURES)
        return;
    vxk_bench_figure* f = &b->figures[b->figure_count++];
    snprintf(f->key, sizeof(f->key), "%s", key);
    f->value = value;
}

bool vxk_bench_figure_get(const vxk_bench* b, const char* key, double* value)
{
    for (int i = 0; i < b->figure_count; ++i) {
        if (strcmp(b->figures[i].key, key) == 0) {
            *value = b->figures[i].value;
            return true;
        }
    }
    return false;
}

void vxk_bench_progress(vxk_bench* b, const char* what)
{
    double elapsed = vxk_bench_now() - b->start_time;
    if (b->progress && elapsed > 2.0)
        fprintf(stderr, "\r[%7.1f s] %-60s", elapsed, what);
}

void vxk_bench_hash(vxk_bench* b, const void* data, uint64_t size)
{
    const unsigned char* p = (const unsigned char*)data;
    for (uint64_t i = 0; i < size; ++i)
        b->hash = (b->hash ^ p[i]) * 0x100000001B3ull;
}

void vxk_bench_print_figures(const vxk_bench* b)
{
    printf("{");
    for (int i = 0; i < b->figure_count; ++i)
        printf("%s\"%s\": %.6g", i ? ", " : "", b->figures[i].key, b->figures[i].value);
    printf("}\n");
    fflush(stdout);
}

static int compare_double(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

double vxk_bench_median(double* values, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(values, (size_t)n, sizeof(double), compare_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double vxk_bench_percentile(double* values, int n, double p)
{
    if (n <= 0)
        return 0.0;
    qsort(values, (size_t)n, sizeof(double), compare_double);
    int rank = (int)ceil(p * (double)n); // nearest rank, 1-based
    rank = rank < 1 ? 1 : (rank > n ? n : rank);
    return values[rank - 1];
}

void vxk_bench_stage_add(vxk_bench* b, const char* name, double* ms, uint32_t count)
{
    if (b->stage_count >= VXK_BENCH_MAX_STAGES)
        return;
    vxk_bench_stage* s = &b->stages[b->stage_count++];
    snprintf(s->name, sizeof(s->name), "%s", name);
    double total = 0.0;
    for (uint32_t i = 0; i < count; ++i)
        total += ms[i];
    s->mean_ms = count ? total / count : 0.0;
    s->p95_ms = vxk_bench_percentile(ms, (int)count, 0.95);
    s->median_ms = vxk_bench_median(ms, (int)count);
}

static volatile uint64_t g_sink;

void vxk_bench_sink(uint64_t value)
{
    g_sink += value;
}

bool vxk_bench_parse_uint(const char* text, uint64_t max, uint64_t* out)
{
    // strtoull alone would take blanks, a sign (negating the value) and wrap nothing into range
    if (!text || !(*text >= '0' && *text <= '9'))
        return false;
    errno = 0;
    char* end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || *end || value > max)
        return false;
    *out = value;
    return true;
}

bool vxk_bench_parse_real(const char* text, double lo, double hi, double* out)
{
    if (!text || !*text || isspace((unsigned char)*text))
        return false;
    errno = 0;
    char* end = NULL;
    double value = strtod(text, &end);
    if (errno || *end || !isfinite(value) || !(value >= lo && value <= hi))
        return false;
    *out = value;
    return true;
}

vxk_jobs* vxk_bench_jobs_create(uint32_t threads)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = threads;
    vxk_jobs* jobs = NULL;
    if (vxk_jobs_create(&def, &jobs) != 0) {
        fprintf(stderr, "cannot create the job system\n");
        exit(1);
    }
    return jobs;
}

int vxk_bench_main(int argc, char** argv, vxk_bench_phase_fn* const* phases, int phase_count,
                   uint32_t default_threads)
{
    bool quick = false;
    uint32_t threads = default_threads;
    for (int i = 1; i < argc; ++i) {
        uint64_t n = 0;
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc &&
                   vxk_bench_parse_uint(argv[i + 1], 1024, &n)) {
            threads = (uint32_t)n;
            ++i;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--threads N] (N from 0 = all cores to 1024)\n",
                    argv[0]);
            return 2;
        }
    }
    vxk_jobs* jobs = vxk_bench_jobs_create(threads);
    static vxk_bench b;
    vxk_bench_init(&b, jobs, vxk_jobs_worker_count(jobs));
    b.quick = quick;
    for (int i = 0; i < phase_count; ++i)
        phases[i](&b);
    vxk_bench_figure_add(&b, "threads", (double)b.threads);
    vxk_bench_figure_add(&b, "hash_low32", (double)(uint32_t)b.hash);
    vxk_bench_print_figures(&b);
    if (b.world)
        vxk_world_destroy((vxk_world*)b.world);
    b.world = NULL;
    vxk_jobs_destroy(jobs);
    return 0;
}
