// vxk_main.c: the `vxk` command-line tool: the stress benchmark (`vxk bench`), thread scaling
// (`vxk scale`), version and help. Every phase comes from perf/phase_<concept>.c, so the numbers
// match the per-concept bench programs.
#include "bench.h"

#include <vxk/world.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void vxk_phase_fn(vxk_bench* b);

typedef struct phase_entry {
    const char* name;
    vxk_phase_fn* fn;
    const char* what;
} phase_entry;

// Order matters: world generates the world the later phases reuse.
static const phase_entry g_phases[] = {
    {"jobs", vxk_bench_jobs, "job system: empty jobs, parallel_for vs OpenMP"},
    {"simd", vxk_bench_simd, "SIMD kernels vs scalar twins"},
    {"world", vxk_bench_world, "world generation (terrain, caves, water)"},
    {"vox", vxk_bench_vox, "MagicaVoxel .vox parse, flatten, load into terrain"},
    {"broadphase", vxk_bench_broadphase, "mask dilation and AABB overlap queries"},
    {"mesh", vxk_bench_mesh, "greedy mesher and box compounds"},
    {"kd", vxk_bench_kd, "loose kD tree build and queries (vs Bullet)"},
    {"ray", vxk_bench_ray, "world raycasts through the lazy cache (vs Embree)"},
    {"step", vxk_bench_step, "rigid bodies dropped on terrain, vxk_world_step (vs Bullet)"},
};
#define PHASE_COUNT (sizeof(g_phases) / sizeof(g_phases[0]))

typedef struct options {
    uint32_t threads;
    const char* json_path;
    const char* trace_path;
    bool quick;
    double scale;
    uint64_t seed;
    bool enabled[PHASE_COUNT];
    uint32_t max_threads;
} options;

static void usage(FILE* out)
{
    fprintf(out,
            "usage: vxk <command> [options]\n"
            "\n"
            "commands:\n"
            "  bench      run the stress benchmark: every phase once, a table on stdout\n"
            "  scale      run the benchmark at 1, 2, 4, ... threads and print speedups\n"
            "  version    print the version\n"
            "  help       print this text (also --help)\n"
            "\n"
            "options (bench and scale unless marked; the other command refuses a marked one):\n"
            "  --threads N      bench: worker threads, 0 = all cores (default 0)\n"
            "  --max-threads N  scale: highest thread count (default: all cores)\n"
            "  --json FILE      write {version, threads, hash, phases[], figures{}} to FILE\n"
            "                   (scale: {version, identical, runs[]})\n"
            "  --trace FILE     bench: Chrome trace of the jobs (Perfetto, chrome://tracing)\n"
            "  --phases LIST    comma-separated subset of:");
    for (size_t i = 0; i < PHASE_COUNT; ++i)
        fprintf(out, " %s", g_phases[i].name);
    fprintf(out, "\n"
                 "  --quick          small sizes (seconds instead of minutes)\n"
                 "  --scale X        world size multiplier along x and z (default 1)\n"
                 "  --seed N         world seed (default 1)\n"
                 "\n"
                 "Output files are created before the first phase runs: one that cannot be\n"
                 "written fails at once. Exit codes: 0 done, 1 a file or run failed, 2 bad usage.\n"
                 "\n"
                 "phases:\n");
    for (size_t i = 0; i < PHASE_COUNT; ++i)
        fprintf(out, "  %-11s %s\n", g_phases[i].name, g_phases[i].what);
}

static int bad_usage(const char* fmt, const char* arg)
{
    fprintf(stderr, "vxk: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see vxk --help)\n");
    return 2;
}

static bool parse_phases(const char* list, bool* enabled)
{
    memset(enabled, 0, sizeof(bool) * PHASE_COUNT);
    const char* p = list;
    while (*p) {
        const char* comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        bool found = false;
        for (size_t i = 0; i < PHASE_COUNT; ++i) {
            if (strlen(g_phases[i].name) == len && strncmp(g_phases[i].name, p, len) == 0) {
                enabled[i] = found = true;
            }
        }
        if (!found || len == 0)
            return false;
        p += len + (comma ? 1 : 0);
        if (comma && !*p)
            return false;
    }
    return true;
}

// Options of the command named argv[first - 1] ("bench" or "scale"). Each command refuses the
// options only the other one uses (scale runs every thread count itself and writes no trace).
static int parse_options(int argc, char** argv, int first, options* o)
{
    bool scale = strcmp(argv[first - 1], "scale") == 0;
    memset(o, 0, sizeof(*o));
    o->scale = 1.0;
    o->seed = 1;
    for (size_t i = 0; i < PHASE_COUNT; ++i)
        o->enabled[i] = true;
    for (int i = first; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n = 0;
        if (scale ? strcmp(a, "--threads") == 0 || strcmp(a, "--trace") == 0
                  : strcmp(a, "--max-threads") == 0) {
            return bad_usage(scale ? "scale runs 1, 2, 4, ... threads up to --max-threads and "
                                     "traces nothing: '%s' is a bench option"
                                   : "'%s' is a scale option (bench runs --threads N)",
                             a);
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(a, "--threads") == 0) {
            if (!vxk_bench_parse_uint(v, 1024, &n))
                return bad_usage("--threads needs a whole number from 0 to 1024, got '%s'",
                                 v ? v : "");
            o->threads = (uint32_t)n;
            ++i;
        } else if (strcmp(a, "--max-threads") == 0) {
            if (!vxk_bench_parse_uint(v, 1024, &n) || n == 0)
                return bad_usage("--max-threads needs a whole number from 1 to 1024, got '%s'",
                                 v ? v : "");
            o->max_threads = (uint32_t)n;
            ++i;
        } else if (strcmp(a, "--json") == 0 || strcmp(a, "--trace") == 0) {
            if (!v || !*v)
                return bad_usage("%s needs a file name", a);
            if (a[2] == 'j')
                o->json_path = v;
            else
                o->trace_path = v;
            ++i;
        } else if (strcmp(a, "--phases") == 0) {
            if (!v || !parse_phases(v, o->enabled))
                return bad_usage("--phases needs a comma-separated list of phase names, got '%s'",
                                 v ? v : "");
            ++i;
        } else if (strcmp(a, "--scale") == 0) {
            if (!vxk_bench_parse_real(v, 0.125, 16.0, &o->scale))
                return bad_usage("--scale needs a number from 0.125 to 16, got '%s'", v ? v : "");
            ++i;
        } else if (strcmp(a, "--seed") == 0) {
            if (!vxk_bench_parse_uint(v, UINT64_MAX, &n))
                return bad_usage("--seed needs a whole number, got '%s'", v ? v : "");
            o->seed = n;
            ++i;
        } else {
            return bad_usage("unknown option '%s'", a);
        }
    }
    return 0;
}

static vxk_jobs* create_jobs(uint32_t threads, bool trace)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = threads;
    def.trace_capacity = trace ? (1u << 16) : 0;
    vxk_jobs* jobs = NULL;
    if (vxk_jobs_create(&def, &jobs) != 0)
        return NULL;
    return jobs;
}

static void run_phases(vxk_bench* b, const options* o)
{
    for (size_t i = 0; i < PHASE_COUNT; ++i) {
        if (!o->enabled[i])
            continue;
        vxk_bench_progress(b, g_phases[i].what);
        g_phases[i].fn(b);
    }
    if (b->progress)
        fprintf(stderr, "\r%-72s\r", "");
}

static void bench_finish(vxk_bench* b)
{
    if (b->world) {
        vxk_world_destroy((vxk_world*)b->world);
        b->world = NULL;
    }
}

static void print_table(const vxk_bench* b)
{
    printf("vxk %s bench, %u threads\n", vxk_version_string(), b->threads);
    printf("%-28s %12s %14s %16s\n", "phase", "seconds", "items", "items/s");
    for (int i = 0; i < b->phase_count; ++i) {
        const vxk_bench_phase* p = &b->phases[i];
        double rate = p->seconds > 0 ? p->items / p->seconds : 0.0;
        printf("%-28s %12.4f %14.0f %16.4g\n", p->name, p->seconds, p->items, rate);
    }
    printf("hash %016llx\n", (unsigned long long)b->hash);
}

static void json_string(FILE* f, const char* s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int cannot_write(const char* path)
{
    fprintf(stderr, "vxk: cannot write '%s': %s\n", path, strerror(errno));
    return 1;
}

// Creates the output files before any phase runs, so that a path that cannot be written fails at
// once instead of after the run. *json stays open for the end; the trace file is only created
// here (vxk_jobs_write_trace writes it again at the end). Returns 0, or 1 with nothing open.
static int open_outputs(const options* o, FILE** json)
{
    *json = NULL;
    if (o->trace_path) {
        FILE* f = fopen(o->trace_path, "w");
        if (!f)
            return cannot_write(o->trace_path);
        fclose(f);
    }
    if (o->json_path) {
        *json = fopen(o->json_path, "w");
        if (!*json)
            return cannot_write(o->json_path);
    }
    return 0;
}

// Closes a JSON output; 1 (with a message) if anything written to it was lost.
static int close_json(FILE* f, const char* path)
{
    int bad = ferror(f);
    bad |= fclose(f);
    if (bad) {
        fprintf(stderr, "vxk: error writing '%s'\n", path);
        return 1;
    }
    return 0;
}

// The job system could not be created: closes the open output and returns the exit code.
static int jobs_failed(FILE* json)
{
    fprintf(stderr, "vxk: cannot create the job system\n");
    if (json)
        fclose(json);
    return 1;
}

static int write_json(const vxk_bench* b, FILE* f, const char* path)
{
    fprintf(f, "{\"version\": \"%s\", \"threads\": %u, \"hash\": \"%016llx\", \"phases\": [",
            vxk_version_string(), b->threads, (unsigned long long)b->hash);
    for (int i = 0; i < b->phase_count; ++i) {
        const vxk_bench_phase* p = &b->phases[i];
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        json_string(f, p->name);
        fprintf(f, ", \"seconds\": %.9g, \"items\": %.17g, \"items_per_s\": %.9g}", p->seconds,
                p->items, p->seconds > 0 ? p->items / p->seconds : 0.0);
    }
    fprintf(f, "], \"figures\": {");
    for (int i = 0; i < b->figure_count; ++i) {
        fprintf(f, "%s", i ? ", " : "");
        json_string(f, b->figures[i].key);
        fprintf(f, ": %.9g", b->figures[i].value);
    }
    fprintf(f, "}}\n");
    return close_json(f, path);
}

static int cmd_bench(const options* o)
{
    FILE* json = NULL;
    if (open_outputs(o, &json))
        return 1;
    vxk_jobs* jobs = create_jobs(o->threads, o->trace_path != NULL);
    if (!jobs)
        return jobs_failed(json);
    static vxk_bench b;
    vxk_bench_init(&b, jobs, vxk_jobs_worker_count(jobs));
    b.quick = o->quick;
    b.scale = o->scale;
    b.seed = o->seed;
    b.progress = true;
    run_phases(&b, o);
    print_table(&b);
    int rc = 0;
    if (json)
        rc |= write_json(&b, json, o->json_path);
    bench_finish(&b);
    if (o->trace_path) {
        if (vxk_jobs_write_trace(jobs, o->trace_path) != 0) {
            fprintf(stderr, "vxk: cannot write trace '%s'\n", o->trace_path);
            rc = 1;
        }
    }
    vxk_jobs_destroy(jobs);
    return rc;
}

// Runs the benchmark at 1, 2, 4, ... max threads; prints each phase's time and its speedup over
// one thread, and checks that the result hash is the same at every thread count.
static int cmd_scale(const options* o)
{
    FILE* json = NULL;
    if (open_outputs(o, &json))
        return 1;
    uint32_t max_threads = o->max_threads;
    if (!max_threads) {
        vxk_jobs* probe = create_jobs(0, false);
        if (!probe)
            return jobs_failed(json);
        max_threads = vxk_jobs_worker_count(probe);
        vxk_jobs_destroy(probe);
    }
    enum { MAX_RUNS = 12 };
    static vxk_bench runs[MAX_RUNS];
    uint32_t counts[MAX_RUNS];
    int run_count = 0;
    for (uint32_t t = 1; run_count < MAX_RUNS; t *= 2) {
        if (t > max_threads)
            t = max_threads;
        vxk_jobs* jobs = create_jobs(t, false);
        if (!jobs)
            return jobs_failed(json);
        vxk_bench* b = &runs[run_count];
        vxk_bench_init(b, jobs, t);
        b->quick = o->quick;
        b->scale = o->scale;
        b->seed = o->seed;
        b->progress = true;
        fprintf(stderr, "threads %u\n", t);
        run_phases(b, o);
        bench_finish(b);
        vxk_jobs_destroy(jobs);
        counts[run_count++] = t;
        if (t == max_threads)
            break;
    }
    printf("%-28s", "phase (seconds, speedup)");
    for (int r = 0; r < run_count; ++r)
        printf(" %8ut %6s", counts[r], "x");
    printf("\n");
    for (int p = 0; p < runs[0].phase_count; ++p) {
        printf("%-28s", runs[0].phases[p].name);
        for (int r = 0; r < run_count; ++r) {
            double s = p < runs[r].phase_count ? runs[r].phases[p].seconds : 0.0;
            double base = runs[0].phases[p].seconds;
            printf(" %9.4f %6.2f", s, s > 0 ? base / s : 0.0);
        }
        printf("\n");
    }
    bool same = true;
    for (int r = 0; r < run_count; ++r) {
        printf("hash at %2u threads: %016llx\n", counts[r], (unsigned long long)runs[r].hash);
        same &= runs[r].hash == runs[0].hash;
    }
    printf("results %s across thread counts\n", same ? "identical" : "DIFFER");
    int rc = same ? 0 : 1;
    if (json) {
        fprintf(json, "{\"version\": \"%s\", \"identical\": %s, \"runs\": [", vxk_version_string(),
                same ? "true" : "false");
        for (int r = 0; r < run_count; ++r) {
            fprintf(json, "%s{\"threads\": %u, \"hash\": \"%016llx\", \"phases\": [", r ? ", " : "",
                    counts[r], (unsigned long long)runs[r].hash);
            for (int p = 0; p < runs[r].phase_count; ++p) {
                const vxk_bench_phase* ph = &runs[r].phases[p];
                fprintf(json,
                        "%s{\"name\": \"%s\", \"seconds\": %.9g, \"items\": %.17g, "
                        "\"items_per_s\": %.9g}",
                        p ? ", " : "", ph->name, ph->seconds, ph->items,
                        ph->seconds > 0 ? ph->items / ph->seconds : 0.0);
            }
            fprintf(json, "]}");
        }
        fprintf(json, "]}\n");
        rc |= close_json(json, o->json_path);
    }
    return rc;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char* cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        if (argc > 2)
            return bad_usage("version takes no options, got '%s'", argv[2]);
        printf("vxk %s\n", vxk_version_string());
        return 0;
    }
    options o;
    if (strcmp(cmd, "bench") == 0 || strcmp(cmd, "scale") == 0) {
        int rc = parse_options(argc, argv, 2, &o);
        if (rc)
            return rc;
        return cmd[0] == 'b' ? cmd_bench(&o) : cmd_scale(&o);
    }
    return bad_usage("unknown command '%s'", cmd);
}
