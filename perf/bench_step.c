// bench_step.c: the step benchmark against Bullet (perf/phase_step.c has the scenes): one JSON
// line per scene with the median ms per step of both engines (ours on one thread; with
// --threads N > 1 again on N threads), bullet_step_ratio = Bullet's median / ours, tunnelled
// and awake bodies, whether pyramids stood, and ours' vxk_world_hash.
// Usage: bench_step [--quick] [--threads N] [--scene drop|pyramid|large_pyramid|block] [--bodies N]
//                   [--steps N] [--seed N] [--bullet-sleep-only] [--only ours|bullet]
// Default: drop with 1,000 and with 10,000 bodies, pyramid and large_pyramid, 600 steps each.
// Both engines run twice: with their default sleeping (bullet_ms, ours_ms: bullet_step_ratio) and
// with every body kept awake (bullet_nosleep_ms, ours_nosleep_ms: bullet_nosleep_step_ratio, the
// same work on both sides; skipped with --bullet-sleep-only).
// --quick: drop with 1,000 bodies over 300 steps, pyramid over 600, large_pyramid over 120.
#include "bench.h"
#include "peer_bullet_step.h"

#include <stdio.h>
#include <string.h>

typedef struct scene_run {
    const char* scene;
    uint32_t bodies;
    uint32_t steps;
} scene_run;

static int usage(const char* program)
{
    fprintf(stderr,
            "usage: %s [--quick] [--threads N] [--scene drop|pyramid|large_pyramid|block] "
            "[--bodies N] [--steps N] [--seed N] [--bullet-sleep-only] [--only ours|bullet]\n",
            program);
    return 2;
}

static void print_line(const vxk_bench* b, const char* scene, uint64_t hash, bool have_hash)
{
    printf("{\"scene\": \"%s\"", scene);
    for (int i = 0; i < b->figure_count; ++i)
        printf(", \"%s\": %.6g", b->figures[i].key, b->figures[i].value);
    if (have_hash)
        printf(", \"ours_hash\": \"%016llx\"", (unsigned long long)hash);
    printf("}\n");
    fflush(stdout);
}

int main(int argc, char** argv)
{
    bool quick = false, nosleep = true, ours = true, bullet = true;
    uint32_t threads = 1, bodies = 0, steps = 0;
    uint64_t seed = 1;
    const char* only_scene = NULL;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n = 0;
        if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--bullet-sleep-only") == 0) {
            nosleep = false;
        } else if (strcmp(a, "--threads") == 0 && vxk_bench_parse_uint(v, 1024, &n)) {
            threads = (uint32_t)n;
            ++i;
        } else if (strcmp(a, "--bodies") == 0 && vxk_bench_parse_uint(v, 1000000, &n) && n) {
            bodies = (uint32_t)n;
            ++i;
        } else if (strcmp(a, "--steps") == 0 && vxk_bench_parse_uint(v, 1000000, &n) && n) {
            steps = (uint32_t)n;
            ++i;
        } else if (strcmp(a, "--seed") == 0 && vxk_bench_parse_uint(v, UINT64_MAX, &n)) {
            seed = n;
            ++i;
        } else if (strcmp(a, "--scene") == 0 && v &&
                   (strcmp(v, "drop") == 0 || strcmp(v, "pyramid") == 0 ||
                    strcmp(v, "large_pyramid") == 0 || strcmp(v, "block") == 0)) {
            only_scene = v;
            ++i;
        } else if (strcmp(a, "--only") == 0 && v &&
                   (strcmp(v, "ours") == 0 || strcmp(v, "bullet") == 0)) {
            ours = strcmp(v, "ours") == 0;
            bullet = !ours;
            ++i;
        } else {
            return usage(argv[0]);
        }
    }

    scene_run runs[5];
    int run_count = 0;
    if (!only_scene || strcmp(only_scene, "drop") == 0) {
        if (bodies) {
            runs[run_count++] = (scene_run){"drop", bodies, quick ? 300 : 600};
        } else {
            runs[run_count++] = (scene_run){"drop", 1000, quick ? 300 : 600};
            if (!quick)
                runs[run_count++] = (scene_run){"drop", 10000, 600};
        }
    }
    if (!only_scene || strcmp(only_scene, "pyramid") == 0)
        runs[run_count++] = (scene_run){"pyramid", 0, 600};
    if (!only_scene || strcmp(only_scene, "large_pyramid") == 0)
        runs[run_count++] = (scene_run){"large_pyramid", 0, quick ? 120 : 600};
    // The 10,000-box block: only when asked for (its figure is the scaling over threads).
    if (only_scene && strcmp(only_scene, "block") == 0)
        runs[run_count++] = (scene_run){"block", 0, 120};

    vxk_jobs* jobs = vxk_bench_jobs_create(threads);
    int code = 0;
    for (int r = 0; r < run_count; ++r) {
        static vxk_bench b;
        vxk_bench_init(&b, jobs, vxk_jobs_worker_count(jobs));
        b.quick = quick;
        b.seed = seed;
        vxk_step_options o = {0};
        o.scene = runs[r].scene;
        o.bodies = runs[r].bodies;
        o.steps = steps ? steps : runs[r].steps;
        o.jobs = jobs;
        o.seed = seed;
        o.bullet = bullet;
        o.bullet_nosleep = nosleep;
        o.ours = ours;
        uint64_t hash = 0;
        if (!vxk_step_scene_run(&b, &o, &hash))
            code = 1;
        vxk_bench_figure_add(&b, "threads", (double)b.threads);
        print_line(&b, runs[r].scene, hash, ours);
    }
    vxk_jobs_destroy(jobs);
    return code;
}
