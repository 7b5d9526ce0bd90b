// bench_bvh.c: the body BVH (seed 001): builds with binned SAH and with the article's midpoint
// split, refit after motion, SAH cost, and pair finding (one thread and a scheduler) over 1,000,
// 10,000 and 100,000 uniform boxes, against all-pairs brute force for the two smaller sizes.
//
// Then boxes in motion, frame by frame, against Bullet's btDbvtBroadphase (when Bullet is found)
// on the same boxes in the same run, one thread: the article's 101 cubes, then 100, 1,000,
// 10,000 and 100,000 boxes (same scene as above), each with a seeded random velocity of up to 1
// unit/s per axis, MOVE_FRAMES frames of 1/60 s. A frame's box is the body's box swept over the
// frame and fattened by 0.05 (vxk_bvh_swept_box, as a step would build it); both sides get the
// same boxes. Ours per frame: vxk_bvh_update (refit, rebuild when the SAH cost passes 1.2x the
// build's) + vxk_bvh_pairs on the calling thread. Bullet per frame: setAabb for every proxy +
// calculateOverlappingPairs. Untimed, every frame: Bullet's cache filtered to the pairs whose
// boxes overlap (its lazy removal keeps others for a while; see peer_bullet_broadphase.h) must
// equal our pairs, pair for pair (`pair_count_match`), and brute force too up to 1,000 boxes.
// Frame 1 is an untimed warm-up, then MOVE_FRAMES timed frames. Milliseconds are medians over the
// frames (`_mean_ms`: means); bullet_pairs_ratio = Bullet's median / ours (10,000 boxes).
// Bullet's frames are bursty: a proxy costs a containment test until its box leaves its leaf
// (fattened by 0.05), then a reinsertion and two tree searches, and boxes of similar speed leave
// together (`bullet_reinserted`: mean fraction of setAabb calls that reinserted). Its median
// frame is a quiet one; the means compare the total work.
//
// The incremental pair tracker (vxk_bvh_tracker_update, pad TRACKER_PAD = 0.1, on the calling
// thread) runs on the same frames and must output the same pairs (`pair_count_match`); it starts
// at frame 0, untimed, as our tree's build. `tracker_move_ms` (median) and `_mean_ms`,
// `tracker_escaped` (mean fraction of objects re-padded per frame), `tracker_candidates` (pairs
// whose padded boxes overlap, last frame), `tracker_bullet_pairs_ratio` = Bullet's median /
// the tracker's (and `_mean`); the `move_` figures and `bullet_pairs_ratio` stay those of the
// non-incremental update + pairs.
//
// Prints one JSON line (seconds are medians of 5 runs; brute force once per run). Usage:
// bench_bvh [--quick] [--threads N] (--quick: motion up to 1,000 boxes).
#include "bench.h"
#ifdef VXK_HAVE_BULLET
#include "peer_bullet_broadphase.h"
#endif

#include "body_bvh.h"
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 5

static float rand_unit(uint64_t* state)
{
    return (float)((vxk_splitmix64(state) >> 40) * (1.0 / 16777216.0));
}

// Boxes of half size 0.25..1 at a density that gives each a few neighbours at any count.
static void make_boxes(vxk_aabb* boxes, uint32_t n, uint64_t seed)
{
    float side = 4.0f * cbrtf((float)n);
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 c = {side * rand_unit(&seed), side * rand_unit(&seed), side * rand_unit(&seed)};
        float h = 0.25f + 0.75f * rand_unit(&seed);
        boxes[i] = (vxk_aabb){{c.x - h, c.y - h, c.z - h}, {c.x + h, c.y + h, c.z + h}};
    }
}

static uint64_t brute_pairs(const vxk_aabb* b, uint32_t n)
{
    uint64_t count = 0;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j)
            count += b[i].min.x <= b[j].max.x && b[j].min.x <= b[i].max.x &&
                     b[i].min.y <= b[j].max.y && b[j].min.y <= b[i].max.y &&
                     b[i].min.z <= b[j].max.z && b[j].min.z <= b[i].max.z;
    return count;
}

static bool measure_size(vxk_bench* b, uint32_t n)
{
    vxk_aabb* boxes = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_aabb* moved = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    make_boxes(boxes, n, 0xB7B7u + n);
    uint64_t motion = 99;
    for (uint32_t i = 0; i < n; ++i) {
        vxk_vec3 v = {rand_unit(&motion) - 0.5f, rand_unit(&motion) - 0.5f,
                      rand_unit(&motion) - 0.5f};
        moved[i] = vxk_bvh_swept_box(boxes[i], v, 1.0f, 0.05f);
    }
    double t[6][RUNS];
    double cost[2] = {0, 0}, refit_cost = 0;
    uint32_t pair_count = 0;
    bool ok = true;
    bool brute = n <= 10000;
    for (int r = 0; r < RUNS && ok; ++r) {
        for (int kind = 0; kind < 2 && ok; ++kind) {
            vxk_bvh bvh = {0};
            double t0 = vxk_bench_now();
            ok = vxk_bvh_build(&bvh, boxes, n, (vxk_bvh_build_kind)kind) == VXK_OK;
            t[kind][r] = vxk_bench_now() - t0;
            cost[kind] = vxk_bvh_cost(&bvh);
            if (ok && kind == VXK_BVH_BUILD_SAH) {
                t0 = vxk_bench_now();
                ok = vxk_bvh_refit(&bvh, moved) == VXK_OK;
                t[2][r] = vxk_bench_now() - t0;
                refit_cost = vxk_bvh_cost(&bvh);
                for (int threaded = 0; threaded < 2 && ok; ++threaded) {
                    vxk_bvh_pair* pairs = NULL;
                    t0 = vxk_bench_now();
                    ok = vxk_bvh_pairs(&bvh, threaded ? b->jobs : NULL, &pairs, &pair_count,
                                       UINT32_MAX) == VXK_OK;
                    t[3 + threaded][r] = vxk_bench_now() - t0;
                    if (ok)
                        vxk_bench_hash(b, pairs, (uint64_t)pair_count * sizeof(*pairs));
                    vxk_bvh_pairs_free(pairs, pair_count);
                }
            }
            vxk_bvh_free(&bvh);
        }
        t[5][r] = 0;
        if (ok && brute) {
            double t0 = vxk_bench_now();
            ok = brute_pairs(moved, n) == pair_count;
            t[5][r] = vxk_bench_now() - t0;
        }
    }
    free(boxes);
    free(moved);
    if (!ok)
        return false;
    static const char* const names[6] = {"build_sah_s", "build_midpoint_s", "refit_s",
                                         "pairs_1t_s",  "pairs_jobs_s",     "brute_s"};
    char key[48];
    for (int k = 0; k < (brute ? 6 : 5); ++k) {
        snprintf(key, sizeof(key), "n%u_%s", n, names[k]);
        vxk_bench_figure_add(b, key, vxk_bench_median(t[k], RUNS));
    }
    snprintf(key, sizeof(key), "n%u_cost_sah", n);
    vxk_bench_figure_add(b, key, cost[0]);
    snprintf(key, sizeof(key), "n%u_cost_midpoint", n);
    vxk_bench_figure_add(b, key, cost[1]);
    snprintf(key, sizeof(key), "n%u_cost_refit", n);
    vxk_bench_figure_add(b, key, refit_cost);
    snprintf(key, sizeof(key), "n%u_pairs", n);
    vxk_bench_figure_add(b, key, pair_count);
    return true;
}

#define MOVE_FRAMES 30
#define MOVE_DT (1.0f / 60.0f)
#define MOVE_REBUILD_RATIO 1.2
#define TRACKER_PAD 0.1f

_Static_assert(sizeof(vxk_aabb) == 6 * sizeof(float), "vxk_aabb is 6 floats for the peer");

#ifdef VXK_HAVE_BULLET
static int compare_pair(const void* x, const void* y)
{
    const vxk_bvh_pair* p = (const vxk_bvh_pair*)x;
    const vxk_bvh_pair* q = (const vxk_bvh_pair*)y;
    return p->a != q->a ? (p->a > q->a) - (p->a < q->a) : (p->b > q->b) - (p->b < q->b);
}
#endif

static double mean(const double* values, int n)
{
    double sum = 0;
    for (int i = 0; i < n; ++i)
        sum += values[i];
    return sum / n;
}

static void add_sized(vxk_bench* b, uint32_t n, const char* name, double value)
{
    char key[48];
    snprintf(key, sizeof(key), "n%u_%s", n, name);
    vxk_bench_figure_add(b, key, value);
}

// Boxes moving for MOVE_FRAMES frames: our update + pairs against Bullet's setAabb +
// calculateOverlappingPairs. *match stays true when every frame's pairs agree. Returns the
// ratio Bullet / ours of the median frame times (0 without Bullet), -1 on failure.
static double measure_motion(vxk_bench* b, uint32_t n, bool* match, double* tracker_ratio)
{
    vxk_aabb* start = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_aabb* frame = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_vec3* velocity = (vxk_vec3*)malloc(n * sizeof(vxk_vec3));
    make_boxes(start, n, 0xB7B7u + n);
    uint64_t motion = 0x5EED0 + n;
    for (uint32_t i = 0; i < n; ++i)
        velocity[i] = (vxk_vec3){2.0f * rand_unit(&motion) - 1.0f, 2.0f * rand_unit(&motion) - 1.0f,
                                 2.0f * rand_unit(&motion) - 1.0f};
        // Frame f's box: the start box moved by velocity * f * dt, swept over the frame, fattened.
#define MOVE_FRAME_BOXES(f)                                                                 \
    for (uint32_t i = 0; i < n; ++i) {                                                      \
        float s = (float)(f)*MOVE_DT;                                                       \
        vxk_vec3 v = velocity[i], d = {v.x * s, v.y * s, v.z * s};                          \
        vxk_aabb at = {{start[i].min.x + d.x, start[i].min.y + d.y, start[i].min.z + d.z},  \
                       {start[i].max.x + d.x, start[i].max.y + d.y, start[i].max.z + d.z}}; \
        frame[i] = vxk_bvh_swept_box(at, v, MOVE_DT, 0.05f);                                \
    }
    MOVE_FRAME_BOXES(0);
    double ours[MOVE_FRAMES], update[MOVE_FRAMES], pairs_t[MOVE_FRAMES];
    double brute_t[MOVE_FRAMES], tracked[MOVE_FRAMES], escaped[MOVE_FRAMES];
    bool brute = n <= 1000;
    uint32_t rebuilds = 0, pair_count = 0;
    bool ok = true, same = true;
    vxk_bvh bvh = {0};
    ok = vxk_bvh_build(&bvh, frame, n, VXK_BVH_BUILD_SAH) == VXK_OK;
    vxk_bvh_tracker tracker = {0};
    const vxk_bvh_pair* tracker_pairs = NULL;
    uint32_t tracker_count = 0;
    ok = ok && vxk_bvh_tracker_update(&tracker, NULL, &tracker_pairs, &tracker_count, frame, n,
                                      TRACKER_PAD) == VXK_OK;
#ifdef VXK_HAVE_BULLET
    double bullet[MOVE_FRAMES], bullet_set[MOVE_FRAMES], bullet_calc[MOVE_FRAMES];
    double reinserted[MOVE_FRAMES];
    uint32_t cache_pairs = 0;
    vxk_bvh_pair* peer_pairs = NULL;
    uint32_t peer_capacity = 0;
    vxk_bullet_broadphase* bp = vxk_bullet_broadphase_create(&frame[0].min.x, n);
    ok = ok && bp;
#endif
    // Frame 1 is a warm-up (Bullet reinserts every leaf: createProxy's leaves have no margin).
    for (int f = 1; f <= MOVE_FRAMES + 1 && ok; ++f) {
        MOVE_FRAME_BOXES(f);
        int k = f == 1 ? 0 : f - 2;
        bool rebuilt = false;
        vxk_bvh_pair* pairs = NULL;
        double t0 = vxk_bench_now();
        ok = vxk_bvh_update(&bvh, frame, n, MOVE_REBUILD_RATIO, &rebuilt) == VXK_OK;
        double t1 = vxk_bench_now();
        ok = ok && vxk_bvh_pairs(&bvh, NULL, &pairs, &pair_count, UINT32_MAX) == VXK_OK;
        double t2 = vxk_bench_now();
        update[k] = t1 - t0;
        pairs_t[k] = t2 - t1;
        ours[k] = t2 - t0;
        rebuilds += rebuilt;
        if (ok)
            vxk_bench_hash(b, pairs, (uint64_t)pair_count * sizeof(*pairs));
        t0 = vxk_bench_now();
        ok = ok && vxk_bvh_tracker_update(&tracker, NULL, &tracker_pairs, &tracker_count, frame, n,
                                          TRACKER_PAD) == VXK_OK;
        tracked[k] = vxk_bench_now() - t0;
        vxk_bvh_tracker_stats stats;
        vxk_bvh_tracker_get_stats(&tracker, &stats);
        escaped[k] = (double)stats.escaped / n;
        same = same && tracker_count == pair_count &&
               (pair_count == 0 || memcmp(tracker_pairs, pairs, pair_count * sizeof(*pairs)) == 0);
#ifdef VXK_HAVE_BULLET
        t0 = vxk_bench_now();
        vxk_bullet_broadphase_set_boxes(bp, &frame[0].min.x);
        t1 = vxk_bench_now();
        vxk_bullet_broadphase_calculate(bp);
        t2 = vxk_bench_now();
        bullet_set[k] = t1 - t0;
        bullet_calc[k] = t2 - t1;
        bullet[k] = t2 - t0;
        cache_pairs = vxk_bullet_broadphase_cache_pairs(bp);
        reinserted[k] = vxk_bullet_broadphase_reinserted(bp);
        if (cache_pairs > peer_capacity) {
            free(peer_pairs);
            peer_capacity = cache_pairs;
            peer_pairs = (vxk_bvh_pair*)malloc(peer_capacity * sizeof(vxk_bvh_pair));
            ok = ok && peer_pairs;
        }
        if (ok) {
            _Static_assert(sizeof(vxk_bvh_pair) == 2 * sizeof(uint32_t), "pairs are 2 ids");
            uint32_t got = vxk_bullet_broadphase_pairs(bp, &peer_pairs[0].a, peer_capacity);
            qsort(peer_pairs, got, sizeof(vxk_bvh_pair), compare_pair);
            same = same && got == pair_count &&
                   (got == 0 || memcmp(peer_pairs, pairs, got * sizeof(vxk_bvh_pair)) == 0);
        }
#endif
        vxk_bvh_pairs_free(pairs, pair_count);
        brute_t[k] = 0;
        if (ok && brute) {
            t0 = vxk_bench_now();
            uint64_t count = brute_pairs(frame, n);
            brute_t[k] = vxk_bench_now() - t0;
            same = same && count == pair_count;
        }
    }
#undef MOVE_FRAME_BOXES
    vxk_bvh_tracker_stats stats;
    vxk_bvh_tracker_get_stats(&tracker, &stats);
    size_t tracker_bytes = vxk_bvh_tracker_bytes(&tracker);
    vxk_bvh_tracker_free(&tracker);
    vxk_bvh_free(&bvh);
    free(start);
    free(frame);
    free(velocity);
#ifdef VXK_HAVE_BULLET
    vxk_bullet_broadphase_destroy(bp);
    free(peer_pairs);
#endif
    if (!ok)
        return -1;
    *match = *match && same;
    double ours_mean_ms = 1e3 * mean(ours, MOVE_FRAMES);
    double ours_ms = 1e3 * vxk_bench_median(ours, MOVE_FRAMES);
    add_sized(b, n, "move_ms", ours_ms);
    add_sized(b, n, "move_mean_ms", ours_mean_ms);
    add_sized(b, n, "move_update_ms", 1e3 * vxk_bench_median(update, MOVE_FRAMES));
    add_sized(b, n, "move_pairs_ms", 1e3 * vxk_bench_median(pairs_t, MOVE_FRAMES));
    add_sized(b, n, "move_rebuilds", rebuilds);
    add_sized(b, n, "move_pairs", pair_count);
    double tracker_ms = 1e3 * vxk_bench_median(tracked, MOVE_FRAMES);
    double tracker_mean_ms = 1e3 * mean(tracked, MOVE_FRAMES);
    add_sized(b, n, "tracker_move_ms", tracker_ms);
    add_sized(b, n, "tracker_move_mean_ms", tracker_mean_ms);
    add_sized(b, n, "tracker_escaped", mean(escaped, MOVE_FRAMES));
    add_sized(b, n, "tracker_candidates", stats.candidates);
    add_sized(b, n, "tracker_tree_rebuilds", stats.tree_rebuilds);
    add_sized(b, n, "tracker_bytes", (double)tracker_bytes);
    if (brute)
        add_sized(b, n, "move_brute_ms", 1e3 * vxk_bench_median(brute_t, MOVE_FRAMES));
    double ratio = 0;
#ifdef VXK_HAVE_BULLET
    double bullet_mean_ms = 1e3 * mean(bullet, MOVE_FRAMES);
    double bullet_ms = 1e3 * vxk_bench_median(bullet, MOVE_FRAMES);
    ratio = bullet_ms / ours_ms;
    add_sized(b, n, "bullet_move_ms", bullet_ms);
    add_sized(b, n, "bullet_move_mean_ms", bullet_mean_ms);
    add_sized(b, n, "bullet_pairs_ratio_mean", bullet_mean_ms / ours_mean_ms);
    add_sized(b, n, "bullet_set_aabb_ms", 1e3 * vxk_bench_median(bullet_set, MOVE_FRAMES));
    add_sized(b, n, "bullet_calculate_ms", 1e3 * vxk_bench_median(bullet_calc, MOVE_FRAMES));
    add_sized(b, n, "bullet_cache_pairs", cache_pairs);
    add_sized(b, n, "bullet_reinserted", mean(reinserted, MOVE_FRAMES));
    add_sized(b, n, "bullet_pairs_ratio", ratio);
    *tracker_ratio = bullet_ms / tracker_ms;
    add_sized(b, n, "tracker_bullet_pairs_ratio", *tracker_ratio);
    add_sized(b, n, "tracker_bullet_pairs_ratio_mean", bullet_mean_ms / tracker_mean_ms);
    add_sized(b, n, "pair_count_match", same);
#endif
    return ratio;
}

static void bench_bvh(vxk_bench* b)
{
    static const uint32_t sizes[3] = {1000, 10000, 100000};
    for (int s = 0; s < (b->quick ? 1 : 3); ++s)
        if (!measure_size(b, sizes[s]))
            vxk_bench_figure_add(b, "failed", sizes[s]);
    // The article's scene (101 cubes) first, then the sizes of the Bullet comparison.
    static const uint32_t moving[5] = {101, 100, 1000, 10000, 100000};
    bool match = true;
    for (int s = 0; s < (b->quick ? 3 : 5); ++s) {
        double tracker_ratio = 0;
        double ratio = measure_motion(b, moving[s], &match, &tracker_ratio);
        if (ratio < 0) {
            vxk_bench_figure_add(b, "failed", moving[s]);
        } else if (moving[s] == 10000) {
            vxk_bench_figure_add(b, "bullet_pairs_ratio", ratio);
            vxk_bench_figure_add(b, "tracker_bullet_pairs_ratio", tracker_ratio);
        }
    }
#ifdef VXK_HAVE_BULLET
    vxk_bench_figure_add(b, "pair_count_match", match);
#endif
}

int main(int argc, char** argv)
{
    static vxk_bench_phase_fn* const phases[] = {bench_bvh};
    return vxk_bench_main(argc, argv, phases, 1, 0);
}
