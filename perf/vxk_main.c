// vxk_main.c: the `vxk` command-line tool: the physics stress run and the micro-benchmark phases
// (`vxk bench`), thread scaling with a plot (`vxk scale`), version and help. Every phase comes
// from perf/phase_<concept>.c, so the numbers match the per-concept bench programs.
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
    {"edit", vxk_bench_edit, "the edit thread: edits applied per second, submit, publish"},
    {"split", vxk_bench_split, "connectivity splitting of 32^3 regions (vs a plain BFS)"},
    {"fast_body", vxk_bench_fast_body, "one voxel body at 10 to 1e5 m/s onto terrain, one step"},
    {"physics", vxk_bench_physics,
     "the stress run (default): bodies in waves over a 1024^2 world, rays (vs Bullet)"},
};
// Without --phases, bench and scale run this phase alone.
#define DEFAULT_PHASE "physics"
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
            "  bench      run the physics stress run (or the phases --phases names), a table on\n"
            "             stdout\n"
            "  scale      run it at 1, 2, 4, ... threads, print speedups, plot them (gnuplot)\n"
            "  version    print the version\n"
            "  help       print this text (also --help)\n"
            "\n"
            "options (bench and scale unless marked; the other command refuses a marked one):\n"
            "  --threads N      bench: worker threads, 0 = all cores (default 0)\n"
            "  --max-threads N  scale: highest thread count (default: all cores)\n"
            "  --json FILE      write {version, threads, hash, phases[], figures{}} to FILE, and\n"
            "                   for the physics run steps, bodies, world_hash, step_phases{}\n"
            "                   (scale: {version, identical, runs[]}, and a plot FILE.png)\n"
            "  --trace FILE     bench: Chrome trace of the jobs (Perfetto, chrome://tracing)\n"
            "  --phases LIST    comma-separated subset of:");
    for (size_t i = 0; i < PHASE_COUNT; ++i)
        fprintf(out, " %s", g_phases[i].name);
    fprintf(out,
            "\n"
            "                   (default: " DEFAULT_PHASE "; the others are the micro-benchmarks)\n"
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
        o->enabled[i] = strcmp(g_phases[i].name, DEFAULT_PHASE) == 0;
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

static double figure_or_zero(const vxk_bench* b, const char* key)
{
    double v = 0.0;
    vxk_bench_figure_get(b, key, &v);
    return v;
}

// The physics stress run's summary: per-stage ms per step and its figures.
static void print_physics(const vxk_bench* b)
{
    printf("\nphysics stress run: %u steps at 60 Hz, %u bodies (%.0f voxel bodies), %.3g voxels\n",
           b->physics_steps, b->physics_bodies, figure_or_zero(b, "physics_voxel_bodies"),
           figure_or_zero(b, "physics_world_voxels"));
    printf("%-28s %12s %12s %12s\n", "stage (ms per step)", "median", "p95", "mean");
    for (int i = 0; i < b->stage_count; ++i)
        printf("%-28s %12.4f %12.4f %12.4f\n", b->stages[i].name, b->stages[i].median_ms,
               b->stages[i].p95_ms, b->stages[i].mean_ms);
    printf("steps/s %.1f, body-steps/s %.4g\n", figure_or_zero(b, "physics_steps_per_s"),
           figure_or_zero(b, "physics_body_steps_per_s"));
    printf("contacts %.0f (at most %.0f; %.0f recycled, %.0f asleep), body pairs %.0f, islands "
           "%.0f (at most %.0f), sleeping %.0f\n",
           figure_or_zero(b, "physics_contacts"), figure_or_zero(b, "physics_contacts_max"),
           figure_or_zero(b, "physics_recycled_manifolds"),
           figure_or_zero(b, "physics_carried_manifolds"), figure_or_zero(b, "physics_body_pairs"),
           figure_or_zero(b, "physics_islands"), figure_or_zero(b, "physics_islands_max"),
           figure_or_zero(b, "physics_sleeping"));
    printf("memory %.1f MiB (terrain %.1f, narrowphase cache %.1f, bodies %.1f, contacts %.1f)\n",
           figure_or_zero(b, "physics_memory_bytes") / 1048576.0,
           figure_or_zero(b, "physics_terrain_bytes") / 1048576.0,
           figure_or_zero(b, "physics_narrow_cache_bytes") / 1048576.0,
           figure_or_zero(b, "physics_body_bytes") / 1048576.0,
           figure_or_zero(b, "physics_contact_bytes") / 1048576.0);
    printf("rays %.0f: %.0f hit terrain, %.0f hit bodies\n", figure_or_zero(b, "physics_rays"),
           figure_or_zero(b, "physics_ray_terrain_hits"),
           figure_or_zero(b, "physics_ray_body_hits"));
    printf("tunnelled %.0f, off the edge %.0f", figure_or_zero(b, "ours_tunnelled"),
           figure_or_zero(b, "ours_off_edge"));
    double v = 0.0;
    if (vxk_bench_figure_get(b, "bullet_tunnelled", &v))
        printf("; Bullet: tunnelled %.0f, off the edge %.0f", v,
               figure_or_zero(b, "bullet_off_edge"));
    printf("\n");
    if (vxk_bench_figure_get(b, "bullet_step_ratio", &v))
        printf("bullet_step_ratio %.3g (Bullet %.4g ms / ours %.4g ms, median step)\n", v,
               figure_or_zero(b, "bullet_step_ms"), figure_or_zero(b, "physics_step_ms"));
    if (vxk_bench_figure_get(b, "bullet_narrowphase_ratio", &v))
        printf("bullet_narrowphase_ratio %.3g (voxel pairs: %.0f; Bullet %.4g ms / ours %.4g ms)\n",
               v, figure_or_zero(b, "narrowphase_voxel_pairs"),
               figure_or_zero(b, "bullet_narrowphase_ms"),
               figure_or_zero(b, "ours_narrowphase_ms"));
    printf("world hash %016llx\n", (unsigned long long)b->physics_world_hash);
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
    if (b->physics_ran)
        print_physics(b);
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

// The physics stress run's top-level keys (after "hash"): steps, bodies, world_hash and
// step_phases, one object per stage with its ms per step.
static void json_physics(FILE* f, const vxk_bench* b)
{
    if (!b->physics_ran)
        return;
    fprintf(f, "\"steps\": %u, \"bodies\": %u, \"world_hash\": \"%016llx\", \"step_phases\": {",
            b->physics_steps, b->physics_bodies, (unsigned long long)b->physics_world_hash);
    for (int i = 0; i < b->stage_count; ++i) {
        fprintf(f, "%s", i ? ", " : "");
        json_string(f, b->stages[i].name);
        fprintf(f, ": {\"median_ms\": %.9g, \"p95_ms\": %.9g, \"mean_ms\": %.9g}",
                b->stages[i].median_ms, b->stages[i].p95_ms, b->stages[i].mean_ms);
    }
    fprintf(f, "}, ");
}

static int write_json(const vxk_bench* b, FILE* f, const char* path)
{
    fprintf(f, "{\"version\": \"%s\", \"threads\": %u, \"hash\": \"%016llx\", ",
            vxk_version_string(), b->threads, (unsigned long long)b->hash);
    json_physics(f, b);
    fprintf(f, "\"phases\": [");
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

// A row of a speedup table: its name and value in one run (0 past the run's rows).
typedef double row_value_fn(const vxk_bench* b, int row, const char** name);

static double phase_seconds(const vxk_bench* b, int row, const char** name)
{
    if (row >= b->phase_count)
        return 0.0;
    *name = b->phases[row].name;
    return b->phases[row].seconds;
}

static double stage_median(const vxk_bench* b, int row, const char** name)
{
    if (row >= b->stage_count)
        return 0.0;
    *name = b->stages[row].name;
    return b->stages[row].median_ms;
}

// Each row's value per thread count and its speedup over one thread (the first run's rows).
static void print_speedups(const char* title, const vxk_bench* runs, const uint32_t* counts,
                           int run_count, int rows, row_value_fn* value)
{
    printf("%-28s", title);
    for (int r = 0; r < run_count; ++r)
        printf(" %8ut %6s", counts[r], "x");
    printf("\n");
    for (int k = 0; k < rows; ++k) {
        const char* name = "";
        double base = value(&runs[0], k, &name);
        printf("%-28s", name);
        for (int r = 0; r < run_count; ++r) {
            const char* unused = NULL;
            double v = value(&runs[r], k, &unused);
            printf(" %9.4f %6.2f", v, v > 0 ? base / v : 0.0);
        }
        printf("\n");
    }
}

// The plot beside a scale JSON (its name with .png for .json, or .png added): each phase's
// speedup over one thread against the thread count, drawn by gnuplot (Debian gnuplot-nox).
// Without gnuplot it says so and writes nothing (exit code unchanged). 1 if gnuplot failed.
static int write_plot(const vxk_bench* runs, const uint32_t* counts, int run_count,
                      const char* json_path)
{
    char png[4096];
    size_t n = strlen(json_path);
    if (n >= 5 && strcmp(json_path + n - 5, ".json") == 0)
        snprintf(png, sizeof(png), "%.*s.png", (int)(n - 5), json_path);
    else
        snprintf(png, sizeof(png), "%s.png", json_path);
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "vxk: gnuplot not found (Debian: gnuplot-nox): no plot written, only %s\n",
                json_path);
        return 0;
    }
    FILE* g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "vxk: cannot run gnuplot: %s\n", strerror(errno));
        return 1;
    }
    // Phases with a measurable one-thread time, at most 12 lines.
    int shown[12], shown_count = 0;
    for (int p = 0; p < runs[0].phase_count && shown_count < 12; ++p)
        if (runs[0].phases[p].seconds > 1e-4)
            shown[shown_count++] = p;
    fprintf(g, "set terminal pngcairo size 1000,640 noenhanced\nset output '");
    for (const char* c = png; *c; ++c)
        fprintf(g, *c == '\'' ? "''" : "%c", *c);
    fprintf(g, "'\nset title 'vxk scale: speedup over one thread (vxk %s)'\n",
            vxk_version_string());
    fprintf(g,
            "set xlabel 'threads'\nset ylabel 'speedup'\nset key outside right\nset grid\n"
            "set logscale x 2\nset xrange [1:%u]\nset yrange [0:*]\n$speedups << EOD\n",
            counts[run_count - 1] > 1 ? counts[run_count - 1] : 2);
    for (int r = 0; r < run_count; ++r) {
        fprintf(g, "%u", counts[r]);
        for (int k = 0; k < shown_count; ++k) {
            int p = shown[k];
            double s = p < runs[r].phase_count ? runs[r].phases[p].seconds : 0.0;
            fprintf(g, " %.6g", s > 0 ? runs[0].phases[p].seconds / s : 0.0);
        }
        fprintf(g, "\n");
    }
    fprintf(g, "EOD\nplot x title 'ideal' with lines dashtype 2 lc rgb 'gray'");
    for (int k = 0; k < shown_count; ++k)
        fprintf(g, ", $speedups using 1:%d with linespoints title '%s'", k + 2,
                runs[0].phases[shown[k]].name);
    fprintf(g, "\n");
    int status = pclose(g);
    if (status != 0) {
        fprintf(stderr, "vxk: gnuplot failed (status %d): no plot %s\n", status, png);
        return 1;
    }
    printf("plot %s\n", png);
    return 0;
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
        b->skip_peers = true; // Bullet runs in `vxk bench`; scale compares our thread counts
        fprintf(stderr, "threads %u\n", t);
        run_phases(b, o);
        bench_finish(b);
        vxk_jobs_destroy(jobs);
        counts[run_count++] = t;
        if (t == max_threads)
            break;
    }
    print_speedups("phase (seconds, speedup)", runs, counts, run_count, runs[0].phase_count,
                   phase_seconds);
    if (runs[0].physics_ran)
        print_speedups("stage (median ms, speedup)", runs, counts, run_count, runs[0].stage_count,
                       stage_median);
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
            fprintf(json, "%s{\"threads\": %u, \"hash\": \"%016llx\", ", r ? ", " : "", counts[r],
                    (unsigned long long)runs[r].hash);
            json_physics(json, &runs[r]);
            fprintf(json, "\"phases\": [");
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
        if (rc == 0)
            rc |= write_plot(runs, counts, run_count, o->json_path);
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
