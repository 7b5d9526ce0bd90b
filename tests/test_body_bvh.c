// test_body_bvh.c: the body BVH against brute force (all pairs i < j whose closed boxes meet, all
// boxes meeting a query box) on seeded random scenes, for both build kinds, after refits and
// updates, with 1, 2, 3 and 8 workers; tree invariants; errors and out of memory. The incremental
// pair tracker against brute force over moving scenes (teleports, fast boxes, count changes,
// remapped ids), on any worker count, without allocation in steady state, and out of memory.
#include "body_bvh.h"

#include "harness.h"

#include <vxk/jobs.h>

#define SCENES 1000
#define LEAF_MAX 4 // body_bvh.c's

static bool overlaps(const vxk_aabb* a, const vxk_aabb* b)
{
    return a->min.x <= b->max.x && b->min.x <= a->max.x && a->min.y <= b->max.y &&
           b->min.y <= a->max.y && a->min.z <= b->max.z && b->min.z <= a->max.z;
}

static bool contains(const vxk_aabb* outer, const vxk_aabb* inner)
{
    return outer->min.x <= inner->min.x && outer->min.y <= inner->min.y &&
           outer->min.z <= inner->min.z && outer->max.x >= inner->max.x &&
           outer->max.y >= inner->max.y && outer->max.z >= inner->max.z;
}

static vxk_aabb box_at(vxk_vec3 c, vxk_vec3 half)
{
    return (vxk_aabb){{c.x - half.x, c.y - half.y, c.z - half.z},
                      {c.x + half.x, c.y + half.y, c.z + half.z}};
}

static vxk_vec3 rand_vec(uint64_t* rng, float lo, float hi)
{
    return (vxk_vec3){vxk_test_randf(rng, lo, hi), vxk_test_randf(rng, lo, hi),
                      vxk_test_randf(rng, lo, hi)};
}

// Scene kinds: 0 uniform, 1 clusters, 2 outliers, 3 zero-size boxes, 4 huge boxes, 5 duplicates,
// 6 all of them mixed.
static void make_scene(vxk_aabb* boxes, uint32_t n, int kind, uint64_t* rng)
{
    vxk_vec3 centers[4];
    for (int c = 0; c < 4; ++c)
        centers[c] = rand_vec(rng, -100.0f, 100.0f);
    for (uint32_t i = 0; i < n; ++i) {
        int k = kind == 6 ? (int)(vxk_test_rand(rng) % 6) : kind;
        vxk_vec3 half = rand_vec(rng, 0.0f, 4.0f);
        switch (k) {
        case 0: boxes[i] = box_at(rand_vec(rng, -50.0f, 50.0f), half); break;
        case 1: {
            vxk_vec3 c = centers[vxk_test_rand(rng) % 4], d = rand_vec(rng, -3.0f, 3.0f);
            boxes[i] = box_at((vxk_vec3){c.x + d.x, c.y + d.y, c.z + d.z}, half);
            break;
        }
        case 2:
            boxes[i] = box_at(vxk_test_rand(rng) % 8 == 0 ? rand_vec(rng, -1e6f, 1e6f)
                                                          : rand_vec(rng, -20.0f, 20.0f),
                              half);
            break;
        case 3: {
            vxk_vec3 p = rand_vec(rng, -10.0f, 10.0f);
            p = (vxk_vec3){floorf(p.x), floorf(p.y), floorf(p.z)}; // points that meet exactly
            boxes[i] = (vxk_aabb){p, p};
            break;
        }
        case 4:
            boxes[i] = vxk_test_rand(rng) % 16 == 0
                           ? box_at(rand_vec(rng, -1e30f, 1e30f), rand_vec(rng, 1e30f, 1e38f))
                           : box_at(rand_vec(rng, -50.0f, 50.0f), half);
            break;
        default:
            boxes[i] = i > 0 && vxk_test_rand(rng) % 2 ? boxes[vxk_test_rand(rng) % i]
                                                       : box_at(rand_vec(rng, -8.0f, 8.0f), half);
            break;
        }
    }
}

// Walks the tree: boxes contain children and objects, every object in exactly one leaf, children
// after their parent, siblings in one line, leaves small, the recorded depth right.
static int check_node(const vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t index, uint32_t depth,
                      uint8_t* seen, uint32_t* max_depth)
{
    VXK_CHECK(index < bvh->node_count && index != 1);
    const vxk_bvh_node* node = &bvh->nodes[index];
    if (depth > *max_depth)
        *max_depth = depth;
    if (node->count) {
        VXK_CHECK_MSG(node->count <= LEAF_MAX, "leaf %u holds %u", index, node->count);
        VXK_CHECK((uint64_t)node->left_first + node->count <= bvh->object_count);
        for (uint32_t k = node->left_first; k < node->left_first + node->count; ++k) {
            uint32_t id = bvh->object_ids[k];
            VXK_CHECK(id < bvh->object_count);
            VXK_CHECK_MSG(!seen[id], "object %u in two leaves", id);
            seen[id] = 1;
            VXK_CHECK_MSG(contains(&node->box, &boxes[id]), "leaf %u misses object %u", index, id);
        }
        return 0;
    }
    uint32_t l = node->left_first;
    VXK_CHECK_MSG(l > index && l % 2 == 0 && l + 1 < bvh->node_count, "node %u children %u", index,
                  l);
    VXK_CHECK(contains(&node->box, &bvh->nodes[l].box));
    VXK_CHECK(contains(&node->box, &bvh->nodes[l + 1].box));
    if (check_node(bvh, boxes, l, depth + 1, seen, max_depth) ||
        check_node(bvh, boxes, l + 1, depth + 1, seen, max_depth))
        return 1;
    return 0;
}

static int check_tree(const vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t n)
{
    VXK_CHECK_EQ_U64(bvh->object_count, n);
    if (n == 0)
        return 0;
    VXK_CHECK(((uintptr_t)bvh->nodes & 63) == 0);
    VXK_CHECK(bvh->node_count <= 2 * n);
    uint8_t* seen = (uint8_t*)calloc(n, 1);
    uint32_t max_depth = 0;
    int r = check_node(bvh, boxes, 0, 0, seen, &max_depth);
    for (uint32_t i = 0; r == 0 && i < n; ++i)
        if (!seen[i]) {
            fprintf(stderr, "object %u in no leaf\n", i);
            r = 1;
        }
    free(seen);
    VXK_CHECK(r == 0);
    VXK_CHECK_EQ_U64(max_depth, bvh->depth);
    return 0;
}

static vxk_bvh_pair* brute_pairs(const vxk_aabb* boxes, uint32_t n, uint32_t* count)
{
    uint32_t cap = 64, k = 0;
    vxk_bvh_pair* pairs = (vxk_bvh_pair*)malloc(cap * sizeof(vxk_bvh_pair));
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = i + 1; j < n; ++j)
            if (overlaps(&boxes[i], &boxes[j])) {
                if (k == cap)
                    pairs = (vxk_bvh_pair*)realloc(pairs, (cap *= 2) * sizeof(vxk_bvh_pair));
                pairs[k++] = (vxk_bvh_pair){i, j};
            }
    *count = k;
    return pairs;
}

static int check_pairs(const vxk_bvh* bvh, vxk_jobs* jobs, const vxk_aabb* boxes, uint32_t n)
{
    uint32_t expected_count, count = 0;
    vxk_bvh_pair* expected = brute_pairs(boxes, n, &expected_count);
    vxk_bvh_pair* pairs = NULL;
    vxk_status st = vxk_bvh_pairs(bvh, jobs, &pairs, &count, UINT32_MAX);
    int r = st != VXK_OK || count != expected_count ||
            (count && memcmp(pairs, expected, count * sizeof(vxk_bvh_pair)) != 0);
    if (r)
        fprintf(stderr, "pairs: status %d, %u pairs, brute force %u\n", (int)st, count,
                expected_count);
    vxk_bvh_pairs_free(pairs, count);
    free(expected);
    VXK_CHECK(r == 0);
    return 0;
}

static int check_queries(const vxk_bvh* bvh, const vxk_aabb* boxes, uint32_t n, uint64_t* rng)
{
    uint32_t* ids = (uint32_t*)malloc((n + 1) * sizeof(uint32_t));
    for (int q = 0; q < 4; ++q) {
        vxk_aabb box = q == 0 && n ? boxes[vxk_test_rand(rng) % n]
                                   : box_at(rand_vec(rng, -60.0f, 60.0f), rand_vec(rng, 0, 20));
        uint32_t count = 0, k = 0;
        vxk_status st = vxk_bvh_query(bvh, ids, n + 1, &count, box);
        int r = st != VXK_OK;
        for (uint32_t i = 0; i < n && !r; ++i)
            if (overlaps(&boxes[i], &box))
                r = k >= count || ids[k++] != i;
        if (r || k != count) {
            fprintf(stderr, "query %d: status %d, %u ids, brute force differs at %u\n", q, (int)st,
                    count, k);
            free(ids);
            return 1;
        }
    }
    free(ids);
    return 0;
}

static void move_boxes(vxk_aabb* boxes, uint32_t n, uint64_t* rng, float speed)
{
    for (uint32_t i = 0; i < n; ++i) {
        if (boxes[i].max.x - boxes[i].min.x > 1e20f)
            continue; // huge boxes stay: moving them by a few units changes nothing
        vxk_vec3 v = rand_vec(rng, -speed, speed);
        boxes[i] = vxk_bvh_swept_box(boxes[i], v, 0.5f, vxk_test_randf(rng, 0.0f, 0.1f));
    }
}

static int test_random_scenes(void)
{
    uint64_t rng = vxk_test_seed(0xB0D1B7u);
    uint32_t sah_better = 0, compared = 0;
    vxk_aabb* boxes = (vxk_aabb*)malloc(200 * sizeof(vxk_aabb));
    for (int s = 0; s < SCENES; ++s) {
        uint32_t n = (uint32_t)(vxk_test_rand(&rng) % 200);
        make_scene(boxes, n, s % 7, &rng);
        double cost[2] = {0, 0};
        for (int kind = 0; kind < 2; ++kind) {
            vxk_aabb moved[200];
            memcpy(moved, boxes, n * sizeof(vxk_aabb));
            vxk_bvh bvh = {0};
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, moved, n, (vxk_bvh_build_kind)kind), VXK_OK);
            cost[kind] = vxk_bvh_cost(&bvh);
            VXK_CHECK(cost[kind] == bvh.build_cost);
            if (check_tree(&bvh, moved, n) || check_pairs(&bvh, NULL, moved, n) ||
                check_queries(&bvh, moved, n, &rng)) {
                fprintf(stderr, "scene %d (kind %d, %u boxes), build kind %d\n", s, s % 7, n, kind);
                return 1;
            }
            for (int step = 0; step < 3; ++step) {
                move_boxes(moved, n, &rng, 8.0f);
                bool rebuilt = false;
                vxk_status st = step == 2 ? vxk_bvh_update(&bvh, moved, n, 1.2, &rebuilt)
                                          : vxk_bvh_refit(&bvh, moved);
                VXK_CHECK_EQ_INT(st, VXK_OK);
                if (check_tree(&bvh, moved, n) || check_pairs(&bvh, NULL, moved, n) ||
                    check_queries(&bvh, moved, n, &rng)) {
                    fprintf(stderr, "scene %d (kind %d, %u boxes), build kind %d, step %d\n", s,
                            s % 7, n, kind, step);
                    return 1;
                }
                if (rebuilt)
                    VXK_CHECK(bvh.build_cost == vxk_bvh_cost(&bvh));
            }
            vxk_bvh_free(&bvh);
        }
        if (n >= 16) {
            ++compared;
            sah_better += cost[VXK_BVH_BUILD_SAH] <= cost[VXK_BVH_BUILD_MIDPOINT];
        }
    }
    free(boxes);
    // Reported, not asserted: binned SAH is a heuristic and may lose on a few scenes.
    fprintf(stderr, "  SAH cost <= midpoint cost on %u of %u scenes with 16+ boxes\n", sah_better,
            compared);
    return 0;
}

static vxk_jobs* make_jobs(uint32_t workers)
{
    vxk_jobs_def def = vxk_default_jobs_def();
    def.worker_count = workers;
    def.max_jobs = 1u << 16;
    vxk_jobs* jobs = NULL;
    return vxk_jobs_create(&def, &jobs) == 0 ? jobs : NULL;
}

static int test_worker_counts(void)
{
    static const uint32_t workers[4] = {1, 2, 3, 8};
    vxk_jobs* jobs[4];
    for (int w = 0; w < 4; ++w) {
        jobs[w] = make_jobs(workers[w]);
        VXK_CHECK(jobs[w] != NULL);
    }
    uint64_t rng = vxk_test_seed(0x7EA7u);
    uint32_t n = 3000;
    vxk_aabb* boxes = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    for (int s = 0; s < 7; ++s) {
        make_scene(boxes, n, s, &rng);
        for (int kind = 0; kind < 2; ++kind) {
            vxk_bvh bvh = {0};
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, n, (vxk_bvh_build_kind)kind), VXK_OK);
            VXK_CHECK(check_tree(&bvh, boxes, n) == 0);
            vxk_bvh_pair* reference = NULL;
            uint32_t reference_count = 0;
            VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &reference, &reference_count, UINT32_MAX),
                             VXK_OK);
            VXK_CHECK(check_pairs(&bvh, NULL, boxes, n) == 0);
            for (int w = 0; w < 4; ++w) {
                vxk_bvh_pair* pairs = NULL;
                uint32_t count = 0;
                VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, jobs[w], &pairs, &count, UINT32_MAX), VXK_OK);
                VXK_CHECK_EQ_U64(count, reference_count);
                VXK_CHECK_MSG(!count || memcmp(pairs, reference, count * sizeof(*pairs)) == 0,
                              "scene %d kind %d: %u workers differ", s, kind, workers[w]);
                vxk_bvh_pairs_free(pairs, count);
            }
            vxk_bvh_pairs_free(reference, reference_count);
            vxk_bvh_free(&bvh);
        }
    }
    free(boxes);
    for (int w = 0; w < 4; ++w)
        vxk_jobs_destroy(jobs[w]);
    return 0;
}

// Midpoint splits of exponentially spaced boxes peel one box per level: a tree deeper than the
// traversal's local stack.
static void deep_scene(vxk_aabb* boxes, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        float x = ldexpf(1.0f, (int)i);
        boxes[i] = (vxk_aabb){{x, 0, 0}, {x * 1.5f, 1, 1}};
    }
}

static int test_deep_tree(void)
{
    vxk_aabb boxes[100];
    deep_scene(boxes, 100);
    vxk_bvh bvh = {0};
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, 100, VXK_BVH_BUILD_MIDPOINT), VXK_OK);
    VXK_CHECK_MSG(bvh.depth > 64, "depth %u", bvh.depth);
    uint64_t rng = vxk_test_seed(3);
    VXK_CHECK(check_tree(&bvh, boxes, 100) == 0);
    VXK_CHECK(check_pairs(&bvh, NULL, boxes, 100) == 0);
    VXK_CHECK(check_queries(&bvh, boxes, 100, &rng) == 0);
    vxk_bvh_free(&bvh);
    return 0;
}

static int test_swept_box(void)
{
    vxk_aabb b = {{0, 0, 0}, {1, 2, 3}};
    vxk_aabb s = vxk_bvh_swept_box(b, (vxk_vec3){2, -4, 0}, 0.5f, 0.25f);
    VXK_CHECK(s.min.x == -0.25f && s.max.x == 2.25f);
    VXK_CHECK(s.min.y == -2.25f && s.max.y == 2.25f);
    VXK_CHECK(s.min.z == -0.25f && s.max.z == 3.25f);
    return 0;
}

#define SAME_TREE(bvh, copy)                                                     \
    do {                                                                         \
        VXK_CHECK(memcmp(&(bvh), &(copy), sizeof(bvh)) == 0);                    \
        VXK_CHECK(memcmp((bvh).nodes, nodes_before, sizeof(nodes_before)) == 0); \
    } while (0)

static int test_errors(void)
{
    vxk_aabb boxes[8];
    uint64_t rng = vxk_test_seed(11);
    make_scene(boxes, 8, 0, &rng);
    vxk_bvh bvh = {0};
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, 8, VXK_BVH_BUILD_SAH), VXK_OK);
    vxk_bvh copy = bvh;
    vxk_bvh_node nodes_before[16];
    memcpy(nodes_before, bvh.nodes, sizeof(nodes_before));

    VXK_CHECK_EQ_INT(vxk_bvh_build(NULL, boxes, 8, VXK_BVH_BUILD_SAH), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, NULL, 8, VXK_BVH_BUILD_SAH), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, 8, (vxk_bvh_build_kind)7),
                     VXK_ERR_INVALID_ARGUMENT);
    SAME_TREE(bvh, copy);
    for (int k = 0; k < SPECIAL_FLOATS; ++k) {
        float f = special_float(k);
        if (isfinite(f))
            continue;
        for (int field = 0; field < 6; ++field) {
            vxk_aabb bad[8];
            memcpy(bad, boxes, sizeof(bad));
            ((float*)&bad[5])[field] = f;
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, bad, 8, VXK_BVH_BUILD_SAH), VXK_ERR_NOT_FINITE);
            VXK_CHECK_EQ_INT(vxk_bvh_refit(&bvh, bad), VXK_ERR_NOT_FINITE);
            VXK_CHECK_EQ_INT(vxk_bvh_update(&bvh, bad, 8, 2.0, NULL), VXK_ERR_NOT_FINITE);
            SAME_TREE(bvh, copy);
            uint32_t ids[8], count = 7;
            VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 8, &count, bad[5]), VXK_ERR_NOT_FINITE);
            VXK_CHECK_EQ_U64(count, 0);
        }
    }
    for (int axis = 0; axis < 3; ++axis) {
        vxk_aabb bad[8];
        memcpy(bad, boxes, sizeof(bad));
        ((float*)&bad[2].min)[axis] = ((float*)&bad[2].max)[axis] + 1.0f;
        VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, bad, 8, VXK_BVH_BUILD_MIDPOINT),
                         VXK_ERR_INVALID_ARGUMENT);
        VXK_CHECK_EQ_INT(vxk_bvh_refit(&bvh, bad), VXK_ERR_INVALID_ARGUMENT);
        SAME_TREE(bvh, copy);
        uint32_t ids[8], count;
        VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 8, &count, bad[2]), VXK_ERR_INVALID_ARGUMENT);
    }
    VXK_CHECK_EQ_INT(vxk_bvh_refit(NULL, boxes), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_refit(&bvh, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_update(&bvh, boxes, 8, 0.5, NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_update(&bvh, boxes, 8, f_nan(), NULL), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_update(&bvh, boxes, 8, INFINITY, NULL), VXK_ERR_INVALID_ARGUMENT);
    SAME_TREE(bvh, copy);

    // Queries: null arguments, capacity.
    uint32_t ids[8], count = 5;
    vxk_aabb all = {{-1e9f, -1e9f, -1e9f}, {1e9f, 1e9f, 1e9f}};
    VXK_CHECK_EQ_INT(vxk_bvh_query(NULL, ids, 8, &count, all), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 8, NULL, all), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, NULL, 8, &count, all), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 3, &count, all), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(count, 8);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, NULL, 0, &count, all), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 8, &count, all), VXK_OK);
    for (uint32_t i = 0; i < 8; ++i)
        VXK_CHECK_EQ_U64(ids[i], i);

    // Pairs: null arguments, max_pairs.
    vxk_aabb same[8];
    for (int i = 0; i < 8; ++i)
        same[i] = boxes[0];
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, same, 8, VXK_BVH_BUILD_SAH), VXK_OK);
    vxk_bvh_pair* pairs = (vxk_bvh_pair*)&count;
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(NULL, NULL, &pairs, &count, 100), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(pairs == NULL && count == 0);
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, NULL, &count, 100), VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &pairs, NULL, 100), VXK_ERR_INVALID_ARGUMENT);
    size_t base = vxk_allocated_bytes();
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &pairs, &count, 27), VXK_ERR_CAPACITY);
    VXK_CHECK(pairs == NULL && count == 0);
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &pairs, &count, 0), VXK_ERR_CAPACITY);
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &pairs, &count, 28), VXK_OK);
    VXK_CHECK_EQ_U64(count, 28);
    vxk_bvh_pairs_free(pairs, count);

    // Empty and single-object trees; a count change in update rebuilds.
    VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, NULL, 0, VXK_BVH_BUILD_SAH), VXK_OK);
    VXK_CHECK(vxk_bvh_cost(&bvh) == 0.0);
    VXK_CHECK_EQ_INT(vxk_bvh_refit(&bvh, NULL), VXK_OK);
    VXK_CHECK_EQ_INT(vxk_bvh_query(&bvh, ids, 8, &count, all), VXK_OK);
    VXK_CHECK_EQ_U64(count, 0);
    VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &pairs, &count, 10), VXK_OK);
    VXK_CHECK(pairs == NULL && count == 0);
    bool rebuilt = false;
    VXK_CHECK_EQ_INT(vxk_bvh_update(&bvh, boxes, 1, 2.0, &rebuilt), VXK_OK);
    VXK_CHECK(rebuilt && bvh.object_count == 1);
    VXK_CHECK(check_tree(&bvh, boxes, 1) == 0);
    vxk_bvh_free(&bvh);
    vxk_bvh_free(NULL);
    VXK_CHECK(vxk_bvh_cost(NULL) == 0.0);
    return 0;
}

static int test_oom(void)
{
    vxk_aabb boxes[120];
    uint64_t rng = vxk_test_seed(21);
    make_scene(boxes, 120, 6, &rng);
    size_t base = vxk_allocated_bytes();
    vxk_bvh bvh;
    // A fresh build.
    OOM_SWEEP(
        memset(&bvh, 0, sizeof(bvh)), vxk_bvh_build(&bvh, boxes, 120, VXK_BVH_BUILD_SAH),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(bvh.nodes == NULL && bvh.object_count == 0);
            } else {
                VXK_CHECK(check_tree(&bvh, boxes, 120) == 0);
            }
        },
        {
            vxk_bvh_free(&bvh);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    // A rebuild over a larger set keeps the old tree when it fails.
    vxk_aabb deep[100];
    deep_scene(deep, 100);
    OOM_SWEEP(
        {
            memset(&bvh, 0, sizeof(bvh));
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, 50, VXK_BVH_BUILD_MIDPOINT), VXK_OK);
        },
        vxk_bvh_build(&bvh, boxes, 120, VXK_BVH_BUILD_SAH),
        {
            if (st != VXK_OK) {
                VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                VXK_CHECK(check_tree(&bvh, boxes, 50) == 0);
                VXK_CHECK(check_pairs(&bvh, NULL, boxes, 50) == 0);
            } else {
                VXK_CHECK(check_tree(&bvh, boxes, 120) == 0);
            }
        },
        {
            vxk_bvh_free(&bvh);
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
        });
    // Pairs and queries, on a shallow and on a deep tree (whose traversal stack is allocated).
    for (int t = 0; t < 2; ++t) {
        memset(&bvh, 0, sizeof(bvh));
        if (t == 0)
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, 120, VXK_BVH_BUILD_SAH), VXK_OK);
        else
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, deep, 100, VXK_BVH_BUILD_MIDPOINT), VXK_OK);
        size_t tree_bytes = vxk_allocated_bytes();
        vxk_bvh_pair* pairs;
        uint32_t count;
        OOM_SWEEP((pairs = NULL, count = 0), vxk_bvh_pairs(&bvh, NULL, &pairs, &count, UINT32_MAX),
                  {
                      if (st != VXK_OK) {
                          VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                          VXK_CHECK(pairs == NULL && count == 0);
                      }
                  },
                  {
                      vxk_bvh_pairs_free(pairs, count);
                      VXK_CHECK_EQ_U64(vxk_allocated_bytes(), tree_bytes);
                  });
        uint32_t ids[120];
        vxk_aabb all = {{-1e9f, -1e9f, -1e9f}, {1e38f, 1e9f, 1e9f}};
        OOM_SWEEP(
            count = 0, vxk_bvh_query(&bvh, ids, 120, &count, all),
            {
                if (st != VXK_OK)
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
            },
            VXK_CHECK_EQ_U64(vxk_allocated_bytes(), tree_bytes));
        vxk_bvh_free(&bvh);
    }
    VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
    return 0;
}

// ---- the incremental pair tracker
// ----------------------------------------------------------------

static int check_tracker_pairs(const vxk_bvh_pair* pairs, uint32_t count, const vxk_aabb* boxes,
                               uint32_t n, const char* what, int scene, int frame)
{
    uint32_t expected_count;
    vxk_bvh_pair* expected = brute_pairs(boxes, n, &expected_count);
    int r = count != expected_count ||
            (count && memcmp(pairs, expected, count * sizeof(vxk_bvh_pair)) != 0);
    if (r)
        fprintf(stderr, "%s: scene %d frame %d: %u pairs, brute force %u (%u boxes)\n", what, scene,
                frame, count, expected_count, n);
    free(expected);
    return r;
}

// One frame of motion: boxes move by their velocities; some teleport, some speed up, some change
// size (zero-size boxes stay points, huge boxes stay).
static void move_tracked(vxk_aabb* boxes, vxk_vec3* velocity, uint32_t n, uint64_t* rng)
{
    for (uint32_t i = 0; i < n; ++i) {
        vxk_aabb* b = &boxes[i];
        if (b->max.x - b->min.x > 1e20f)
            continue;
        uint32_t event = (uint32_t)(vxk_test_rand(rng) % 200);
        if (event == 0) { // teleport
            vxk_vec3 c = rand_vec(rng, -60.0f, 60.0f);
            vxk_vec3 half = {(b->max.x - b->min.x) * 0.5f, (b->max.y - b->min.y) * 0.5f,
                             (b->max.z - b->min.z) * 0.5f};
            *b = box_at(c, half);
            continue;
        }
        if (event == 1) // a sudden new velocity, fast or still
            velocity[i] =
                vxk_test_rand(rng) % 2 ? rand_vec(rng, -20.0f, 20.0f) : (vxk_vec3){0, 0, 0};
        if (event == 2 && b->max.x > b->min.x) { // grows on one side
            b->max.x += vxk_test_randf(rng, 0.0f, 2.0f);
            b->min.y -= vxk_test_randf(rng, 0.0f, 2.0f);
        }
        vxk_vec3 v = velocity[i];
        *b = (vxk_aabb){{b->min.x + v.x, b->min.y + v.y, b->min.z + v.z},
                        {b->max.x + v.x, b->max.y + v.y, b->max.z + v.z}};
    }
}

static void random_velocities(vxk_vec3* velocity, uint32_t first, uint32_t n, uint64_t* rng)
{
    for (uint32_t i = first; i < n; ++i) {
        float speed = vxk_test_rand(rng) % 4 == 0 ? 3.0f : 0.2f;
        velocity[i] = rand_vec(rng, -speed, speed);
    }
}

#define TRACKER_SCENES 300
#define TRACKER_FRAMES 24
#define TRACKER_MAX 400

static int test_tracker_scenes(void)
{
    uint64_t rng = vxk_test_seed(0x77AC3u);
    vxk_aabb* boxes = (vxk_aabb*)malloc(TRACKER_MAX * sizeof(vxk_aabb));
    vxk_vec3* velocity = (vxk_vec3*)malloc(TRACKER_MAX * sizeof(vxk_vec3));
    static const float pads[4] = {0.0f, 0.05f, 0.5f, 4.0f};
    uint32_t restarts_seen = 0, rebuilds_seen = 0, escaped_seen = 0;
    for (int s = 0; s < TRACKER_SCENES; ++s) {
        uint32_t n = (uint32_t)(vxk_test_rand(&rng) % 300);
        if (s % 50 == 49) {
            n = 100;
            deep_scene(boxes, n);
        } else {
            make_scene(boxes, n, s % 7, &rng);
        }
        random_velocities(velocity, 0, n, &rng);
        float pad = pads[s % 4];
        vxk_bvh_tracker tracker = {0};
        for (int f = 0; f < TRACKER_FRAMES; ++f) {
            uint32_t event = (uint32_t)(vxk_test_rand(&rng) % 16);
            if (event == 0 && n < TRACKER_MAX - 20) { // objects added
                uint32_t added = 1 + (uint32_t)(vxk_test_rand(&rng) % 20);
                make_scene(boxes + n, added, s % 7, &rng);
                random_velocities(velocity, n, n + added, &rng);
                n += added;
            } else if (event == 1 && n > 0) { // objects removed
                n -= 1 + (uint32_t)(vxk_test_rand(&rng) % (n < 20 ? n : 20));
            } else if (event == 2 && n > 1) { // ids remapped: two swapped
                uint32_t i = (uint32_t)(vxk_test_rand(&rng) % n), j = (i + 1) % n;
                vxk_aabb b = boxes[i];
                boxes[i] = boxes[j];
                boxes[j] = b;
                vxk_bvh_tracker_reset(&tracker);
            } else if (event == 3) {
                pad = pads[vxk_test_rand(&rng) % 4];
            }
            const vxk_bvh_pair* pairs = NULL;
            uint32_t count = 0;
            VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, n, pad),
                             VXK_OK);
            if (check_tracker_pairs(pairs, count, boxes, n, "tracker", s, f))
                return 1;
            vxk_bvh_tracker_stats stats;
            vxk_bvh_tracker_get_stats(&tracker, &stats);
            VXK_CHECK(stats.pairs == count && stats.candidates >= count);
            VXK_CHECK_EQ_U64(stats.frames, (uint64_t)f + 1);
            escaped_seen += stats.escaped < n ? stats.escaped : 0;
            move_tracked(boxes, velocity, n, &rng);
        }
        vxk_bvh_tracker_stats stats;
        vxk_bvh_tracker_get_stats(&tracker, &stats);
        restarts_seen += stats.restarts;
        rebuilds_seen += stats.tree_rebuilds;
        vxk_bvh_tracker_free(&tracker);
        VXK_CHECK(tracker.candidates == NULL && tracker.count == 0);
    }
    free(boxes);
    free(velocity);
    VXK_CHECK(escaped_seen > 0 && rebuilds_seen > 0 && restarts_seen > TRACKER_SCENES);
    return 0;
}

// The same frames through trackers on 1, 2, 3 and 8 workers and on the calling thread: identical
// pairs, equal to vxk_bvh_pairs over the same boxes.
static int test_tracker_workers(void)
{
    static const uint32_t workers[4] = {1, 2, 3, 8};
    vxk_jobs* jobs[5] = {NULL};
    for (int w = 0; w < 4; ++w) {
        jobs[w + 1] = make_jobs(workers[w]);
        VXK_CHECK(jobs[w + 1] != NULL);
    }
    uint64_t rng = vxk_test_seed(0x3017u);
    uint32_t n = 2000;
    vxk_aabb* boxes = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_vec3* velocity = (vxk_vec3*)malloc(n * sizeof(vxk_vec3));
    for (int s = 0; s < 7; ++s) {
        make_scene(boxes, n, s, &rng);
        random_velocities(velocity, 0, n, &rng);
        vxk_bvh_tracker trackers[5];
        memset(trackers, 0, sizeof(trackers));
        for (int f = 0; f < 5; ++f) {
            uint32_t m = f == 3 ? n - 7 : n; // a count change: every tracker starts over
            vxk_bvh bvh = {0};
            vxk_bvh_pair* reference = NULL;
            uint32_t reference_count = 0;
            VXK_CHECK_EQ_INT(vxk_bvh_build(&bvh, boxes, m, VXK_BVH_BUILD_SAH), VXK_OK);
            VXK_CHECK_EQ_INT(vxk_bvh_pairs(&bvh, NULL, &reference, &reference_count, UINT32_MAX),
                             VXK_OK);
            for (int w = 0; w < 5; ++w) {
                const vxk_bvh_pair* pairs = NULL;
                uint32_t count = 0;
                VXK_CHECK_EQ_INT(
                    vxk_bvh_tracker_update(&trackers[w], jobs[w], &pairs, &count, boxes, m, 0.3f),
                    VXK_OK);
                VXK_CHECK_EQ_U64(count, reference_count);
                VXK_CHECK_MSG(!count || memcmp(pairs, reference, count * sizeof(*pairs)) == 0,
                              "scene %d frame %d: tracker on %u workers differs", s, f,
                              w ? workers[w - 1] : 0);
            }
            vxk_bvh_pairs_free(reference, reference_count);
            vxk_bvh_free(&bvh);
            move_tracked(boxes, velocity, n, &rng);
        }
        for (int w = 0; w < 5; ++w)
            vxk_bvh_tracker_free(&trackers[w]);
    }
    free(boxes);
    free(velocity);
    for (int w = 1; w < 5; ++w)
        vxk_jobs_destroy(jobs[w]);
    return 0;
}

// Boxes circling back and forth: once the buffers have grown to the motion's needs, updates
// allocate nothing (allocations counted through the hook).
static int test_tracker_steady(void)
{
    uint64_t rng = vxk_test_seed(0x57EAu);
    uint32_t n = 2000;
    vxk_aabb* start = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_aabb* boxes = (vxk_aabb*)malloc(n * sizeof(vxk_aabb));
    vxk_vec3* amplitude = (vxk_vec3*)malloc(n * sizeof(vxk_vec3));
    make_scene(start, n, 0, &rng);
    for (uint32_t i = 0; i < n; ++i)
        amplitude[i] = rand_vec(&rng, -3.0f, 3.0f);
    vxk_bvh_tracker tracker = {0};
    const int period = 40;
    uint64_t allocations = 0;
    for (int f = 0; f < 6 * period; ++f) {
        float phase = sinf(6.2831853f * (float)f / (float)period);
        for (uint32_t i = 0; i < n; ++i) {
            vxk_vec3 d = {amplitude[i].x * phase, amplitude[i].y * phase, amplitude[i].z * phase};
            boxes[i] =
                (vxk_aabb){{start[i].min.x + d.x, start[i].min.y + d.y, start[i].min.z + d.z},
                           {start[i].max.x + d.x, start[i].max.y + d.y, start[i].max.z + d.z}};
        }
        const vxk_bvh_pair* pairs = NULL;
        uint32_t count = 0;
        bool counted = f >= 4 * period;
        if (counted)
            fa_arm(UINT64_MAX, false);
        vxk_status st = vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, n, 0.1f);
        if (counted)
            allocations += fa_disarm();
        VXK_CHECK_EQ_INT(st, VXK_OK);
        if (f % 20 == 0 && check_tracker_pairs(pairs, count, boxes, n, "steady", 0, f))
            return 1;
    }
    vxk_bvh_tracker_stats stats;
    vxk_bvh_tracker_get_stats(&tracker, &stats);
    VXK_CHECK_EQ_U64(stats.restarts, 1);
    VXK_CHECK_MSG(allocations == 0, "%llu allocations in steady state",
                  (unsigned long long)allocations);
    vxk_bvh_tracker_free(&tracker);
    free(start);
    free(boxes);
    free(amplitude);
    return 0;
}

static int test_tracker_errors(void)
{
    vxk_aabb boxes[16];
    uint64_t rng = vxk_test_seed(0xE77u);
    make_scene(boxes, 16, 1, &rng);
    vxk_bvh_tracker tracker = {0};
    const vxk_bvh_pair* pairs = (const vxk_bvh_pair*)boxes;
    uint32_t count = 9;
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(NULL, NULL, &pairs, &count, boxes, 16, 0.1f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(pairs == NULL && count == 0);
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, NULL, &count, boxes, 16, 0.1f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, NULL, boxes, 16, 0.1f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, NULL, 16, 0.1f),
                     VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK_EQ_INT(
        vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, (1u << 30) + 1, 0.1f),
        VXK_ERR_INVALID_ARGUMENT);
    const float bad_pads[4] = {-0.5f, f_nan(), INFINITY, -INFINITY};
    for (int k = 0; k < 4; ++k)
        VXK_CHECK_EQ_INT(
            vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, 16, bad_pads[k]),
            VXK_ERR_INVALID_ARGUMENT);
    VXK_CHECK(tracker.valid == false && tracker.candidates == NULL);
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, NULL, 0, 0.1f), VXK_OK);
    VXK_CHECK(pairs == NULL && count == 0);

    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, 16, 0.1f),
                     VXK_OK);
    VXK_CHECK(check_tracker_pairs(pairs, count, boxes, 16, "errors", 0, 0) == 0);
    // Bad boxes, on a start and on an incremental update: nothing changes.
    for (int start = 0; start < 2; ++start) {
        for (int k = 0; k < SPECIAL_FLOATS + 3; ++k) {
            vxk_aabb bad[16];
            memcpy(bad, boxes, sizeof(bad));
            vxk_status want;
            if (k < SPECIAL_FLOATS) {
                float f = special_float(k);
                if (isfinite(f))
                    continue;
                ((float*)&bad[k % 16])[k % 6] = f;
                want = VXK_ERR_NOT_FINITE;
            } else { // min > max on one axis, inside the padded box
                float* lo = (float*)&bad[7].min + (k - SPECIAL_FLOATS);
                float* hi = (float*)&bad[7].max + (k - SPECIAL_FLOATS);
                float mid = *lo * 0.5f + *hi * 0.5f;
                *lo = mid + 0.01f;
                *hi = mid - 0.01f;
                want = VXK_ERR_INVALID_ARGUMENT;
            }
            vxk_bvh_tracker_stats before, after;
            vxk_bvh_tracker_get_stats(&tracker, &before);
            VXK_CHECK_EQ_INT(
                vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, bad, start ? 15 : 16, 0.1f),
                want);
            VXK_CHECK(pairs == NULL && count == 0);
            VXK_CHECK_EQ_INT(
                vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, 16, 0.1f), VXK_OK);
            VXK_CHECK(check_tracker_pairs(pairs, count, boxes, 16, "after error", k, start) == 0);
            vxk_bvh_tracker_get_stats(&tracker, &after);
            VXK_CHECK_EQ_U64(after.restarts, before.restarts); // the error changed nothing
        }
    }
    vxk_bvh_tracker_stats stats;
    vxk_bvh_tracker_get_stats(&tracker, &stats);
    vxk_bvh_tracker_reset(&tracker);
    VXK_CHECK_EQ_INT(vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, boxes, 16, 0.1f),
                     VXK_OK);
    vxk_bvh_tracker_stats after_reset;
    vxk_bvh_tracker_get_stats(&tracker, &after_reset);
    VXK_CHECK_EQ_U64(after_reset.restarts, stats.restarts + 1);
    VXK_CHECK(vxk_bvh_tracker_bytes(&tracker) > 0);
    vxk_bvh_tracker_free(&tracker);
    vxk_bvh_tracker_reset(NULL);
    vxk_bvh_tracker_free(NULL);
    vxk_bvh_tracker_get_stats(NULL, &stats);
    VXK_CHECK(stats.frames == 0 && vxk_bvh_tracker_bytes(NULL) == 0);
    return 0;
}

// Out of memory on a start and on incremental updates that grow every buffer: the error is
// VXK_ERR_OUT_OF_MEMORY and the next update gives the right pairs.
static int test_tracker_oom(void)
{
    vxk_aabb sparse[150], dense[150], deep[100];
    uint64_t rng = vxk_test_seed(0x0DDu);
    make_scene(sparse, 150, 0, &rng);
    make_scene(dense, 150, 1, &rng);
    deep_scene(deep, 100);
    size_t base = vxk_allocated_bytes();
    vxk_bvh_tracker tracker;
    const vxk_bvh_pair* pairs;
    uint32_t count;
    for (int c = 0; c < 3; ++c) {
        const vxk_aabb* first = c == 2 ? deep : sparse;
        const vxk_aabb* then = c == 0 ? sparse : c == 1 ? dense : deep;
        uint32_t n = c == 2 ? 100 : 150;
        OOM_SWEEP(
            {
                memset(&tracker, 0, sizeof(tracker));
                if (c > 0)
                    VXK_CHECK_EQ_INT(
                        vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, first, n, 0.1f),
                        VXK_OK);
            },
            vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, then, n, c == 2 ? 0.2f : 0.1f),
            {
                if (st != VXK_OK) {
                    VXK_CHECK_EQ_INT(st, VXK_ERR_OUT_OF_MEMORY);
                    VXK_CHECK(pairs == NULL && count == 0);
                    VXK_CHECK_EQ_INT(
                        vxk_bvh_tracker_update(&tracker, NULL, &pairs, &count, then, n, 0.1f),
                        VXK_OK);
                }
                VXK_CHECK(check_tracker_pairs(pairs, count, then, n, "oom", c, 0) == 0);
            },
            {
                vxk_bvh_tracker_free(&tracker);
                VXK_CHECK_EQ_U64(vxk_allocated_bytes(), base);
            });
    }
    return 0;
}

int main(void)
{
    VXK_RUN(test_swept_box);
    VXK_RUN(test_random_scenes);
    VXK_RUN(test_deep_tree);
    VXK_RUN(test_worker_counts);
    VXK_RUN(test_tracker_scenes);
    VXK_RUN(test_tracker_workers);
    vxk_edge_tests_begin();
    VXK_RUN(test_errors);
    VXK_RUN(test_tracker_errors);
    vxk_oom_tests_begin();
    VXK_RUN(test_tracker_steady);
    VXK_RUN_SWEEP(test_oom);
    VXK_RUN_SWEEP(test_tracker_oom);
    vxk_oom_tests_end();
    vxk_edge_tests_end();
    return vxk_test_finish();
}
