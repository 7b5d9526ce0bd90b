// bench.h: the shared harness of the benchmarks and of the `vxk bench` stress run.
//
// Each concept has perf/phase_<concept>.c exposing `void vxk_bench_<concept>(vxk_bench* b)`.
// A phase function measures, then records phases (name, seconds, items) with vxk_bench_phase and
// headline figures (key, value) with vxk_bench_figure. perf/bench_<concept>.c is a small main that
// runs one of them and prints the figures as one JSON line; the `vxk` tool runs them all and
// prints the phase table / writes --json.
#ifndef VXK_BENCH_H
#define VXK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include <vxk/jobs.h>

#define VXK_BENCH_MAX_PHASES 64
#define VXK_BENCH_MAX_FIGURES 96

typedef struct vxk_bench_phase {
    char name[48];
    double seconds;
    double items;
} vxk_bench_phase;

typedef struct vxk_bench_figure {
    char key[48];
    double value;
} vxk_bench_figure;

typedef struct vxk_bench {
    vxk_jobs* jobs; // the scheduler with `threads` workers
    uint32_t threads;
    bool quick;   // smaller sizes (tests and smoke runs)
    double scale; // world-size multiplier for stress runs (1 = default)
    uint64_t seed;
    uint64_t hash; // digest of results for determinism checks (phases fold into it)
    bool progress; // print a progress line on stderr for long phases
    double start_time;
    vxk_bench_phase phases[VXK_BENCH_MAX_PHASES];
    int phase_count;
    vxk_bench_figure figures[VXK_BENCH_MAX_FIGURES];
    int figure_count;
    void* world; // shared generated world between phases (owned by phase_world)
} vxk_bench;

double vxk_bench_now(void); // seconds, monotonic
void vxk_bench_init(vxk_bench* b, vxk_jobs* jobs, uint32_t threads);
void vxk_bench_phase_add(vxk_bench* b, const char* name, double seconds, double items);
void vxk_bench_figure_add(vxk_bench* b, const char* key, double value);
void vxk_bench_progress(vxk_bench* b, const char* what);
void vxk_bench_hash(vxk_bench* b, const void* data, uint64_t size);
// Prints {"key": value, ...} of all figures on one line to stdout.
void vxk_bench_print_figures(const vxk_bench* b);
// Median of n doubles (sorts in place).
double vxk_bench_median(double* values, int n);
// Keeps the optimiser from deleting a computation.
void vxk_bench_sink(uint64_t value);

// Creates a scheduler with `threads` workers (0 = all cores) for a bench main.
vxk_jobs* vxk_bench_jobs_create(uint32_t threads);

// Phases, one per concept (perf/phase_<concept>.c).
void vxk_bench_jobs(vxk_bench* b);
void vxk_bench_simd(vxk_bench* b);
void vxk_bench_world(vxk_bench* b);
void vxk_bench_mesh(vxk_bench* b);
void vxk_bench_broadphase(vxk_bench* b);
void vxk_bench_ray(vxk_bench* b);
void vxk_bench_vox(vxk_bench* b);
void vxk_bench_kd(vxk_bench* b);

#endif
